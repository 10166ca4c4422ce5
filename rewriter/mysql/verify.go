package mysql

import (
	"errors"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every table reference of the rewritten statement,
// whatever node type it hides in, for the proof that none escaped the
// rewrite (rewriter.Statement.Verify).
func (r *rewrite) verify(stmt sqlparser.Statement) error {
	refs := func(yield func(*sqlparser.AliasedTableExpr) bool) {
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			if ate, ok := node.(*sqlparser.AliasedTableExpr); ok {
				if _, isName := ate.Expr.(sqlparser.TableName); isName && !yield(ate) {
					return false, errStopWalk
				}
			}
			return true, nil
		}, stmt)
	}
	return r.Verify(refs, func(ate *sqlparser.AliasedTableExpr) string { return sqlparser.String(ate.Expr) })
}

// errStopWalk ends a walk early.
var errStopWalk = errors.New("stop")

// verifyPrinted parses the printed statement again for the core's check
// that it is the rewritten tree (rewriter.VerifyPrinted).
func verifyPrinted(stmt sqlparser.Statement, text string) error {
	again, err := parse(text)
	if err != nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(printed(stmt), printed(again))
}

// printed is what the printed statement must keep of a tree: its kind and
// the table names it references.
func printed(stmt sqlparser.Statement) rewriter.Printed {
	p := rewriter.Printed{Kind: statementName(stmt)}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok {
				p.Tables = append(p.Tables, tn.Qualifier.String()+"\x00"+tn.Name.String())
			}
		}
		return true, nil
	}, stmt)
	return p
}
