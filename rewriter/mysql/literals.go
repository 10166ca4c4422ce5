package mysql

import (
	sqlparser "vitess.io/vitess/go/vt/sqlparser"
)

// InertLiterals returns the literals of sql that are compared with a
// column outside any select list: one side of =, <>, <, <=, >, >= whose
// other side is a column, an element of a column's IN list, a bound of a
// column's BETWEEN. Nothing the rewrite decides reads those values
// (rewriter.LiteralTemplates).
func (Dialect) InertLiterals(sql string) ([]string, bool) {
	stmt, err := parse(sql)
	if err != nil {
		return nil, false
	}
	var out []string
	add := func(column, value sqlparser.Expr) {
		if _, ok := column.(*sqlparser.ColName); !ok {
			return
		}
		if text, ok := inertLiteral(value); ok {
			out = append(out, text)
		}
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch e := n.(type) {
		case *sqlparser.SelectExprs:
			// MySQL names a result column after its expression's text
			// (and the rewrite keeps that name when it prints the
			// expression otherwise): nothing in a select list is inert.
			return false, nil
		case *sqlparser.ComparisonExpr:
			switch e.Operator {
			case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.LessThanOp, sqlparser.LessEqualOp,
				sqlparser.GreaterThanOp, sqlparser.GreaterEqualOp:
				if e.Escape == nil {
					add(e.Left, e.Right)
					add(e.Right, e.Left)
				}
			case sqlparser.InOp, sqlparser.NotInOp:
				if tuple, ok := e.Right.(sqlparser.ValTuple); ok {
					for _, v := range tuple {
						add(e.Left, v)
					}
				}
			}
		case *sqlparser.BetweenExpr:
			add(e.Left, e.From)
			add(e.Left, e.To)
		}
		return true, nil
	}, stmt)
	return out, true
}

// inertLiteral is a literal's text as it is written: a number as is, a
// string in single quotes.
func inertLiteral(e sqlparser.Expr) (string, bool) {
	l, ok := e.(*sqlparser.Literal)
	if !ok {
		return "", false
	}
	switch l.Type {
	case sqlparser.IntVal, sqlparser.DecimalVal:
		return l.Val, true
	case sqlparser.StrVal:
		return "'" + l.Val + "'", true
	}
	return "", false
}
