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
// cost, free of network and server noise). "direct" is the path of pgx
// and of go-sql-driver/mysql with interpolateParams: the connection runs
// the statement itself. "prepare" is the path of go-sql-driver/mysql
// without it: the direct query is declined with driver.ErrSkip, then the
// raw driver is prepared, queried and closed by database/sql while sqe runs
// a statement it keeps prepared.
func BenchmarkStatementOverhead(b *testing.B) {
	flags := fakedriver.AllFlags()
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	q := "SELECT id, ssn FROM customers WHERE id = ?"
	run := func(b *testing.B, db *sql.DB, fdb *fakedriver.DB) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if i%1024 == 0 {
				// The fake records every call; keep the record short.
				b.StopTimer()
				fdb.Reset()
				b.StartTimer()
			}
			rows, err := db.QueryContext(ctx, q, 1)
			if err != nil {
				b.Fatal(err)
			}
			rows.Close()
		}
	}
	for _, path := range []struct {
		name string
		skip bool
	}{{"direct", false}, {"prepare", true}} {
		b.Run(path.name+"/raw", func(b *testing.B) {
			fdb := fakedriver.New(flags)
			fdb.SkipDirectWithArgs(path.skip)
			raw := sql.OpenDB(fdb.Connector("raw"))
			defer raw.Close()
			run(b, raw, fdb)
		})
		b.Run(path.name+"/sqe", func(b *testing.B) {
			db, fdb, _ := engineDB(b, flags, WithoutAudit())
			fdb.SkipDirectWithArgs(path.skip)
			run(b, db, fdb)
		})
	}
}
