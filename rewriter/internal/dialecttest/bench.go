package dialecttest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqe-project/sqe/internal/benchshapes"
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
	shapes := benchshapes.Cold()
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
