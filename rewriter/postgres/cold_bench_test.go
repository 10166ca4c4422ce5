package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
)

// BenchmarkColdRewrite rewrites statements that miss every cache (a
// literal changes on each call) for a caller with a row filter and masks,
// next to the parser's own parse and print of the same statement
// (pg_query_go's Parse and Deparse), in one loop, and reports the ratio:
// what a cache miss costs over the parser's round trip. It also reports
// the parser's round trip of the rewritten statement over the same: about
// what printing the rewritten statement and parsing it again (the printed
// check) costs, which grows with the size of the policy's read form.
func BenchmarkColdRewrite(b *testing.B) {
	in := make([]string, 200)
	for i := range in {
		in[i] = fmt.Sprint(i * 7)
	}
	tables := make([]string, 20)
	for i := range tables {
		tables[i] = fmt.Sprintf("JOIN orders o%d ON o%d.customer_id = c.id", i, i)
	}
	shapes := map[string]string{
		"simple":   "SELECT id, name, ssn, email FROM customers WHERE id = %d",
		"3-table":  "SELECT c.name, c.ssn, o.total, m.role FROM customers c JOIN orders o ON o.customer_id = c.id JOIN region_map m ON m.region = c.region WHERE o.total > %d",
		"20-table": "SELECT c.ssn FROM customers c " + strings.Join(tables, " ") + " WHERE c.id = %d",
		"in-200":   "SELECT id, ssn FROM customers WHERE id IN (" + strings.Join(in, ", ") + ") AND name <> '%d'",
	}
	decisions := map[string]*policy.Decision{"shop.customers": customersDecision()}
	for name, shape := range shapes {
		// Masks list the character classes, or name them as on a server
		// whose classes under its ICU root collation are Go's
		// (Session.NamedClasses).
		for _, named := range []bool{false, true} {
			if named {
				name += "/named"
			}
			b.Run(name, func(b *testing.B) {
				var rewrite, parsePrint, output time.Duration
				for i := 0; b.Loop(); i++ {
					q := fmt.Sprintf(shape, i)
					t0 := time.Now()
					tree, err := pg.Parse(q)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := pg.Deparse(tree); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					req := request(q, decisions)
					sess := req.Session.(Session)
					sess.NamedClasses = named
					req.Session = sess
					res, err := (Dialect{}).Rewrite(context.Background(), req)
					if err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					tree, err = pg.Parse(res.SQL)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := pg.Deparse(tree); err != nil {
						b.Fatal(err)
					}
					parsePrint += t1.Sub(t0)
					rewrite += t2.Sub(t1)
					output += time.Since(t2)
				}
				b.ReportMetric(float64(rewrite)/float64(parsePrint), "rewrite/parse+print")
				b.ReportMetric(float64(output)/float64(parsePrint), "output-parse+print/parse+print")
			})
		}
	}
}
