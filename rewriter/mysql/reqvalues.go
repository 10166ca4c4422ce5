package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// PlaceRequestValues implements rewriter.ValueSyntax: the parser decides
// where each marker sits. A marker read as a column reference becomes a
// literal node, one inside a string literal ('…' or "…") changes the
// literal's value; the printer escapes the values (format, for the
// session's sql_mode). A marker in a backquoted name is part of a name
// and is left for the caller to refuse.
func (syntax) PlaceRequestValues(text string, value func(i int) (policy.RequestValue, error)) (string, error) {
	return rewriteExprText(text, func(c *sqlparser.Cursor) (bool, error) {
		switch n := c.Node().(type) {
		case *sqlparser.ColName:
			if !n.Qualifier.Qualifier.IsEmpty() {
				return false, nil
			}
			i, ok := policy.RequestValueColumn(n.Qualifier.Name.String(), n.Name.String())
			if !ok {
				return false, nil
			}
			lit, err := valueLiterals.Of(value, i)
			if err == nil {
				err = replace(c, lit)
			}
			return false, err
		case *sqlparser.Literal:
			if n.Type != sqlparser.StrVal {
				return false, nil
			}
			s, err := rewriter.RequestValuesInString(n.Val, value)
			if err != nil {
				return false, err
			}
			if s != n.Val {
				return false, replace(c, sqlparser.NewStrLiteral(s))
			}
			return false, nil
		}
		return true, nil
	})
}

// rewriteExprText parses text as one expression, visits its nodes with
// visit (whose bool says whether to go into the node), and prints the
// expression again; the first error visit returns stops the walk and is
// returned.
func rewriteExprText(text string, visit func(c *sqlparser.Cursor) (bool, error)) (string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return "", err
	}
	holder := &sqlparser.Where{Type: sqlparser.WhereClause, Expr: e}
	var werr error
	sqlparser.Rewrite(holder, func(c *sqlparser.Cursor) bool {
		if werr != nil {
			return false
		}
		deeper, err := visit(c)
		werr = err
		return deeper && err == nil
	}, nil)
	if werr != nil {
		return "", werr
	}
	return sqlparser.String(holder.Expr), nil
}

// valueLiterals are the literal nodes of request values in a column
// reference's place; a plain decimal number is read by the parser as the
// number it is.
var valueLiterals = rewriter.ValueLiterals[sqlparser.Expr]{
	Null:   func() sqlparser.Expr { return &sqlparser.NullVal{} },
	Number: parseExpr,
	String: func(s string) (sqlparser.Expr, error) { return sqlparser.NewStrLiteral(s), nil },
}
