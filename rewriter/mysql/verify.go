package mysql

import (
	"slices"

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

// verifyPrinted parses the printed statement again and checks that it is
// the same kind of statement naming exactly the tables of the rewritten
// tree: what the server reads is what sqe decided about, even where the
// parser and the printer disagree on a corner of the grammar.
func verifyPrinted(stmt sqlparser.Statement, text string) error {
	bad := rewriter.Unsupported("the rewritten statement does not print faithfully")
	again, err := parse(text)
	if err != nil {
		return bad
	}
	if statementName(again) != statementName(stmt) {
		return bad
	}
	if !slices.Equal(tableKeys(stmt), tableKeys(again)) {
		return bad
	}
	return nil
}

// tableKeys lists the table names a statement references, sorted.
func tableKeys(stmt sqlparser.SQLNode) []string {
	var out []string
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok {
				out = append(out, tn.Qualifier.String()+"\x00"+tn.Name.String())
			}
		}
		return true, nil
	}, stmt)
	slices.Sort(out)
	return out
}
