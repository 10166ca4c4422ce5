package sqe

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe/internal/fakedriver"
)

const (
	qSet     = "SET @x = 1"
	qBegin   = "BEGIN"
	qAlter   = "ALTER TABLE orders ADD c INT"
	qSelect2 = "SELECT note FROM orders WHERE id = ?"
)

// newCacheTestDB opens sqe over a fake database that declines direct
// execution with arguments (as go-sql-driver/mysql does without
// interpolateParams), with one connection, and a planner whose plans carry
// their statement's kind.
func newCacheTestDB(t *testing.T, opts ...Option) (*sql.DB, *fakedriver.DB, *fakePlanner) {
	t.Helper()
	fdb := fakedriver.New(fakedriver.AllFlags())
	fdb.SkipDirectWithArgs(true)
	fp := testPlanner()
	fp.results = true
	for q, r := range map[string]string{qSet: qSet, qBegin: qBegin, qAlter: qAlter,
		qSelect2: "SELECT note FROM (SELECT * FROM orders WHERE owner = '{user}') AS orders WHERE id = ?"} {
		fp.rewrites[q] = r
	}
	c, err := NewConnector(fdb.Connector("fake"), append([]Option{withPlanner(fp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db, fdb, fp
}

// count is the number of calls of op on the statement text sqlText.
func count(fdb *fakedriver.DB, op fakedriver.Op, sqlText string) int {
	n := 0
	for _, c := range fdb.CallsOf(op) {
		if c.SQL == sqlText {
			n++
		}
	}
	return n
}

func TestStatementCacheReusesPreparedStatement(t *testing.T) {
	db, fdb, fp := newCacheTestDB(t)
	ctx := userCtx(t, "alice")
	want := rw(qSelectArg, "alice")
	for i := 0; i < 5; i++ {
		if got := queryOne(t, ctx, db, qSelectArg, i); got != want {
			t.Fatalf("query %d returned %q, want %q", i, got, want)
		}
	}
	// The first call is declined and prepared by database/sql (and closed);
	// the second prepares the cached statement, which the rest reuse.
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 2 {
		t.Fatalf("prepared %d times, want 2", n)
	}
	if n := count(fdb, fakedriver.OpStmtQueryContext, want); n != 5 {
		t.Fatalf("executed %d times, want 5", n)
	}
	if n := count(fdb, fakedriver.OpStmtClose, want); n != 1 {
		t.Fatalf("closed %d statements, want 1 (database/sql's own)", n)
	}
	for i, c := range fdb.CallsOf(fakedriver.OpStmtQueryContext) {
		if len(c.Args) != 1 || c.Args[0].Value != int64(i) {
			t.Fatalf("execution %d had args %+v, want the caller's [%d]", i, c.Args, i)
		}
	}
	if fin := fp.finishCalls(); len(fin) != 5 {
		t.Fatalf("%d finishes, want one per statement", len(fin))
	}
	for _, f := range fp.finishCalls() {
		if f.err != nil || f.sql != want {
			t.Fatalf("finish %+v, want a successful one of the rewrite", f)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(fdb, fakedriver.OpStmtClose, want); n != 2 {
		t.Fatalf("closing the pool closed %d statements in all, want 2 (the cached one too)", n)
	}
}

func TestStatementCacheKeepsCallersApart(t *testing.T) {
	db, fdb, _ := newCacheTestDB(t)
	users := []string{"alice", "bob", "alice", "bob", "carol", "alice"}
	for i, u := range users {
		if got, want := queryOne(t, userCtx(t, u), db, qSelectArg, i), rw(qSelectArg, u); got != want {
			t.Fatalf("%s got %q, want their own rewrite %q", u, got, want)
		}
	}
	for _, c := range fdb.CallsOf(fakedriver.OpStmtQueryContext) {
		if c.SQL != rw(qSelectArg, "alice") && c.SQL != rw(qSelectArg, "bob") && c.SQL != rw(qSelectArg, "carol") {
			t.Fatalf("executed %q", c.SQL)
		}
	}
	// One prepare per caller's text (alice's first call is database/sql's).
	if n := count(fdb, fakedriver.OpPrepareContext, rw(qSelectArg, "bob")); n != 1 {
		t.Fatalf("bob's rewrite prepared %d times, want 1", n)
	}
}

func TestStatementCacheIsBounded(t *testing.T) {
	db, fdb, _ := newCacheTestDB(t, WithStatementCacheSize(2))
	ctx := userCtx(t, "alice")
	queryOne(t, ctx, db, qSelectArg, 1) // declined: database/sql prepares
	for _, u := range []string{"alice", "bob", "carol"} {
		queryOne(t, userCtx(t, u), db, qSelectArg, 1)
	}
	// alice's cached statement was the least recently used: evicted, closed.
	if n := count(fdb, fakedriver.OpStmtClose, rw(qSelectArg, "alice")); n != 2 {
		t.Fatalf("alice's statements closed %d times, want 2 (database/sql's and the evicted one)", n)
	}
	if n := count(fdb, fakedriver.OpStmtClose, rw(qSelectArg, "bob")); n != 0 {
		t.Fatalf("bob's cached statement closed %d times, want 0", n)
	}
	queryOne(t, ctx, db, qSelectArg, 1)
	if n := count(fdb, fakedriver.OpPrepareContext, rw(qSelectArg, "alice")); n != 3 {
		t.Fatalf("alice's rewrite prepared %d times, want 3", n)
	}
	if n := count(fdb, fakedriver.OpStmtClose, rw(qSelectArg, "bob")); n != 1 {
		t.Fatalf("bob's cached statement closed %d times after alice's came back, want 1", n)
	}
}

func TestStatementCacheFlushedBySessionAndDDL(t *testing.T) {
	for _, tc := range []struct {
		stmt  string
		flush bool
	}{{qSet, true}, {qAlter, true}, {qBegin, false}} {
		t.Run(tc.stmt, func(t *testing.T) {
			db, fdb, _ := newCacheTestDB(t)
			ctx := userCtx(t, "alice")
			want := rw(qSelectArg, "alice")
			queryOne(t, ctx, db, qSelectArg, 1)
			queryOne(t, ctx, db, qSelectArg, 1) // cached from here
			if _, err := db.ExecContext(ctx, tc.stmt); err != nil {
				t.Fatal(err)
			}
			queryOne(t, ctx, db, qSelectArg, 1)
			prepares, closes := 2, 1
			if tc.flush {
				prepares, closes = 3, 2
			}
			if n := count(fdb, fakedriver.OpPrepareContext, want); n != prepares {
				t.Fatalf("prepared %d times, want %d", n, prepares)
			}
			if n := count(fdb, fakedriver.OpStmtClose, want); n != closes {
				t.Fatalf("closed %d times, want %d", n, closes)
			}
		})
	}
}

func TestStatementCacheBusyStatement(t *testing.T) {
	db, fdb, _ := newCacheTestDB(t)
	ctx := userCtx(t, "alice")
	want := rw(qSelectArg, "alice")
	queryOne(t, ctx, db, qSelectArg, 1)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	open, err := conn.QueryContext(ctx, qSelectArg, 2) // holds the cached statement
	if err != nil {
		t.Fatal(err)
	}
	second, err := conn.QueryContext(ctx, qSelectArg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	// The second ran on a statement of its own, closed with its rows.
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 3 {
		t.Fatalf("prepared %d times, want 3", n)
	}
	if n := count(fdb, fakedriver.OpStmtClose, want); n != 2 {
		t.Fatalf("closed %d times, want 2", n)
	}
	if err := open.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, qUpdate, "n", 1); err != nil {
		t.Fatal(err)
	}
	if got := func() string {
		var s string
		if err := conn.QueryRowContext(ctx, qSelectArg, 4).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}(); got != want {
		t.Fatalf("got %q", got)
	}
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 3 {
		t.Fatalf("prepared %d times after the cached statement was free again, want still 3", n)
	}
}

func TestStatementCacheDropsFailedStatement(t *testing.T) {
	db, fdb, fp := newCacheTestDB(t)
	ctx := userCtx(t, "alice")
	want := rw(qSelectArg, "alice")
	queryOne(t, ctx, db, qSelectArg, 1)
	queryOne(t, ctx, db, qSelectArg, 1)
	boom := errors.New("statement needs to be re-prepared")
	fdb.Fail(fakedriver.OpStmtQueryContext, want, boom, 1)
	if err := db.QueryRowContext(ctx, qSelectArg, 1).Scan(new(string)); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the inner driver's", err)
	}
	if f := fp.finishCalls(); f[len(f)-1].err == nil {
		t.Fatal("the failed statement was not finished with its error")
	}
	queryOne(t, ctx, db, qSelectArg, 1)
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 3 {
		t.Fatalf("prepared %d times, want 3 (the failed statement prepared afresh)", n)
	}
}

func TestStatementCacheExec(t *testing.T) {
	db, fdb, fp := newCacheTestDB(t)
	ctx := userCtx(t, "alice")
	want := rw(qUpdate, "alice")
	for i := 0; i < 4; i++ {
		res, err := db.ExecContext(ctx, qUpdate, "n", i)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("rows affected %d", n)
		}
	}
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 2 {
		t.Fatalf("prepared %d times, want 2", n)
	}
	if n := count(fdb, fakedriver.OpStmtExecContext, want); n != 4 {
		t.Fatalf("executed %d times, want 4", n)
	}
	if n := len(fp.finishCalls()); n != 4 {
		t.Fatalf("%d finishes, want 4", n)
	}
}

func TestStatementCacheOff(t *testing.T) {
	db, fdb, _ := newCacheTestDB(t, WithStatementCacheSize(0))
	ctx := userCtx(t, "alice")
	want := rw(qSelectArg, "alice")
	for i := 0; i < 3; i++ {
		queryOne(t, ctx, db, qSelectArg, i)
	}
	if p, c := count(fdb, fakedriver.OpPrepareContext, want), count(fdb, fakedriver.OpStmtClose, want); p != 3 || c != 3 {
		t.Fatalf("prepared %d and closed %d, want 3 and 3 (database/sql's path every time)", p, c)
	}
	if n := count(fdb, fakedriver.OpQueryContext, want); n != 1 {
		t.Fatalf("direct attempts %d, want only the first", n)
	}
}

// The cache serves only inner connections that decline direct execution
// with arguments: with a direct path, nothing is prepared.
func TestStatementCacheUnusedWithDirectPath(t *testing.T) {
	fdb := fakedriver.New(fakedriver.AllFlags())
	fp := testPlanner()
	fp.results = true
	c, err := NewConnector(fdb.Connector("fake"), withPlanner(fp))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	for i := 0; i < 3; i++ {
		queryOne(t, userCtx(t, "alice"), db, qSelectArg, i)
	}
	if n := len(fdb.CallsOf(fakedriver.OpPrepareContext)); n != 0 {
		t.Fatalf("prepared %d statements, want 0", n)
	}
}

// At the server's limit on prepared statements, the cache gives its own
// statements back and the statement is prepared again.
func TestStatementCacheYieldsAtTheServerLimit(t *testing.T) {
	db, fdb, _ := newCacheTestDB(t)
	queryOne(t, userCtx(t, "alice"), db, qSelectArg, 1)
	queryOne(t, userCtx(t, "alice"), db, qSelectArg, 1) // alice's is cached
	limit := &mysql.MySQLError{Number: 1461, SQLState: [5]byte{'4', '2', '0', '0', '0'}, Message: "Can't create more than max_prepared_stmt_count statements (current value: 16382)"}
	fdb.Fail(fakedriver.OpPrepareContext, rw(qSelectArg, "bob"), limit, 1)
	if got, want := queryOne(t, userCtx(t, "bob"), db, qSelectArg, 1), rw(qSelectArg, "bob"); got != want {
		t.Fatalf("bob got %q, want %q", got, want)
	}
	if n := count(fdb, fakedriver.OpStmtClose, rw(qSelectArg, "alice")); n != 2 {
		t.Fatalf("alice's statements closed %d times, want 2 (database/sql's and the cached one)", n)
	}
	// Any other failure to prepare is the caller's, as it comes.
	boom := errors.New("syntax error")
	fdb.Fail(fakedriver.OpPrepareContext, rw(qSelectArg, "carol"), boom, 1)
	if err := db.QueryRowContext(userCtx(t, "carol"), qSelectArg, 1).Scan(new(string)); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the inner driver's", err)
	}
	if n := count(fdb, fakedriver.OpStmtClose, rw(qSelectArg, "bob")); n != 0 {
		t.Fatalf("bob's cached statement closed %d times, want 0", n)
	}
}

// TestStatementCacheDeclinedIsOneStatement: a cached statement that
// declines with driver.ErrSkip sends database/sql to its prepare path,
// which runs the statement again; the statement is reported once (by that
// path), and the cached statement is dropped and closed, not left busy.
func TestStatementCacheDeclinedIsOneStatement(t *testing.T) {
	db, fdb, fp := newCacheTestDB(t)
	ctx := userCtx(t, "alice")
	want := rw(qSelectArg, "alice")
	queryOne(t, ctx, db, qSelectArg, 1)
	queryOne(t, ctx, db, qSelectArg, 1) // prepares the cached statement
	finished, closed := len(fp.finishCalls()), count(fdb, fakedriver.OpStmtClose, want)
	fdb.Fail(fakedriver.OpStmtQueryContext, want, driver.ErrSkip, 1)
	if got := queryOne(t, ctx, db, qSelectArg, 1); got != want {
		t.Fatalf("got %q", got)
	}
	if fin := fp.finishCalls()[finished:]; len(fin) != 1 || fin[0].err != nil {
		t.Fatalf("finishes %+v, want one successful finish of the statement", fin)
	}
	if n := count(fdb, fakedriver.OpStmtClose, want) - closed; n != 2 {
		t.Fatalf("closed %d statements, want 2 (the declining cached one, and database/sql's own)", n)
	}
	queryOne(t, ctx, db, qSelectArg, 1)
	if n := count(fdb, fakedriver.OpPrepareContext, want); n != 4 {
		t.Fatalf("prepared %d times, want 4 (the next statement cached afresh)", n)
	}
}
