package sqe_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
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
// table) in one loop, so that both see the same machine, and reports the
// throughput ratio sqe/raw (1.0 = no overhead). It also runs, through the
// raw driver, the very SQL sqe sends, and reports the two parts of the
// ratio: rewritten/raw (what the policy's SQL costs the server) and
// sqe/rewritten (what sqe costs the client).
//
// On MariaDB, go-sql-driver/mysql (without interpolateParams) has
// database/sql prepare, execute and close every call with arguments; sqe
// keeps the rewritten statement prepared on the connection instead (see
// WithStatementCacheSize), so "mysql" runs sqe as it comes and
// "mysql-no-stmt-cache" with that cache off, which measures the rewrite
// alone on the same footing as the raw driver.
//
// Each path has a pool of its own, one connection (so one server session)
// each, and the order of the three rotates from one iteration to the next:
// on a small machine the path that runs right after another on the same
// server session finds it warm, and a fixed order would hand that edge to
// the same path every time.
func BenchmarkPointSelect(b *testing.B) {
	type variant struct {
		name string
		be   backend
		opts []sqe.Option
	}
	var variants []variant
	for _, be := range backends() {
		variants = append(variants, variant{be.name, be, nil})
		if be.name == "mysql" {
			variants = append(variants, variant{"mysql-no-stmt-cache", be, []sqe.Option{sqe.WithStatementCacheSize(0)}})
		}
	}
	for _, v := range variants {
		be := v.be
		b.Run(v.name, func(b *testing.B) {
			e := newEnvWith(b, be, benchPolicy, v.opts...)
			rawRewritten := e.openRaw(b)
			for _, db := range []*sql.DB{e.raw, rawRewritten, e.db} {
				db.SetMaxOpenConns(1)
				db.SetMaxIdleConns(1)
			}
			ctx, q, rewrittenSQL := pointSelect(b, e)
			paths := []struct {
				db    *sql.DB
				query string
			}{{e.raw, q}, {rawRewritten, rewrittenSQL}, {e.db, q}}
			one := func(db *sql.DB, q string) {
				var id int
				var name, ssn string
				if err := db.QueryRowContext(ctx, q, 1).Scan(&id, &name, &ssn); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := interleave(b, len(paths), func(k int) { one(paths[k].db, paths[k].query) })
			raw, rw, viaSqe := elapsed[0], elapsed[1], elapsed[2]
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/op")
			b.ReportMetric(float64(viaSqe.Nanoseconds())/float64(b.N), "sqe-ns/op")
			b.ReportMetric(float64(raw)/float64(viaSqe), "sqe/raw-throughput")
			b.ReportMetric(float64(raw)/float64(rw), "rewritten/raw-throughput")
			b.ReportMetric(float64(rw)/float64(viaSqe), "sqe/rewritten-throughput")
		})
	}
}

// pointSelect is the point select of the point-select benchmarks in the
// env's dialect, the context of its caller (the policy's reader) and the
// SQL sqe sends for it.
func pointSelect(b *testing.B, e *env) (ctx context.Context, query, rewritten string) {
	b.Helper()
	query = "SELECT id, name, ssn FROM customers WHERE id = ?"
	if e.name == "postgres" {
		query = "SELECT id, name, ssn FROM customers WHERE id = $1"
	}
	u := session.User{Name: "bench", Roles: []string{"reader"}}
	ctx = session.NewContext(context.Background(), u)
	ex, err := sqe.Explain(ctx, e.db, u, query)
	if err != nil {
		b.Fatal(err)
	}
	return ctx, query, ex.SQL
}

// interleave runs n paths b.N times each, in an order that rotates from
// one iteration to the next (the path that runs right after another on a
// small machine finds it warm, and a fixed order would hand that edge to
// the same path every time), and returns each path's total time. Each
// path runs once before the timer starts (connections, cached rewrites).
func interleave(b *testing.B, n int, run func(path int)) []time.Duration {
	for k := 0; k < n; k++ {
		run(k)
	}
	elapsed := make([]time.Duration, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < n; k++ {
			p := (i + k) % n
			t0 := time.Now()
			run(p)
			elapsed[p] += time.Since(t0)
		}
	}
	b.StopTimer()
	return elapsed
}

// BenchmarkPointSelectConcurrent is the second performance
// target: sqe's own cost per statement under concurrency. It runs a point
// select by primary key (a cached rewrite with a row filter and a mask)
// from 1, 8 and 32 goroutines through sqe and, for comparison, sends the
// very SQL sqe sends through the raw driver, each path with a pool as
// large as its goroutines, and reports the throughput ratio
// sqe/rewritten (1.0: sqe costs nothing on top of the SQL it sends). The
// paths alternate in rounds of a fixed number of statements, the order
// rotating from one round to the next (see interleave). A second raw pool
// sending the same SQL runs as a third path: its ratio to the first
// ("rewritten-b/rewritten-throughput") is what the machine's noise alone
// gives two identical paths in the same run.
func BenchmarkPointSelectConcurrent(b *testing.B) {
	for _, be := range backends() {
		for _, workers := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", be.name, workers), func(b *testing.B) {
				e := newEnvWith(b, be, benchPolicy, sqe.WithoutAudit())
				rewritten, again := e.openRaw(b), e.openRaw(b)
				for _, db := range []*sql.DB{rewritten, e.db, again} {
					db.SetMaxOpenConns(workers)
					db.SetMaxIdleConns(workers)
				}
				ctx, q, rewrittenSQL := pointSelect(b, e)
				paths := []struct {
					db    *sql.DB
					query string
				}{{rewritten, rewrittenSQL}, {e.db, q}, {again, rewrittenSQL}}
				// round runs perRound statements on the path, spread over
				// the goroutines.
				const perRound = 256
				round := func(k int) {
					var wg sync.WaitGroup
					errs := make(chan error, workers)
					for w := 0; w < workers; w++ {
						n := perRound / workers
						if w < perRound%workers {
							n++
						}
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := 0; i < n; i++ {
								var id int
								var name, ssn string
								if err := paths[k].db.QueryRowContext(ctx, paths[k].query, 1).Scan(&id, &name, &ssn); err != nil {
									errs <- err
									return
								}
							}
						}()
					}
					wg.Wait()
					close(errs)
					for err := range errs {
						b.Fatal(err)
					}
				}
				elapsed := interleave(b, len(paths), round)
				rw, viaSqe := elapsed[0], elapsed[1]
				perStmt := float64(b.N * perRound)
				b.ReportMetric(float64(rw.Nanoseconds())/perStmt, "rewritten-ns/stmt")
				b.ReportMetric(float64(viaSqe.Nanoseconds())/perStmt, "sqe-ns/stmt")
				b.ReportMetric(float64(rw)/float64(viaSqe), "sqe/rewritten-throughput")
				b.ReportMetric(float64(rw)/float64(elapsed[2]), "rewritten-b/rewritten-throughput")
			})
		}
	}
}
