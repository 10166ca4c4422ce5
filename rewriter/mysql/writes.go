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
	r.Sanction(ate)
	ref := &tableRef{alias: t.Table, table: t, plan: plan, qualifier: qualified(t), ate: ate}
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
	e, ok, err := rewriter.ParseFilter(ref.plan, Syntax, parseExpr)
	if !ok {
		return nil, err
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
		if err := r.assignment(ue, ref, sc); err != nil {
			return err
		}
	}
	return nil
}

// assignment checks one assigned column of ref and rewrites its value.
func (r *rewrite) assignment(ue *sqlparser.UpdateExpr, ref *tableRef, sc *scope) error {
	if err := restricted(ref, ue.Name.Name.String()); err != nil {
		return err
	}
	if !ue.Name.Qualifier.IsEmpty() {
		ue.Name.Qualifier = ref.qualifier
	}
	return r.exprs(ue, sc, func(n, parent sqlparser.SQLNode) bool { return n == ue.Name })
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
		return r.multiUpdate(u, sc)
	}
	ref, err := r.target(ate, sc)
	if err != nil {
		return err
	}
	sc.tables = []*tableRef{ref}
	sc.targets = []*tableRef{ref}
	if err := r.updateExprs(u.Exprs, ref, sc); err != nil {
		return err
	}
	if err := r.updateChecks(u.Exprs, ref); err != nil {
		return err
	}
	if err := checkLimit(u.Limit); err != nil {
		return err
	}
	return r.whereAndOrder(&u.Where, u.OrderBy, []*tableRef{ref}, sc)
}

func (r *rewrite) delete(d *sqlparser.Delete, root *scope) error {
	sc := root.child()
	if err := r.with(d.With, sc); err != nil {
		return err
	}
	ate, ok := singleTarget(d.TableExprs)
	if !ok || len(d.Targets) > 0 {
		return r.multiDelete(d, sc)
	}
	ref, err := r.target(ate, sc)
	if err != nil {
		return err
	}
	sc.tables = []*tableRef{ref}
	sc.targets = []*tableRef{ref}
	if err := checkLimit(d.Limit); err != nil {
		return err
	}
	if err := r.whereAndOrder(&d.Where, d.OrderBy, []*tableRef{ref}, sc); err != nil {
		return err
	}
	return r.returningOf(ref, sc)
}

// writeEntry is a named base table in the FROM of a multi-table write.
type writeEntry struct {
	ate   *sqlparser.AliasedTableExpr
	name  sqlparser.TableName
	alias string
}

// writeEntries lists the named tables of a multi-table write's FROM, in
// order; CTE references are not tables.
func writeEntries(tes []sqlparser.TableExpr, sc *scope) []writeEntry {
	var out []writeEntry
	var visit func(te sqlparser.TableExpr)
	visit = func(te sqlparser.TableExpr) {
		switch t := te.(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := t.Expr.(sqlparser.TableName)
			if !ok || (tn.Qualifier.IsEmpty() && sc.isCTE(tn.Name.String())) {
				return
			}
			alias := t.As.String()
			if alias == "" {
				alias = tn.Name.String()
			}
			out = append(out, writeEntry{ate: t, name: tn, alias: alias})
		case *sqlparser.JoinTableExpr:
			visit(t.LeftExpr)
			visit(t.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, e := range t.Exprs {
				visit(e)
			}
		}
	}
	for _, te := range tes {
		visit(te)
	}
	return out
}

// multiUpdate rewrites UPDATE t1 JOIN t2 … SET …: every table a SET
// assigns to is a target (kept as the base table, update access, its row
// filter ANDed to the WHERE, its masked columns read masked wherever the
// statement reads them); every other table is read through its policy's
// derived table.
func (r *rewrite) multiUpdate(u *sqlparser.Update, sc *scope) error {
	if len(u.OrderBy) > 0 || u.Limit != nil {
		return rewriter.Unsupported("ORDER BY or LIMIT in a multi-table UPDATE")
	}
	entries := writeEntries(u.TableExprs, sc)
	owners := make([]*writeEntry, len(u.Exprs))
	for i, ue := range u.Exprs {
		e, err := r.assignedEntry(ue.Name, entries)
		if err != nil {
			return err
		}
		owners[i] = e
	}
	sc.writeTargets = map[*sqlparser.AliasedTableExpr]bool{}
	for _, e := range owners {
		sc.writeTargets[e.ate] = true
	}
	if err := r.writeFrom(u.TableExprs, sc); err != nil {
		return err
	}
	for i, ue := range u.Exprs {
		ref := sc.targetFor(owners[i].ate)
		if ref == nil {
			return rewriter.Unsupported("multi-table UPDATE target not found")
		}
		// Every assigned column names its table, so that the statement
		// says which tables it writes.
		ue.Name.Qualifier = ref.qualifier
		if err := r.assignment(ue, ref, sc); err != nil {
			return err
		}
	}
	for _, ref := range sc.targets {
		var ues []*sqlparser.UpdateExpr
		for i, ue := range u.Exprs {
			if sc.targetFor(owners[i].ate) == ref {
				ues = append(ues, ue)
			}
		}
		if err := r.updateChecks(ues, ref); err != nil {
			return err
		}
	}
	if err := r.guardJoins(u.TableExprs, sc); err != nil {
		return err
	}
	return r.whereAndOrder(&u.Where, nil, sc.targets, sc)
}

// multiDelete rewrites DELETE t1, t2 FROM … and DELETE FROM t1 USING …:
// the listed tables are targets, the others are read through their
// policies.
func (r *rewrite) multiDelete(d *sqlparser.Delete, sc *scope) error {
	if len(d.OrderBy) > 0 || d.Limit != nil {
		return rewriter.Unsupported("ORDER BY or LIMIT in a multi-table DELETE")
	}
	entries := writeEntries(d.TableExprs, sc)
	sc.writeTargets = map[*sqlparser.AliasedTableExpr]bool{}
	for _, tn := range d.Targets {
		e, err := deleteEntry(tn, entries)
		if err != nil {
			return err
		}
		sc.writeTargets[e.ate] = true
	}
	if len(sc.writeTargets) == 0 {
		return rewriter.Unsupported("DELETE without a target table")
	}
	if err := r.writeFrom(d.TableExprs, sc); err != nil {
		return err
	}
	for i, tn := range d.Targets {
		e, _ := deleteEntry(tn, entries)
		ref := sc.targetFor(e.ate)
		if ref == nil {
			return rewriter.Unsupported("multi-table DELETE target not found")
		}
		// The target list names the tables as the FROM does.
		if e.ate.As.IsEmpty() {
			d.Targets[i] = ref.qualifier
		} else {
			d.Targets[i] = sqlparser.TableName{Name: e.ate.As}
		}
	}
	if err := r.guardJoins(d.TableExprs, sc); err != nil {
		return err
	}
	return r.whereAndOrder(&d.Where, nil, sc.targets, sc)
}

// writeFrom rewrites the FROM of a multi-table write in place.
func (r *rewrite) writeFrom(tes []sqlparser.TableExpr, sc *scope) error {
	for i, te := range tes {
		nte, err := r.tableExpr(te, sc)
		if err != nil {
			return err
		}
		tes[i] = nte
	}
	return r.checkAliases(sc)
}

func (s *scope) targetFor(ate *sqlparser.AliasedTableExpr) *tableRef {
	for _, t := range s.targets {
		if t.ate == ate {
			return t
		}
	}
	return nil
}

// assignedEntry finds the table a SET column of a multi-table UPDATE
// belongs to: the one its qualifier names, or the only table that has a
// column of that name.
func (r *rewrite) assignedEntry(col *sqlparser.ColName, entries []writeEntry) (*writeEntry, error) {
	if q := col.Qualifier; !q.IsEmpty() {
		for i := range entries {
			e := &entries[i]
			if !strings.EqualFold(e.alias, q.Name.String()) {
				continue
			}
			if !q.Qualifier.IsEmpty() && (!e.ate.As.IsEmpty() || !strings.EqualFold(e.name.Qualifier.String(), q.Qualifier.String()) && e.name.Qualifier.String() != "") {
				continue
			}
			return e, nil
		}
		return nil, rewriter.Unsupported("SET %s names no table of the UPDATE", sqlparser.String(col))
	}
	var found *writeEntry
	for i := range entries {
		e := &entries[i]
		t, err := r.resolve(e.name)
		if err != nil {
			return nil, err
		}
		if r.Req.Catalog == nil {
			break
		}
		cols, ok, err := r.Req.Catalog.Columns(r.Ctx, t)
		if err != nil || !ok {
			continue
		}
		for _, c := range cols {
			if strings.EqualFold(c.Name, col.Name.String()) {
				if found != nil {
					return nil, rewriter.Unsupported("qualify the assigned column %s of a multi-table UPDATE", col.Name.String())
				}
				found = e
				break
			}
		}
	}
	if found == nil {
		return nil, rewriter.Unsupported("qualify the assigned column %s of a multi-table UPDATE", col.Name.String())
	}
	return found, nil
}

// deleteEntry finds the FROM entry a DELETE target names.
func deleteEntry(tn sqlparser.TableName, entries []writeEntry) (*writeEntry, error) {
	var found *writeEntry
	for i := range entries {
		e := &entries[i]
		if !strings.EqualFold(e.alias, tn.Name.String()) {
			continue
		}
		if !tn.Qualifier.IsEmpty() && (!e.ate.As.IsEmpty() || !strings.EqualFold(e.name.Qualifier.String(), tn.Qualifier.String())) {
			continue
		}
		if found != nil {
			return nil, rewriter.Unsupported("DELETE target %s names several tables", sqlparser.String(tn))
		}
		found = e
	}
	if found == nil {
		return nil, rewriter.Unsupported("DELETE target %s names no table of the statement", sqlparser.String(tn))
	}
	return found, nil
}

// whereAndOrder rewrites a write's WHERE and ORDER BY (masked columns read
// masked) and puts the targets' row filters, which read raw columns, in
// front of it. The statement's own condition is guarded by the filters
// (CASE WHEN filters THEN condition ELSE FALSE END): the server may
// evaluate conditions in any order (index condition pushdown, semi-joins),
// and the application's condition must never see a row the filters hide,
// or an expression that fails on one value would tell what the row holds.
func (r *rewrite) whereAndOrder(where **sqlparser.Where, order sqlparser.OrderBy, targets []*tableRef, sc *scope) error {
	// The columns the condition reads, as the application wrote it
	// (before its masked columns become masks).
	var conds rewriter.ConditionColumns
	if *where != nil {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if c, ok := n.(*sqlparser.ColName); ok {
				conds.Add(c.Name.String())
			}
			return true, nil
		}, *where)
		if err := r.exprs(*where, sc, nil); err != nil {
			return err
		}
	}
	if order != nil {
		if err := r.exprs(order, sc, nil); err != nil {
			return err
		}
	}
	filters, err := r.targetFilters(targets)
	if err != nil || filters == nil {
		return err
	}
	if *where != nil && (*where).Expr != nil && r.needsGuard((*where).Expr, targets, &conds) {
		guard, err := r.targetFilters(targets)
		if err != nil {
			return err
		}
		(*where).Expr = guarded(guard, (*where).Expr)
	}
	*where = andWhere(*where, filters)
	return nil
}

// needsGuard asks the core whether a write's condition e (rewritten:
// masked columns already read as their masks) must be guarded by its
// targets' filters; conds are the columns it read as written.
func (r *rewrite) needsGuard(e sqlparser.Expr, targets []*tableRef, conds *rewriter.ConditionColumns) bool {
	plans := make([]*rewriter.TablePlan, len(targets))
	for i, t := range targets {
		plans[i] = t.plan
	}
	if len(targets) != 1 {
		return rewriter.NeedsGuard(plans, false, true, conds)
	}
	return rewriter.NeedsGuard(plans, simpleFilter(targets[0].plan), !safeWriteCondition(e, targets[0]), conds)
}

// safeWriteCondition reports whether a single-table write's condition can
// fail on no row's values, so that it needs no guard and may choose the
// index: it holds only comparisons, IN lists, BETWEEN, LIKE and NULL tests
// whose operands compare without converting a column's value. Under a
// strict sql_mode a write fails where a read only warns (a string column
// compared with a number converts each row's value, and "Truncated
// incorrect DOUBLE value" is an error), so a string column may only meet
// strings, a numeric column anything, and a placeholder, whose type only
// the driver knows, only a numeric column.
func safeWriteCondition(e sqlparser.Expr, target *tableRef) bool {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return safeWriteCondition(x.Left, target) && safeWriteCondition(x.Right, target)
	case *sqlparser.OrExpr:
		return safeWriteCondition(x.Left, target) && safeWriteCondition(x.Right, target)
	case *sqlparser.NotExpr:
		return safeWriteCondition(x.Expr, target)
	case *sqlparser.IsExpr:
		return safeValue(x.Left)
	case *sqlparser.BetweenExpr:
		return comparable(x.Left, x.From, target) && comparable(x.Left, x.To, target)
	case *sqlparser.ComparisonExpr:
		switch x.Operator {
		case sqlparser.LikeOp, sqlparser.NotLikeOp:
			// Both sides are read as strings: no value fails to convert.
			return x.Escape == nil && safeValue(x.Left) && safeValue(x.Right)
		case sqlparser.EqualOp, sqlparser.LessThanOp, sqlparser.GreaterThanOp, sqlparser.LessEqualOp,
			sqlparser.GreaterEqualOp, sqlparser.NotEqualOp, sqlparser.NullSafeEqualOp:
			return comparable(x.Left, x.Right, target)
		case sqlparser.InOp, sqlparser.NotInOp:
			list, ok := x.Right.(sqlparser.ValTuple)
			if !ok {
				return false
			}
			for _, v := range list {
				if !comparable(x.Left, v, target) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// operand kinds for safeWriteCondition.
const (
	kindUnknown = iota
	kindNumber
	kindString
	kindNull
	kindPlaceholder
)

func operandKind(e sqlparser.Expr, target *tableRef) int {
	switch x := e.(type) {
	case *sqlparser.NullVal:
		return kindNull
	case sqlparser.BoolVal:
		return kindNumber
	case *sqlparser.Argument:
		return kindPlaceholder
	case *sqlparser.Literal:
		switch x.Type {
		case sqlparser.IntVal, sqlparser.FloatVal, sqlparser.DecimalVal:
			return kindNumber
		case sqlparser.StrVal:
			return kindString
		}
	case *sqlparser.ColName:
		if !x.Qualifier.IsEmpty() && !strings.EqualFold(x.Qualifier.Name.String(), target.alias) {
			return kindUnknown
		}
		if target.plan == nil {
			return kindUnknown
		}
		c, ok := target.plan.Column(x.Name.String())
		if !ok {
			return kindUnknown
		}
		switch c.DataType {
		case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric", "float", "double", "real", "year":
			return kindNumber
		case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
			return kindString
		}
	}
	return kindUnknown
}

// comparable reports whether comparing a and b converts no column value.
func comparable(a, b sqlparser.Expr, target *tableRef) bool {
	ka, kb := operandKind(a, target), operandKind(b, target)
	if ka == kindUnknown || kb == kindUnknown {
		return false
	}
	if ka == kindNull || kb == kindNull {
		return true
	}
	_, colA := a.(*sqlparser.ColName)
	_, colB := b.(*sqlparser.ColName)
	if !colA && !colB {
		return ka != kindPlaceholder && kb != kindPlaceholder // constants convert once, if at all
	}
	if colA && colB {
		return ka == kb
	}
	col, other := ka, kb
	if colB {
		col, other = kb, ka
	}
	switch col {
	case kindNumber:
		return true
	case kindString:
		return other == kindString
	}
	return false
}

// targetFilters is the conjunction of the targets' row filters (nil when
// none has one); every call builds new nodes.
func (r *rewrite) targetFilters(targets []*tableRef) (sqlparser.Expr, error) {
	var out sqlparser.Expr
	for _, t := range targets {
		f, err := r.filterExpr(t)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if out == nil {
			out = f
		} else {
			out = &sqlparser.AndExpr{Left: out, Right: f}
		}
	}
	return out, nil
}

// guarded is CASE WHEN filter THEN e ELSE FALSE END: e is evaluated only on
// rows the filter admits.
func guarded(filter, e sqlparser.Expr) sqlparser.Expr {
	return &sqlparser.CaseExpr{Whens: []*sqlparser.When{{Cond: filter, Val: e}}, Else: sqlparser.BoolVal(false)}
}

// guardJoins guards the ON conditions of a multi-table write's joins with
// the row filters of the targets inside each join: a join condition is
// evaluated before the WHERE.
func (r *rewrite) guardJoins(tes []sqlparser.TableExpr, sc *scope) error {
	var visit func(te sqlparser.TableExpr) ([]*tableRef, error)
	visit = func(te sqlparser.TableExpr) ([]*tableRef, error) {
		switch t := te.(type) {
		case *sqlparser.AliasedTableExpr:
			if ref := sc.targetFor(t); ref != nil {
				return []*tableRef{ref}, nil
			}
		case *sqlparser.ParenTableExpr:
			var out []*tableRef
			for _, e := range t.Exprs {
				in, err := visit(e)
				if err != nil {
					return nil, err
				}
				out = append(out, in...)
			}
			return out, nil
		case *sqlparser.JoinTableExpr:
			l, err := visit(t.LeftExpr)
			if err != nil {
				return nil, err
			}
			rt, err := visit(t.RightExpr)
			if err != nil {
				return nil, err
			}
			in := append(l, rt...)
			if t.Condition != nil && t.Condition.On != nil {
				f, err := r.targetFilters(in)
				if err != nil {
					return nil, err
				}
				if f != nil {
					t.Condition.On = guarded(f, t.Condition.On)
				}
			}
			return in, nil
		}
		return nil, nil
	}
	for _, te := range tes {
		if _, err := visit(te); err != nil {
			return err
		}
	}
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
	if err := r.insertChecks(ins, ref); err != nil {
		return err
	}
	if len(ins.OnDup) > 0 {
		dsc := sc.child()
		dsc.tables = []*tableRef{ref}
		dsc.targets = []*tableRef{ref}
		if err := r.updateExprs(sqlparser.UpdateExprs(ins.OnDup), ref, dsc); err != nil {
			return err
		}
	}
	return r.returningOf(ref, sc)
}

// checkLimit refuses a LIMIT or OFFSET the server would not take: MySQL
// and MariaDB read an unsigned integer or a placeholder there, the parser
// any expression (LIMIT !0, LIMIT (SELECT …)), which sqe would otherwise
// check as a condition and send.
func checkLimit(l *sqlparser.Limit) error {
	if l == nil {
		return nil
	}
	for _, e := range []sqlparser.Expr{l.Offset, l.Rowcount} {
		switch e := e.(type) {
		case nil, *sqlparser.Argument:
		case *sqlparser.Literal:
			if e.Type != sqlparser.IntVal {
				return rewriter.Unsupported("LIMIT and OFFSET take an unsigned integer or a placeholder")
			}
		default:
			return rewriter.Unsupported("LIMIT and OFFSET take an unsigned integer or a placeholder")
		}
	}
	return nil
}
