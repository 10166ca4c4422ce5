package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

// TestUseRoleIsPerConnectionAndNeverLeaks: USE ROLE changes the caller's
// active roles on its *sql.Conn only, is checked against the roles held,
// never reaches the database, and is gone when the pooled connection goes
// to its next user.
func TestUseRoleIsPerConnectionAndNeverLeaks(t *testing.T) {
	both := session.User{Name: "o'hara\\ü", Roles: []string{"analyst", "support"}}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			e.db.SetMaxOpenConns(1)
			ctx := as(both)
			q := "SELECT id, ssn FROM customers ORDER BY id"
			asAnalyst := [][]string{r("1", "111-22-9999"), r("2", "999-00-1111")}
			asSupport := [][]string{r("1", "xxx-xx-9999"), r("2", "xxx-xx-1111"), r("3", "xxx-xx-5555")}
			asBoth := [][]string{r("1", "xxx-xx-9999"), r("2", "xxx-xx-1111")}

			rows, _, err := query(ctx, e.db, q)
			if err != nil || !reflect.DeepEqual(rows, asBoth) {
				t.Fatalf("both roles active: %v %v", rows, err)
			}
			mark := e.mark(t)
			conn, err := e.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				stmt string
				want [][]string
			}{
				{"USE ROLE support", asSupport},
				{"USE ROLE analyst", asAnalyst},
				{"use role \"support\";", asSupport},
			} {
				if _, err := conn.ExecContext(ctx, step.stmt); err != nil {
					t.Fatalf("%s: %v", step.stmt, err)
				}
				rows, _, err := query(ctx, conn, q)
				if err != nil || !reflect.DeepEqual(rows, step.want) {
					t.Fatalf("after %s: %v %v, want %v", step.stmt, rows, err, step.want)
				}
			}
			if _, err := conn.ExecContext(ctx, "USE ROLE admin"); !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("USE ROLE of a role not held: %v", err)
			}
			// A transaction keeps the connection's role.
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rows, _, err := query(ctx, tx, q); err != nil || !reflect.DeepEqual(rows, asSupport) {
				t.Fatalf("in a transaction: %v %v", rows, err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			// (Not the bare word "support": the server's log is shared with
			// the tests of other packages.)
			if text := strings.ToLower(mark.Text()); strings.Contains(text, "role support") || strings.Contains(text, "use role") {
				t.Fatal("a role statement reached the database")
			}
			// The same pooled connection, next use: no role carried over.
			rows, _, err = query(ctx, e.db, q)
			if err != nil || !reflect.DeepEqual(rows, asBoth) {
				t.Fatalf("next use of the pooled connection: %v %v, want %v", rows, err, asBoth)
			}
			rows, _, err = query(as(analyst), e.db, q)
			if err != nil || !reflect.DeepEqual(rows, asAnalyst) {
				t.Fatalf("another user on the pooled connection: %v %v", rows, err)
			}
			// Secondary roles: primary analyst, secondary support adds the masks.
			u := session.User{Name: "sec", Roles: []string{"analyst", "support"}, PrimaryRole: "analyst"}
			rows, _, _ = query(as(u), e.db, q)
			if !reflect.DeepEqual(rows, asAnalyst) {
				t.Fatalf("primary role only: %v", rows)
			}
			conn, _ = e.db.Conn(as(u))
			defer conn.Close()
			if _, err := conn.ExecContext(as(u), "USE SECONDARY ROLES ALL"); err != nil {
				t.Fatal(err)
			}
			if rows, _, _ = query(as(u), conn, q); !reflect.DeepEqual(rows, asBoth) {
				t.Fatalf("secondary roles all: %v", rows)
			}
			if _, err := conn.ExecContext(as(u), "USE SECONDARY ROLES NONE"); err != nil {
				t.Fatal(err)
			}
			if rows, _, _ = query(as(u), conn, q); !reflect.DeepEqual(rows, asAnalyst) {
				t.Fatalf("secondary roles none: %v", rows)
			}
			if _, err := conn.PrepareContext(as(u), "USE ROLE support"); !errors.Is(err, sqe.ErrUnsupported) {
				t.Fatalf("prepared USE ROLE: %v", err)
			}
		})
	}
}

// TestUseRoleWithPreparedStatements: a statement prepared on a connection
// follows the connection's role as it changes, and another caller using
// the same prepared statement (on the same pooled connection) gets its own
// view, without the first caller's role.
func TestUseRoleWithPreparedStatements(t *testing.T) {
	both := session.User{Name: "both", Roles: []string{"analyst", "support"}}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			e.db.SetMaxOpenConns(1)
			q := "SELECT id, ssn FROM customers ORDER BY id"
			asAnalyst := [][]string{r("1", "111-22-9999"), r("2", "999-00-1111")}
			asSupport := [][]string{r("1", "xxx-xx-9999"), r("2", "xxx-xx-1111"), r("3", "xxx-xx-5555")}
			asBoth := [][]string{r("1", "xxx-xx-9999"), r("2", "xxx-xx-1111")}
			run := func(ctx context.Context, st *sql.Stmt, want [][]string, what string) {
				t.Helper()
				rows, _, err := query(ctx, stmtQuerier{st}, q)
				if err != nil || !reflect.DeepEqual(rows, want) {
					t.Fatalf("%s: %v %v, want %v", what, rows, err, want)
				}
			}
			ctx := as(both)
			conn, err := e.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			run(ctx, st, asBoth, "prepared, both roles")
			if _, err := conn.ExecContext(ctx, "USE ROLE support"); err != nil {
				t.Fatal(err)
			}
			run(ctx, st, asSupport, "after USE ROLE support")
			run(as(analyst), st, asAnalyst, "another caller on the same statement")
			run(ctx, st, asBoth, "the first caller again: the role went with the connection's change of hands")
			st.Close()
			conn.Close()

			// A statement prepared on the pool, after a caller's USE ROLE on
			// the only connection: nobody inherits the role.
			conn, _ = e.db.Conn(ctx)
			if _, err := conn.ExecContext(ctx, "USE ROLE analyst"); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			pst, err := e.db.PrepareContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer pst.Close()
			run(ctx, pst, asBoth, "pool statement, same caller after the connection returned")
			run(as(analyst), pst, asAnalyst, "pool statement, another caller")
		})
	}
}

// stmtQuerier runs a prepared statement where query expects a database.
type stmtQuerier struct{ st *sql.Stmt }

func (s stmtQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(ctx, args...)
}
