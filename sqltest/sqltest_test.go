package sqltest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	_ "github.com/sqe-project/sqe/rewriter/postgres"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/sqltest"
)

const shopPolicy = `version: 1
default: deny
tables:
  shop.customers:
    access:
      - {name: staff, principals: [role:analyst, role:support, role:admin], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-null, principals: [role:support], column: ssn, type: MASK_NULL}
    restricted:
      - {name: no-salary, principals: [role:support, role:analyst], columns: [salary]}
  shop.orders:
    access:
      - {name: read, principals: [public], allow: [select]}
`

const shopSchema = `CREATE DATABASE shop;
CREATE TABLE customers (id INT PRIMARY KEY, region VARCHAR(8), ssn VARCHAR(11), salary INT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)`

var (
	admin   = session.User{Name: "ann", Roles: []string{"admin"}}
	analyst = session.User{Name: "eve", Roles: []string{"analyst"}}
	support = session.User{Name: "sam", Roles: []string{"support"}}
	nobody  = session.User{Name: "nob"}
)

func as(u session.User) context.Context { return session.NewContext(context.Background(), u) }

func TestNewMock(t *testing.T) {
	db, mock := sqltest.NewMock(t, sqltest.PolicyYAML(shopPolicy), sqltest.Schema(shopSchema))

	mock.ExpectQuery("select `id` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and `id` = ?").
		WithArgs(7).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(7))
	var id int
	if err := db.QueryRowContext(as(analyst), "SELECT id FROM customers WHERE id = ?", 7).Scan(&id); err != nil || id != 7 {
		t.Fatalf("analyst: %d %v", id, err)
	}

	mock.ExpectQuery("select `shop`.`customers`.`id`, `shop`.`customers`.`region`, convert(null using utf8mb4) collate utf8mb4_bin as `ssn` from `shop`.`customers`").
		WillReturnRows(sqlmock.NewRows([]string{"id", "region", "ssn"}).AddRow(1, "EU", nil))
	rows, err := db.QueryContext(as(support), "SELECT * FROM customers")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()

	mock.ExpectExec("update `shop`.`customers` set `region` = ? where `shop`.`customers`.`region` = 'EU' and `id` = ?").
		WithArgs("EU", 1).WillReturnResult(sqlmock.NewResult(0, 1))
	if _, err := db.ExecContext(as(analyst), "UPDATE customers SET region = ? WHERE id = ?", "EU", 1); err != nil {
		t.Fatal(err)
	}
	// Moving the row out of the analyst's filter is refused before the mock.
	if _, err := db.ExecContext(as(analyst), "UPDATE customers SET region = ? WHERE id = ?", "US", 1); !errors.Is(err, sqe.ErrCheckViolation) {
		t.Fatalf("moving a row out of the filter: %v", err)
	}

	// Refused statements never reach the mock: no expectation needed.
	if _, err := db.QueryContext(as(support), "SELECT salary FROM customers"); !errors.Is(err, sqe.ErrColumnDenied) {
		t.Fatalf("salary: %v", err)
	}
	if _, err := db.QueryContext(as(nobody), "SELECT id FROM customers"); !errors.Is(err, sqe.ErrAccessDenied) {
		t.Fatalf("nobody: %v", err)
	}
	if _, err := db.QueryContext(context.Background(), "SELECT id FROM orders"); !errors.Is(err, sqe.ErrNoSession) {
		t.Fatalf("no session: %v", err)
	}
}

func TestNewMockPostgres(t *testing.T) {
	db, mock := sqltest.NewMock(t, sqltest.Dialect("postgres"), sqltest.PolicyYAML(strings.ReplaceAll(shopPolicy, "shop.", "public.")),
		sqltest.Schema("CREATE TABLE customers (id int PRIMARY KEY, region varchar(8), ssn varchar(11), salary int)"))
	mock.ExpectQuery("SELECT id FROM (SELECT public.customers.id AS id, public.customers.region AS region, public.customers.ssn AS ssn " +
		"FROM public.customers WHERE public.customers.region = 'EU') customers WHERE id = $1").
		WithArgs(7).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(7))
	var id int
	if err := db.QueryRowContext(as(analyst), "SELECT id FROM customers WHERE id = $1", 7).Scan(&id); err != nil || id != 7 {
		t.Fatalf("analyst: %d %v", id, err)
	}
}

func TestNewMockOptions(t *testing.T) {
	// A regexp matcher, a policy file and a default user.
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(shopPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	db, mock := sqltest.NewMock(t, sqltest.PolicyFile(path), sqltest.Schema(shopSchema),
		sqltest.Matcher(sqlmock.QueryMatcherRegexp), sqltest.With(sqe.WithDefaultUser(analyst)))
	mock.ExpectQuery("region. = 'EU'").WillReturnRows(sqlmock.NewRows([]string{"id"}))
	rows, err := db.QueryContext(context.Background(), "SELECT id FROM customers")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
}

func TestNewMockFailsOnUnmetExpectations(t *testing.T) {
	ft := &fakeTB{TB: t}
	_, mock := sqltest.NewMock(ft, sqltest.PolicyYAML(shopPolicy))
	mock.ExpectQuery("select 1")
	ft.runCleanups()
	if !strings.Contains(ft.errors(), "there is a remaining expectation") {
		t.Fatalf("unmet expectation not reported: %q", ft.errors())
	}
}

func TestNewMockErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []sqltest.Option
		want string
	}{
		{"no policy", nil, "no policy"},
		{"bad schema", []sqltest.Option{sqltest.PolicyYAML(shopPolicy), sqltest.Schema("CREATE TABLE t (")}, "schema"},
		{"bad policy", []sqltest.Option{sqltest.PolicyYAML("version: 2\n")}, "policy.yaml"},
		{"unknown dialect", []sqltest.Option{sqltest.PolicyYAML(shopPolicy), sqltest.Dialect("oracle"), sqltest.Schema("x")}, "oracle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ft := &fakeTB{TB: t}
			func() {
				defer func() { _ = recover() }()
				sqltest.NewMock(ft, c.opts...)
			}()
			ft.runCleanups()
			if !strings.Contains(ft.errors(), c.want) {
				t.Fatalf("want an error containing %q, got %q", c.want, ft.errors())
			}
		})
	}
}

var goldenStatements = []string{
	"SELECT * FROM customers WHERE id = ?",
	"SELECT c.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id",
	"UPDATE customers SET region = ? WHERE id = ?",
	"SELECT salary FROM customers",
}

// TestGolden checks the committed testdata/shop.golden: the file a
// policy change would show as a diff.
func TestGolden(t *testing.T) {
	db, _ := sqltest.NewMock(t, sqltest.PolicyYAML(shopPolicy), sqltest.Schema(shopSchema))
	sqltest.Golden(t, db, []session.User{admin, analyst, support, nobody}, goldenStatements, filepath.Join("testdata", "shop.golden"))
}

func TestGoldenUpdateAndDiff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	users := []session.User{analyst, support}
	db, _ := sqltest.NewMock(t, sqltest.PolicyYAML(shopPolicy), sqltest.Schema(shopSchema))

	// Missing file.
	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		sqltest.Golden(ft, db, users, goldenStatements, path)
	}()
	if !strings.Contains(ft.errors(), "does not exist") {
		t.Fatalf("missing golden file: %q", ft.errors())
	}

	// SQE_UPDATE_GOLDEN=1 writes it (and its directory); then it matches.
	t.Setenv(sqltest.EnvUpdateGolden, "1")
	if !sqltest.Updating() {
		t.Fatal("Updating() is false with SQE_UPDATE_GOLDEN=1")
	}
	sqltest.Golden(t, db, users, goldenStatements, path)
	t.Setenv(sqltest.EnvUpdateGolden, "")
	sqltest.Golden(t, db, users, goldenStatements, path)

	// A policy change shows up as a diff naming the changed lines.
	changed := strings.Replace(shopPolicy, "filter: \"region = 'EU'\"", "filter: \"region IN ('EU', 'UK')\"", 1)
	db2, _ := sqltest.NewMock(t, sqltest.PolicyYAML(changed), sqltest.Schema(shopSchema))
	ft = &fakeTB{TB: t}
	sqltest.Golden(ft, db2, users, goldenStatements, path)
	msg := ft.errors()
	if !strings.Contains(msg, "- select `id`, `region`") && !strings.Contains(msg, "- ") {
		t.Fatalf("no removed line in the diff: %s", msg)
	}
	if !strings.Contains(msg, "+ ") || !strings.Contains(msg, "'UK'") || !strings.Contains(msg, "-update") {
		t.Fatalf("diff: %s", msg)
	}
	if strings.Contains(msg, "+ -- sam") || strings.Contains(msg, "- -- sam") {
		t.Fatalf("unchanged lines in the diff: %s", msg)
	}
}

func TestRewritesFormat(t *testing.T) {
	db, _ := sqltest.NewMock(t, sqltest.PolicyYAML(shopPolicy), sqltest.Schema(shopSchema))
	got := sqltest.Rewrites(context.Background(), db,
		[]session.User{{Name: "x", Groups: []string{"g"}, Roles: []string{"support"}, Attributes: map[string]string{"b": "2", "a": "1"}}},
		[]string{"SELECT *\n  FROM customers"})
	for _, want := range []string{
		"== SELECT * FROM customers\n",
		"-- x (groups g; roles support; a=1; b=2)\n",
		"   shop.customers: mask ssn-null: ssn MASK_NULL; restricted no-salary: salary\n",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in\n%s", want, got)
		}
	}
}

// fakeTB records failures instead of failing the test, to test failures.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	msgs     []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	panic("fatal")
}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.cleanups = nil
}
func (f *fakeTB) errors() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.msgs, "\n")
}
