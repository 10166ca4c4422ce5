package mysql

import (
	"errors"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every table reference of the rewritten statement,
// whatever node type it hides in, for the proof that none escaped the
// rewrite (rewriter.Statement.Verify).
func (r *rewrite) verify(stmt sqlparser.SQLNode) error {
	refs := func(yield func(*sqlparser.AliasedTableExpr) bool) {
		for _, part := range parts(stmt) {
			err := sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
				if ate, ok := node.(*sqlparser.AliasedTableExpr); ok {
					if _, isName := ate.Expr.(sqlparser.TableName); isName && !yield(ate) {
						return false, errStopWalk
					}
				}
				return true, nil
			}, part)
			if err != nil {
				return
			}
		}
	}
	return r.Verify(refs, func(ate *sqlparser.AliasedTableExpr) string { return sqlparser.String(ate.Expr) })
}

// errStopWalk ends a walk early.
var errStopWalk = errors.New("stop")

// verifyPrinted parses the printed statement again for the core's check
// that it is the rewritten tree (rewriter.VerifyPrinted).
func verifyPrinted(stmt sqlparser.SQLNode, text string) error {
	var again sqlparser.SQLNode
	again, err := parse(text)
	if _, isReturning := stmt.(*returningStmt); isReturning && err != nil {
		if ret := readReturning(text); ret != nil {
			again, err = ret, nil
		}
	}
	if err != nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(printed(stmt), printed(again))
}

// parts are the trees a statement is made of: the statement itself, or a
// MariaDB write and its RETURNING list.
func parts(stmt sqlparser.SQLNode) []sqlparser.SQLNode {
	if ret, ok := stmt.(*returningStmt); ok {
		return ret.nodes()
	}
	return []sqlparser.SQLNode{stmt}
}

// printed is what the printed statement must keep of a tree: its kind and
// the table names it references.
func printed(stmt sqlparser.SQLNode) rewriter.Printed {
	var p rewriter.Printed
	switch s := stmt.(type) {
	case *returningStmt:
		p.Kind = statementName(s.write) + " RETURNING"
	case sqlparser.Statement:
		p.Kind = statementName(s)
	}
	for _, part := range parts(stmt) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
				if tn, ok := ate.Expr.(sqlparser.TableName); ok {
					p.Tables = append(p.Tables, tn.Qualifier.String()+"\x00"+tn.Name.String())
				}
			}
			return true, nil
		}, part)
	}
	return p
}
