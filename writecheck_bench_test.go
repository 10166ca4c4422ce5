package sqe_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// writeCheckBenchPolicy: the same tenant filter for two roles, checking
// written rows for one (the default) and not for the other.
const writeCheckBenchPolicy = `version: 1
default: deny
tables:
  %[1]s.events:
    access:
      - {name: rw, principals: [role:checked, role:unchecked], allow: [select, update]}
    row_filters:
      - {name: tenant, principals: [role:checked], filter: "tenant = 42"}
      - {name: tenant-reads, principals: [role:unchecked], filter: "tenant = 42", check: false}
`

// BenchmarkWriteCheck inserts one row, and 1,000 rows in one statement
// (placeholders), through the raw driver, through sqe with the row
// filter's check, and through sqe without it, the three paths in one loop
// in rotating order (the two sqe paths on one pool of one connection, the
// raw driver on another). It reports the
// throughput ratio of the checked path to the unchecked one (the check's
// cost) and to the raw driver.
func BenchmarkWriteCheck(b *testing.B) {
	for _, be := range backends() {
		for _, rows := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/rows=%d", be.name, rows), func(b *testing.B) {
				e := newEnv(b, be, writeCheckBenchPolicy)
				testdb.Exec(b, e.raw, "CREATE TABLE events (id BIGINT PRIMARY KEY, tenant INT, body VARCHAR(40))")
				// The checked and unchecked paths share one sqe pool of one
				// connection: they differ only in the caller's filter.
				for _, db := range []*sql.DB{e.raw, e.db} {
					db.SetMaxOpenConns(1)
					db.SetMaxIdleConns(1)
				}
				var sb strings.Builder
				sb.WriteString("INSERT INTO events (id, tenant, body) VALUES ")
				for r := 0; r < rows; r++ {
					if r > 0 {
						sb.WriteString(", ")
					}
					if be.name == "postgres" {
						fmt.Fprintf(&sb, "($%d, $%d, $%d)", 3*r+1, 3*r+2, 3*r+3)
					} else {
						sb.WriteString("(?, ?, ?)")
					}
				}
				q := sb.String()
				next := int64(0)
				args := make([]any, 3*rows)
				fill := func() {
					for r := 0; r < rows; r++ {
						next++
						args[3*r], args[3*r+1], args[3*r+2] = next, 42, "payload"
					}
				}
				ctxOf := func(role string) context.Context {
					return session.NewContext(context.Background(), session.User{Name: "bench", Roles: []string{role}})
				}
				paths := []struct {
					db  *sql.DB
					ctx context.Context
				}{{e.raw, context.Background()}, {e.db, ctxOf("checked")}, {e.db, ctxOf("unchecked")}}
				elapsed := interleave(b, len(paths), func(k int) {
					fill()
					if _, err := paths[k].db.ExecContext(paths[k].ctx, q, args...); err != nil {
						b.Fatal(err)
					}
				})
				raw, checked, plain := elapsed[0], elapsed[1], elapsed[2]
				b.ReportMetric(float64(checked.Nanoseconds())/float64(b.N), "checked-ns/op")
				b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "unchecked-ns/op")
				b.ReportMetric(float64(plain)/float64(checked), "checked/unchecked-throughput")
				b.ReportMetric(float64(raw)/float64(checked), "checked/raw-throughput")
			})
		}
	}
}
