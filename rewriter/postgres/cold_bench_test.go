package postgres

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// BenchmarkColdRewrite is dialecttest.ColdRewrite next to pg_query_go's
// Parse and Deparse. The output's round trip over the parser's is about
// what printing the rewritten statement and parsing it again (the
// printed check) costs, which grows with the size of the policy's read
// form. Named classes are those of a server whose classes under its ICU
// root collation are Go's (Session.NamedClasses).
func BenchmarkColdRewrite(b *testing.B) {
	// Timed as it runs for users: without the tests' second, whole print.
	crossCheck := spliceCrossCheck
	spliceCrossCheck = false
	b.Cleanup(func() { spliceCrossCheck = crossCheck })
	dialecttest.ColdRewrite(b, testDialect, func(sql string) error {
		tree, err := pg.Parse(sql)
		if err != nil {
			return err
		}
		_, err = pg.Deparse(tree)
		return err
	}, func(named bool) rewriter.Session {
		s := NewSession(testCatalog().Path, false)
		s.NamedClasses = named
		return s
	})
}
