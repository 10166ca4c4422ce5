package sqe_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/testdb"
)

// A statement that reads no table, calls no session function and changes
// no state runs without a user, audited as sqe.AnonymousUser (GORM's
// SELECT VERSION() while it opens); anything else without a user is
// ErrNoSession and never reaches the server.
func TestStatementsThatNeedNoUser(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			var mu sync.Mutex
			var users []string
			sink := audit.SinkFunc(func(_ context.Context, r *audit.Record) {
				mu.Lock()
				defer mu.Unlock()
				if r.Allowed {
					users = append(users, r.User)
				}
			})
			e := newEnvWith(t, b, fixturePolicy, sqe.WithAudit(sink))
			bg := context.Background()

			var raw, got string
			if err := e.raw.QueryRow("SELECT VERSION()").Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRowContext(bg, "SELECT VERSION()").Scan(&got); err != nil || got != raw {
				t.Fatalf("SELECT VERSION() without a user: %q %v, the server says %q", got, err, raw)
			}
			for _, q := range []string{"SELECT 1", "select version() as v, 2, 'x'", "  SELECT  1 ; "} {
				rows, err := e.db.QueryContext(bg, q)
				if err != nil {
					t.Fatalf("%s without a user: %v", q, err)
				}
				rows.Close()
			}

			needle := testdb.UniqueName("anon")
			mark := e.mark(t)
			for _, q := range []string{
				"SELECT VERSION(), '" + needle + "' FROM customers",
				"SELECT '" + needle + "', (SELECT ssn FROM customers LIMIT 1)",
				"SELECT '" + needle + "', CURRENT_USER",
				"SELECT '" + needle + "', current_user()",
				"SELECT '" + needle + "', DATABASE()",
				"SELECT '" + needle + "'; DROP TABLE customers",
				"SELECT '" + needle + "' /* x */",
				"SELECT '" + needle + "' -- x",
				"SELECT '" + needle + "' /*!, (SELECT note FROM secrets) */",
				"SELECT '" + needle + "' 'concatenated'",
				"SELECT '" + needle + "', 1e3",
				"SELECT '" + needle + "', 0x41",
				"SELECT '" + needle + "', N'x'",
				"SELECT '" + needle + "', E'x'",
				"SELECT '" + needle + "', 1234567890",
				"SELECT '" + needle + "' AS \"quoted\"",
				"SELECT '" + needle + "', version",
				"SELECT '" + needle + "', @@version",
				"SELECT '" + needle + "' INTO @x",
				"SELECT '" + needle + "' WHERE EXISTS (SELECT 1 FROM secrets)",
				"SELECT '" + needle + "' UNION SELECT note FROM secrets",
				"SELECT '" + needle + "', SLEEP(1)",
				"SELECT '" + needle + "' FOR UPDATE",
				"SELECT '" + needle + "\\' FROM secrets -- '",
				"WITH x AS (SELECT note FROM secrets) SELECT '" + needle + "'",
				"INSERT INTO orders VALUES (99, 1, 1)",
				"SET @" + needle + " = 1",
				"SHOW TABLES",
			} {
				if _, err := e.db.QueryContext(bg, q); !errors.Is(err, sqe.ErrNoSession) {
					t.Errorf("%s without a user: %v, want ErrNoSession", q, err)
				}
			}
			if mark.Contains(needle) {
				t.Fatalf("a statement without a user reached the server:\n%s", mark.Text())
			}
			var n int
			if err := e.raw.QueryRow("SELECT COUNT(*) FROM customers").Scan(&n); err != nil || n != 3 {
				t.Fatalf("customers after the refusals: %d %v", n, err)
			}
			if err := e.db.Close(); err != nil { // flushes the audit records
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(users) != 4 {
				t.Fatalf("%d allowed statements audited, want 4: %q", len(users), users)
			}
			for _, u := range users {
				if u != sqe.AnonymousUser {
					t.Fatalf("audited as %q, want %q", u, sqe.AnonymousUser)
				}
			}
		})
	}
}
