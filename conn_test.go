package sqe

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/fakedriver"
	"github.com/sqe-project/sqe/rewriter"
)

// noDirect is a modern driver whose connections cannot execute directly.
func noDirect() fakedriver.Flags {
	f := fakedriver.AllFlags()
	f.ExecerContext, f.QueryerContext, f.Execer, f.Queryer = false, false, false, false
	return f
}

func queryOne(t *testing.T, ctx context.Context, db *sql.DB, q string, args ...any) string {
	t.Helper()
	var got string
	if err := db.QueryRowContext(ctx, q, args...).Scan(&got); err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	return got
}

func TestErrSkipWithoutDirectPathsRewritesOnPrepare(t *testing.T) {
	db, fdb, fp := newTestDB(t, noDirect())
	ctx := userCtx(t, "alice")

	// The conn itself declines before planning.
	conn, _, connFP := newTestConn(t, noDirect())
	if _, err := conn.ExecContext(ctx, qUpdate, nil); err != driver.ErrSkip {
		t.Fatalf("ExecContext without inner ExecerContext: err = %v, want driver.ErrSkip", err)
	}
	if _, err := conn.QueryContext(ctx, qSelect, nil); err != driver.ErrSkip {
		t.Fatalf("QueryContext without inner QueryerContext: err = %v, want driver.ErrSkip", err)
	}
	if n := len(connFP.planCalls()); n != 0 {
		t.Fatalf("planned %d times before returning ErrSkip, want 0", n)
	}

	if _, err := db.ExecContext(ctx, qUpdate, "hi", 7); err != nil {
		t.Fatal(err)
	}
	if got := queryOne(t, ctx, db, qSelect); got != rw(qSelect, "alice") {
		t.Fatalf("query returned %q, want the rewrite %q", got, rw(qSelect, "alice"))
	}
	want := []string{rw(qUpdate, "alice"), rw(qSelect, "alice")}
	if got := fdb.SQL(); !slices.Equal(got, want) {
		t.Fatalf("inner driver saw %q, want only the rewrites %q", got, want)
	}
	for _, c := range fdb.CallsOf(fakedriver.OpPrepareContext) {
		if c.SQL == qUpdate || c.SQL == qSelect {
			t.Fatalf("original SQL reached the inner driver: %q", c.SQL)
		}
	}
	execs := fdb.CallsOf(fakedriver.OpStmtExecContext)
	if len(execs) != 1 || execs[0].Args[0].Value != "hi" || execs[0].Args[1].Value != int64(7) {
		t.Fatalf("statement executions %+v, want one with the caller's args", execs)
	}
	if n := len(fp.planCalls()); n != 2 {
		t.Fatalf("planned %d times, want 2 (one per statement)", n)
	}
	fin := fp.finishCalls()
	if len(fin) != 2 || fin[0].sql != rw(qUpdate, "alice") || fin[0].err != nil || fin[1].sql != rw(qSelect, "alice") || fin[1].err != nil {
		t.Fatalf("finishes %+v, want one successful finish per statement", fin)
	}
}

func TestInnerErrSkipFinishesOnce(t *testing.T) {
	db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
	fdb.SkipDirectWithArgs(true) // like go-sql-driver/mysql without interpolateParams
	ctx := userCtx(t, "alice")

	if _, err := db.ExecContext(ctx, qUpdate, "hi", 7); err != nil {
		t.Fatal(err)
	}
	wantSQL := []string{rw(qUpdate, "alice"), rw(qUpdate, "alice")} // ExecContext (skipped), then PrepareContext
	if got := fdb.SQL(); !slices.Equal(got, wantSQL) {
		t.Fatalf("inner driver saw %q, want %q", got, wantSQL)
	}
	if got := fdb.CallsOf(fakedriver.OpExecContext, fakedriver.OpPrepareContext, fakedriver.OpStmtExecContext); len(got) != 3 ||
		got[0].Op != fakedriver.OpExecContext || got[1].Op != fakedriver.OpPrepareContext || got[2].Op != fakedriver.OpStmtExecContext {
		t.Fatalf("calls %+v, want ExecContext, PrepareContext, Stmt.ExecContext", got)
	}
	if n := len(fp.planCalls()); n != 2 {
		t.Fatalf("planned %d times, want 2 (direct attempt and prepare)", n)
	}
	if fin := fp.finishCalls(); len(fin) != 1 || fin[0].err != nil || fin[0].sql != rw(qUpdate, "alice") {
		t.Fatalf("finishes %+v, want exactly one, successful", fin)
	}

	fp.resetCalls()
	if got := queryOne(t, ctx, db, qSelectArg, 7); got != rw(qSelectArg, "alice") {
		t.Fatalf("query returned %q", got)
	}
	if fin := fp.finishCalls(); len(fin) != 1 || fin[0].err != nil || fin[0].sql != rw(qSelectArg, "alice") {
		t.Fatalf("query finishes %+v, want exactly one, successful", fin)
	}
}

func TestPlanErrorSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ctx   func(t *testing.T) context.Context
		query string
		want  error
	}{
		{"denied", func(t *testing.T) context.Context { return userCtx(t, "alice") }, qSecret, ErrAccessDenied},
		{"unsupported", func(t *testing.T) context.Context { return userCtx(t, "alice") }, qUnknown, ErrUnsupported},
		{"no session", func(t *testing.T) context.Context { return t.Context() }, qSelect, ErrNoSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, flags := range []fakedriver.Flags{fakedriver.AllFlags(), noDirect()} {
				db, fdb, fp := newTestDB(t, flags)
				ctx := tc.ctx(t)
				if _, err := db.ExecContext(ctx, tc.query); !errors.Is(err, tc.want) {
					t.Fatalf("exec: err = %v, want %v", err, tc.want)
				}
				if _, err := db.QueryContext(ctx, tc.query); !errors.Is(err, tc.want) {
					t.Fatalf("query: err = %v, want %v", err, tc.want)
				}
				if _, err := db.PrepareContext(ctx, tc.query); !errors.Is(err, tc.want) {
					t.Fatalf("prepare: err = %v, want %v", err, tc.want)
				}
				if got := fdb.SQL(); len(got) != 0 {
					t.Fatalf("inner driver saw %q after a rejection, want nothing", got)
				}
				fin := fp.finishCalls()
				if len(fin) != 3 {
					t.Fatalf("finishes %+v, want one per rejected statement", fin)
				}
				for _, f := range fin {
					if f.planned || !errors.Is(f.err, tc.want) {
						t.Fatalf("finish %+v, want an unplanned finish with the rejection", f)
					}
				}
			}
		})
	}
}

func TestRejectionErrorReturnedAsIs(t *testing.T) {
	db, _, _ := newTestDB(t, fakedriver.AllFlags())
	_, err := db.ExecContext(userCtx(t, "alice"), qSecret)
	if err != errTestDenied {
		t.Fatalf("err = %#v, want the planner's error itself", err)
	}
}

func TestDirectPathsRewriteWithArgsUntouched(t *testing.T) {
	db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
	ctx := userCtx(t, "bob")
	if _, err := db.ExecContext(ctx, qUpdate, "note", 42); err != nil {
		t.Fatal(err)
	}
	calls := fdb.CallsOf(fakedriver.OpExecContext)
	if len(calls) != 1 || calls[0].SQL != rw(qUpdate, "bob") {
		t.Fatalf("ExecContext calls %+v, want the rewrite", calls)
	}
	if got := calls[0].Args; len(got) != 2 || got[0].Value != "note" || got[1].Value != int64(42) || got[0].Ordinal != 1 {
		t.Fatalf("args %+v, want the caller's args untouched", got)
	}
	if len(fdb.CallsOf(fakedriver.OpPrepareContext)) != 0 {
		t.Fatal("direct execution prepared a statement")
	}
	if fin := fp.finishCalls(); len(fin) != 1 || fin[0].err != nil || fin[0].user != "bob" {
		t.Fatalf("finishes %+v", fin)
	}
}

// TestLegacyExecerQueryerPrepare checks that a connection with only the
// legacy Execer and Queryer (no context methods) runs statements through
// database/sql's prepare path, planned and finished once each.
func TestLegacyExecerQueryerPrepare(t *testing.T) {
	f := fakedriver.AllFlags()
	f.ExecerContext, f.QueryerContext = false, false // Execer and Queryer only
	db, fdb, fp := newTestDB(t, f)
	ctx := userCtx(t, "alice")
	if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
		t.Fatal(err)
	}
	if got := queryOne(t, ctx, db, qSelect); got != rw(qSelect, "alice") {
		t.Fatalf("query returned %q", got)
	}
	got := fdb.CallsOf(fakedriver.OpExec, fakedriver.OpQuery, fakedriver.OpPrepareContext, fakedriver.OpStmtExecContext, fakedriver.OpStmtQueryContext)
	want := []fakedriver.Call{
		{Op: fakedriver.OpPrepareContext, SQL: rw(qUpdate, "alice")},
		{Op: fakedriver.OpStmtExecContext, SQL: rw(qUpdate, "alice")},
		{Op: fakedriver.OpPrepareContext, SQL: rw(qSelect, "alice")},
		{Op: fakedriver.OpStmtQueryContext, SQL: rw(qSelect, "alice")},
	}
	if len(got) != len(want) {
		t.Fatalf("calls %+v, want prepared statements with the rewrites", got)
	}
	for i := range want {
		if got[i].Op != want[i].Op || got[i].SQL != want[i].SQL {
			t.Fatalf("call %d: %+v, want %s of %q", i, got[i], want[i].Op, want[i].SQL)
		}
	}
	if fin := fp.finishCalls(); len(fin) != 2 || fin[0].err != nil || fin[1].err != nil {
		t.Fatalf("finishes %+v, want 2, successful", fin)
	}

	// At the driver level, the direct paths decline before planning:
	// nothing is sent and nothing finished (the prepare path does both).
	conn, cfdb, cfp := newTestConn(t, f)
	if _, err := conn.ExecContext(ctx, qUpdate, nil); err != driver.ErrSkip {
		t.Fatalf("ExecContext err = %v, want driver.ErrSkip", err)
	}
	if _, err := conn.QueryContext(ctx, qSelect, nil); err != driver.ErrSkip {
		t.Fatalf("QueryContext err = %v, want driver.ErrSkip", err)
	}
	if len(cfdb.SQL()) != 0 || len(cfp.finishCalls()) != 0 {
		t.Fatalf("declined direct paths sent %q and finished %+v", cfdb.SQL(), cfp.finishCalls())
	}
}

func TestNamedValueCheckerOrder(t *testing.T) {
	arg := fakedriver.Custom{V: "x"}
	for _, tc := range []struct {
		name     string
		flags    func(*fakedriver.Flags)
		query    bool   // use QueryContext instead of ExecContext
		want     string // the argument the inner driver receives; "" for an error
		checkers []fakedriver.Op
		// prepares: the inner connection has a direct path for this
		// statement but not both, so sqe declines it and database/sql
		// prepares, where over the inner driver it would run directly.
		prepares bool
	}{
		{"stmt checker first", func(f *fakedriver.Flags) { *f = noDirect() }, false, "stmt:x",
			[]fakedriver.Op{fakedriver.OpStmtCheck}, false},
		{"conn checker second", func(f *fakedriver.Flags) { *f = noDirect(); f.StmtNamedValueChecker = false }, false, "conn:x",
			[]fakedriver.Op{fakedriver.OpConnCheck}, false},
		{"column converter third", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.StmtNamedValueChecker, f.ConnNamedValueChecker = false, false
		}, false, "cc:x", []fakedriver.Op{fakedriver.OpColumnConverter}, false},
		{"default last", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.StmtNamedValueChecker, f.ConnNamedValueChecker, f.ColumnConverter = false, false, false
		}, false, "", nil, false},
		{"direct path conn checker", func(f *fakedriver.Flags) { *f = fakedriver.AllFlags() }, false, "conn:x",
			[]fakedriver.Op{fakedriver.OpConnCheck}, false},
		{"direct path default", func(f *fakedriver.Flags) { *f = fakedriver.AllFlags(); f.ConnNamedValueChecker = false }, false, "", nil, false},
		// An inner connection with a direct exec path but no direct query
		// path: database/sql never converts query arguments at the
		// connection, so the statement's checker must get the raw value.
		{"mixed paths query", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.ExecerContext, f.ConnNamedValueChecker = true, false
		}, true, "stmt:x", []fakedriver.Op{fakedriver.OpStmtCheck}, false},
		{"mixed paths query with conn checker", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.ExecerContext = true
		}, true, "stmt:x", []fakedriver.Op{fakedriver.OpStmtCheck}, false},
		// Its exec path is not used either: the statement's checker gets
		// the raw value (database/sql over the inner driver runs the
		// connection's, or fails the default conversion).
		{"mixed paths exec", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.ExecerContext, f.ConnNamedValueChecker = true, false
		}, false, "stmt:x", []fakedriver.Op{fakedriver.OpStmtCheck}, true},
		{"mixed paths exec with conn checker", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.ExecerContext = true
		}, false, "stmt:x", []fakedriver.Op{fakedriver.OpStmtCheck}, true},
		{"legacy paths only, query", func(f *fakedriver.Flags) {
			*f = noDirect()
			f.Execer, f.Queryer = true, true
		}, true, "stmt:x", []fakedriver.Op{fakedriver.OpStmtCheck}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var flags fakedriver.Flags
			tc.flags(&flags)
			db, fdb, _ := newTestDB(t, flags)
			raw, rfdb := rawDB(t, flags)
			ctx := userCtx(t, "alice")

			run := func(db *sql.DB) error {
				if tc.query {
					rows, err := db.QueryContext(ctx, qSelectArg, arg)
					if err == nil {
						err = rows.Close()
					}
					return err
				}
				_, err := db.ExecContext(ctx, qUpdateOne, arg)
				return err
			}
			err, rawErr := run(db), run(raw)
			if tc.prepares {
				// Compare with database/sql over the inner driver without
				// its direct paths.
				noDirectFlags := flags
				noDirectFlags.ExecerContext, noDirectFlags.QueryerContext = false, false
				noDirectFlags.Execer, noDirectFlags.Queryer = false, false
				raw, rfdb = rawDB(t, noDirectFlags)
				rawErr = run(raw)
			}
			if (err == nil) != (rawErr == nil) || (err != nil && err.Error() != rawErr.Error()) {
				t.Fatalf("err = %v, want what database/sql gives for the inner driver: %v", err, rawErr)
			}
			executed := []fakedriver.Op{fakedriver.OpExecContext, fakedriver.OpStmtExecContext, fakedriver.OpQueryContext, fakedriver.OpStmtQueryContext,
				fakedriver.OpExec, fakedriver.OpQuery}
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "converting argument $1") {
					t.Fatalf("err = %v, want the default converter's error", err)
				}
				if got := fdb.CallsOf(executed...); len(got) != 0 {
					t.Fatalf("inner driver executed %+v despite the conversion error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, rawGot := fdb.CallsOf(executed...), rfdb.CallsOf(executed...)
			if len(got) != 1 || got[0].Args[0].Value != tc.want {
				t.Fatalf("executions %+v, want one with argument %q", got, tc.want)
			}
			if len(rawGot) != 1 || got[0].Op != rawGot[0].Op || !reflect.DeepEqual(got[0].Args, rawGot[0].Args) {
				t.Fatalf("sqe executed %+v, database/sql over the inner driver %+v", got, rawGot)
			}
			checkers := func(fdb *fakedriver.DB) []fakedriver.Op {
				var ran []fakedriver.Op
				for _, c := range fdb.CallsOf(fakedriver.OpStmtCheck, fakedriver.OpConnCheck, fakedriver.OpColumnConverter) {
					ran = append(ran, c.Op)
				}
				return ran
			}
			if ran := checkers(fdb); !slices.Equal(ran, tc.checkers) || !slices.Equal(ran, checkers(rfdb)) {
				t.Fatalf("checkers that ran: %v, want %v (database/sql over the inner driver: %v)", ran, tc.checkers, checkers(rfdb))
			}
		})
	}
}

func TestConnBeginTxForwarded(t *testing.T) {
	db, fdb, _ := newTestDB(t, fakedriver.AllFlags())
	ctx := userCtx(t, "alice")
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, qUpdate, "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	calls := fdb.CallsOf(fakedriver.OpBeginTx, fakedriver.OpBegin, fakedriver.OpExecContext, fakedriver.OpCommit)
	if len(calls) != 3 || calls[0].Op != fakedriver.OpBeginTx || calls[1].SQL != rw(qUpdate, "alice") || calls[2].Op != fakedriver.OpCommit {
		t.Fatalf("calls %+v, want BeginTx, the rewritten exec, Commit", calls)
	}
	if opts := calls[0].Tx; opts.Isolation != driver.IsolationLevel(sql.LevelSerializable) || !opts.ReadOnly {
		t.Fatalf("BeginTx options %+v, want serializable read-only", opts)
	}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := fdb.CallsOf(fakedriver.OpRollback); len(got) != 1 {
		t.Fatalf("rollbacks %+v, want 1", got)
	}

	fdb.Fail(fakedriver.OpCommit, "", fakedriver.ErrFake, 1)
	tx, _ = db.BeginTx(ctx, nil)
	if err := tx.Commit(); err != fakedriver.ErrFake {
		t.Fatalf("commit err = %v, want the inner error", err)
	}
}

func TestBeginWithoutConnBeginTx(t *testing.T) {
	f := fakedriver.AllFlags()
	f.ConnBeginTx, f.Pinger, f.SessionResetter, f.Validator = false, false, false, false
	db, fdb, _ := newTestDB(t, f)
	raw, _ := rawDB(t, f)
	ctx := userCtx(t, "alice")

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := fdb.CallsOf(fakedriver.OpBegin, fakedriver.OpCommit); len(got) != 2 || got[0].Op != fakedriver.OpBegin {
		t.Fatalf("calls %+v, want Begin then Commit", got)
	}
	for _, opts := range []*sql.TxOptions{{Isolation: sql.LevelSerializable}, {ReadOnly: true}} {
		_, err := db.BeginTx(ctx, opts)
		_, want := raw.BeginTx(ctx, opts)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Fatalf("BeginTx(%+v) err = %v, want database/sql's %v", opts, err, want)
		}
	}
	if got := fdb.CallsOf(fakedriver.OpBegin); len(got) != 1 {
		t.Fatalf("Begin called %d times, want 1 (non-default options never reach the driver)", len(got))
	}

	// A context cancelled during Begin rolls back, as database/sql does.
	conn, cfdb, _ := newTestConn(t, f)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := conn.BeginTx(cctx, driver.TxOptions{}); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := cfdb.CallsOf(fakedriver.OpBegin, fakedriver.OpRollback); len(got) != 2 || got[1].Op != fakedriver.OpRollback {
		t.Fatalf("calls %+v, want Begin then Rollback", got)
	}
}

func TestTxEndForgetsSessionStateChangedInside(t *testing.T) {
	conn, _, _ := newTestConn(t, fakedriver.AllFlags())
	for _, end := range []func(driver.Tx) error{driver.Tx.Commit, driver.Tx.Rollback} {
		for _, touched := range []bool{false, true} {
			tx, err := conn.BeginTx(t.Context(), driver.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if touched {
				// A statement inside changed the session (SET LOCAL …).
				conn.cs.Apply(rewriter.Effect{RefreshSession: true}, "alice", "fp:alice")
			}
			conn.cs.SetSession(nil) // read again before the transaction's end
			if err := end(tx); err != nil {
				t.Fatal(err)
			}
			if loaded := conn.cs.SessionLoaded(); loaded == touched {
				t.Fatalf("touched=%v: loaded=%v after the transaction ended", touched, loaded)
			}
		}
	}
}

func TestPingerSessionResetterValidatorForwarded(t *testing.T) {
	t.Run("present", func(t *testing.T) {
		db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
		db.SetMaxOpenConns(1)
		ctx := userCtx(t, "alice")
		if err := db.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		if len(fdb.CallsOf(fakedriver.OpPing)) != 1 {
			t.Fatal("Ping not forwarded")
		}
		fdb.SetPingError(fakedriver.ErrFake)
		if err := db.PingContext(ctx); err != fakedriver.ErrFake {
			t.Fatalf("ping err = %v, want the inner error", err)
		}
		fdb.SetPingError(nil)

		// database/sql resets a pooled connection before reusing it; the
		// server-side session survives a reset, and so does what sqe
		// knows of it (it is not read again).
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		_ = c.Close()
		if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		plans := fp.planCalls()
		if len(plans) != 2 || plans[0].loadedBefore || !plans[1].loadedBefore || plans[0].cs != plans[1].cs {
			t.Fatalf("plans %+v: want the session state kept across the pool reset of one connection", plans)
		}
		if len(fdb.CallsOf(fakedriver.OpResetSession)) == 0 || len(fdb.CallsOf(fakedriver.OpIsValid)) == 0 {
			t.Fatalf("ResetSession/IsValid not forwarded: %+v", fdb.Calls())
		}

		// An invalid connection is discarded: the next statement gets a new one.
		fdb.SetValid(false)
		if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		fdb.SetValid(true)
		if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		execs := fdb.CallsOf(fakedriver.OpExecContext)
		if last := execs[len(execs)-1]; last.Conn == execs[len(execs)-2].Conn {
			t.Fatalf("statement after IsValid=false ran on the same connection %d", last.Conn)
		}

		// A reset error is the inner driver's, unchanged (ErrBadConn makes
		// database/sql discard the connection and use another).
		fdb.SetResetError(driver.ErrBadConn)
		if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		fdb.SetResetError(nil)
		execs = fdb.CallsOf(fakedriver.OpExecContext)
		if last := execs[len(execs)-1]; last.Conn == execs[len(execs)-2].Conn {
			t.Fatal("statement after ResetSession=ErrBadConn ran on the same connection")
		}
	})
	t.Run("absent", func(t *testing.T) {
		f := fakedriver.AllFlags()
		f.ConnBeginTx, f.Pinger, f.SessionResetter, f.Validator = false, false, false, false
		conn, fdb, _ := newTestConn(t, f)
		conn.cs.SetSession(nil)
		if err := conn.Ping(t.Context()); err != nil {
			t.Fatalf("Ping = %v, want nil", err)
		}
		if err := conn.ResetSession(t.Context()); err != nil {
			t.Fatalf("ResetSession = %v, want nil", err)
		}
		if !conn.cs.SessionLoaded() {
			t.Fatal("ResetSession dropped the session state")
		}
		if !conn.IsValid() {
			t.Fatal("IsValid = false, want true")
		}
		if got := fdb.CallsOf(fakedriver.OpPing, fakedriver.OpResetSession, fakedriver.OpIsValid); len(got) != 0 {
			t.Fatalf("calls %+v reached a driver without those interfaces", got)
		}
	})
}

func TestPrepareWithoutConnPrepareContext(t *testing.T) {
	f := noDirect()
	f.ConnPrepareContext = false
	conn, fdb, fp := newTestConn(t, f)
	ctx := userCtx(t, "alice")
	s, err := conn.PrepareContext(ctx, qSelect)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if got := fdb.CallsOf(fakedriver.OpPrepare); len(got) != 1 || got[0].SQL != rw(qSelect, "alice") {
		t.Fatalf("calls %+v, want Prepare with the rewrite", got)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	fdb.Reset()
	if _, err := conn.PrepareContext(cctx, qSelect); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := fdb.CallsOf(fakedriver.OpPrepare, fakedriver.OpStmtClose); len(got) != 2 || got[1].Op != fakedriver.OpStmtClose {
		t.Fatalf("calls %+v, want the prepared statement closed", got)
	}
	if fin := fp.finishCalls(); len(fin) != 1 || fin[0].err != context.Canceled {
		t.Fatalf("finishes %+v, want one with context.Canceled", fin)
	}
}

func TestInnerErrorsPassThrough(t *testing.T) {
	t.Run("bad conn retried", func(t *testing.T) {
		db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
		ctx := userCtx(t, "alice")
		fdb.Fail(fakedriver.OpExecContext, "", driver.ErrBadConn, 1)
		if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatalf("exec after one bad connection: %v", err)
		}
		execs := fdb.CallsOf(fakedriver.OpExecContext)
		if len(execs) != 2 || execs[0].Conn == execs[1].Conn {
			t.Fatalf("execs %+v, want a retry on a new connection", execs)
		}
		plans, fin := fp.planCalls(), fp.finishCalls()
		if len(plans) != 2 || plans[0].cs == plans[1].cs {
			t.Fatalf("plans %+v, want one per attempt, each on its connection", plans)
		}
		if len(fin) != 2 || fin[0].err != driver.ErrBadConn || fin[1].err != nil {
			t.Fatalf("finishes %+v, want the failed attempt then the successful one", fin)
		}
	})
	t.Run("bad conn unchanged", func(t *testing.T) {
		db, fdb, _ := newTestDB(t, fakedriver.AllFlags())
		fdb.Fail(fakedriver.OpQueryContext, "", driver.ErrBadConn, 0)
		_, err := db.QueryContext(userCtx(t, "alice"), qSelect)
		if !errors.Is(err, driver.ErrBadConn) {
			t.Fatalf("err = %v, want driver.ErrBadConn", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		conn, _, fp := newTestConn(t, fakedriver.AllFlags())
		ctx, cancel := context.WithCancel(userCtx(t, "alice"))
		cancel()
		if _, err := conn.ExecContext(ctx, qUpdate, nil); err != context.Canceled {
			t.Fatalf("exec err = %v, want context.Canceled", err)
		}
		if _, err := conn.QueryContext(ctx, qSelect, nil); err != context.Canceled {
			t.Fatalf("query err = %v, want context.Canceled", err)
		}
		if fin := fp.finishCalls(); len(fin) != 2 || fin[0].err != context.Canceled || fin[1].err != context.Canceled {
			t.Fatalf("finishes %+v", fin)
		}
	})
	t.Run("driver error", func(t *testing.T) {
		db, fdb, _ := newTestDB(t, fakedriver.AllFlags())
		fdb.Fail(fakedriver.OpPrepareContext, "", fakedriver.ErrFake, 0)
		if _, err := db.PrepareContext(userCtx(t, "alice"), qSelect); err != fakedriver.ErrFake {
			t.Fatalf("err = %v, want the inner error itself", err)
		}
	})
}

func TestQueryFinishedOnCloseWithIterationError(t *testing.T) {
	db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
	ctx := userCtx(t, "alice")
	fdb.SetResult(rw(qSelect, "alice"), fakedriver.Result{Columns: []string{"a"}, Rows: [][]driver.Value{{"1"}, {"2", "extra"}}})
	rows, err := db.QueryContext(ctx, qSelect)
	if err != nil {
		t.Fatal(err)
	}
	if len(fp.finishCalls()) != 0 {
		t.Fatal("query finished before its rows were read")
	}
	for rows.Next() {
	}
	iterErr := rows.Err()
	_ = rows.Close()
	if iterErr == nil {
		t.Fatal("want an iteration error from the fake")
	}
	fin := fp.finishCalls()
	if len(fin) != 1 || fin[0].err == nil || fin[0].err.Error() != iterErr.Error() {
		t.Fatalf("finishes %+v, want one with the iteration error %v", fin, iterErr)
	}
}

func TestRawConnRefusedAndOptIn(t *testing.T) {
	for _, raw := range []bool{false, true} {
		var opts []Option
		if raw {
			opts = append(opts, WithRawConnAccess())
		}
		db, _, _ := newTestDB(t, fakedriver.AllFlags(), opts...)
		c, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		err = c.Raw(func(dc any) error {
			sc, ok := dc.(*Conn)
			if !ok {
				t.Fatalf("Raw handed out %T, want *sqe.Conn", dc)
			}
			inner, err := sc.Unwrap()
			if !raw {
				if inner != nil || !errors.Is(err, ErrAccessDenied) || !strings.Contains(err.Error(), "WithRawConnAccess") {
					t.Fatalf("Unwrap = %v, %v; want nil and an ErrAccessDenied error naming WithRawConnAccess", inner, err)
				}
				return nil
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, isSqe := inner.(*Conn); isSqe || inner != sc.inner {
				t.Fatalf("Unwrap returned %T, want the inner connection", inner)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Close()
	}

	// Nothing else on Conn exposes the inner connection.
	typ := reflect.TypeFor[*Conn]()
	connType := reflect.TypeFor[driver.Conn]()
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		for j := range m.Type.NumOut() {
			if out := m.Type.Out(j); out == connType && m.Name != "Unwrap" {
				t.Errorf("method %s returns a driver.Conn", m.Name)
			}
		}
	}
	for i := range typ.Elem().NumField() {
		if f := typ.Elem().Field(i); f.IsExported() {
			t.Errorf("Conn has exported field %s", f.Name)
		}
	}
}

func TestConnCheckNamedValueForwarded(t *testing.T) {
	conn, fdb, _ := newTestConn(t, fakedriver.AllFlags())
	nv := driver.NamedValue{Ordinal: 1, Value: fakedriver.Custom{V: "v"}}
	if err := conn.CheckNamedValue(&nv); err != nil || nv.Value != "conn:v" {
		t.Fatalf("CheckNamedValue = %v, value %v; want the inner checker's conversion", err, nv.Value)
	}
	nv = driver.NamedValue{Ordinal: 1, Value: 1}
	if err := conn.CheckNamedValue(&nv); err != driver.ErrSkip {
		t.Fatalf("CheckNamedValue = %v, want the inner checker's ErrSkip", err)
	}
	if len(fdb.CallsOf(fakedriver.OpConnCheck)) != 2 {
		t.Fatal("inner checker not called")
	}

	f := fakedriver.AllFlags()
	f.ConnNamedValueChecker = false
	conn, _, _ = newTestConn(t, f)
	if err := conn.CheckNamedValue(&nv); err != driver.ErrSkip {
		t.Fatalf("CheckNamedValue without an inner checker = %v, want driver.ErrSkip", err)
	}
}
