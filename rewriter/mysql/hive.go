package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// TranslateHive implements rewriter.HiveSyntax: text is read by the
// dialect's expression parser and each function call of its tree is what
// rewriter.HiveCall says (a name in a string literal or a comment is no
// call; a backquoted name is the call's name). A built-in the parser
// gives a node type of its own is checked by its printed name, which is
// never renamed.
func (syntax) TranslateHive(text string) (string, error) {
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
		switch n := c.Node().(type) {
		case *sqlparser.FuncExpr:
			to, err := rewriter.HiveCall(n.Name.String(), !n.Qualifier.IsEmpty(), len(n.Exprs))
			if err != nil {
				werr = err
				return false
			}
			if to != "" {
				n.Name = sqlparser.NewIdentifierCI(to)
			}
		case sqlparser.Expr:
			if functionExpr(n) {
				if _, err := rewriter.HiveCall(callName(n), true, 0); err != nil {
					werr = err
					return false
				}
			}
		}
		return true
	}, nil)
	if werr != nil {
		return "", werr
	}
	return sqlparser.String(holder.Expr), nil
}
