package sqe_test

import (
	"errors"
	"reflect"
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
			if mark.Contains("support") || mark.Contains("USE ROLE") || mark.Contains("use role") {
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
