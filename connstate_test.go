package sqe_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
)

// Connection state never crosses callers: a statement that opens state by
// SQL text on a pooled connection (BEGIN, autocommit, a session variable,
// USE, a temporary table, a held cursor) leaves the connection unusable for
// the next caller, who gets a fresh one; what cannot be tracked (LOCK
// TABLES, prepared statements by SQL) is refused.

const connStatePolicy = fixturePolicy + `  %[1]s.tmp*:
    access:
      - {name: admin-scratch, principals: [role:admin], allow: [all]}
  pg_temp.tmp*:
    access:
      - {name: admin-temporary, principals: [role:admin], allow: [all]}
`

// stateCase is one kind of connection state: open runs as the admin on
// the pool (each statement returns the connection to it), then observe
// runs as the analyst on the one pooled connection and must not see it.
type stateCase struct {
	name    string
	open    []string
	observe func(t *testing.T, e *env)
	// close runs as the admin afterwards, on whatever connection the pool
	// gives (the one that held the state is gone).
	close []string
}

func connStateCases(b string) []stateCase {
	// The analyst updates a row they may update; a transaction of the
	// admin's that the write joined would take it back on ROLLBACK.
	writeSurvives := func(t *testing.T, e *env) {
		t.Helper()
		if _, err := e.db.ExecContext(as(analyst), "UPDATE customers SET name = 'ANALYST-WROTE' WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
	}
	sees := func(q, unwanted string) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			t.Helper()
			rows, _, err := query(as(analyst), e.db, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] == unwanted {
				t.Fatalf("%s as the analyst: %v (another caller's session state)", q, rows)
			}
		}
	}
	missing := func(q string) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			t.Helper()
			rows, _, err := query(as(analyst), e.db, q)
			if err == nil {
				t.Fatalf("%s as the analyst: %v (another caller's temporary table)", q, rows)
			}
		}
	}
	cases := []stateCase{
		{name: "begin", open: []string{"BEGIN"}, observe: writeSurvives, close: []string{"ROLLBACK"}},
		{name: "start transaction", open: []string{"START TRANSACTION"}, observe: writeSurvives, close: []string{"ROLLBACK"}},
		{name: "temporary table", open: []string{"CREATE TEMPORARY TABLE tmp_state (id INT)"}, observe: missing("SELECT id FROM tmp_state")},
	}
	switch b {
	case "mysql":
		cases = append(cases,
			stateCase{name: "autocommit", open: []string{"SET autocommit = 0"}, observe: writeSurvives, close: []string{"ROLLBACK"}},
			stateCase{name: "session variable", open: []string{"SET @@session.sql_select_limit = 1"}, observe: sees("SELECT @@session.sql_select_limit", "1")},
			stateCase{name: "session variable by name", open: []string{"SET SESSION time_zone = '+07:00'"}, observe: sees("SELECT @@session.time_zone", "+07:00")},
			stateCase{name: "use", open: []string{"USE mysql"}, observe: sees("SELECT DATABASE()", "mysql")},
		)
	case "postgres":
		cases = append(cases,
			stateCase{name: "session setting", open: []string{"SET application_name = 'ADMIN-SET'"}, observe: sees("SHOW application_name", "ADMIN-SET")},
			stateCase{name: "transaction characteristics", open: []string{"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"}, observe: writeSurvives},
			stateCase{name: "cursor with hold", open: []string{"DECLARE adv_state CURSOR WITH HOLD FOR SELECT ssn FROM customers"}, observe: sees("SELECT 1", "x")},
		)
	}
	return cases
}

// auditLog collects audit records.
type auditLog struct {
	mu      sync.Mutex
	records []audit.Record
}

func (l *auditLog) Audit(_ context.Context, r *audit.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, *r)
}

// waitFor polls the (asynchronous) log for a record that matches.
func (l *auditLog) waitFor(match func(audit.Record) bool) bool {
	for range 200 {
		l.mu.Lock()
		for _, r := range l.records {
			if match(r) {
				l.mu.Unlock()
				return true
			}
		}
		l.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestPooledConnectionStateNeverCrossesCallers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range connStateCases(b.name) {
				t.Run(c.name, func(t *testing.T) {
					log := &auditLog{}
					e := newEnvWith(t, b, connStatePolicy, sqe.WithAudit(log))
					e.db.SetMaxOpenConns(1)
					e.db.SetMaxIdleConns(1)
					before, _ := sqe.StatsOf(e.db)
					for _, q := range c.open {
						if _, err := e.db.ExecContext(as(admin), q); err != nil {
							t.Fatalf("%s: %v", q, err)
						}
					}
					c.observe(t, e)
					for _, q := range c.close {
						// The admin's state went with its connection: on
						// a fresh one this may warn or fail, never undo
						// the analyst's work.
						_, _ = e.db.ExecContext(as(admin), q)
					}
					if strings.Contains(c.name, "begin") || strings.Contains(c.name, "transaction") || c.name == "autocommit" {
						var name string
						if err := e.raw.QueryRow("SELECT name FROM customers WHERE id = 1").Scan(&name); err != nil || name != "ANALYST-WROTE" {
							t.Fatalf("the analyst's write did not survive the admin's session state: %q %v", name, err)
						}
					}
					after, _ := sqe.StatsOf(e.db)
					if after.ConnectionsDiscarded <= before.ConnectionsDiscarded {
						t.Fatalf("the connection holding %s was not discarded (%d before, %d after)", c.name, before.ConnectionsDiscarded, after.ConnectionsDiscarded)
					}
					if !log.waitFor(func(r audit.Record) bool {
						return r.User == admin.Name && strings.Contains(r.Error, "connection closed before database/sql gave it to another caller")
					}) {
						t.Fatal("no audit record says the connection was discarded")
					}
				})
			}
			// What sqe cannot track is refused outright.
			e := newEnv(t, b, connStatePolicy)
			refused := map[string][]string{
				"mysql":    {"LOCK TABLES customers READ", "PREPARE s1 FROM 'SELECT 1'", "XA START 'x'", "SELECT GET_LOCK('sqe', 1)", "DO GET_LOCK('sqe', 1)", "HANDLER customers OPEN"},
				"postgres": {"LOCK TABLE customers", "PREPARE s1 AS SELECT 1", "LISTEN sqe_channel", "SELECT pg_advisory_lock(1)", "SELECT set_config('application_name', 'x', false)", "PREPARE TRANSACTION 'x'"},
			}[b.name]
			for _, q := range refused {
				if _, err := e.db.ExecContext(as(admin), q); !isRefusal(err) {
					t.Errorf("%s: want a refusal, got %v", q, err)
				}
			}
		})
	}
}

// A connection pinned with db.Conn keeps the state its statements open for
// as long as the application holds it: the state is the application's.
func TestPinnedConnectionKeepsItsSessionState(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, connStatePolicy)
			conn, err := e.db.Conn(as(admin))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(as(admin), "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(as(admin), "UPDATE customers SET name = 'IN-TX' WHERE id = 2"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(as(admin), "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			var name string
			if err := e.raw.QueryRow("SELECT name FROM customers WHERE id = 2").Scan(&name); err != nil || name != "Bea" {
				t.Fatalf("the pinned connection's own transaction: %q %v", name, err)
			}
			// Ended by SQL text, the transaction no longer holds the
			// connection: back in the pool, it is reused.
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			before, _ := sqe.StatsOf(e.db)
			if _, err := e.db.ExecContext(as(analyst), "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			after, _ := sqe.StatsOf(e.db)
			if after.ConnectionsDiscarded != before.ConnectionsDiscarded {
				t.Fatal("a connection whose transaction ended was discarded")
			}
		})
	}
}

// A connection that goes back to the pool holding a transaction begun by
// SQL text is closed at once: its locks do not wait, idle in the pool, for
// the next caller.
func TestHeldTransactionEndsWhenTheConnectionIsReleased(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, connStatePolicy)
			conn, err := e.db.Conn(as(admin))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"BEGIN", "UPDATE customers SET name = 'LOCKED' WHERE id = 1"} {
				if _, err := conn.ExecContext(as(admin), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			before, _ := sqe.StatsOf(e.db)
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			after, _ := sqe.StatsOf(e.db)
			if after.ConnectionsDiscarded != before.ConnectionsDiscarded+1 {
				t.Fatalf("discarded %d connections on release, want 1", after.ConnectionsDiscarded-before.ConnectionsDiscarded)
			}
			// Another session writes the row the transaction had locked;
			// the server gives up after a second if the lock is still held.
			other, err := e.raw.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			timeout := map[string]string{"mysql": "SET SESSION innodb_lock_wait_timeout = 1", "postgres": "SET lock_timeout = '1s'"}[b.name]
			if _, err := other.ExecContext(context.Background(), timeout); err != nil {
				t.Fatal(err)
			}
			if _, err := other.ExecContext(context.Background(), "UPDATE customers SET name = 'FREE' WHERE id = 1"); err != nil {
				t.Fatalf("the released connection still holds its transaction's lock: %v", err)
			}
			var name string
			if err := e.raw.QueryRow("SELECT name FROM customers WHERE id = 1").Scan(&name); err != nil || name != "FREE" {
				t.Fatalf("name %q %v: the abandoned transaction's write survived", name, err)
			}
		})
	}
}

// A session setting and a transaction opened by one multi-statement
// string are both held: ending the transaction leaves the setting, and
// the connection is still not handed to another caller.
func TestSettingOutlivesTheTransactionOfTheSameString(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue // the MySQL test DSN does not allow multi-statement strings
		}
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, connStatePolicy)
			e.db.SetMaxOpenConns(1)
			e.db.SetMaxIdleConns(1)
			conn, err := e.db.Conn(as(admin))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"SET application_name = 'ADMIN-MULTI'; BEGIN", "COMMIT"} {
				if _, err := conn.ExecContext(as(admin), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := conn.Close(); err != nil {
				t.Fatal(err)
			}
			var name string
			if err := e.db.QueryRowContext(as(analyst), "SHOW application_name").Scan(&name); err != nil {
				t.Fatal(err)
			}
			if name == "ADMIN-MULTI" {
				t.Fatal("the admin's session setting reached the analyst")
			}
		})
	}
}
