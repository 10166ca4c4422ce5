package sqe

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/fakedriver"
)

func TestStmtReboundPerCallerOnOnePooledConn(t *testing.T) {
	db, fdb, fp := newTestDB(t, fakedriver.AllFlags())
	db.SetMaxOpenConns(1)
	alice, bob := userCtx(t, "alice"), userCtx(t, "bob")

	st, err := db.PrepareContext(alice, qSelectArg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan := func(ctx context.Context) string {
		t.Helper()
		var got string
		if err := st.QueryRowContext(ctx, 1).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := scan(alice); got != rw(qSelectArg, "alice") {
		t.Fatalf("alice got %q", got)
	}
	if got := scan(bob); got != rw(qSelectArg, "bob") {
		t.Fatalf("bob got %q, want bob's rewrite %q", got, rw(qSelectArg, "bob"))
	}
	if got := scan(alice); got != rw(qSelectArg, "alice") {
		t.Fatalf("alice again got %q", got)
	}

	prepares := fdb.CallsOf(fakedriver.OpPrepareContext)
	wantSQL := []string{rw(qSelectArg, "alice"), rw(qSelectArg, "bob"), rw(qSelectArg, "alice")}
	if len(prepares) != 3 {
		t.Fatalf("prepares %+v, want 3 (alice, re-prepare for bob, back for alice)", prepares)
	}
	for i, p := range prepares {
		if p.SQL != wantSQL[i] || p.Conn != prepares[0].Conn {
			t.Fatalf("prepare %d: %+v, want %q on connection %d", i, p, wantSQL[i], prepares[0].Conn)
		}
	}
	queries := fdb.CallsOf(fakedriver.OpStmtQueryContext)
	if len(queries) != 3 || queries[1].SQL != rw(qSelectArg, "bob") || queries[1].Stmt != prepares[1].Stmt || queries[0].Stmt != prepares[0].Stmt {
		t.Fatalf("statement queries %+v, want bob's on the re-prepared statement", queries)
	}
	closes := fdb.CallsOf(fakedriver.OpStmtClose)
	if len(closes) < 2 || closes[0].Stmt != prepares[0].Stmt || closes[1].Stmt != prepares[1].Stmt {
		t.Fatalf("statement closes %+v, want each replaced statement closed", closes)
	}
	var users []string
	for _, f := range fp.finishCalls() {
		if f.err != nil {
			t.Fatalf("finish %+v", f)
		}
		users = append(users, f.user+"="+f.sql)
	}
	if len(users) != 3 || !strings.Contains(users[1], "bob") || strings.Contains(users[1], "alice") {
		t.Fatalf("finishes %v, want one per execution, bob's with bob's rewrite", users)
	}
}

func TestStmtSameCallerReusesStatement(t *testing.T) {
	conn, fdb, fp := newTestConn(t, fakedriver.AllFlags())
	ctx := userCtx(t, "alice")
	s, err := conn.PrepareContext(ctx, qUpdate)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 3 {
		if _, err := s.(driver.StmtExecContext).ExecContext(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fdb.CallsOf(fakedriver.OpPrepareContext)); n != 1 {
		t.Fatalf("prepared %d times for one caller, want 1", n)
	}
	fin := fp.finishCalls()
	if len(fin) != 3 {
		t.Fatalf("finishes %+v, want one per execution", fin)
	}
}

func TestStmtRebindFailures(t *testing.T) {
	conn, fdb, fp := newTestConn(t, fakedriver.AllFlags())
	alice := userCtx(t, "alice")
	s, err := conn.PrepareContext(alice, qUpdate)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exec := s.(driver.StmtExecContext)

	// No caller: rejected, nothing sent.
	fdb.Reset()
	if _, err := exec.ExecContext(t.Context(), nil); !errors.Is(err, ErrNoSession) {
		t.Fatalf("err = %v, want ErrNoSession", err)
	}
	// A caller the re-plan rejects.
	fp.deny[qUpdate] = errTestDenied
	if _, err := exec.ExecContext(userCtx(t, "mallory"), nil); err != errTestDenied {
		t.Fatalf("err = %v, want the rejection", err)
	}
	delete(fp.deny, qUpdate)
	if got := fdb.Calls(); len(got) != 0 {
		t.Fatalf("inner driver saw %+v after rejections", got)
	}
	// A failed re-prepare keeps the statement usable for its caller.
	fdb.Fail(fakedriver.OpPrepareContext, "", fakedriver.ErrFake, 1)
	if _, err := exec.ExecContext(userCtx(t, "bob"), nil); err != fakedriver.ErrFake {
		t.Fatalf("err = %v, want the inner prepare error", err)
	}
	if _, err := exec.ExecContext(alice, nil); err != nil {
		t.Fatal(err)
	}
	if got := fdb.CallsOf(fakedriver.OpStmtExecContext); len(got) != 1 || got[0].SQL != rw(qUpdate, "alice") {
		t.Fatalf("executions %+v, want alice's statement only", got)
	}
	fin := fp.finishCalls()
	if len(fin) != 4 || fin[0].planned || fin[1].planned || !fin[2].planned || fin[2].err != fakedriver.ErrFake || fin[3].err != nil {
		t.Fatalf("finishes %+v", fin)
	}
}

func TestStmtNeverReturnsErrSkip(t *testing.T) {
	f := noDirect()
	f.StmtExecContext, f.StmtQueryContext = false, false
	db, fdb, _ := newTestDB(t, f)
	ctx := userCtx(t, "alice")
	if _, err := db.ExecContext(ctx, qUpdate, "a", 1); err != nil {
		t.Fatalf("exec through a legacy statement: %v", err)
	}
	if got := queryOne(t, ctx, db, qSelectArg, 1); got != rw(qSelectArg, "alice") {
		t.Fatalf("query got %q", got)
	}
	if got := fdb.CallsOf(fakedriver.OpStmtExec, fakedriver.OpStmtQuery); len(got) != 2 {
		t.Fatalf("calls %+v, want the legacy Exec and Query", got)
	}

	// Driver-level: every entry point of the statement, with and without
	// the inner context methods, never declines.
	for _, flags := range []fakedriver.Flags{f, fakedriver.AllFlags()} {
		conn, _, _ := newTestConn(t, flags)
		s, err := conn.PrepareContext(ctx, qSelectArg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.(driver.StmtExecContext).ExecContext(ctx, []driver.NamedValue{{Ordinal: 1, Value: 1}}); err != nil {
			t.Fatalf("ExecContext: %v", err)
		}
		rows, err := s.(driver.StmtQueryContext).QueryContext(ctx, []driver.NamedValue{{Ordinal: 1, Value: 1}})
		if err != nil {
			t.Fatalf("QueryContext: %v", err)
		}
		_ = rows.Close()
		if _, err := s.(driver.StmtExecContext).ExecContext(userCtx(t, "bob"), nil); err != nil {
			t.Fatalf("ExecContext after re-prepare: %v", err)
		}
		_ = s.Close()
	}

	// Named parameters on a legacy statement fail as database/sql fails them.
	raw, _ := rawDB(t, f)
	_, want := raw.ExecContext(ctx, qUpdate, sql.Named("n", "a"), 1)
	_, err := db.ExecContext(ctx, qUpdate, sql.Named("n", "a"), 1)
	if err == nil || want == nil || err.Error() != want.Error() || errors.Is(err, driver.ErrSkip) {
		t.Fatalf("err = %v, want database/sql's %v", err, want)
	}
}

func TestColumnConverterKeptOrAbsent(t *testing.T) {
	for _, has := range []bool{false, true} {
		f := fakedriver.AllFlags()
		f.ColumnConverter = has
		conn, fdb, _ := newTestConn(t, f)
		s, err := conn.PrepareContext(userCtx(t, "alice"), qUpdate)
		if err != nil {
			t.Fatal(err)
		}
		cc, ok := s.(driver.ColumnConverter) //lint:ignore SA1019 the wrapper must keep the deprecated interface
		if ok != has {
			t.Fatalf("inner ColumnConverter %v, wrapper implements it: %v", has, ok)
		}
		if has {
			v, err := cc.ColumnConverter(0).ConvertValue(fakedriver.Custom{V: "z"})
			if err != nil || v != "cc:z" || len(fdb.CallsOf(fakedriver.OpColumnConverter)) != 1 {
				t.Fatalf("ColumnConverter not forwarded: %v, %v", v, err)
			}
		}
		_ = s.Close()
	}
}

func TestStmtNamedValueChecker(t *testing.T) {
	ctx := userCtx(t, "alice")
	for _, tc := range []struct {
		name       string
		stmt, conn bool
		want       any
		wantErr    error
	}{
		{"stmt", true, true, "stmt:c", nil},
		{"conn", false, true, "conn:c", nil},
		{"none", false, false, fakedriver.Custom{V: "c"}, driver.ErrSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakedriver.AllFlags()
			f.StmtNamedValueChecker, f.ConnNamedValueChecker = tc.stmt, tc.conn
			conn, _, _ := newTestConn(t, f)
			s, err := conn.PrepareContext(ctx, qUpdate)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			nv := driver.NamedValue{Ordinal: 1, Value: fakedriver.Custom{V: "c"}}
			if err := s.(driver.NamedValueChecker).CheckNamedValue(&nv); err != tc.wantErr || nv.Value != tc.want {
				t.Fatalf("CheckNamedValue = %v, value %v; want %v, %v", err, nv.Value, tc.wantErr, tc.want)
			}
		})
	}
}

func TestStmtNumInputForwarded(t *testing.T) {
	conn, fdb, _ := newTestConn(t, fakedriver.AllFlags())
	ctx := userCtx(t, "alice")
	s, err := conn.PrepareContext(ctx, qUpdate)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.NumInput(); n != -1 {
		t.Fatalf("NumInput = %d, want the inner -1", n)
	}
	fdb.SetNumInput(func(q string) int { return strings.Count(q, "?") + strings.Count(q, "bob") })
	if n := s.NumInput(); n != 2 {
		t.Fatalf("NumInput = %d, want the inner 2", n)
	}
	if _, err := s.(driver.StmtExecContext).ExecContext(userCtx(t, "bob"), nil); err != nil {
		t.Fatal(err)
	}
	if n := s.NumInput(); n != 3 {
		t.Fatalf("NumInput after re-prepare = %d, want the new inner statement's 3", n)
	}
}
