package sqe

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sqe-project/sqe/internal/fakedriver"
	"github.com/sqe-project/sqe/session"
)

// BenchmarkStatementOverhead measures what sqe adds on the client for one
// statement with a cached rewrite, a row filter and a mask, over an
// in-memory driver that answers at once (so the numbers are sqe's own CPU
// cost, free of network and server noise). Both sides take the path
// go-sql-driver/mysql takes for a statement with arguments: direct query
// refused with driver.ErrSkip, then prepare, query, close.
func BenchmarkStatementOverhead(b *testing.B) {
	flags := fakedriver.AllFlags()
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	q := "SELECT id, ssn FROM customers WHERE id = ?"
	run := func(b *testing.B, db *sql.DB) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			rows, err := db.QueryContext(ctx, q, 1)
			if err != nil {
				b.Fatal(err)
			}
			rows.Close()
		}
	}
	b.Run("raw", func(b *testing.B) {
		fdb := fakedriver.New(flags)
		fdb.SkipDirectWithArgs(true)
		raw := sql.OpenDB(fdb.Connector("raw"))
		defer raw.Close()
		run(b, raw)
	})
	b.Run("sqe", func(b *testing.B) {
		db, fdb, _ := engineDB(b, flags, WithoutAudit())
		fdb.SkipDirectWithArgs(true)
		run(b, db)
	})
}
