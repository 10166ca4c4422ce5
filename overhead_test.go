package sqe

import (
	"context"
	"database/sql"
	"testing"
	"time"

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

// BenchmarkStatementOverheadCold is BenchmarkStatementOverhead's direct
// path with the processor's caches cold: before each statement the
// benchmark writes over a buffer larger than a core's private caches, as
// the database server does between two statements of a client on a small
// machine (the client waits while the server runs on the same cores).
// What sqe adds per statement then is the memory it touches, code
// included, more than the instructions it runs. Raw and sqe alternate
// statement by statement; the eviction is not timed. It reports each
// path's time per statement and "sqe-raw-ns/stmt", their difference.
func BenchmarkStatementOverheadCold(b *testing.B) {
	flags := fakedriver.AllFlags()
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	q := "SELECT id, ssn FROM customers WHERE id = ?"
	fraw := fakedriver.New(flags)
	raw := sql.OpenDB(fraw.Connector("raw"))
	defer raw.Close()
	db, fdb, _ := engineDB(b, flags, WithoutAudit())
	paths := []*sql.DB{raw, db}
	evict := evictor(4 << 20)
	one := func(db *sql.DB) time.Duration {
		evict()
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, q, 1)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		return time.Since(t0)
	}
	for _, db := range paths {
		one(db)
	}
	var elapsed [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 {
			// The fakes record every call; keep the records short.
			fraw.Reset()
			fdb.Reset()
		}
		for k := range paths {
			p := (i + k) % len(paths)
			elapsed[p] += one(paths[p])
		}
	}
	b.StopTimer()
	perStmt := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	b.ReportMetric(perStmt(elapsed[0]), "raw-ns/stmt")
	b.ReportMetric(perStmt(elapsed[1]), "sqe-ns/stmt")
	b.ReportMetric(perStmt(elapsed[1]-elapsed[0]), "sqe-raw-ns/stmt")
	b.ReportMetric(float64(elapsed[0])/float64(elapsed[1]), "sqe/raw-throughput")
	b.ReportMetric(0, "ns/op")
}

// evictor returns a function that writes over size bytes, one write per
// cache line, pushing what a statement touched out of the private caches.
func evictor(size int) func() {
	buf := make([]byte, size)
	return func() {
		for i := 0; i < len(buf); i += 64 {
			buf[i]++
		}
	}
}
