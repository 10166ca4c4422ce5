package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// flatten rewrites a SELECT over a single table under a mask or column
// policy without a derived table: masked columns are replaced by their
// mask expressions wherever the statement reads them and * is expanded to
// the visible columns; a row filter is ANDed in front of the WHERE. It is
// the same result as the derived-table form (a mask is computed only on
// the rows the filter admits, as there) (the real-database suites
// check the shapes it covers) at a lower cost to the server, and applies
// only where that is evident: one base table, no subquery, no output alias
// that could be confused with a column, and no row filter that needs the
// fence (see needsFence). done is false when the statement does not
// qualify and must take the general path.
func (r *rewrite) flatten(s *sqlparser.Select, sc *scope) (done bool, err error) {
	if len(s.From) != 1 || s.Into != nil || sc.policy {
		return false, nil
	}
	ate, ok := s.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || len(ate.Columns) > 0 {
		return false, nil
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok || (tn.Qualifier.IsEmpty() && (tn.Name.String() == "dual" || sc.isCTE(tn.Name.String()))) {
		return false, nil
	}
	if hasSubquery(s) {
		return false, nil
	}
	t, err := r.resolve(tn)
	if err != nil {
		return false, err
	}
	plan, err := r.plan(t, policy.Select)
	if err != nil {
		return false, err
	}
	if plan.Passthrough() || aliasShadowsColumn(s, plan) {
		return false, nil
	}
	// A statement (the whole query, not a subquery of one) whose only
	// conditions that can fail on a value are conjuncts of its WHERE keeps
	// its table flat, those conjuncts guarded by the table's filter, when
	// the filter is simple (it is then the guard of the masks too, and the
	// fence rule asks only whether the statement can fail).
	var fallible []int
	if r.needsFence(plan, sc) {
		var ok bool
		fallible, ok = guardableConditions(s)
		if r.top != sqlparser.TableStatement(s) || !ok || len(fallible) == 0 || !simpleFilter(plan) ||
			len(plan.Decision.RowFilters) == 0 {
			return false, nil
		}
	}
	r.AddRead(t)
	ref := &tableRef{alias: t.Table, table: t, plan: plan, qualifier: qualified(t)}
	if !ate.As.IsEmpty() {
		ref.alias = ate.As.String()
		ref.qualifier = sqlparser.TableName{Name: ate.As}
	}
	ate.Expr = qualified(t)
	r.Sanction(ate)
	sc.tables = []*tableRef{ref}
	sc.targets = []*tableRef{ref}
	f, err := r.filterExpr(ref)
	if err != nil {
		return true, err
	}
	if f != nil && simpleFilter(plan) {
		ref.guard = f
	}

	if err := r.expandStars(s, ref); err != nil {
		return true, err
	}
	// A masked column selected by name keeps its name as the output label.
	for _, se := range s.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			continue
		}
		if c, ok := ae.Expr.(*sqlparser.ColName); ok {
			if _, masked := plan.Mask(c.Name.String()); masked {
				ae.As = sqlparser.NewIdentifierCI(c.Name.String())
			}
		}
	}
	if err := r.exprs(s, sc, func(n, parent sqlparser.SQLNode) bool {
		if parent != s {
			return false
		}
		switch n.(type) {
		case *sqlparser.With, sqlparser.TableExpr:
			return true
		}
		return false
	}); err != nil {
		return true, err
	}
	if len(fallible) > 0 {
		s.Where.Expr = guardConjuncts(s.Where.Expr, fallible, func(sqlparser.Expr) sqlparser.Expr { return deepClone(f) })
	}
	s.Where = andWhere(s.Where, f)
	return true, nil
}

// guardConjuncts rebuilds the conjunction e with the conjuncts at the
// given positions as CASE WHEN guard THEN conjunct ELSE FALSE END, guard
// being guardOf(conjunct) (nil: the conjunct stays as it is): the server
// evaluates them only on rows the guard (the filters of the tables they
// read) admits, and drops the row otherwise, as the filters do. The
// other conjuncts stay as they are, so that indexes still serve them.
func guardConjuncts(e sqlparser.Expr, positions []int, guardOf func(conjunct sqlparser.Expr) sqlparser.Expr) sqlparser.Expr {
	conj := splitAnd(e, nil)
	for _, i := range positions {
		if guard := guardOf(conj[i]); guard != nil {
			conj[i] = &sqlparser.CaseExpr{
				Whens: []*sqlparser.When{{Cond: guard, Val: conj[i]}},
				Else:  sqlparser.BoolVal(false),
			}
		}
	}
	out := conj[0]
	for _, c := range conj[1:] {
		out = &sqlparser.AndExpr{Left: out, Right: c}
	}
	return out
}

// expandStars replaces * and t.* by the visible columns of the table.
func (r *rewrite) expandStars(s *sqlparser.Select, ref *tableRef) error {
	var out []sqlparser.SelectExpr
	for _, se := range s.SelectExprs.Exprs {
		star, ok := se.(*sqlparser.StarExpr)
		if !ok {
			out = append(out, se)
			continue
		}
		if q := star.TableName; !q.IsEmpty() && !strings.EqualFold(q.Name.String(), ref.alias) {
			return rewriter.Unsupported("%s.* names no table of the statement", q.Name.String())
		}
		for _, c := range ref.plan.Columns {
			col := &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(c.Name), Qualifier: ref.qualifier}
			ae := &sqlparser.AliasedExpr{Expr: col}
			if _, masked := ref.plan.Mask(c.Name); masked {
				ae.As = sqlparser.NewIdentifierCI(c.Name)
			}
			out = append(out, ae)
		}
	}
	s.SelectExprs.Exprs = out
	return nil
}

// hasSubquery reports whether the statement contains another query.
func hasSubquery(s *sqlparser.Select) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.ColName:
			return false, nil
		case *sqlparser.Subquery, *sqlparser.DerivedTable, *sqlparser.Union:
			found = true
			return false, nil
		case *sqlparser.Select:
			if n != s {
				found = true
				return false, nil
			}
		}
		return true, nil
	}, s)
	return found
}

// aliasShadowsColumn reports whether an output alias names a column of the
// table while selecting something else (ORDER BY and HAVING could then
// mean the alias where the flattened form would read the column).
func aliasShadowsColumn(s *sqlparser.Select, plan *rewriter.TablePlan) bool {
	for _, se := range s.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || ae.As.IsEmpty() {
			continue
		}
		if _, isCol := plan.Column(ae.As.String()); !isCol {
			continue
		}
		c, ok := ae.Expr.(*sqlparser.ColName)
		if !ok || !c.Name.EqualString(ae.As.String()) {
			return true
		}
	}
	return false
}
