package postgres

import (
	"slices"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every relation reference of the rewritten
// statement, whatever node type it hides in, for the proof that none
// escaped the rewrite (rewriter.Statement.Verify).
func (r *rewrite) verify(stmt *pg.Node) error {
	return r.Verify(slices.Values(rangeVars(stmt)), func(rv *pg.RangeVar) string { return rv.Relname })
}

// verifyPrinted parses the printed statement again for the core's check
// that it is the rewritten tree (rewriter.VerifyPrinted).
func verifyPrinted(stmt *pg.Node, text string) error {
	tree, err := parse(text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].GetStmt() == nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(printed(stmt), printed(tree.Stmts[0].Stmt))
}

// printed is what the printed statement must keep of a tree: its kind and
// the relations it references, with their inheritance and persistence.
func printed(n *pg.Node) rewriter.Printed {
	p := rewriter.Printed{Kind: nodeName(n)}
	for _, rv := range rangeVars(n) {
		p.Tables = append(p.Tables, strconv.Quote(rv.Catalogname)+"."+strconv.Quote(rv.Schemaname)+"."+strconv.Quote(rv.Relname)+
			"/"+strconv.FormatBool(rv.Inh)+"/"+rv.Relpersistence)
	}
	return p
}
