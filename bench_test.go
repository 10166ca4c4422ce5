package sqe_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

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
// the throughput ratio sqe/raw (1.0 = no overhead).
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
			one := func(db *sql.DB) {
				var id int
				var name, ssn string
				if err := db.QueryRowContext(ctx, q, 1).Scan(&id, &name, &ssn); err != nil {
					b.Fatal(err)
				}
			}
			one(e.raw)
			one(e.db) // the rewrite is cached from here on
			var raw, sqe time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				one(e.raw)
				t1 := time.Now()
				one(e.db)
				raw += t1.Sub(t0)
				sqe += time.Since(t1)
			}
			b.StopTimer()
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/op")
			b.ReportMetric(float64(sqe.Nanoseconds())/float64(b.N), "sqe-ns/op")
			b.ReportMetric(float64(raw)/float64(sqe), "sqe/raw-throughput")
		})
	}
}
