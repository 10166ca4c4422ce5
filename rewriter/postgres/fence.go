package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// The server evaluates the conditions on one table's rows in the order of
// their estimated cost, whichever query level they come from: a derived
// table's row filter is pulled up next to the application's conditions.
// An application condition that fails on one value (1 / (CASE WHEN name =
// 'x' THEN 0 END)) would then tell, by failing or not, what a hidden row
// holds, if it ran before the filter. Even a filter of single comparisons
// does not reliably run first: a conjunct column = constant is re-created
// from its equivalence class after the other conditions, so a condition
// of the same cost (one operator: id * 429496730 IS NOT NULL) runs before
// it, and a domain coercion costs nothing. So a row-filtered derived table
// is fenced with OFFSET 0, which the planner neither pulls up nor pushes
// conditions into, unless no condition of the statement can fail on a
// value and none reads a masked column of the table (needsFence,
// safety.go). A write guards its own condition (CASE WHEN filter THEN …)
// when the filter is not simpleFilter, or the condition can fail or reads
// a mask (needsGuard).

// filterIsSimple reports whether the plan's row filters are simpleFilter
// (true when it has none, false when they do not parse).
func filterIsSimple(plan *rewriter.TablePlan) bool {
	e, ok, err := rewriter.ParseFilter(plan, Syntax, parseExpr)
	if !ok {
		return err == nil
	}
	return simpleFilter(e)
}

// simpleFilter reports whether every conjunct of a row filter is a single
// comparison of columns and constants, an IN or NOT IN list of them (a
// tenant list), a NULL test or a boolean column: a condition no row's
// values can make fail.
func simpleFilter(n *pg.Node) bool {
	if n == nil {
		return true
	}
	switch e := n.Node.(type) {
	case *pg.Node_BoolExpr:
		if e.BoolExpr.Boolop != pg.BoolExprType_AND_EXPR {
			return false
		}
		for _, a := range e.BoolExpr.Args {
			if !simpleFilter(a) {
				return false
			}
		}
		return true
	case *pg.Node_AExpr:
		x := e.AExpr
		if len(x.Name) != 1 {
			return false
		}
		op := x.Name[0].GetString_()
		if op == nil {
			return false
		}
		switch x.Kind {
		case pg.A_Expr_Kind_AEXPR_OP:
			switch op.Sval {
			case "=", "<>", "!=", "<", "<=", ">", ">=":
			default:
				return false
			}
			return simpleOperand(x.Lexpr) && simpleOperand(x.Rexpr)
		case pg.A_Expr_Kind_AEXPR_IN: // IN is "=", NOT IN "<>"
			list := x.Rexpr.GetList()
			if list == nil || len(list.Items) == 0 || !simpleOperand(x.Lexpr) || op.Sval != "=" && op.Sval != "<>" {
				return false
			}
			for _, it := range list.Items {
				if !simpleOperand(it) {
					return false
				}
			}
			return true
		}
		return false
	case *pg.Node_NullTest:
		return simpleOperand(e.NullTest.Arg)
	case *pg.Node_ColumnRef:
		return !isStar(e.ColumnRef)
	}
	return false
}

func simpleOperand(n *pg.Node) bool {
	if n == nil {
		return false
	}
	switch e := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return !isStar(e.ColumnRef)
	case *pg.Node_AConst:
		return true
	}
	return false
}

// fenceOffset is OFFSET 0.
func fenceOffset() *pg.Node {
	return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Ival{Ival: &pg.Integer{Ival: 0}}}}}
}

// guarded is CASE WHEN filter THEN e ELSE false END: e is evaluated only on
// rows the filter admits.
func guarded(filter, e *pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: &pg.CaseExpr{
		Args:      []*pg.Node{{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: filter, Result: e}}}},
		Defresult: &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: false}}}}},
	}}}
}
