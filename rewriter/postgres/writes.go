package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// target resolves, checks and qualifies the table a write changes. A
// write target is never a CTE: the server does not look CTE names up for
// it either.
func (r *rewrite) target(rv *pg.RangeVar) (*tableRef, error) {
	if rv == nil {
		return nil, rewriter.Unsupported("write without a target table")
	}
	t, err := r.resolve(rv, false)
	if err != nil {
		return nil, err
	}
	if systemSchema(t.Schema) {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "system catalogs are not written through sqe"}
	}
	plan, err := r.plan(t, policy.Update)
	if err != nil {
		return nil, err
	}
	rv.Schemaname = t.Schema
	r.Sanction(rv)
	ref := &tableRef{alias: aliasName(rv.Alias, rv.Relname), aliased: rv.Alias != nil, table: t, plan: plan, write: true}
	ref.qualifier = []string{ref.alias}
	// A write that must respect masks or filters needs the columns.
	if !plan.Passthrough() && plan.All == nil {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "columns unknown"}
	}
	return ref, nil
}

// filterExpr is the target's row filter as an expression over the raw
// columns, or nil when it has none.
func (r *rewrite) filterExpr(ref *tableRef) (*pg.Node, error) {
	e, ok, err := rewriter.ParseFilter(ref.plan, Syntax, parseExpr)
	if !ok {
		return nil, err
	}
	holder := &pg.ResTarget{Val: e}
	if err := r.policyExprs(policyBase(ref), holder); err != nil {
		return nil, err
	}
	return holder.Val, nil
}

// andWhere is where AND filter (either may be nil).
func andWhere(where, filter *pg.Node) *pg.Node {
	if filter == nil {
		return where
	}
	if where == nil {
		return filter
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: []*pg.Node{where, filter}}}}
}

// assignments checks the assigned columns of SET and rewrites the values.
func (r *rewrite) assignments(list []*pg.Node, ref *tableRef, sc *scope) error {
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil || rt.Name == "" {
			return rewriter.Unsupported("unexpected SET entry")
		}
		if err := columnDenied(ref, rt.Name); err != nil {
			return err
		}
		for _, ind := range rt.Indirection {
			if err := r.expr(ind, sc); err != nil {
				return err
			}
		}
		if err := r.expr(rt.Val, sc); err != nil {
			return err
		}
	}
	return nil
}

// where rewrites a write's WHERE (masked columns read masked) and ANDs the
// target's row filter, which reads raw columns.
func (r *rewrite) where(where **pg.Node, ref *tableRef, sc *scope) error {
	// Whether the condition needs the guard is decided on it as the
	// application wrote it (before its masked columns become masks).
	var orig *pg.Node
	if *where != nil {
		orig = copyNode(*where)
	}
	if *where != nil {
		if (*where).GetCurrentOfExpr() != nil && !ref.plan.Passthrough() {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(),
				Detail: "WHERE CURRENT OF on a table under policy is not supported"}
		}
		if err := r.expr(*where, sc); err != nil {
			return err
		}
	}
	f, err := r.filterExpr(ref)
	if err != nil || f == nil {
		return err
	}
	if *where != nil && needsGuard(ref, f, orig) {
		// The filter may run after the statement's own condition: guard
		// a condition that can fail on a value, or reads a mask, with it
		// (see fence.go and needsGuard).
		g, err := r.filterExpr(ref)
		if err != nil {
			return err
		}
		*where = guarded(g, *where)
	}
	// The filter goes first: of two conditions of equal cost the server
	// runs the first one first.
	*where = andWhere(f, *where)
	return nil
}

func (r *rewrite) update(u *pg.UpdateStmt, outer *scope) error {
	sc := outer.child()
	if err := r.with(u.WithClause, sc); err != nil {
		return err
	}
	ref, err := r.target(u.Relation)
	if err != nil {
		return err
	}
	for _, item := range u.FromClause {
		if err := r.fromItem(item, sc); err != nil {
			return err
		}
	}
	if err := checkAliases(sc); err != nil {
		return err
	}
	sc.tables = append(sc.tables, ref)
	sc.target = ref
	if err := r.assignments(u.TargetList, ref, sc); err != nil {
		return err
	}
	if err := r.updateChecks(ref, u.TargetList); err != nil {
		return err
	}
	if err := r.where(&u.WhereClause, ref, sc); err != nil {
		return err
	}
	list, err := r.returning(u.ReturningList, ref, sc, len(u.FromClause) > 0)
	if err != nil {
		return err
	}
	u.ReturningList = list
	return nil
}

func (r *rewrite) delete(d *pg.DeleteStmt, outer *scope) error {
	sc := outer.child()
	if err := r.with(d.WithClause, sc); err != nil {
		return err
	}
	ref, err := r.target(d.Relation)
	if err != nil {
		return err
	}
	for _, item := range d.UsingClause {
		if err := r.fromItem(item, sc); err != nil {
			return err
		}
	}
	if err := checkAliases(sc); err != nil {
		return err
	}
	sc.tables = append(sc.tables, ref)
	sc.target = ref
	if err := r.where(&d.WhereClause, ref, sc); err != nil {
		return err
	}
	list, err := r.returning(d.ReturningList, ref, sc, len(d.UsingClause) > 0)
	if err != nil {
		return err
	}
	d.ReturningList = list
	return nil
}

func (r *rewrite) insert(ins *pg.InsertStmt, outer *scope) error {
	sc := outer.child()
	if err := r.with(ins.WithClause, sc); err != nil {
		return err
	}
	ref, err := r.target(ins.Relation)
	if err != nil {
		return err
	}
	oc := ins.OnConflictClause
	if oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE && len(ref.plan.Decision.RowFilters) > 0 {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(), Policy: ref.plan.Decision.RowFilters[0].Policy,
			Detail: "INSERT … ON CONFLICT DO UPDATE on a row-filtered table could update rows the filter hides"}
	}
	if len(ins.Cols) == 0 && ins.SelectStmt != nil && len(ref.plan.Decision.Restricted) > 0 {
		for _, c := range ref.plan.All {
			if err := columnDenied(ref, c.Name); err != nil {
				return err
			}
		}
	}
	for _, n := range ins.Cols {
		rt := n.GetResTarget()
		if rt == nil || rt.Name == "" {
			return rewriter.Unsupported("unexpected INSERT column")
		}
		if err := columnDenied(ref, rt.Name); err != nil {
			return err
		}
		for _, ind := range rt.Indirection {
			if err := r.expr(ind, sc); err != nil {
				return err
			}
		}
	}
	if ins.SelectStmt != nil {
		// The rows are a query of their own: the target is not in its scope.
		if err := r.query(ins.SelectStmt, sc); err != nil {
			return err
		}
	}
	tsc := sc.child()
	tsc.tables = []*tableRef{ref}
	tsc.target = ref
	if oc != nil {
		excluded := &tableRef{alias: "excluded", aliased: true, table: ref.table, plan: ref.plan}
		osc := sc.child()
		osc.tables = []*tableRef{ref, excluded}
		osc.target = ref
		if inf := oc.Infer; inf != nil {
			for _, n := range inf.IndexElems {
				ie := n.GetIndexElem()
				if ie == nil {
					return rewriter.Unsupported("unexpected ON CONFLICT target")
				}
				if ie.Name != "" {
					if err := columnDenied(ref, ie.Name); err != nil {
						return err
					}
				}
				if err := r.expr(ie.Expr, osc); err != nil {
					return err
				}
			}
			if err := r.expr(inf.WhereClause, osc); err != nil {
				return err
			}
		}
		if err := r.assignments(oc.TargetList, ref, osc); err != nil {
			return err
		}
		if err := r.expr(oc.WhereClause, osc); err != nil {
			return err
		}
	}
	if err := r.insertChecks(ref, ins.Cols, ins.SelectStmt, nil); err != nil {
		return err
	}
	list, err := r.returning(ins.ReturningList, ref, tsc, false)
	if err != nil {
		return err
	}
	ins.ReturningList = list
	return nil
}

// returning rewrites a RETURNING list so that it returns what the caller
// may read: masked columns masked, restricted ones never; a star over the
// target is expanded to its visible columns. others is set when the write
// has other sources (UPDATE … FROM, DELETE … USING), whose columns a bare
// star would also return.
func (r *rewrite) returning(list []*pg.Node, ref *tableRef, sc *scope, others bool) ([]*pg.Node, error) {
	if len(list) == 0 {
		return list, nil
	}
	out := make([]*pg.Node, 0, len(list))
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil {
			return nil, rewriter.Unsupported("unexpected RETURNING entry")
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) && !ref.plan.Passthrough() {
			names, _, _ := colFields(cr)
			var mine bool
			switch len(names) {
			case 0:
				if others {
					return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: ref.table.String(),
						Detail: "RETURNING * of a write with other sources: name the columns"}
				}
				mine = true
			default:
				mine = lookupQualifier(sc, names) == ref
			}
			if mine {
				expanded, err := r.expandTarget(ref)
				if err != nil {
					return nil, err
				}
				out = append(out, expanded...)
				continue
			}
		}
		if err := r.resTarget(rt, sc); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// expandTarget lists the target's visible columns, masked ones masked.
func (r *rewrite) expandTarget(ref *tableRef) ([]*pg.Node, error) {
	out := make([]*pg.Node, 0, len(ref.plan.Columns))
	for _, c := range ref.plan.Columns {
		e, err := r.maskExpr(ref, c)
		if err != nil {
			return nil, err
		}
		rt := &pg.ResTarget{Val: e}
		if e.GetColumnRef() == nil {
			rt.Name = c.Name
		}
		out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: rt}})
	}
	return out, nil
}

// merge rewrites MERGE. The target is kept (update access, qualified);
// the source is a read through its policies. The target's row filter is
// ANDed to the join condition, which it guards, so that a row the filter
// hides never matches (and the join condition never sees it), and to
// every WHEN MATCHED and WHEN NOT MATCHED BY SOURCE condition, so that no
// such row is updated or deleted; a masked column of the target read in
// the join condition, a WHEN condition, SET or RETURNING is read masked; a
// restricted column named anywhere is ErrColumnDenied. WHEN NOT MATCHED
// inserts as INSERT does (the inserted rows are checked against the row
// filter's check, as UPDATE's new rows are); as with INSERT, a unique key the hidden row holds makes the
// insert fail, which tells that such a row exists.
func (r *rewrite) merge(m *pg.MergeStmt, outer *scope) error {
	sc := outer.child()
	if err := r.with(m.WithClause, sc); err != nil {
		return err
	}
	ref, err := r.target(m.Relation)
	if err != nil {
		return err
	}
	if m.SourceRelation == nil {
		return rewriter.Unsupported("MERGE without a source")
	}
	if err := r.fromItem(m.SourceRelation, sc); err != nil {
		return err
	}
	if err := checkAliases(sc); err != nil {
		return err
	}
	sc.tables = append(sc.tables, ref)
	sc.target = ref
	if err := r.expr(m.JoinCondition, sc); err != nil {
		return err
	}
	// A row the filter hides never matches: the join condition, which the
	// server evaluates on the target's rows before any WHEN clause, is
	// guarded by the filter (see fence.go), and the filter is a condition
	// of the join of its own.
	if f, err := r.filterExpr(ref); err != nil {
		return err
	} else if f != nil {
		g, err := r.filterExpr(ref)
		if err != nil {
			return err
		}
		m.JoinCondition = andWhere(f, guarded(g, m.JoinCondition))
	}
	for _, n := range m.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		if wc == nil {
			return rewriter.Unsupported("unexpected MERGE clause")
		}
		if err := r.expr(wc.Condition, sc); err != nil {
			return err
		}
		switch wc.MatchKind {
		case pg.MergeMatchKind_MERGE_WHEN_MATCHED, pg.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE:
			f, err := r.filterExpr(ref)
			if err != nil {
				return err
			}
			if f != nil {
				wc.Condition = andWhere(f, wc.Condition)
			}
			switch wc.CommandType {
			case pg.CmdType_CMD_UPDATE:
				if err := r.assignments(wc.TargetList, ref, sc); err != nil {
					return err
				}
				if err := r.updateChecks(ref, wc.TargetList); err != nil {
					return err
				}
			case pg.CmdType_CMD_DELETE, pg.CmdType_CMD_NOTHING:
			default:
				return rewriter.Unsupported("unexpected MERGE action")
			}
		case pg.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_TARGET:
			switch wc.CommandType {
			case pg.CmdType_CMD_INSERT:
				if len(wc.TargetList) == 0 && len(ref.plan.Decision.Restricted) > 0 {
					for _, c := range ref.plan.All {
						if err := columnDenied(ref, c.Name); err != nil {
							return err
						}
					}
				}
				for _, cn := range wc.TargetList {
					rt := cn.GetResTarget()
					if rt == nil || rt.Name == "" {
						return rewriter.Unsupported("unexpected MERGE INSERT column")
					}
					if err := columnDenied(ref, rt.Name); err != nil {
						return err
					}
					for _, ind := range rt.Indirection {
						if err := r.expr(ind, sc); err != nil {
							return err
						}
					}
				}
				for _, v := range wc.Values {
					if err := r.expr(v, sc); err != nil {
						return err
					}
				}
				if err := r.insertChecks(ref, wc.TargetList, nil, [][]*pg.Node{wc.Values}); err != nil {
					return err
				}
			case pg.CmdType_CMD_NOTHING:
			default:
				return rewriter.Unsupported("unexpected MERGE action")
			}
		default:
			return rewriter.Unsupported("unexpected MERGE clause")
		}
	}
	list, err := r.returning(m.ReturningList, ref, sc, true)
	if err != nil {
		return err
	}
	m.ReturningList = list
	return nil
}
