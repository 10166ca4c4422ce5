package dialecttest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// ColdRewrite rewrites statements that miss every cache (a literal
// changes on each call) for a caller with a row filter and masks, next
// to the parser's own parse and print (parsePrint) of the same
// statement, in one loop, and reports the ratio: what a cache miss costs
// over the parser's round trip. It also reports the parser's round trip
// of the rewritten statement over the same. Masks list the character
// classes, or name them (session(true) is a session of a server whose
// classes are Go's).
func ColdRewrite(b *testing.B, d Dialect, parsePrint func(sql string) error, session func(namedClasses bool) rewriter.Session) {
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
	decisions := map[string]*policy.Decision{"shop.customers": CustomersDecision()}
	for name, shape := range shapes {
		for _, named := range []bool{false, true} {
			if named {
				name += "/named"
			}
			b.Run(name, func(b *testing.B) {
				var rewrite, parsePrinted, output time.Duration
				for i := 0; b.Loop(); i++ {
					q := fmt.Sprintf(shape, i)
					t0 := time.Now()
					if err := parsePrint(q); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					req := d.Request(q, decisions)
					req.Session = session(named)
					res, err := d.Rewriter.Rewrite(context.Background(), req)
					if err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					if err := parsePrint(res.SQL); err != nil {
						b.Fatal(err)
					}
					parsePrinted += t1.Sub(t0)
					rewrite += t2.Sub(t1)
					output += time.Since(t2)
				}
				b.ReportMetric(float64(rewrite)/float64(parsePrinted), "rewrite/parse+print")
				b.ReportMetric(float64(output)/float64(parsePrinted), "output-parse+print/parse+print")
			})
		}
	}
}
