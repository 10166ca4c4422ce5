package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/session"
)

// quotingModeDSN returns dsn set to a server quoting mode: "default"
// (MariaDB's sql_mode default; PostgreSQL with standard_conforming_strings
// on) or "backslash-literal" (MariaDB NO_BACKSLASH_ESCAPES; PostgreSQL
// with standard_conforming_strings off, where a backslash escapes in '…').
func quotingModeDSN(t *testing.T, b backend, dsn, mode string) string {
	t.Helper()
	switch b.name {
	case "mysql":
		if mode == "default" {
			return dsn
		}
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Params = map[string]string{"sql_mode": "'NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES'"}
		return cfg.FormatDSN()
	case "postgres":
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("standard_conforming_strings", map[string]string{"default": "on", "backslash-literal": "off"}[mode])
		u.RawQuery = q.Encode()
		return u.String()
	}
	t.Fatalf("no backend %s", b.name)
	return ""
}

// preparedQuerier runs its prepared statement, whatever text it is given.
type preparedQuerier struct{ stmt *sql.Stmt }

func (p preparedQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return p.stmt.QueryContext(ctx, args...)
}

// staffDepts are the departments of the staff rows (id i+1): values with
// quotes and backslashes, one that reads as SQL, and their near misses.
var staffDepts = []string{`O'Brien\Ops`, `x' OR '1'='1`, `plain`, `x`, `O'Brien\\Ops`, `O'Brien`, `\`, `OBrienOps`, `-- c */`}

// TestRangerRequestValuesEndToEnd: a Ranger row filter
// dept = '${{USER.dept}}' AND level <= ${{USER.level}} and a CUSTOM mask
// comparing with ${{USER.dept}}, for attribute values with quotes,
// backslashes and SQL of their own, under each server's quoting modes.
// Every caller sees exactly the rows of their department, through one
// connector and one statement text (and one prepared statement), so that
// no caller's values are reused for another.
// requestValueBundle is the shop bundle with staff policies for group
// staff: select and update on shop.staff, the row filter
// dept = '${{USER.dept}}' AND level <= ${{USER.level}} and a CUSTOM mask
// on name that compares with ${{USER.dept}}.
func requestValueBundle(t *testing.T) *ranger.Bundle {
	t.Helper()
	data, err := os.ReadFile("ranger/testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := ranger.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	item := func() *ranger.PolicyItem {
		return &ranger.PolicyItem{Accesses: []ranger.ItemAccess{{Type: "select"}}, Groups: []string{"staff"}}
	}
	access := item()
	access.Accesses = append(access.Accesses, ranger.ItemAccess{Type: "update"})
	filter, mask := item(), item()
	filter.RowFilterInfo = &ranger.RowFilterInfo{FilterExpr: "dept = '${{USER.dept}}' AND level <= ${{USER.level}}"}
	mask.DataMaskInfo = &ranger.DataMaskInfo{DataMaskType: "CUSTOM", ValueExpr: "CASE WHEN dept = '${{USER.dept}}' THEN {col} ELSE 'other' END"}
	bundle.Policies = append(bundle.Policies,
		&ranger.Policy{ID: 95, Name: "staff read staff", PolicyItems: []*ranger.PolicyItem{access},
			Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{"staff"}}, "column": {Values: []string{"*"}}}},
		&ranger.Policy{ID: 96, Name: "own department", PolicyType: ranger.PolicyTypeRowFilter, RowFilterPolicyItems: []*ranger.PolicyItem{filter},
			Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{"staff"}}}},
		&ranger.Policy{ID: 97, Name: "own department's names", PolicyType: ranger.PolicyTypeDataMask, DataMaskPolicyItems: []*ranger.PolicyItem{mask},
			Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{"staff"}}, "column": {Values: []string{"name"}}}},
	)
	return bundle
}

// staffUser is a member of group staff with the given attributes.
func staffUser(dept, level string) session.User {
	return session.User{Name: "u", Groups: []string{"staff"}, Attributes: map[string]string{"dept": dept, "level": level}}
}

func TestRangerRequestValuesEndToEnd(t *testing.T) {
	bundle := requestValueBundle(t)
	for _, b := range backends() {
		for _, mode := range []string{"default", "backslash-literal"} {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				e := newEnv(t, b, fixturePolicy)
				testdb.Exec(t, e.raw, "CREATE TABLE staff (id INT PRIMARY KEY, dept VARCHAR(40), level INT, name VARCHAR(40))")
				ph := "?, ?, ?, ?"
				if b.name == "postgres" {
					ph = "$1, $2, $3, $4"
				}
				for i, d := range staffDepts {
					if _, err := e.raw.Exec("INSERT INTO staff VALUES ("+ph+")", i+1, d, 1, fmt.Sprintf("NAME-%d", i+1)); err != nil {
						t.Fatal(err)
					}
				}
				src, err := ranger.NewStatic(bundle, ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}))
				if err != nil {
					t.Fatal(err)
				}
				db, err := sqe.Open(b.driver, quotingModeDSN(t, b, e.dsn, mode), sqe.WithPolicy(src), sqe.WithoutAudit())
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				const q = "SELECT id, name FROM staff ORDER BY id"
				user := staffUser
				// Prepared by one caller, run by each.
				stmt, err := db.PrepareContext(as(user(staffDepts[0], "1")), q)
				if err != nil {
					t.Fatal(err)
				}
				defer stmt.Close()
				// Twice round: the second time every statement comes from
				// the caches, which must not hand one caller another's values.
				for round := 0; round < 2; round++ {
					for i, d := range staffDepts {
						want := [][]string{r(fmt.Sprint(i+1), fmt.Sprintf("NAME-%d", i+1))}
						for _, run := range []func() ([][]string, []string, error){
							func() ([][]string, []string, error) { return query(as(user(d, "1")), db, q) },
							func() ([][]string, []string, error) { return query(as(user(d, "1")), preparedQuerier{stmt}, "") },
						} {
							rows, _, err := run()
							if err != nil || !reflect.DeepEqual(rows, want) {
								t.Fatalf("round %d, dept %q: %v %v, want %v", round, d, rows, err, want)
							}
						}
						// The level bound, a number placed as a number.
						rows, _, err := query(as(user(d, "0")), db, q)
						if err != nil || len(rows) != 0 {
							t.Fatalf("dept %q, level 0: %v %v", d, rows, err)
						}
					}
					// Values that read as SQL: no row, or only the row whose
					// department is that very text.
					for _, d := range []string{`nomatch' OR '1'='1`, `nomatch\' OR 1=1 -- `, `' OR ''='`, `nomatch'/*`} {
						rows, _, err := query(as(user(d, "1")), db, q)
						if err != nil || len(rows) != 0 {
							t.Fatalf("dept %q: %v %v", d, rows, err)
						}
					}
					// A level that is not a number is a string literal: it
					// cannot widen the filter.
					// (MariaDB reads it as the number 1, PostgreSQL refuses it.)
					rows, _, err := query(as(user("plain", "1 OR 1=1")), db, q)
					if err == nil && len(rows) > 1 {
						t.Fatalf("level as SQL widened the filter: %v", rows)
					}
				}
			})
		}
	}
}

// TestRangerRequestValuesInWriteChecks: with WithWriteChecks the filter
// with request values also checks the rows a caller writes, under each
// quoting mode.
func TestRangerRequestValuesInWriteChecks(t *testing.T) {
	bundle := requestValueBundle(t)
	for _, b := range backends() {
		for _, mode := range []string{"default", "backslash-literal"} {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				e := newEnv(t, b, fixturePolicy)
				testdb.Exec(t, e.raw, "CREATE TABLE staff (id INT PRIMARY KEY, dept VARCHAR(40), level INT, name VARCHAR(40))")
				src, err := ranger.NewStatic(bundle, ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}), ranger.WithWriteChecks())
				if err != nil {
					t.Fatal(err)
				}
				db, err := sqe.Open(b.driver, quotingModeDSN(t, b, e.dsn, mode), sqe.WithPolicy(src), sqe.WithoutAudit())
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				ctx := as(staffUser(`O'Brien\Ops`, "2"))
				ph := "?, ?, ?, ?"
				if b.name == "postgres" {
					ph = "$1, $2, $3, $4"
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO staff VALUES ("+ph+")", 2, `O'Brien\Ops`, 1, "b"); err != nil {
					t.Fatalf("own department, as arguments: %v", err)
				}
				for _, row := range [][]any{{3, `O'Brien`, 1, "c"}, {4, `O'Brien\Ops`, 3, "d"}, {5, `x' OR '1'='1`, 1, "e"}} {
					if _, err := db.ExecContext(ctx, "INSERT INTO staff VALUES ("+ph+")", row...); !errors.Is(err, sqe.ErrCheckViolation) {
						t.Fatalf("%v: %v", row, err)
					}
				}
				var n int
				if err := e.raw.QueryRow("SELECT COUNT(*) FROM staff WHERE id >= 3").Scan(&n); err != nil || n != 0 {
					t.Fatalf("refused rows written: %d %v", n, err)
				}
			})
		}
	}
}
