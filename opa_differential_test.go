package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/session"
)

// demoBundleFor copies the example Rego bundle, which reproduces the
// demo's policy on schema shop, to a directory of its own with the
// fixture's schema instead.
func demoBundleFor(t testing.TB, schema string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"policy.rego", "data.json", ".manifest"} {
		data, err := os.ReadFile(filepath.Join("opa", "example", "demo", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "policy.rego" {
			data = []byte(strings.ReplaceAll(string(data), `"shop.`, `"`+schema+`.`))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// demoPolicyTemplate is the demo's YAML policy with the fixture's schema
// as the template's argument.
func demoPolicyTemplate(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("cmd", "sqe", "demo_policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "shop.", "%[1]s.")
}

// errorClass is what a differential compares of an error: which sentinel
// it wraps.
func errorClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, sqe.ErrColumnDenied):
		return "column denied"
	case errors.Is(err, sqe.ErrAccessDenied):
		return "access denied"
	case errors.Is(err, sqe.ErrPolicy):
		return "policy error"
	}
	return "error: " + err.Error()
}

// TestOPADemoBundleMatchesYAMLPolicy is a differential: the demo's policy
// as a Rego bundle and as the YAML file give row for row the same results
// (and the same refusals) for the demo's users and role switches, over
// every read shape of the native suite and writes, on both servers.
func TestOPADemoBundleMatchesYAMLPolicy(t *testing.T) {
	users := []session.User{
		{Name: "root-admin", Roles: []string{"admin"}},
		{Name: "erin", Roles: []string{"eu_analyst"}},
		{Name: "sam", Roles: []string{"support"}},
		{Name: "ann", Roles: []string{"analyst"}},
		{Name: "nobody"},
		{Name: "both", Roles: []string{"support", "admin"}},
		{Name: "switch", Roles: []string{"eu_analyst", "admin"}, PrimaryRole: "admin"},
		{Name: "switch2", Roles: []string{"eu_analyst", "support"}, PrimaryRole: "analyst", SecondaryRoles: []string{"support"}},
		{Name: "notgranted", Roles: []string{"support"}, PrimaryRole: "admin"},
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, demoPolicyTemplate(t))
			src, err := opa.New(demoBundleFor(t, e.schema))
			if err != nil {
				t.Fatal(err)
			}
			odb, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer odb.Close()
			var queries []string
			for _, s := range readShapes(b) {
				queries = append(queries, s.sql)
			}
			queries = append(queries,
				"SELECT * FROM customers ORDER BY id",
				"SELECT id, email, region FROM customers ORDER BY id",
				"SELECT salary FROM customers",
				"SELECT id FROM customers WHERE salary > 0",
				"SELECT c.region, COUNT(*) FROM customers c GROUP BY c.region ORDER BY 1",
				"SELECT * FROM orders ORDER BY id",
				"SELECT note FROM secrets",
			)
			writes := []string{
				"UPDATE customers SET name = 'X' WHERE id > 0",
				"DELETE FROM orders WHERE total > 150",
				"INSERT INTO orders VALUES (99, 1, 1)",
				"UPDATE customers SET email = ssn WHERE id = 1",
			}
			ok, refused := 0, 0
			for _, u := range users {
				for _, q := range queries {
					nrows, ncols, nerr := query(as(u), e.db, q)
					orows, ocols, oerr := query(as(u), odb, q)
					if errorClass(nerr) != errorClass(oerr) || !reflect.DeepEqual(nrows, orows) || !reflect.DeepEqual(ncols, ocols) {
						t.Errorf("%s as %s:\n yaml %v %v %v\n rego %v %v %v", q, u.Name, ncols, nrows, nerr, ocols, orows, oerr)
					}
					if nerr == nil {
						ok++
					} else {
						refused++
					}
				}
				for _, q := range writes {
					nn, nerr := execRolledBack(as(u), e.db, q)
					on, oerr := execRolledBack(as(u), odb, q)
					if errorClass(nerr) != errorClass(oerr) || nn != on {
						t.Errorf("%s as %s: yaml %d rows %v, rego %d rows %v", q, u.Name, nn, nerr, on, oerr)
					}
				}
			}
			// Both kinds of outcome were compared, not only refusals.
			if ok < len(queries) || refused < len(queries) {
				t.Fatalf("compared %d results and %d refusals", ok, refused)
			}
		})
	}
}

// execRolledBack runs a write in a transaction it rolls back and returns
// the rows it affected.
func execRolledBack(ctx context.Context, db *sql.DB, q string) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, q)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
