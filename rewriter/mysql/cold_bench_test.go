package mysql

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// BenchmarkColdRewrite is dialecttest.ColdRewrite next to the parser's
// parse and print. The output's round trip over the parser's is the part
// of the first ratio that printing the rewritten statement and parsing it
// again (the printed check) costs at the least, which grows with the size
// of the policy's read form. Named classes are those of a MariaDB whose
// classes are Go's (Session.NamedClasses).
func BenchmarkColdRewrite(b *testing.B) {
	// Timed as it runs for users: without the tests' second, whole print.
	crossCheck := spliceCrossCheck
	spliceCrossCheck = false
	b.Cleanup(func() { spliceCrossCheck = crossCheck })
	dialecttest.ColdRewrite(b, testDialect, func(sql string) error {
		stmt, err := parse(sql)
		if err != nil {
			return err
		}
		_, err = format(stmt, false)
		return err
	}, func(named bool) rewriter.Session {
		return Session{Database: "shop", NamedClasses: named}
	})
}
