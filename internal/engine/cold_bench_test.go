package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
	sqlparser "vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/internal/benchshapes"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	_ "github.com/sqe-project/sqe/rewriter/postgres"
	"github.com/sqe-project/sqe/session"
)

// coldPolicy is the analyst's policy of docs/performance.md: a row
// filter and two masks on customers.
const coldPolicy = `version: 1
default: allow
tables:
  shop.customers:
    row_filters:
      - {name: eu-only, principals: [public], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [public], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-mask, principals: [public], column: email, type: MASK}
`

// BenchmarkColdStatement plans statements that are never in the rewrite
// cache by their text (a literal changes every time), through the engine,
// against the parser's own parse and print of the same statement:
// "template/parse+print" with literal templates (the default),
// "rewrite/parse+print" without them (every statement rewritten). The
// three paths run interleaved, each on its own statement text.
func BenchmarkColdStatement(b *testing.B) {
	file, err := policy.Parse("cold.yaml", []byte(coldPolicy))
	if err != nil {
		b.Fatal(err)
	}
	for _, dialect := range []string{"mysql", "postgres"} {
		cat := coldCatalog(dialect)
		// Each shape's engines are closed and dropped when its benchmark
		// ends, so that one shape's caches do not weigh on the next's
		// collections.
		newEngine := func(b *testing.B, noTemplates bool) *Engine {
			src := policy.NewMemorySource()
			if _, err := src.Publish(file); err != nil {
				b.Fatal(err)
			}
			e, err := New(Config{Source: src, Dialect: dialect, Catalog: cat, CacheSize: 10000, CacheBytes: 64 << 20, AuditOff: true,
				NoLiteralTemplates: noTemplates}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = e.Close() })
			return e
		}
		parsePrint := parsePrinter(b, dialect)
		ctx := session.NewContext(context.Background(), session.User{Name: "analyst"})
		for name, shape := range benchshapes.Cold() {
			b.Run(dialect+"/"+name, func(b *testing.B) {
				templated, plain := newEngine(b, false), newEngine(b, true)
				tcs, pcs := NewConnState(nil), NewConnState(nil)
				plan := func(e *Engine, cs *ConnState, q string) {
					p, err := e.Plan(ctx, cs, q)
					if err != nil {
						b.Fatal(err)
					}
					e.Finish(ctx, cs, p, time.Time{}, nil)
				}
				var parsed, viaTemplate, rewritten time.Duration
				for i := 0; b.Loop(); i++ {
					q := fmt.Sprintf(shape, 3*i)
					t0 := time.Now()
					parsePrint(q)
					t1 := time.Now()
					plan(templated, tcs, fmt.Sprintf(shape, 3*i+1))
					t2 := time.Now()
					plan(plain, pcs, fmt.Sprintf(shape, 3*i+2))
					parsed += t1.Sub(t0)
					viaTemplate += t2.Sub(t1)
					rewritten += time.Since(t2)
				}
				b.ReportMetric(float64(viaTemplate)/float64(parsed), "template/parse+print")
				b.ReportMetric(float64(rewritten)/float64(parsed), "rewrite/parse+print")
				if st := templated.Stats(); b.N > 2 && st.RewriteTemplateHits+2 < uint64(b.N) {
					b.Fatalf("%d statements, %d served by a template", b.N, st.RewriteTemplateHits)
				}
			})
		}
	}
}

// parsePrinter is the dialect's parser's own parse and print.
func parsePrinter(b *testing.B, dialect string) func(string) {
	if dialect == "postgres" {
		return func(q string) {
			tree, err := pg.Parse(q)
			if err == nil {
				_, err = pg.Deparse(tree)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		b.Fatal(err)
	}
	return func(q string) {
		stmt, err := parser.Parse(q)
		if err != nil {
			b.Fatal(err)
		}
		_ = sqlparser.String(stmt)
	}
}

func coldCatalog(dialect string) *rewriter.StaticCatalog {
	str, integer := "varchar", "int"
	if dialect == "postgres" {
		str, integer = "character varying", "integer"
	}
	s := func(n string, l int) rewriter.Column {
		return rewriter.Column{Name: n, DataType: str, ColumnType: fmt.Sprintf("%s(%d)", str, l)}
	}
	i := func(n string) rewriter.Column {
		return rewriter.Column{Name: n, DataType: integer, ColumnType: integer}
	}
	tables := map[string][]rewriter.Column{
		"shop.customers":  {i("id"), s("name", 40), s("region", 8), s("ssn", 11), s("email", 60)},
		"shop.orders":     {i("id"), i("customer_id"), i("total")},
		"shop.region_map": {s("role", 20), s("region", 8)},
	}
	if dialect == "postgres" {
		return &rewriter.StaticCatalog{Path: []string{"shop"}, Tables: tables}
	}
	return &rewriter.StaticCatalog{Schema: "shop", Tables: tables}
}
