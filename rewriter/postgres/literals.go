package postgres

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// InertLiterals returns the literals of sql that are compared with a
// column: one side of =, <>, <, <=, >, >= whose other side is a column, an
// element of a column's IN list, a bound of a column's BETWEEN. Nothing
// the rewrite decides reads those values (rewriter.LiteralTemplates).
func (Dialect) InertLiterals(sql string) ([]string, bool) {
	tree, err := parse(sql)
	if err != nil {
		return nil, false
	}
	var out []string
	add := func(column, value *pg.Node) {
		if c := column.GetColumnRef(); c == nil || isStar(c) {
			return
		}
		if text, ok := inertLiteral(value); ok {
			out = append(out, text)
		}
	}
	for _, raw := range tree.Stmts {
		err := walk(raw.Stmt, func(m proto.Message, _ *pg.Node) (bool, error) {
			x, ok := m.(*pg.A_Expr)
			if !ok || len(x.Name) != 1 {
				return true, nil
			}
			op := x.Name[0].GetString_().GetSval()
			switch x.Kind {
			case pg.A_Expr_Kind_AEXPR_OP:
				switch op {
				case "=", "<>", "!=", "<", "<=", ">", ">=":
					add(x.Lexpr, x.Rexpr)
					add(x.Rexpr, x.Lexpr)
				}
			case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
				for _, v := range x.Rexpr.GetList().GetItems() {
					add(x.Lexpr, v)
				}
			}
			return true, nil
		})
		if err != nil {
			return nil, false
		}
	}
	return out, true
}

// inertLiteral is a constant's text as the deparser prints it: a number
// as is, a string in single quotes.
func inertLiteral(n *pg.Node) (string, bool) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return "", false
	}
	switch {
	case c.GetIval() != nil:
		return strconv.Itoa(int(c.GetIval().Ival)), true
	case c.GetFval() != nil:
		return c.GetFval().Fval, true
	case c.GetSval() != nil:
		return "'" + c.GetSval().Sval + "'", true
	}
	return "", false
}
