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
	return rewriteExprText(text, func(c *sqlparser.Cursor) (bool, error) {
		switch n := c.Node().(type) {
		case *sqlparser.FuncExpr:
			to, err := rewriter.HiveCall(n.Name.String(), !n.Qualifier.IsEmpty(), len(n.Exprs))
			if err != nil {
				return false, err
			}
			if to != "" {
				n.Name = sqlparser.NewIdentifierCI(to)
			}
		case sqlparser.Expr:
			if functionExpr(n) {
				if _, err := rewriter.HiveCall(callName(n), true, 0); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	})
}
