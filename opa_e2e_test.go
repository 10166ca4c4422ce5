package sqe_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/testdb"
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
				// The catalog hides restricted columns; EXPLAIN is refused
				// on a table under a read policy.
				"SELECT column_name FROM information_schema.columns WHERE table_schema = '"+e.schema+"' AND table_name = 'customers' ORDER BY ordinal_position",
				"EXPLAIN SELECT id FROM customers",
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

// opaBundleDir writes a one-module bundle with revision rev.
func opaBundleDir(t testing.TB, rev, rego string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".manifest"), []byte(`{"revision": "`+rev+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.rego"), []byte(rego), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// regionPolicy allows select on the fixture's customers with a named row
// filter and masks ssn.
func regionPolicy(schema, filter string) string {
	return `package sqe

import data.sqe.lib
import rego.v1

decision := {
	"allow": input.action == "select",
	"row_filters": [lib.filter("region-filter", ` + "`" + filter + "`" + `)],
	"masks": {"ssn": lib.named(lib.mask("MASK_SHOW_LAST_4"), "ssn-last-4")},
	"policies": ["customers-read"],
} if lib.table == "` + strings.ToLower(schema) + `.customers"
`
}

// TestOPAExpressionThatDoesNotParse: a row filter the dialect cannot
// parse is a policy error naming the rule, raised before the database
// sees the statement.
func TestOPAExpressionThatDoesNotParse(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			src, err := opa.New(opaBundleDir(t, "1", regionPolicy(e.schema, "region = = 'EU'")))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			needle := testdb.UniqueName("opa-bad-filter")
			mark := e.mark(t)
			_, _, err = query(as(analyst), db, "SELECT '"+needle+"' AS n, id FROM customers")
			if !errors.Is(err, sqe.ErrPolicy) || !strings.Contains(err.Error(), "region-filter") {
				t.Fatalf("want ErrPolicy naming region-filter, got %v", err)
			}
			if mark.Contains(needle) {
				t.Fatal("the statement reached the database")
			}
		})
	}
}

// TestOPAStatementInFlightKeepsItsRevision: a statement whose rows are
// being read when a new bundle revision lands keeps the revision it was
// planned under; the next statement runs under the new one, and each
// audit record names its revision and the policies of the decision.
func TestOPAStatementInFlightKeepsItsRevision(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			srv := newOPABundleServer(t)
			srv.set(opaTarball(t, "rev-1", regionPolicy(e.schema, "region = 'EU'")))
			src, err := opa.New(srv.URL+"/bundle.tar.gz", opa.WithPollInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var mu sync.Mutex
			var records []*audit.Record
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithAudit(audit.SinkFunc(func(_ context.Context, r *audit.Record) {
				mu.Lock()
				records = append(records, r)
				mu.Unlock()
			})))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.QueryContext(as(analyst), "SELECT name, ssn FROM customers ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var name, ssn string
				if err := rows.Scan(&name, &ssn); err != nil {
					t.Fatal(err)
				}
				got = append(got, name+" "+ssn)
				if len(got) == 1 {
					srv.set(opaTarball(t, "rev-2", regionPolicy(e.schema, "region = 'US'")))
					if err := src.Refresh(context.Background()); err != nil || src.Revision() != "rev-2" {
						t.Fatalf("refresh: %v", err)
					}
				}
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if want := []string{"Ada xxx-xx-9999", "Bea xxx-xx-1111"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("in flight: %v, want %v", got, want)
			}
			after, _, err := query(as(analyst), db, "SELECT name FROM customers ORDER BY id")
			if err != nil || !reflect.DeepEqual(after, [][]string{r("Cy-US-CANARY")}) {
				t.Fatalf("after the new revision: %v %v", after, err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(records) != 2 || records[0].PolicyRevision != "rev-1" || records[1].PolicyRevision != "rev-2" {
				t.Fatalf("records: %d, revisions %v", len(records), revisionsOf(records))
			}
			tbl := records[0].Tables
			if len(tbl) != 1 || !reflect.DeepEqual(tbl[0].Policies, []string{"customers-read", "region-filter", "ssn-last-4"}) {
				t.Fatalf("audit tables: %+v", tbl)
			}
		})
	}
}

func revisionsOf(rs []*audit.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.PolicyRevision)
	}
	return out
}

// opaTarball is a bundle tarball with one module.
func opaTarball(t testing.TB, rev, rego string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range map[string]string{"/.manifest": `{"revision": "` + rev + `"}`, "/policy.rego": rego} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// opaBundleServer serves one bundle tarball, whatever the path.
type opaBundleServer struct {
	*httptest.Server
	mu   sync.Mutex
	body []byte
}

func newOPABundleServer(t testing.TB) *opaBundleServer {
	s := &opaBundleServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *opaBundleServer) set(body []byte) {
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}
