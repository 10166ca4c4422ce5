package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// target resolves and plans the table a write changes.
func (r *rewrite) target(ate *sqlparser.AliasedTableExpr, sc *scope) (*tableRef, error) {
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, rewriter.Unsupported("writing to a derived table is not supported")
	}
	if tn.Qualifier.IsEmpty() && sc.isCTE(tn.Name.String()) {
		return nil, rewriter.Unsupported("writing to a CTE is not supported")
	}
	t, err := r.resolve(tn)
	if err != nil {
		return nil, err
	}
	plan, err := r.plan(t, policy.Update)
	if err != nil {
		return nil, err
	}
	ate.Expr = qualified(t)
	r.sanctioned[ate] = true
	ref := &tableRef{alias: t.Table, table: t, plan: plan, qualifier: qualified(t)}
	if !ate.As.IsEmpty() {
		ref.alias = ate.As.String()
		ref.qualifier = sqlparser.TableName{Name: ate.As}
	}
	// A write that must respect masks or filters needs the columns.
	if !plan.Passthrough() && plan.All == nil {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "columns unknown"}
	}
	return ref, nil
}

// restricted refuses writing a restricted column.
func restricted(ref *tableRef, col string) error {
	if pol, ok := ref.plan.RestrictedBy(col); ok {
		return &rewriter.Error{Kind: policy.ErrColumnDenied, Table: ref.table.String(), Column: col, Policy: pol}
	}
	return nil
}

// filterExpr is the target's row filter as an expression over the raw
// columns, or nil when it has none.
func (r *rewrite) filterExpr(ref *tableRef) (sqlparser.Expr, error) {
	text, err := ref.plan.FilterSQL(Syntax)
	if err != nil || text == "" {
		return nil, err
	}
	e, err := parseExpr(text)
	if err != nil {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(), Detail: "row filter is not a single SQL expression"}
	}
	if err := r.policyExprs(ref.plan, ref.qualifier, e, nil); err != nil {
		return nil, err
	}
	return e, nil
}

// andWhere puts the policy's filter e before the statement's own condition,
// so that a server evaluating left to right rejects a hidden row before an
// application expression sees it. Placeholders keep their order: the
// filter has none.
func andWhere(w *sqlparser.Where, e sqlparser.Expr) *sqlparser.Where {
	if e == nil {
		return w
	}
	if w == nil || w.Expr == nil {
		return sqlparser.NewWhere(sqlparser.WhereClause, e)
	}
	return sqlparser.NewWhere(sqlparser.WhereClause, &sqlparser.AndExpr{Left: e, Right: w.Expr})
}

// updateExprs checks the assigned columns and rewrites the assigned values.
func (r *rewrite) updateExprs(ues sqlparser.UpdateExprs, ref *tableRef, sc *scope) error {
	for _, ue := range ues {
		if q := ue.Name.Qualifier; !q.IsEmpty() && !strings.EqualFold(q.Name.String(), ref.alias) {
			return rewriter.Unsupported("assignment to a column of another table")
		}
		if err := restricted(ref, ue.Name.Name.String()); err != nil {
			return err
		}
		if !ue.Name.Qualifier.IsEmpty() {
			ue.Name.Qualifier = ref.qualifier
		}
		if err := r.exprs(ue, sc, func(n, parent sqlparser.SQLNode) bool { return n == ue.Name }); err != nil {
			return err
		}
	}
	return nil
}

func singleTarget(tes []sqlparser.TableExpr) (*sqlparser.AliasedTableExpr, bool) {
	if len(tes) != 1 {
		return nil, false
	}
	ate, ok := tes[0].(*sqlparser.AliasedTableExpr)
	return ate, ok
}

func (r *rewrite) update(u *sqlparser.Update, root *scope) error {
	sc := root.child()
	if err := r.with(u.With, sc); err != nil {
		return err
	}
	ate, ok := singleTarget(u.TableExprs)
	if !ok {
		return rewriter.Unsupported("multi-table UPDATE is not supported")
	}
	ref, err := r.target(ate, sc)
	if err != nil {
		return err
	}
	sc.tables = []*tableRef{ref}
	sc.target = ref
	if err := r.updateExprs(u.Exprs, ref, sc); err != nil {
		return err
	}
	return r.whereAndOrder(&u.Where, u.OrderBy, ref, sc)
}

func (r *rewrite) delete(d *sqlparser.Delete, root *scope) error {
	sc := root.child()
	if err := r.with(d.With, sc); err != nil {
		return err
	}
	ate, ok := singleTarget(d.TableExprs)
	if !ok || len(d.Targets) > 0 {
		return rewriter.Unsupported("multi-table DELETE is not supported")
	}
	ref, err := r.target(ate, sc)
	if err != nil {
		return err
	}
	sc.tables = []*tableRef{ref}
	sc.target = ref
	return r.whereAndOrder(&d.Where, d.OrderBy, ref, sc)
}

// whereAndOrder rewrites a write's WHERE and ORDER BY (masked columns read
// masked) and ANDs the target's row filter, which reads raw columns.
func (r *rewrite) whereAndOrder(where **sqlparser.Where, order sqlparser.OrderBy, ref *tableRef, sc *scope) error {
	if *where != nil {
		if err := r.exprs(*where, sc, nil); err != nil {
			return err
		}
	}
	if order != nil {
		if err := r.exprs(order, sc, nil); err != nil {
			return err
		}
	}
	f, err := r.filterExpr(ref)
	if err != nil {
		return err
	}
	*where = andWhere(*where, f)
	return nil
}

func (r *rewrite) insert(ins *sqlparser.Insert, root *scope) error {
	sc := root.child()
	ref, err := r.target(ins.Table, sc)
	if err != nil {
		return err
	}
	filtered := len(ref.plan.Decision.RowFilters) > 0
	if filtered && ins.Action == sqlparser.ReplaceAct {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(),
			Detail: "REPLACE into a row-filtered table could replace rows the filter hides"}
	}
	if filtered && len(ins.OnDup) > 0 {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(),
			Detail: "ON DUPLICATE KEY UPDATE on a row-filtered table could update rows the filter hides"}
	}
	if len(ins.Columns) == 0 && len(ref.plan.Decision.Restricted) > 0 {
		for _, c := range ref.plan.All {
			if err := restricted(ref, c.Name); err != nil {
				return err
			}
		}
	}
	for _, col := range ins.Columns {
		if err := restricted(ref, col.String()); err != nil {
			return err
		}
	}
	switch rows := ins.Rows.(type) {
	case sqlparser.Values:
		if err := r.exprs(rows, sc, nil); err != nil {
			return err
		}
	case sqlparser.TableStatement:
		if err := r.tableStatement(rows, sc); err != nil {
			return err
		}
	default:
		return rewriter.Unsupported("INSERT form %T is not supported", ins.Rows)
	}
	if ins.RowAlias != nil {
		return rewriter.Unsupported("INSERT … AS row alias is not supported")
	}
	if len(ins.OnDup) > 0 {
		dsc := sc.child()
		dsc.tables = []*tableRef{ref}
		dsc.target = ref
		if err := r.updateExprs(sqlparser.UpdateExprs(ins.OnDup), ref, dsc); err != nil {
			return err
		}
	}
	return nil
}
