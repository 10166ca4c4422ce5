package postgres

import (
	"slices"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// verify walks the whole rewritten statement and refuses it when any table
// reference is one the rewrite did not produce or check: the proof that
// no reference escaped, whatever node type it hides in.
func (r *rewrite) verify(stmt *pg.Node) error {
	for _, rv := range rangeVars(stmt) {
		if !r.sanctioned[rv] {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rv.Relname,
				Detail: "a table reference in this statement form is not covered by sqe"}
		}
	}
	return nil
}

// verifyPrinted parses the printed statement again and checks that it
// names exactly the relations of the rewritten tree: what the server
// reads is what sqe decided about.
func verifyPrinted(stmt *pg.Node, text string) error {
	bad := rewriter.Unsupported("the rewritten statement does not print faithfully")
	tree, err := parse(text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].GetStmt() == nil {
		return bad
	}
	if nodeName(tree.Stmts[0].Stmt) != nodeName(stmt) {
		return bad
	}
	want, got := relationKeys(stmt), relationKeys(tree.Stmts[0].Stmt)
	if !slices.Equal(want, got) {
		return bad
	}
	return nil
}

func relationKeys(n *pg.Node) []string {
	rvs := rangeVars(n)
	keys := make([]string, 0, len(rvs))
	for _, rv := range rvs {
		keys = append(keys, strconv.Quote(rv.Catalogname)+"."+strconv.Quote(rv.Schemaname)+"."+strconv.Quote(rv.Relname)+
			"/"+strconv.FormatBool(rv.Inh)+"/"+rv.Relpersistence)
	}
	slices.Sort(keys)
	return keys
}
