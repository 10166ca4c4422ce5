package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
)

// A column listing read under sqe's filter (information_schema.columns,
// pg_attribute; catalogs.go) becomes a derived table, fenced with OFFSET 0
// when a condition of the statement could fail on a row (fence.go). The
// fence keeps the application's conditions out of the derived table, so
// the server computes the whole listing, every table's columns, and joins
// it in another order than the one it uses for the application's own
// statement, which reaches pg_attribute through its index on (attrelid,
// attnum): a listing without ORDER BY then comes back in another order
// (GORM reads a table's column order that way).
//
// copyListingConditions copies into the fenced derived table the
// application's conditions that select the listing's rows by equality of
// one of its visible, unmasked columns with a constant, a placeholder or
// current_database(): such a condition cannot fail on any row, so
// evaluating it on a hidden row tells nothing, and the fence still keeps
// every other condition out. The application's WHERE clause keeps them
// too, so the result is the same; the server plans the listing from the
// table it names, as for the statement without sqe. The order of rows
// without ORDER BY is the plan's: this makes the plans alike, it does not
// guarantee an order the server does not.

// listingColumns names the column listings whose fenced derived tables
// take the application's selecting conditions.
func listingColumns(t policy.TableName) bool {
	schema, name := strings.ToLower(t.Schema), strings.ToLower(t.Table)
	return (schema == "information_schema" && columnListings[name]) || (schema == "pg_catalog" && name == "pg_attribute")
}

// copyListingConditions copies the selecting conditions of s's WHERE
// clause into the fenced listings of its FROM clause whose rows that
// clause filters (not on the nullable side of an outer join). It runs
// before the WHERE clause is rewritten, on the application's own
// expressions, and copies them.
func (r *rewrite) copyListingConditions(s *pg.SelectStmt) {
	if s.WhereClause == nil || len(r.fencedListings) == 0 {
		return
	}
	var listings []*tableRef
	var selects []*pg.SelectStmt
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		switch x := n.Node.(type) {
		case *pg.Node_RangeSubselect:
			sel := x.RangeSubselect.GetSubquery().GetSelectStmt()
			if ref, ok := r.fencedListings[sel]; ok && !x.RangeSubselect.Lateral {
				listings, selects = append(listings, ref), append(selects, sel)
			}
		case *pg.Node_JoinExpr:
			j := x.JoinExpr
			switch j.Jointype {
			case pg.JoinType_JOIN_INNER:
				walk(j.Larg)
				walk(j.Rarg)
			case pg.JoinType_JOIN_LEFT:
				walk(j.Larg)
			case pg.JoinType_JOIN_RIGHT:
				walk(j.Rarg)
			}
		}
	}
	for _, item := range s.FromClause {
		walk(item)
	}
	if len(listings) == 0 {
		return
	}
	for _, c := range conjuncts(s.WhereClause) {
		fields, operand, ok := selectingEquality(c)
		if !ok {
			continue
		}
		for i, ref := range listings {
			var col string
			switch {
			case len(fields) == 1 && len(listings) == 1:
				col = fields[0]
			case len(fields) == 2 && fields[0] == ref.alias:
				col = fields[1]
			default:
				continue
			}
			if !visibleUnmasked(ref, col) {
				continue
			}
			left := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: columnRef([]string{ref.table.Schema, ref.table.Table, col})}}
			eq := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP,
				Name: []*pg.Node{pg.MakeStrNode("=")}, Lexpr: left, Rexpr: copyNode(operand)}}}
			selects[i].WhereClause = andNode(selects[i].WhereClause, eq)
		}
	}
}

// conjuncts are the top-level AND terms of a condition.
func conjuncts(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// selectingEquality reads column = operand (either way round), where the
// column is one or two names (column, table.column) and the operand a
// constant, a placeholder or current_database(): a condition no row's
// values can make fail.
func selectingEquality(n *pg.Node) (fields []string, operand *pg.Node, ok bool) {
	e := n.GetAExpr()
	if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
		return nil, nil, false
	}
	for _, side := range [][2]*pg.Node{{e.Lexpr, e.Rexpr}, {e.Rexpr, e.Lexpr}} {
		names, isCol := plainColumn(side[0])
		if isCol && fixedOperand(side[1]) {
			return names, side[1], true
		}
	}
	return nil, nil, false
}

// plainColumn reads a column reference of one or two names.
func plainColumn(n *pg.Node) ([]string, bool) {
	c := n.GetColumnRef()
	if c == nil || len(c.Fields) == 0 || len(c.Fields) > 2 {
		return nil, false
	}
	var names []string
	for _, f := range c.Fields {
		s := f.GetString_()
		if s == nil {
			return nil, false
		}
		names = append(names, s.Sval)
	}
	return names, true
}

// fixedOperand reports a constant, a placeholder or current_database().
func fixedOperand(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_AConst, *pg.Node_ParamRef:
		return true
	case *pg.Node_FuncCall:
		f := x.FuncCall
		name, schema := funcName(f)
		return strings.EqualFold(name, "current_database") && (schema == "" || schema == "pg_catalog") &&
			len(f.Args) == 0 && !f.AggStar && !f.AggDistinct && !f.FuncVariadic && f.Over == nil && f.AggFilter == nil && len(f.AggOrder) == 0
	}
	return false
}

// visibleUnmasked reports a column the caller reads raw in the listing's
// derived table: one of its visible columns without a mask.
func visibleUnmasked(ref *tableRef, col string) bool {
	if ref.plan == nil {
		return false
	}
	if _, masked := ref.plan.Mask(col); masked {
		return false
	}
	for _, c := range ref.plan.Columns {
		if c.Name == col {
			return true
		}
	}
	return false
}

// andNode is a AND b (b alone when a is nil).
func andNode(a, b *pg.Node) *pg.Node {
	if a == nil {
		return b
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: []*pg.Node{a, b}}}}
}
