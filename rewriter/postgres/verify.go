package postgres

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every relation reference of the rewritten
// statement, whatever node type it hides in, for the proof that none
// escaped the rewrite (rewriter.Statement.Verify). It returns what the
// printed statement must keep of the tree (printed), read in the same
// walk: the tree is not changed again before it is printed.
func (r *rewrite) verify(stmt *pg.Node) (rewriter.Printed, error) {
	rvs := rangeVars(stmt)
	if err := r.Verify(slices.Values(rvs), func(rv *pg.RangeVar) string { return rv.Relname }); err != nil {
		return rewriter.Printed{}, err
	}
	return printedOf(stmt, rvs), nil
}

// verifyPrinted parses the printed statement again for the core's check
// that it is the rewritten tree (rewriter.VerifyPrinted): want is what
// printed keeps of the tree, and the parse's own encoding is read for the
// same (printedFromWire).
func verifyPrinted(want rewriter.Printed, text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return errWire
	}
	encoded, err := parser.ParseToProtobuf(text)
	if err != nil {
		return errWire
	}
	again, err := printedFromWire(encoded)
	if err != nil {
		return err
	}
	return rewriter.VerifyPrinted(want, again)
}

// printed is what the printed statement must keep of a tree: its kind and
// the relations it references, with their inheritance and persistence.
func printed(n *pg.Node) rewriter.Printed { return printedOf(n, rangeVars(n)) }

// printedOf is printed of n, whose relation references are rvs.
func printedOf(n *pg.Node, rvs []*pg.RangeVar) rewriter.Printed {
	p := rewriter.Printed{Kind: nodeName(n)}
	for _, rv := range rvs {
		p.Tables = append(p.Tables, printedTable(rv.Catalogname, rv.Schemaname, rv.Relname, rv.Inh, rv.Relpersistence))
	}
	return p
}
