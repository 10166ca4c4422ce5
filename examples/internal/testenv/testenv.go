// Package testenv sets up the databases the examples module's tests run
// against: a fresh database on the MariaDB or PostgreSQL server that
// scripts/test.sh starts, a policy file written for it, and an sqe pool
// over it. It is for tests only.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the postgres dialect
	"github.com/sqe-project/sqe/session"
)

// Dialects are the databases every suite runs against.
var Dialects = []string{"mysql", "postgres"}

// The users of the suites' policies.
var (
	// Admin reads and writes everything and may change the schema.
	Admin = session.User{Name: "ann", Roles: []string{"admin"}}
	// Analyst sees only EU customers, never salaries.
	Analyst = session.User{Name: "eve", Roles: []string{"analyst"}}
	// Support sees every customer with the SSN masked to its last four
	// digits, no e-mail address and no salary.
	Support = session.User{Name: "sam", Roles: []string{"support"}}
	// Nobody holds no role and may read nothing.
	Nobody = session.User{Name: "nob"}
)

// As returns a context carrying u.
func As(u session.User) context.Context { return session.NewContext(context.Background(), u) }

// Policy is the suites' policy file; {{schema}} stands for the schema of
// the test database (the MySQL database name, or public).
const Policy = `version: 1
default: deny
tables:
  {{schema}}.customers:
    access:
      - {name: admin-all, principals: [role:admin], allow: [all]}
      - {name: staff-rw, principals: [role:analyst, role:support], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-null, principals: [role:support], column: email, type: MASK_NULL}
      - {name: birth-year, principals: [role:support], column: birth_date, type: MASK_DATE_SHOW_YEAR}
    restricted:
      - {name: no-salary, principals: [role:analyst, role:support], columns: [salary]}
  {{schema}}.orders:
    access:
      - {name: admin-all, principals: [role:admin], allow: [all]}
      - {name: staff-rw, principals: [role:analyst, role:support], allow: [select, update]}
  {{schema}}.secrets:
    access:
      - {name: admin-only, principals: [role:admin], allow: [all]}
`

// Shop returns the statements that create and fill the suites' shop
// tables: three customers, one of them outside the analyst's row filter,
// with SSNs whose raw and masked orders differ and salaries no one but the
// admin may read; one order per customer; and a secret no one but the
// admin may read. Every protected value is in Canaries.
func Shop(dialect string) []string {
	ts := "DATETIME(6)"
	if dialect == "postgres" {
		ts = "TIMESTAMP"
	}
	return []string{
		"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT, birth_date DATE, created_at " + ts + ")",
		"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)",
		"CREATE TABLE secrets (id INT PRIMARY KEY, note VARCHAR(40))",
		"INSERT INTO customers VALUES " +
			"(1, 'Ada', 'EU', '111-22-9999', 'ada@eu.test', 51000, '1985-03-14', '2024-01-02 03:04:05.678901'), " +
			"(2, 'Bea', 'EU', '999-00-1111', 'bea@eu.test', 52000, '1990-07-01', '2024-02-03 04:05:06'), " +
			"(3, 'Cy-US-CANARY', 'US', '555-55-5555', 'cy@us.test', 99999, '1975-12-24', '2024-03-04 05:06:07')",
		"INSERT INTO orders VALUES (10, 1, 100), (11, 2, 200), (12, 3, 300)",
		"INSERT INTO secrets VALUES (1, 'SECRET-CANARY')",
	}
}

// Env is one throwaway database, opened raw (no policy) and through sqe.
type Env struct {
	Dialect string // mysql | postgres
	Driver  string // the inner driver: mysql | pgx
	Schema  string // the schema policies name: the MySQL database, or public
	DSN     string // the inner driver's DSN of the database
	Raw     *sql.DB
	// Policy is the path of the policy file written for the database.
	Policy string
}

// New creates a database for dialect, runs setup on it (raw, as the
// server's superuser) and writes policyTemplate with {{schema}} replaced.
func New(t testing.TB, dialect, policyTemplate string, setup ...string) *Env {
	t.Helper()
	e := &Env{Dialect: dialect}
	switch dialect {
	case "mysql":
		e.Driver = "mysql"
		e.DSN, e.Schema = testdb.NewMySQLDatabase(t)
		e.Raw = testdb.OpenMySQL(t, e.DSN)
	case "postgres":
		e.Driver = "pgx"
		e.DSN, _ = testdb.NewPostgresDatabase(t)
		e.Schema = "public"
		e.Raw = testdb.OpenPostgres(t, e.DSN)
	default:
		t.Fatalf("testenv: unknown dialect %q", dialect)
	}
	testdb.Exec(t, e.Raw, setup...)
	e.Policy = filepath.Join(t.TempDir(), "policy.yaml")
	body := strings.ReplaceAll(policyTemplate, "{{schema}}", e.Schema)
	if err := os.WriteFile(e.Policy, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// Open opens the database through sqe with the env's policy file and
// opts, and closes it when the test ends. Audit records are off (the
// default would log every refusal the suites provoke).
func (e *Env) Open(t testing.TB, opts ...sqe.Option) *sql.DB {
	t.Helper()
	db, err := sqe.Open(e.Driver, e.DSN, append([]sqe.Option{sqe.WithPolicyFile(e.Policy), sqe.WithoutAudit()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Mark returns a mark in the statement log of the env's server.
func (e *Env) Mark(t testing.TB) *testdb.Mark {
	t.Helper()
	if e.Dialect == "mysql" {
		return testdb.LogMark(t, testdb.MySQLGeneralLog(t))
	}
	return testdb.LogMark(t, testdb.PostgresLog(t))
}

// Strings returns the rows of a raw query as strings ("NULL" for NULL).
func (e *Env) Strings(t testing.TB, query string, args ...any) [][]string {
	t.Helper()
	rows, err := Query(context.Background(), e.Raw, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rows
}

// Query runs query on db and returns every row as strings ("NULL" for NULL).
func Query(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([][]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
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
	return out, rows.Err()
}

// Canaries are the values each user of Policy must never receive, for the
// data the suites insert (see ShopRows).
var Canaries = map[string][]string{
	Analyst.Name: {"Cy-US-CANARY", "555-55-5555", "cy@us.test", "51000", "52000", "99999", "SECRET-CANARY"},
	Support.Name: {"111-22-9999", "999-00-1111", "555-55-5555", "ada@eu.test", "bea@eu.test", "cy@us.test", "51000", "52000", "99999", "SECRET-CANARY",
		"-03-14", "-07-01", "-12-24"},
	Nobody.Name: {"Ada", "Bea", "Cy-US-CANARY", "111-22-9999", "SECRET-CANARY"},
}

// deepText writes v's values to b, following pointers and interfaces
// (to a depth that cycles cannot exceed), with times and byte slices as
// text.
func deepText(b *strings.Builder, v reflect.Value, depth int) {
	if depth > 16 {
		return
	}
	if !v.IsValid() {
		b.WriteString("<nil> ")
		return
	}
	if v.CanInterface() {
		if tm, ok := v.Interface().(time.Time); ok {
			b.WriteString(tm.String() + " ")
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("<nil> ")
			return
		}
		deepText(b, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			deepText(b, v.Field(i), depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			for i := range v.Len() {
				b.WriteByte(byte(v.Index(i).Uint()))
			}
			b.WriteByte(' ')
			return
		}
		for i := range v.Len() {
			deepText(b, v.Index(i), depth+1)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			deepText(b, k, depth+1)
			deepText(b, v.MapIndex(k), depth+1)
		}
	default:
		fmt.Fprint(b, v)
		b.WriteByte(' ')
	}
}

// NoCanary fails the test when any of the values contains a canary of u.
// The values are read through pointers into what they point to (a
// preloaded association), byte slices as text: %+v would print a
// pointer's address instead, missing what it points to and matching a
// canary that an address happens to contain.
func NoCanary(t testing.TB, u session.User, what string, values ...any) {
	t.Helper()
	var b strings.Builder
	deepText(&b, reflect.ValueOf(values), 0)
	text := b.String()
	for _, c := range Canaries[u.Name] {
		if strings.Contains(text, c) {
			t.Fatalf("%s: %s received protected value %q", what, u.Name, c)
		}
	}
}
