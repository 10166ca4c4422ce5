package sqe_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// TestStatementCacheOnRealDatabases: callers with different views take
// turns on one pooled connection, with arguments, so that on MariaDB
// (go-sql-driver/mysql declines direct execution with arguments) they run
// on statements sqe keeps prepared on the server. Each caller gets exactly
// their own view on every turn; once every caller's statement is prepared,
// the server prepares nothing more; a column change made behind sqe's back
// and DDL through sqe leave the results right.
func TestStatementCacheOnRealDatabases(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			// The test cancels a statement that sleeps: an application
			// that needs sleep allows it by name.
			e := newEnvWith(t, b, strings.Replace(fixturePolicy, "    row_filters:\n",
				"      - {name: ddl, principals: [role:admin], allow: [alter]}\n    row_filters:\n", 1),
				sqe.WithAllowedFunctions("sleep", "pg_sleep"))
			e.db.SetMaxOpenConns(1)
			q := "SELECT id, name, ssn, email FROM customers WHERE id >= ? ORDER BY id"
			if b.name == "postgres" {
				q = "SELECT id, name, ssn, email FROM customers WHERE id >= $1 ORDER BY id"
			}
			want := map[string][][]string{
				"ann": {{"1", "Ada", "111-22-9999", "ada@eu.test"}, {"2", "Bea", "999-00-1111", "bea@eu.test"}, {"3", "Cy-US-CANARY", "555-55-5555", "cy@us.test"}},
				"eve": {{"1", "Ada", "111-22-9999", "ada@eu.test"}, {"2", "Bea", "999-00-1111", "bea@eu.test"}},
				"sam": {{"1", "Ada", "xxx-xx-9999", "NULL"}, {"2", "Bea", "xxx-xx-1111", "NULL"}, {"3", "Cy-US-CANARY", "xxx-xx-5555", "NULL"}},
			}
			turns := func(rounds int) {
				t.Helper()
				for r := 0; r < rounds; r++ {
					for _, u := range []session.User{admin, analyst, support} {
						got, _, err := query(as(u), e.db, q, 1)
						if err != nil {
							t.Fatalf("%s: %v", u.Name, err)
						}
						if !reflect.DeepEqual(got, want[u.Name]) {
							t.Fatalf("round %d, %s got %v, want %v", r, u.Name, got, want[u.Name])
						}
					}
				}
			}
			turns(2) // every caller's statement is prepared from here on
			m := e.mark(t)
			turns(3)
			if b.name == "mysql" {
				if n := prepares(m, e.schema); n != 0 {
					t.Fatalf("the server prepared %d statements of the customers table on repeated calls, want 0:\n%s", n, m.Text())
				}
				if n := strings.Count(m.Text(), " Execute\t"); n < 9 {
					t.Fatalf("the server executed %d prepared statements, want at least 9 (one per call)", n)
				}
			}

			// Behind sqe's back: the server prepares the statements again
			// itself; sqe's results stay right.
			// (pgx fails the first call after a change of result type
			// with or without sqe, so PostgreSQL gets a column of its own.)
			behind := "ALTER TABLE customers MODIFY name VARCHAR(80)"
			if b.name == "postgres" {
				behind = "ALTER TABLE customers ADD COLUMN extra INT"
			}
			testdb.Exec(t, e.raw, behind)
			turns(1)
			// Through sqe: the cached statements are dropped.
			m = e.mark(t)
			if _, err := e.db.ExecContext(as(admin), "ALTER TABLE customers ADD COLUMN note VARCHAR(10)"); err != nil {
				t.Fatal(err)
			}
			turns(1)
			if b.name == "mysql" {
				if n := prepares(m, e.schema); n < 3 {
					t.Fatalf("after DDL through sqe the server prepared %d statements, want every caller's again (3)", n)
				}
			}

			// A statement cancelled while it runs takes its connection
			// with it; the next calls run on a new one, right.
			sleep := "SELECT SLEEP(?)"
			if b.name == "postgres" {
				sleep = "SELECT pg_sleep($1)"
			}
			for i := 0; i < 2; i++ { // the sleep's statement is cached from here on
				if _, _, err := query(as(admin), e.db, sleep, 0); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(as(admin), 100*time.Millisecond)
			_, _, err := query(ctx, e.db, sleep, 5)
			cancel()
			if err == nil {
				t.Fatal("a cancelled sleep succeeded")
			}
			turns(2)
		})
	}
}

// prepares counts the statements on schema's customers table the server
// logged as prepared after m.
func prepares(m *testdb.Mark, schema string) int {
	n := 0
	for _, line := range strings.Split(m.Text(), "\n") {
		if strings.Contains(line, " Prepare\t") && strings.Contains(line, schema) && strings.Contains(line, "customers") {
			n++
		}
	}
	return n
}
