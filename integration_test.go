package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// The shop fixture: three customers, one of them outside the analyst's
// row filter; SSNs whose raw and masked orders differ; salaries that no one
// but the admin may read. Every protected value is a canary that must never
// come back to a user who may not see it.
var fixture = []string{
	"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT)",
	"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)",
	"CREATE TABLE secrets (id INT PRIMARY KEY, note VARCHAR(40))",
	"INSERT INTO customers VALUES (1, 'Ada', 'EU', '111-22-9999', 'ada@eu.test', 51000), " +
		"(2, 'Bea', 'EU', '999-00-1111', 'bea@eu.test', 52000), (3, 'Cy-US-CANARY', 'US', '555-55-5555', 'cy@us.test', 99999)",
	"INSERT INTO orders VALUES (10, 1, 100), (11, 2, 200), (12, 3, 300)",
	"INSERT INTO secrets VALUES (1, 'SECRET-CANARY')",
}

const fixturePolicy = `version: 1
default: deny
tables:
  %[1]s.customers:
    access:
      - {name: read, principals: [role:admin, role:analyst, role:support], allow: [select]}
      - {name: write, principals: [role:admin, role:analyst, role:support], allow: [update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-null, principals: [role:support], column: email, type: MASK_NULL}
    restricted:
      - {name: no-salary, principals: [role:analyst, role:support], columns: [salary]}
  %[1]s.orders:
    access:
      - {name: read, principals: [public], allow: [select]}
  %[1]s.secrets:
    access:
      - {name: admin-only, principals: [role:admin], allow: [select]}
`

var (
	admin   = session.User{Name: "ann", Roles: []string{"admin"}}
	analyst = session.User{Name: "eve", Roles: []string{"analyst"}}
	support = session.User{Name: "sam", Roles: []string{"support"}}
	nobody  = session.User{Name: "nob"}
)

// canaries are the values each user must never receive.
var canaries = map[string][]string{
	"ann": {},
	"eve": {"Cy-US-CANARY", "555-55-5555", "cy@us.test", "51000", "52000", "99999", "SECRET-CANARY"},
	"sam": {"111-22-9999", "999-00-1111", "555-55-5555", "ada@eu.test", "bea@eu.test", "cy@us.test", "51000", "52000", "99999", "SECRET-CANARY"},
	"nob": {"Ada", "Bea", "Cy-US-CANARY", "111-22-9999", "SECRET-CANARY"},
}

// backend is one real database the suite runs against.
type backend struct {
	name   string // mysql | postgres
	driver string // inner driver name
}

func backends() []backend {
	return allBackends
}

// env is one fixture database, opened raw and through sqe.
type env struct {
	backend
	schema string
	raw    *sql.DB
	db     *sql.DB
	dsn    string
	policy string
}

func newEnv(t testing.TB, b backend, policyTemplate string) *env {
	t.Helper()
	return newEnvWith(t, b, policyTemplate)
}

// newEnvWith is newEnv with more options for sqe.
func newEnvWith(t testing.TB, b backend, policyTemplate string, opts ...sqe.Option) *env {
	t.Helper()
	e := &env{backend: b}
	switch b.name {
	case "mysql":
		e.dsn, e.schema = testdb.NewMySQLDatabase(t)
		e.raw = testdb.OpenMySQL(t, e.dsn)
	case "postgres":
		e.dsn, _ = testdb.NewPostgresDatabase(t)
		e.schema = "public"
		e.raw = testdb.OpenPostgres(t, e.dsn)
	default:
		t.Fatalf("unknown backend %s", b.name)
	}
	testdb.Exec(t, e.raw, fixture...)
	e.policy = filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(e.policy, []byte(fmt.Sprintf(policyTemplate, e.schema)), 0o600); err != nil {
		t.Fatal(err)
	}
	// Audit records have tests of their own; here they would only be noise.
	db, err := sqe.Open(b.driver, e.dsn, append([]sqe.Option{sqe.WithPolicyFile(e.policy), sqe.WithoutAudit()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db = db
	return e
}

// openRaw opens one more pool on the fixture database through the raw
// driver; it is closed when the test ends.
func (e *env) openRaw(t testing.TB) *sql.DB {
	t.Helper()
	if e.name == "postgres" {
		return testdb.OpenPostgres(t, e.dsn)
	}
	return testdb.OpenMySQL(t, e.dsn)
}

func as(u session.User) context.Context { return session.NewContext(context.Background(), u) }

// query runs q as u and returns every row as strings ("NULL" for NULL).
func query(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args ...any) ([][]string, []string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return out, cols, rows.Err()
}

func assertNoCanary(t *testing.T, u session.User, what string, rows [][]string, err error) {
	t.Helper()
	var cells []string
	for _, r := range rows {
		cells = append(cells, r...)
	}
	if err != nil {
		cells = append(cells, err.Error())
	}
	for _, c := range canaries[u.Name] {
		for _, cell := range cells {
			if strings.Contains(cell, c) {
				t.Fatalf("%s: %s received protected value %q", what, u.Name, c)
			}
		}
	}
}

func r(cells ...string) []string { return cells }

// shape is one query form with the exact rows each user must get.
type shape struct {
	name string
	sql  string
	want map[string][][]string // by user name
}

// readShapes are the query forms of the matrix: plain select,
// join, subquery, CTE, UNION, and WHERE / ORDER BY on a masked column.
func readShapes(b backend) []shape {
	adminRows := [][]string{r("1", "Ada", "111-22-9999"), r("2", "Bea", "999-00-1111"), r("3", "Cy-US-CANARY", "555-55-5555")}
	analystRows := [][]string{r("1", "Ada", "111-22-9999"), r("2", "Bea", "999-00-1111")}
	supportRows := [][]string{r("1", "Ada", "xxx-xx-9999"), r("2", "Bea", "xxx-xx-1111"), r("3", "Cy-US-CANARY", "xxx-xx-5555")}
	all := func(a, e, s [][]string) map[string][][]string {
		return map[string][][]string{"ann": a, "eve": e, "sam": s}
	}
	return []shape{
		{name: "plain", sql: "SELECT id, name, ssn FROM customers ORDER BY id", want: all(adminRows, analystRows, supportRows)},
		{name: "join", sql: "SELECT c.id, c.name, c.ssn FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id",
			want: all(adminRows, analystRows, supportRows)},
		{name: "subquery in WHERE", sql: "SELECT id, name, ssn FROM customers WHERE id IN (SELECT customer_id FROM orders) ORDER BY id",
			want: all(adminRows, analystRows, supportRows)},
		{name: "scalar subquery", sql: "SELECT o.id, (SELECT c.ssn FROM customers c WHERE c.id = o.customer_id) AS ssn FROM orders o ORDER BY o.id",
			want: all([][]string{r("10", "111-22-9999"), r("11", "999-00-1111"), r("12", "555-55-5555")},
				[][]string{r("10", "111-22-9999"), r("11", "999-00-1111"), r("12", "NULL")},
				[][]string{r("10", "xxx-xx-9999"), r("11", "xxx-xx-1111"), r("12", "xxx-xx-5555")})},
		{name: "CTE", sql: "WITH x AS (SELECT id, name, ssn FROM customers) SELECT * FROM x ORDER BY id", want: all(adminRows, analystRows, supportRows)},
		{name: "CTE shadowing the table", sql: "WITH customers AS (SELECT id, name, ssn FROM customers WHERE id < 3) SELECT * FROM customers ORDER BY id",
			want: all(adminRows[:2], analystRows, supportRows[:2])},
		{name: "UNION", sql: "SELECT id, name, ssn FROM customers WHERE id = 1 UNION SELECT id, name, ssn FROM customers WHERE id > 1 ORDER BY 1",
			want: all(adminRows, analystRows, supportRows)},
		{name: "derived table", sql: "SELECT d.id, d.name, d.ssn FROM (SELECT * FROM customers) d ORDER BY d.id", want: all(adminRows, analystRows, supportRows)},
		{name: "WHERE on masked column", sql: "SELECT id FROM customers WHERE ssn = '111-22-9999'",
			want: all([][]string{r("1")}, [][]string{r("1")}, nil)},
		{name: "WHERE on masked value", sql: "SELECT id FROM customers WHERE ssn LIKE 'xxx%' ORDER BY id",
			want: all(nil, nil, [][]string{r("1"), r("2"), r("3")})},
		{name: "ORDER BY masked column", sql: "SELECT id FROM customers ORDER BY ssn DESC",
			want: all([][]string{r("2"), r("3"), r("1")}, [][]string{r("2"), r("1")}, [][]string{r("1"), r("3"), r("2")})},
		{name: "aggregate over filtered rows", sql: "SELECT COUNT(*), SUM(o.total) FROM orders o JOIN customers c ON c.id = o.customer_id",
			want: all([][]string{r("3", "600")}, [][]string{r("2", "300")}, [][]string{r("3", "600")})},
		{name: "function over masked column", sql: "SELECT id, LOWER(ssn), email FROM customers WHERE id = 2",
			want: all([][]string{r("2", "999-00-1111", "bea@eu.test")}, [][]string{r("2", "999-00-1111", "bea@eu.test")}, [][]string{r("2", "xxx-xx-1111", "NULL")})},
	}
}

func TestPolicyInEveryReadShape(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			for _, s := range readShapes(b) {
				t.Run(s.name, func(t *testing.T) {
					for _, u := range []session.User{admin, analyst, support} {
						rows, _, err := query(as(u), e.db, s.sql)
						assertNoCanary(t, u, s.name, rows, err)
						if err != nil {
							t.Fatalf("%s: %v", u.Name, err)
						}
						if want := s.want[u.Name]; !reflect.DeepEqual(rows, want) && !(len(rows) == 0 && len(want) == 0) {
							t.Fatalf("%s as %s:\n got %v\nwant %v", s.sql, u.Name, rows, want)
						}
					}
				})
			}
		})
	}
}

// TestRestrictedColumn: a restricted column vanishes from * and naming it
// anywhere is ErrColumnDenied before the database sees the statement.
func TestRestrictedColumn(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			_, cols, err := query(as(support), e.db, "SELECT * FROM customers")
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"id", "name", "region", "ssn", "email"}; !reflect.DeepEqual(cols, want) {
				t.Fatalf("columns of * for support: %v, want %v", cols, want)
			}
			_, cols, err = query(as(admin), e.db, "SELECT * FROM customers")
			if err != nil || len(cols) != 6 {
				t.Fatalf("admin's *: %v %v", cols, err)
			}
			for _, q := range []string{
				"SELECT salary FROM customers",
				"SELECT c.salary FROM orders o JOIN customers c ON c.id = o.customer_id",
				"SELECT id FROM customers WHERE id IN (SELECT id FROM customers WHERE salary > 60000)",
				"WITH x AS (SELECT salary FROM customers) SELECT * FROM x",
				"SELECT id FROM customers UNION SELECT salary FROM customers",
				"SELECT id FROM customers WHERE salary > 0",
				"SELECT id FROM customers ORDER BY salary",
			} {
				for _, u := range []session.User{analyst, support} {
					// A needle of this statement's own: the server's log is
					// shared with the tests of other packages.
					needle := testdb.UniqueName("restricted")
					nq := strings.Replace(q, "SELECT ", "SELECT '"+needle+"' AS n, ", 1)
					mark := e.mark(t)
					rows, _, err := query(as(u), e.db, nq)
					assertNoCanary(t, u, q, rows, err)
					if !errors.Is(err, sqe.ErrColumnDenied) || !strings.Contains(err.Error(), "salary") || !strings.Contains(err.Error(), "no-salary") {
						t.Fatalf("%s as %s: want ErrColumnDenied naming column and policy, got %v", nq, u.Name, err)
					}
					if mark.Contains(needle) {
						t.Fatalf("%s as %s: refused statement reached the database", nq, u.Name)
					}
				}
			}
		})
	}
}

func TestDeniedTable(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			rows, _, err := query(as(admin), e.db, "SELECT note FROM secrets")
			if err != nil || len(rows) != 1 || rows[0][0] != "SECRET-CANARY" {
				t.Fatalf("admin reads secrets: %v %v", rows, err)
			}
			for _, q := range []string{
				"SELECT note FROM secrets",
				"SELECT c.name FROM customers c JOIN secrets s ON s.id = c.id",
				"SELECT name FROM customers WHERE id IN (SELECT id FROM secrets)",
				"SELECT name, (SELECT note FROM secrets LIMIT 1) FROM customers",
				"WITH s AS (SELECT note FROM secrets) SELECT * FROM s",
				"SELECT name FROM customers UNION SELECT note FROM secrets",
				"SELECT * FROM (SELECT note FROM secrets) AS d",
				"SELECT id FROM customers WHERE EXISTS (SELECT 1 FROM secrets WHERE note LIKE 'S%')",
				"UPDATE secrets SET note = 'x'",
				"DELETE FROM secrets",
			} {
				for _, u := range []session.User{analyst, support, nobody} {
					rows, _, err := query(as(u), e.db, q)
					assertNoCanary(t, u, q, rows, err)
					if !errors.Is(err, sqe.ErrAccessDenied) || (u.Name != nobody.Name && !strings.Contains(err.Error(), "secrets")) {
						t.Fatalf("%s as %s: want ErrAccessDenied naming the table, got %v", q, u.Name, err)
					}
				}
			}
			var n string
			if err := e.raw.QueryRow("SELECT note FROM secrets").Scan(&n); err != nil || n != "SECRET-CANARY" {
				t.Fatalf("a denied write changed the table: %q %v", n, err)
			}
		})
	}
}

// TestWritesTouchOnlyAdmittedRows: UPDATE and DELETE only reach the rows
// the row filter admits, and a masked column read in a write is read masked.
func TestWritesTouchOnlyAdmittedRows(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			res, err := e.db.ExecContext(as(analyst), "UPDATE customers SET name = 'changed'")
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 2 {
				t.Fatalf("analyst's UPDATE affected %d rows, want 2", n)
			}
			rows, _, err := query(context.Background(), e.raw, "SELECT id, name FROM customers ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			if want := [][]string{r("1", "changed"), r("2", "changed"), r("3", "Cy-US-CANARY")}; !reflect.DeepEqual(rows, want) {
				t.Fatalf("after UPDATE: %v, want %v", rows, want)
			}
			// Copying a masked column reads the masked value.
			if _, err := e.db.ExecContext(as(support), "UPDATE customers SET name = ssn WHERE ssn LIKE '%9999' OR id = 2"); err != nil {
				t.Fatal(err)
			}
			rows, _, _ = query(context.Background(), e.raw, "SELECT id, name FROM customers ORDER BY id")
			if want := [][]string{r("1", "xxx-xx-9999"), r("2", "xxx-xx-1111"), r("3", "Cy-US-CANARY")}; !reflect.DeepEqual(rows, want) {
				t.Fatalf("after support's copy: %v, want %v", rows, want)
			}
			// A WHERE on the raw value of a masked column matches nothing.
			res, err = e.db.ExecContext(as(support), "DELETE FROM customers WHERE ssn = '555-55-5555'")
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 0 {
				t.Fatalf("support's DELETE by raw SSN affected %d rows", n)
			}
			res, err = e.db.ExecContext(as(analyst), "DELETE FROM customers WHERE id > 0")
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 2 {
				t.Fatalf("analyst's DELETE affected %d rows, want 2", n)
			}
			rows, _, _ = query(context.Background(), e.raw, "SELECT id FROM customers")
			if want := [][]string{r("3")}; !reflect.DeepEqual(rows, want) {
				t.Fatalf("after DELETE: %v, want %v", rows, want)
			}
			// Writing a restricted column is refused.
			if _, err := e.db.ExecContext(as(support), "UPDATE customers SET salary = 0"); !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("update of a restricted column: %v", err)
			}
		})
	}
}

func TestNoSessionAndUnparseable(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			if _, err := e.db.QueryContext(context.Background(), "SELECT id FROM customers"); !errors.Is(err, sqe.ErrNoSession) {
				t.Fatalf("no user on the context: %v", err)
			}
			needle := "sqe_unparseable_" + testdb.UniqueName("x")
			mark := e.mark(t)
			_, err := e.db.QueryContext(as(admin), "SELEC "+needle+" FROM customers")
			if !errors.Is(err, sqe.ErrSyntax) || !errors.Is(err, sqe.ErrUnsupported) {
				t.Fatalf("unparseable SQL: %v, want ErrSyntax that also matches ErrUnsupported", err)
			}
			if mark.Executed(needle) {
				t.Fatal("unparseable SQL was run by the database")
			}
			// The token the parser stopped at is a literal: the error
			// gives its position and not its value.
			q := "SELECT name FROM customers WHERE ssn = 1 '" + needle + "'"
			_, err = e.db.QueryContext(as(admin), q)
			var re *rewriter.Error
			if !errors.Is(err, sqe.ErrSyntax) || !errors.As(err, &re) || re.Position != strings.Index(q, "'")+1 ||
				re.Near != "a literal" || strings.Contains(err.Error(), needle) {
				t.Fatalf("syntax error near a literal: %v (%+v)", err, re)
			}
			if mark.Executed(needle) {
				t.Fatal("unparseable SQL was run by the database")
			}
			// A valid statement sqe will not run is not a syntax error.
			if _, err := e.db.ExecContext(as(admin), "CALL p()"); !errors.Is(err, sqe.ErrUnsupported) || errors.Is(err, sqe.ErrSyntax) {
				t.Fatalf("CALL: %v, want ErrUnsupported only", err)
			}
		})
	}
}

// TestMalformedPolicyFile: a broken policy fails at open and names the
// file, the line and the field.
func TestMalformedPolicyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	body := "version: 1\ndefault: deny\ntables:\n  shop.t:\n    masks:\n      - {column: ssn, type: MASK_BOGUS, principals: [public]}\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqe.Open("mysql", "u:p@tcp(127.0.0.1:1)/x", sqe.WithPolicyFile(path))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:6") || !strings.Contains(err.Error(), "type") {
		t.Fatalf("want an error naming bad.yaml:6 and the field, got %v", err)
	}
}

// mark returns a statement-log mark for the env's server.
func (e *env) mark(t testing.TB) *testdb.Mark {
	if e.name == "mysql" {
		return testdb.LogMark(t, testdb.MySQLGeneralLog(t))
	}
	return testdb.LogMark(t, testdb.PostgresLog(t))
}

// TestCatalogRefreshAfterDDL: DDL that goes through sqe drops the cached
// metadata, so the next statement sees the new column (under its policy).
func TestCatalogRefreshAfterDDL(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy+"  %[1]s.extra:\n    access:\n      - {name: all, principals: [role:admin], allow: [all]}\n")
			before, _, err := query(as(support), e.db, "SELECT * FROM customers WHERE id = 1")
			if err != nil {
				t.Fatal(err)
			}
			testdb.Exec(t, e.raw, "CREATE TABLE extra (id INT)")
			if _, err := e.db.ExecContext(as(admin), "ALTER TABLE extra ADD COLUMN note VARCHAR(10)"); err != nil {
				t.Fatal(err)
			}
			// A column added to a policed table outside sqe is not seen until
			// metadata is refreshed; through sqe it is at once.
			if _, err := e.raw.Exec("ALTER TABLE customers ADD COLUMN nickname VARCHAR(10)"); err != nil {
				t.Fatal(err)
			}
			if _, err := e.db.ExecContext(as(admin), "ALTER TABLE extra ADD COLUMN n2 INT"); err != nil {
				t.Fatal(err)
			}
			after, cols, err := query(as(support), e.db, "SELECT * FROM customers WHERE id = 1")
			if err != nil {
				t.Fatal(err)
			}
			if len(after[0]) != len(before[0])+1 || cols[len(cols)-1] != "nickname" {
				t.Fatalf("after DDL through sqe: columns %v", cols)
			}
			if _, err := e.db.ExecContext(as(support), "ALTER TABLE customers ADD COLUMN x INT"); !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("DDL without alter access: %v", err)
			}
			st, ok := sqe.StatsOf(e.db)
			if !ok || st.RewriteCacheMisses == 0 || st.FailClosed["access_denied"] != 1 || st.Policy.Version == 0 || st.Policy.Reloads == 0 {
				t.Fatalf("stats: %+v %v", st, ok)
			}
		})
	}
}

// TestErrorsCarryNoProtectedValue: error-based extraction (the server
// echoing a value in an error) yields no value the caller may not see.
func TestErrorsCarryNoProtectedValue(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			probes := map[string][]string{
				"mysql": {
					// Strict-mode conversion errors echo the value converted.
					"INSERT INTO customers (id, name) SELECT ssn, name FROM customers",
					"INSERT INTO customers (id, name) SELECT name, ssn FROM customers",
					"UPDATE customers SET id = ssn WHERE id = 3",
					"UPDATE customers SET id = CONCAT(name, ssn, email)",
				},
				"postgres": {
					"SELECT id FROM customers WHERE CAST(name AS INT) = 1",
					"SELECT id FROM customers WHERE CAST(ssn AS INT) = 1",
					"SELECT CAST(ssn AS INT) FROM customers",
					"SELECT id FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE CAST(c.name || c.ssn AS INT) = o.id)",
				},
			}[b.name]
			for _, q := range probes {
				for _, u := range []session.User{analyst, support} {
					rows, _, err := query(as(u), e.db, q)
					assertNoCanary(t, u, q, rows, err)
				}
			}
		})
	}
}

// TestServerErrorsKeepNamesDropValues: the server's own errors for a
// statement under policy keep the table and column names they quote and
// lose the values.
func TestServerErrorsKeepNamesDropValues(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			type probe struct {
				sql        string
				keep, drop []string
			}
			probes := map[string][]probe{
				"mysql": {
					{"SELECT id FROM customers WHERE no_such_col = 1", []string{"Unknown column 'no_such_col' in '"}, nil},
					{"INSERT INTO customers (id, name, region) SELECT id + 1, name, 'EU' FROM customers WHERE id = 1",
						[]string{"Duplicate entry '<redacted>' for key '", "PRIMARY'"}, []string{"'2'"}},
					{"UPDATE customers SET id = CAST(ssn AS UNSIGNED) WHERE id = 1", nil, []string{"111-22-9999"}},
				},
				"postgres": {
					{"SELECT id FROM customers WHERE no_such_col = 1", []string{`column "no_such_col" does not exist`}, nil},
					{"INSERT INTO customers (id, name, region) SELECT id + 1, name, 'EU' FROM customers WHERE id = 1",
						[]string{`duplicate key value violates unique constraint "customers_pkey"`, "Key (id)=(<redacted>)"}, []string{"(2)"}},
					{"SELECT CAST(name AS INT) FROM customers WHERE id = 1", []string{"invalid input syntax for type integer"}, []string{"Ada"}},
				},
			}[b.name]
			for _, p := range probes {
				_, err := e.db.ExecContext(as(analyst), p.sql)
				if err == nil {
					t.Fatalf("%s: no error", p.sql)
				}
				text := errorText(err)
				for _, k := range p.keep {
					if !strings.Contains(text, k) {
						t.Errorf("%s: %q lost %q", p.sql, text, k)
					}
				}
				for _, d := range p.drop {
					if strings.Contains(text, d) {
						t.Errorf("%s: %q holds the value %q", p.sql, text, d)
					}
				}
			}
		})
	}
}
