package mysql

import (
	"errors"
	"strings"

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
	switch stmt.(type) {
	case *returningStmt:
		if ret := readReturning(text); ret != nil {
			again = ret
		}
	case *setOpStmt:
		if s := readSetOperation(text); s != nil {
			again = s
		}
	default:
		if s, err := parse(text); err == nil {
			again = s
		}
	}
	if again == nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(printed(stmt), printed(again))
}

// verifyModified is verifyPrinted for a schema change printed with the
// words the parser does not read (see modifier).
func verifyModified(stmt sqlparser.Statement, m *modifier, text string) error {
	again, m2 := readModified(text)
	if again == nil || *m2 != *m {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(printed(stmt), printed(again))
}

// compound is a statement sqe reads around the parser, as parts the
// parser reads (returningStmt, setOpStmt).
type compound interface {
	sqlparser.SQLNode
	nodes() []sqlparser.SQLNode
}

// parts are the trees a statement is made of: the statement itself, or
// the parts of a compound one.
func parts(stmt sqlparser.SQLNode) []sqlparser.SQLNode {
	if c, ok := stmt.(compound); ok {
		return c.nodes()
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
	case *setOpStmt:
		p.Kind = "query of " + strings.Join(s.ops, ", ")
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
