package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify walks the whole rewritten statement and refuses it when any table
// reference is one the rewrite did not produce or check: the proof that
// no reference escaped, whatever node type it hides in.
func (r *rewrite) verify(stmt sqlparser.Statement) error {
	var bad error
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		ate, ok := node.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		if _, isName := ate.Expr.(sqlparser.TableName); isName && !r.sanctioned[ate] {
			bad = rewriter.Unsupported("a table reference in this statement form is not covered by sqe")
			return false, nil
		}
		return true, nil
	}, stmt)
	return bad
}
