package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// simpleProtocol opens the env's database through sqe and raw with pgx's
// simple protocol, which runs a string of several statements (pgx
// prepares a query by default, and the server refuses to prepare more
// than one statement).
func simpleProtocol(t *testing.T, e *env) (db, raw *sql.DB) {
	t.Helper()
	sep := "?"
	if strings.Contains(e.dsn, "?") {
		sep = "&"
	}
	dsn := e.dsn + sep + "default_query_exec_mode=simple_protocol"
	db, err := sqe.Open("pgx", dsn, sqe.WithPolicyFile(e.policy), sqe.WithoutAudit())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, testdb.OpenPostgres(t, dsn)
}

// onOneConn runs fn on one connection of the pool as u.
func onOneConn(t *testing.T, db *sql.DB, u session.User, fn func(ctx context.Context, c *sql.Conn)) {
	t.Helper()
	ctx := as(u)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fn(ctx, c)
}

// One string (several statements, the simple protocol) that creates a
// temporary table and writes and reads it runs through sqe as on the
// server, and returns the server's rows.
func TestTemporaryTableCreatedAndUsedInOneString(t *testing.T) {
	e := newEnv(t, backend{name: "postgres", driver: "pgx"}, tempSchemaPolicy)
	// The shape of pgx's own suite: Exec of CREATE and INSERT, then a read.
	onOneConn(t, e.db, analyst, func(ctx context.Context, c *sql.Conn) {
		if _, err := c.ExecContext(ctx, `
		create temporary table docs(
			body json not null
		);

		insert into docs(body) values('{"foo": "bar"}');
`); err != nil {
			t.Fatal(err)
		}
		var body []byte
		if err := c.QueryRowContext(ctx, "select * from docs").Scan(&body); err != nil || string(body) != `{"foo": "bar"}` {
			t.Fatalf("%q %v", body, err)
		}
		if _, err := c.ExecContext(ctx, "drop table docs"); err != nil {
			t.Fatal(err)
		}
	})
	// Create, write and read in one string. pgx returns the rows of a
	// string's first statement only: the read copies its rows into a
	// temporary table of an earlier call, read afterwards.
	db, rawDB := simpleProtocol(t, e)
	const oneString = "create temp table t2 (id int, v text, n numeric(6,2) default 1.5); " +
		"insert into t2 (id, v) values (2, 'b'), (1, 'a'); update t2 set v = v || '!' where id = 1; " +
		"insert into out2 select id, v, n from t2"
	run := func(ctx context.Context, c *sql.Conn) [][]string {
		t.Helper()
		for _, q := range []string{"create temp table out2 (id int, v text, n numeric)", oneString} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		got, _, err := query(ctx, c, "select id, v, n from out2 order by id")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	raw, err := rawDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	want := run(context.Background(), raw)
	if len(want) != 2 {
		t.Fatalf("raw: %v", want)
	}
	onOneConn(t, db, analyst, func(ctx context.Context, c *sql.Conn) {
		if got := run(ctx, c); !reflect.DeepEqual(got, want) {
			t.Fatalf("through sqe: %v, raw: %v", got, want)
		}
		// Dropped and created again in one string.
		if _, err := c.ExecContext(ctx, "drop table t2; create temp table t2 (x int); insert into t2 values (7); insert into out2 (id) select x from t2"); err != nil {
			t.Fatal(err)
		}
		got, _, err := query(ctx, c, "select id from out2 where id = 7")
		if err != nil || !reflect.DeepEqual(got, [][]string{{"7"}}) {
			t.Fatalf("again: %v %v", got, err)
		}
	})
}

// A temporary table created in a string that shadows a policed table
// takes the unqualified name, as on the server; the policed table is never
// read unpoliced through it: qualified, or once the temporary table is
// dropped in the same string, it is read under its policy.
func TestTemporaryTableShadowingInOneStringOnPostgres(t *testing.T) {
	e := newEnv(t, backend{name: "postgres", driver: "pgx"}, tempSchemaPolicy)
	db, _ := simpleProtocol(t, e)
	for _, u := range []session.User{analyst, support, nobody} {
		// Each string copies what it reads into out5 (a temporary table
		// of an earlier call): pgx returns the rows of a string's first
		// statement only.
		strs := []string{
			// The temporary table filled from the policed one: the policy
			// applies to the copy's source.
			"create temp table customers (id int, name text, ssn text, email text); " +
				"insert into customers select id, name, ssn, email from public.customers; insert into out5 select id, name, ssn, email from customers",
			// The temporary table, then the policed one qualified.
			"create temp table customers (id int, name text); insert into out5 select id, name, ssn, email from public.customers",
			// Dropped: the unqualified name is the policed table again.
			"create temp table customers (id int, name text); drop table customers; insert into out5 select id, name, ssn, email from customers",
			// Named like the policed table, read next to it under a
			// qualified name of its own.
			"create temp table customers (id int, name text, ssn text, email text); insert into pg_temp.customers values (9, 'tmp', 't', 't'); " +
				"insert into out5 select c.id, c.name || p.name, p.ssn, p.email from public.customers p join pg_temp.customers c on true",
		}
		for _, s := range strs {
			onOneConn(t, db, u, func(ctx context.Context, c *sql.Conn) {
				for _, q := range []string{"drop table if exists pg_temp.customers, pg_temp.out5", "create temp table out5 (id int, name text, ssn text, email text)"} {
					if _, err := c.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				_, err := c.ExecContext(ctx, s)
				if u.Name == "nob" {
					// No access to the policed table at all.
					if !errors.Is(err, policy.ErrAccessDenied) {
						t.Fatalf("%s for %s: %v", s, u.Name, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s for %s: %v", s, u.Name, err)
				}
				got, _, err := query(ctx, c, "select * from out5")
				if err != nil || len(got) == 0 || !strings.Contains(fmt.Sprint(got), "Ada") {
					t.Fatalf("%s for %s: %v %v", s, u.Name, got, err)
				}
				for _, row := range got {
					for _, cell := range row {
						for _, canary := range canaries[u.Name] {
							if strings.Contains(cell, canary) {
								t.Fatalf("%s for %s returned %q: %v", s, u.Name, canary, got)
							}
						}
					}
				}
			})
		}
		// A restricted column stays denied under the qualified name.
		if u.Name != "nob" {
			onOneConn(t, db, u, func(ctx context.Context, c *sql.Conn) {
				_, err := c.ExecContext(ctx, "drop table if exists pg_temp.customers; create temp table customers (id int, salary int); insert into customers select id, salary from public.customers")
				if !errors.Is(err, policy.ErrColumnDenied) {
					t.Fatalf("salary for %s: %v", u.Name, err)
				}
			})
		}
	}
}
