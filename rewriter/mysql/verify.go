package mysql

import (
	"slices"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every table reference of the rewritten statement,
// whatever node type it hides in, for the proof that none escaped the
// rewrite (rewriter.Statement.Verify). It returns what the printed
// statement must keep of the tree (printed), read in the same walk: the
// tree is not changed again before it is printed.
func (r *rewrite) verify(stmt sqlparser.Statement) (rewriter.Printed, error) {
	refs := tableRefs(stmt)
	if err := r.Verify(slices.Values(refs), func(ate *sqlparser.AliasedTableExpr) string { return sqlparser.String(ate.Expr) }); err != nil {
		return rewriter.Printed{}, err
	}
	return printedOf(stmt, refs), nil
}

// tableRefs lists the table references (FROM entries naming a table) of
// stmt, whatever node type they hide in.
func tableRefs(stmt sqlparser.Statement) []*sqlparser.AliasedTableExpr {
	var refs []*sqlparser.AliasedTableExpr
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if ate, ok := node.(*sqlparser.AliasedTableExpr); ok {
			if _, isName := ate.Expr.(sqlparser.TableName); isName {
				refs = append(refs, ate)
			}
		}
		return true, nil
	}, stmt)
	return refs
}

// verifyPrinted parses the printed statement again for the core's check
// that it is the rewritten tree (rewriter.VerifyPrinted); want is what
// printed keeps of the tree.
func verifyPrinted(want rewriter.Printed, text string) error {
	again, err := parse(text)
	if err != nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(want, printed(again))
}

// printed is what the printed statement must keep of a tree: its kind and
// the table names it references.
func printed(stmt sqlparser.Statement) rewriter.Printed { return printedOf(stmt, tableRefs(stmt)) }

// printedOf is printed of stmt, whose table references are refs.
func printedOf(stmt sqlparser.Statement, refs []*sqlparser.AliasedTableExpr) rewriter.Printed {
	p := rewriter.Printed{Kind: statementName(stmt)}
	for _, ate := range refs {
		tn := ate.Expr.(sqlparser.TableName)
		p.Tables = append(p.Tables, tn.Qualifier.String()+"\x00"+tn.Name.String())
	}
	return p
}
