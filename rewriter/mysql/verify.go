package mysql

import (
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every table reference of the rewritten statement,
// whatever node type it hides in, for the proof that none escaped the
// rewrite (rewriter.Statement.Verify). It returns what the printed
// statement must keep of the tree (printed), read in the same walk: the
// tree is not changed again before it is printed.
func (r *rewrite) verify(stmt sqlparser.SQLNode) (rewriter.Printed, error) {
	refs := tableRefs(stmt)
	if err := r.Verify(slices.Values(refs), func(ate *sqlparser.AliasedTableExpr) string { return sqlparser.String(ate.Expr) }); err != nil {
		return rewriter.Printed{}, err
	}
	return printedOf(stmt, refs), nil
}

// tableRefs lists the table references (FROM entries naming a table) of
// stmt, whatever node type they hide in.
func tableRefs(stmt sqlparser.SQLNode) []*sqlparser.AliasedTableExpr {
	var refs []*sqlparser.AliasedTableExpr
	for _, part := range parts(stmt) {
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			if ate, ok := node.(*sqlparser.AliasedTableExpr); ok {
				if _, isName := ate.Expr.(sqlparser.TableName); isName {
					refs = append(refs, ate)
				}
			}
			return true, nil
		}, part)
	}
	return refs
}

// verifyPrinted reads the printed statement again, as stmt was read, for
// the core's check that it is the rewritten tree (rewriter.VerifyPrinted);
// want is what printed keeps of the tree.
func verifyPrinted(want rewriter.Printed, stmt sqlparser.SQLNode, text string) error {
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
	return rewriter.VerifyPrinted(want, printed(again))
}

// verifyModified is verifyPrinted for a schema change printed with the
// words the parser does not read (see modifier).
func verifyModified(want rewriter.Printed, m *modifier, text string) error {
	again, m2 := readModified(text)
	if again == nil || *m2 != *m {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(want, printed(again))
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
func printed(stmt sqlparser.SQLNode) rewriter.Printed { return printedOf(stmt, tableRefs(stmt)) }

// printedOf is printed of stmt, whose table references are refs.
func printedOf(stmt sqlparser.SQLNode, refs []*sqlparser.AliasedTableExpr) rewriter.Printed {
	var p rewriter.Printed
	switch s := stmt.(type) {
	case *returningStmt:
		p.Kind = statementName(s.write) + " RETURNING"
	case *setOpStmt:
		p.Kind = "query of " + strings.Join(s.ops, ", ")
	case sqlparser.Statement:
		p.Kind = statementName(s)
	}
	for _, ate := range refs {
		tn := ate.Expr.(sqlparser.TableName)
		p.Tables = append(p.Tables, tn.Qualifier.String()+"\x00"+tn.Name.String())
	}
	return p
}
