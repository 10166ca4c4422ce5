package sqe_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
)

// An application's own function is refused until the application allows
// it by name, on the connector or in the policy file; allowed, it runs
// under the caller's policy like any expression.
func TestApplicationFunctionsAllowedByName(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			create := "CREATE FUNCTION calc_tax(x INT) RETURNS INT DETERMINISTIC RETURN x * 2"
			if b.name == "postgres" {
				create = "CREATE FUNCTION calc_tax(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x * 2'"
			}
			testdb.Exec(t, e.raw, create)
			open := func(policyText string, opts ...sqe.Option) *sql.DB {
				path := filepath.Join(t.TempDir(), "policy.yaml")
				if err := os.WriteFile(path, []byte(fmt.Sprintf(policyText, e.schema)), 0o600); err != nil {
					t.Fatal(err)
				}
				db, err := sqe.Open(b.driver, e.dsn, append([]sqe.Option{sqe.WithPolicyFile(path), sqe.WithoutAudit()}, opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				return db
			}
			const q = "SELECT id, calc_tax(total) FROM orders ORDER BY id"
			qualified := "SELECT calc_tax(total) FROM " + e.schema + ".orders WHERE " + e.schema + ".calc_tax(1) = 2 ORDER BY id"

			// Not allowed: refused before the server sees it, naming the function.
			mark := e.mark(t)
			_, _, err := query(as(analyst), e.db, "SELECT id, calc_tax(total), 'fn-needle-1' FROM orders")
			if !errors.Is(err, sqe.ErrUnsupported) || !strings.Contains(err.Error(), "calc_tax") {
				t.Fatalf("without an allow: %v", err)
			}
			if mark.Contains("fn-needle-1") {
				t.Fatal("a refused statement reached the server")
			}

			want := "10|200,11|400,12|600"
			for name, db := range map[string]*sql.DB{
				"connector":   open(fixturePolicy, sqe.WithAllowedFunctions("CALC_TAX")),
				"policy file": open(fixturePolicy + "functions:\n  allow: [calc_tax]\n"),
			} {
				rows, _, err := query(as(analyst), db, q)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := strings.Join(flatten(rows), ","); got != want {
					t.Fatalf("%s: got %s, want %s", name, got, want)
				}
				// An unqualified name allows the unqualified call only.
				if _, _, err := query(as(analyst), db, qualified); !errors.Is(err, sqe.ErrUnsupported) || !strings.Contains(err.Error(), e.schema+".calc_tax") {
					t.Fatalf("%s: a qualified call allowed by an unqualified name: %v", name, err)
				}
				// The function computes on what the caller may see.
				rows, _, err = query(as(analyst), db, "SELECT COUNT(*) FROM customers WHERE calc_tax(id) > 0")
				if err != nil || rows[0][0] != "2" {
					t.Fatalf("%s: count through the function: %v %v", name, rows, err)
				}
			}
			db := open(fixturePolicy, sqe.WithAllowedFunctions(e.schema+".calc_tax", "calc_tax"))
			if rows, _, err := query(as(analyst), db, qualified); err != nil || len(rows) != 3 {
				t.Fatalf("a qualified call allowed by its qualified name: %v %v", rows, err)
			}
		})
	}
}
