package mysql

import "vitess.io/vitess/go/vt/sqlparser"

// A mask that is NULL exactly when its column is reports the column's
// nullability on MariaDB as IFNULL(mask, col = col) (udf.MaskSQL): IFNULL
// takes its nullability from its second argument. A guard around it,
// CASE WHEN filter THEN mask END, is nullable to MariaDB again, so the
// guard goes inside instead: IFNULL(CASE WHEN filter THEN mask END,
// col = col). Where the filter holds the value is the mask's; where it
// does not (a hidden row, which the filter then removes) it is
// col = col, 1 or NULL, which cannot fail and is no part of the value.

// guardMask is the masked column e computed only where guard holds.
func guardMask(guard, e sqlparser.Expr) sqlparser.Expr {
	return hoistNullability(&sqlparser.CaseExpr{Whens: []*sqlparser.When{{Cond: deepClone(guard), Val: e}}})
}

// hoistNullability turns CASE WHEN g THEN IFNULL(m, c = c) END into
// IFNULL(CASE WHEN g THEN m END, c = c); any other expression is
// returned as it is.
func hoistNullability(e sqlparser.Expr) sqlparser.Expr {
	c, ok := e.(*sqlparser.CaseExpr)
	if !ok || c.Expr != nil || c.Else != nil || len(c.Whens) != 1 {
		return e
	}
	m, self, ok := nullableAsColumn(c.Whens[0].Val)
	if !ok {
		return e
	}
	c.Whens[0].Val = m
	return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("IFNULL"), Exprs: []sqlparser.Expr{c, self}}
}

// nullableAsColumn reads e as IFNULL(m, c = c) over one column c.
func nullableAsColumn(e sqlparser.Expr) (m, self sqlparser.Expr, ok bool) {
	f, isFunc := e.(*sqlparser.FuncExpr)
	if !isFunc || !f.Qualifier.IsEmpty() || !f.Name.EqualString("ifnull") || len(f.Exprs) != 2 {
		return nil, nil, false
	}
	cmp, isCmp := f.Exprs[1].(*sqlparser.ComparisonExpr)
	if !isCmp || cmp.Operator != sqlparser.EqualOp || cmp.Escape != nil {
		return nil, nil, false
	}
	l, lok := cmp.Left.(*sqlparser.ColName)
	r, rok := cmp.Right.(*sqlparser.ColName)
	if !lok || !rok || !sqlparser.Equals.RefOfColName(l, r) {
		return nil, nil, false
	}
	return f.Exprs[0], cmp, true
}

// hoistGuardedMasks applies hoistNullability to each column of a read
// form (rewriter.TablePlan.DerivedSelect).
func hoistGuardedMasks(sel *sqlparser.Select) {
	for _, se := range sel.GetColumns() {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok {
			ae.Expr = hoistNullability(ae.Expr)
		}
	}
}
