package sqe_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

const benchPolicy = `version: 1
default: deny
tables:
  %[1]s.customers:
    access:
      - {name: read, principals: [role:reader], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [role:reader], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:reader], column: ssn, type: CUSTOM, expr: "CONCAT(REPEAT('x', GREATEST(CHAR_LENGTH({col}) - 4, 0)), RIGHT({col}, 4))"}
`

// BenchmarkPointSelect runs a point select by primary key through the raw
// driver and through sqe (cached rewrite, a row filter and a mask on the
// table), interleaved in one loop so both see the same machine, and reports
// the throughput ratio sqe/raw (1.0 = no overhead). It also runs, through
// the raw driver, the very SQL sqe sends, and reports the two parts of the
// ratio: rewritten/raw (what the policy's SQL costs the server) and
// sqe/rewritten (what sqe costs the client).
func BenchmarkPointSelect(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			e := newEnv(b, be, benchPolicy)
			e.raw.SetMaxIdleConns(4)
			e.db.SetMaxIdleConns(4)
			q := "SELECT id, name, ssn FROM customers WHERE id = ?"
			if be.name == "postgres" {
				q = "SELECT id, name, ssn FROM customers WHERE id = $1"
			}
			ctx := session.NewContext(context.Background(), session.User{Name: "bench", Roles: []string{"reader"}})
			// rewritten is the statement sqe sends, run through the raw
			// driver: it splits sqe's cost into the server's (the policy's
			// SQL) and the client's (sqe itself).
			ex, err := sqe.Explain(ctx, e.db, session.User{Name: "bench", Roles: []string{"reader"}}, q)
			if err != nil {
				b.Fatal(err)
			}
			rewritten := ex.SQL
			one := func(db *sql.DB, q string) {
				var id int
				var name, ssn string
				if err := db.QueryRowContext(ctx, q, 1).Scan(&id, &name, &ssn); err != nil {
					b.Fatal(err)
				}
			}
			one(e.raw, q)
			one(e.raw, rewritten)
			one(e.db, q) // the rewrite is cached from here on
			var raw, rw, viaSqe time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				one(e.raw, q)
				t1 := time.Now()
				one(e.raw, rewritten)
				t2 := time.Now()
				one(e.db, q)
				raw += t1.Sub(t0)
				rw += t2.Sub(t1)
				viaSqe += time.Since(t2)
			}
			b.StopTimer()
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/op")
			b.ReportMetric(float64(viaSqe.Nanoseconds())/float64(b.N), "sqe-ns/op")
			b.ReportMetric(float64(raw)/float64(viaSqe), "sqe/raw-throughput")
			b.ReportMetric(float64(raw)/float64(rw), "rewritten/raw-throughput")
			b.ReportMetric(float64(rw)/float64(viaSqe), "sqe/rewritten-throughput")
		})
	}
}
