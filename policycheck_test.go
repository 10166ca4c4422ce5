package sqe_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// typoPolicy names columns that do not exist: a restriction on "salry"
// (the table has salary), a mask on "emial", a tag on "ssnn" and a mapping
// filter keyed on "regoin", each on its own table. No rule applies to
// ann (role admin): her statements are passthrough and must fail too.
const typoPolicy = `version: 1
default: allow
tables:
  %[1]s.customers:
    restricted:
      - {name: no-salary, principals: [role:support], columns: [salry]}
  %[1]s.t_mask:
    masks:
      - {name: mail-null, principals: [role:support], column: emial, type: MASK_NULL}
  %[1]s.t_map:
    row_filters:
      - name: by-region
        principals: [role:support]
        mapping: {table: %[1]s.orders, column: id, key: regoin, match: role, match_column: id}
tags:
  %[1]s.t_tag.ssnn: [PII]
tag_masks:
  - {name: pii-null, principals: [role:support], tag: PII, type: MASK_NULL}
`

// TestUnknownColumnFailsClosed: a rule that names a column the table does
// not have is a policy error for the table: every caller's reads and
// writes of it fail closed with an error that names the rule, the table
// and the column, counted as policy_error; other tables are unaffected,
// and fixing the policy ends it.
func TestUnknownColumnFailsClosed(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, "version: 1\ndefault: allow\n# %[1]s\n")
			testdb.Exec(t, e.raw,
				"CREATE TABLE t_mask (id INT PRIMARY KEY, email VARCHAR(40))",
				"INSERT INTO t_mask VALUES (1, 'MAIL-CANARY')",
				"CREATE TABLE t_tag (id INT PRIMARY KEY, ssn VARCHAR(40))",
				"INSERT INTO t_tag VALUES (1, 'SSN-CANARY')",
				"CREATE TABLE t_map (id INT PRIMARY KEY, region VARCHAR(8))",
				"INSERT INTO t_map VALUES (1, 'EU')")
			path := e.policy
			if err := os.WriteFile(path, []byte(fmt.Sprintf(typoPolicy, e.schema)), 0o600); err != nil {
				t.Fatal(err)
			}
			src, err := policy.NewFileSource(path)
			if err != nil {
				t.Fatal(err)
			}
			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit(), sqe.WithMeterProvider(mp))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()

			for _, tc := range []struct{ table, rule, column, stmt string }{
				{"customers", "no-salary", "salry", "SELECT id, salary FROM customers ORDER BY id"},
				{"customers", "no-salary", "salry", "UPDATE customers SET name = 'x' WHERE id = 1"},
				{"t_mask", "mail-null", "emial", "SELECT email FROM t_mask"},
				{"t_tag", "tags:" + e.schema + ".t_tag.ssnn", "ssnn", "SELECT ssn FROM t_tag"},
				{"t_map", "by-region", "regoin", "SELECT id FROM t_map"},
			} {
				for _, u := range []session.User{admin, support} {
					rows, _, err := query(as(u), db, tc.stmt)
					if !errors.Is(err, sqe.ErrPolicy) {
						t.Fatalf("%s as %s: want a policy error, got rows %v, err %v", tc.stmt, u.Name, rows, err)
					}
					msg := err.Error()
					for _, want := range []string{"policy error", tc.rule, e.schema + "." + tc.table, tc.column} {
						if !strings.Contains(msg, want) {
							t.Fatalf("%s as %s: error %q does not name %q", tc.stmt, u.Name, msg, want)
						}
					}
					if errors.Is(err, sqe.ErrUnsupported) {
						t.Fatalf("a policy defect reported as an unsupported statement: %v", err)
					}
				}
			}
			// A table whose rules name existing columns is unaffected.
			if _, _, err := query(as(support), db, "SELECT id FROM orders"); err != nil {
				t.Fatalf("orders: %v", err)
			}
			st, _ := sqe.StatsOf(db)
			if st.FailClosed["policy_error"] != 10 {
				t.Fatalf("policy_error count %d, want 10 (%v)", st.FailClosed["policy_error"], st.FailClosed)
			}
			if n := failClosedMetric(t, reader, "policy_error"); n != 10 {
				t.Fatalf("sqe.fail_closed{reason=policy_error} = %d, want 10", n)
			}

			// Fixing the policy ends it: support's salary is now restricted.
			fixed := strings.Replace(fmt.Sprintf(typoPolicy, e.schema), "[salry]", "[salary]", 1)
			if err := os.WriteFile(path, []byte(fixed), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := src.Reload(); err != nil {
				t.Fatal(err)
			}
			rows, _, err := query(as(admin), db, "SELECT salary FROM customers WHERE id = 1")
			if err != nil || len(rows) != 1 || rows[0][0] != "51000" {
				t.Fatalf("admin after the fix: %v %v", rows, err)
			}
			if _, _, err := query(as(support), db, "SELECT salary FROM customers"); !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("support after the fix: want the column denied, got %v", err)
			}
		})
	}
}

// maskTypePolicy masks columns of types the masks cannot all take.
const maskTypePolicy = `version: 1
default: allow
tables:
  %[1]s.events:
    masks:
      - {name: at-redacted, principals: [role:support], column: at, type: REDACT, args: [REDACTED]}
  %[1]s.events_ok:
    masks:
      - {name: at-epoch, principals: [role:support], column: at, type: REDACT, args: ["2000-01-02 03:04:05"]}
      - {name: amount-zero, principals: [role:support], column: amount, type: REDACT, args: ["0.50"]}
  %[1]s.counts:
    masks:
      - {name: n-regexp, principals: [role:support], column: n, type: REGEXP_REPLACE, args: ["[0-9]", "x"]}
  %[1]s.amounts:
    masks:
      - {name: amount-too-big, principals: [role:support], column: amount, type: REDACT, args: ["123456.5"]}
`

// TestMaskTypeMismatchIsAPolicyError: a mask that cannot be computed for
// its column's type (a REDACT constant that is no timestamp, a regexp
// over an integer, a constant that overflows a DECIMAL) is a policy error
// for the callers it applies to, the same on both servers: their reads
// and writes of the table fail closed naming the rule, the table and the
// column; callers it does not apply to are unaffected, and a constant
// that fits the type is returned as itself on both servers.
func TestMaskTypeMismatchIsAPolicyError(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, maskTypePolicy)
			ts := "DATETIME"
			if b.name == "postgres" {
				ts = "TIMESTAMP"
			}
			testdb.Exec(t, e.raw,
				"CREATE TABLE events (id INT PRIMARY KEY, at "+ts+", note VARCHAR(20))",
				"INSERT INTO events VALUES (1, '2024-05-06 07:08:09', 'n1')",
				"CREATE TABLE events_ok (id INT PRIMARY KEY, at "+ts+", amount DECIMAL(6,2))",
				"INSERT INTO events_ok VALUES (1, '2024-05-06 07:08:09', 1234.56)",
				"CREATE TABLE counts (id INT PRIMARY KEY, n INT)",
				"INSERT INTO counts VALUES (1, 42)",
				"CREATE TABLE amounts (id INT PRIMARY KEY, amount DECIMAL(6,2))",
				"INSERT INTO amounts VALUES (1, 1.5)")
			for _, tc := range []struct{ table, rule, column, stmt string }{
				{"events", "at-redacted", "at", "SELECT id, at FROM events"},
				{"events", "at-redacted", "at", "SELECT note FROM events"},
				{"events", "at-redacted", "at", "UPDATE events SET note = 'x' WHERE id = 1"},
				{"counts", "n-regexp", "n", "SELECT n FROM counts"},
				{"amounts", "amount-too-big", "amount", "SELECT amount FROM amounts"},
			} {
				rows, _, err := query(as(support), e.db, tc.stmt)
				if !errors.Is(err, sqe.ErrPolicy) {
					t.Fatalf("%s: want a policy error, got rows %v, err %v", tc.stmt, rows, err)
				}
				for _, want := range []string{"policy error", tc.rule, e.schema + "." + tc.table, tc.column} {
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("%s: error %q does not name %q", tc.stmt, err, want)
					}
				}
				// The mask does not apply to the admin.
				if _, _, err := query(as(admin), e.db, tc.stmt); err != nil {
					t.Fatalf("%s as admin: %v", tc.stmt, err)
				}
			}
			rows, _, err := query(as(support), e.db, "SELECT at, amount FROM events_ok")
			if err != nil {
				t.Fatal(err)
			}
			at := rows[0][0]
			if !strings.HasPrefix(strings.Replace(at, "T", " ", 1), "2000-01-02 03:04:05") || rows[0][1] != "0.50" {
				t.Fatalf("constants that fit the type: %v", rows)
			}
			st, _ := sqe.StatsOf(e.db)
			if st.FailClosed["policy_error"] != 5 {
				t.Fatalf("policy_error count %d, want 5 (%v)", st.FailClosed["policy_error"], st.FailClosed)
			}
		})
	}
}

// TestPolicyExpressionsParsedAtOpen: a row filter or CUSTOM mask that does
// not parse for the dialect fails the open, naming the file, the line and
// the field, instead of failing every statement later. The same text may
// parse for one dialect and not the other.
func TestPolicyExpressionsParsedAtOpen(t *testing.T) {
	write := func(body string) string {
		path := filepath.Join(t.TempDir(), "p.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	head := "version: 1\ndefault: allow\ntables:\n  shop.t:\n"
	for _, tc := range []struct {
		name, body  string
		drivers     []string // the drivers whose open must fail
		line, field string
	}{
		{"broken filter", head + "    row_filters:\n      - {name: eu, principals: [public], filter: \"region = = 'EU'\"}\n",
			[]string{"mysql", "pgx"}, "p.yaml:6", `tables."shop.t".row_filters[0].filter`},
		{"two expressions", head + "    row_filters:\n      - {name: eu, principals: [public], filter: \"1) OR (1\"}\n",
			[]string{"mysql", "pgx"}, "p.yaml:6", `tables."shop.t".row_filters[0].filter`},
		{"broken CUSTOM mask", head + "    masks:\n      - {name: m, principals: [public], column: c, type: CUSTOM, expr: \"CONCAT({col}\"}\n",
			[]string{"mysql", "pgx"}, "p.yaml:6", `tables."shop.t".masks[0].expr`},
		{"broken tag mask", "version: 1\ndefault: allow\ntag_masks:\n  - {name: tm, principals: [public], tag: PII, type: CUSTOM, expr: \"{col} +\"}\n",
			[]string{"mysql", "pgx"}, "p.yaml:4", `tag_masks[0].expr`},
		{"MySQL-only spelling", head + "    row_filters:\n      - {name: own, principals: [public], filter: \"owner = current_user()\"}\n",
			[]string{"pgx"}, "p.yaml:6", `tables."shop.t".row_filters[0].filter`},
	} {
		path := write(tc.body)
		for _, drv := range []string{"mysql", "pgx"} {
			dsn := "u:p@tcp(127.0.0.1:1)/x"
			if drv == "pgx" {
				dsn = "postgres://u:p@127.0.0.1:1/x"
			}
			db, err := sqe.Open(drv, dsn, sqe.WithPolicyFile(path), sqe.WithoutAudit())
			if !slices.Contains(tc.drivers, drv) {
				if err != nil {
					t.Errorf("%s on %s: %v", tc.name, drv, err)
				} else {
					db.Close()
				}
				continue
			}
			if err == nil {
				db.Close()
				t.Errorf("%s on %s: the open succeeded", tc.name, drv)
				continue
			}
			if !errors.Is(err, policy.ErrInvalidFile) || !strings.Contains(err.Error(), tc.line) || !strings.Contains(err.Error(), tc.field) ||
				!strings.Contains(err.Error(), "does not parse") {
				t.Errorf("%s on %s: want an error naming %s and %s, got %v", tc.name, drv, tc.line, tc.field, err)
			}
		}
	}
}

// TestPolicyExpressionsCheckedOnReload: a reload whose expression does not
// parse fails and is counted, and the last good policy stays in force; a
// source given with WithPolicy is checked at open too.
func TestPolicyExpressionsCheckedOnReload(t *testing.T) {
	good := "version: 1\ndefault: allow\ntables:\n  %[1]s.customers:\n    row_filters:\n      - {name: eu, principals: [public], filter: \"region = 'EU'\"}\n"
	bad := strings.Replace(good, "region = 'EU'", "region = = 'EU'", 1)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, good)
			src, err := policy.NewFileSource(e.policy)
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ids := func() string {
				t.Helper()
				rows, _, err := query(as(nobody), db, "SELECT id FROM customers ORDER BY id")
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r[0])
				}
				return strings.Join(out, ",")
			}
			if got := ids(); got != "1,2" {
				t.Fatalf("before the reload: %q", got)
			}
			if err := os.WriteFile(e.policy, []byte(fmt.Sprintf(bad, e.schema)), 0o600); err != nil {
				t.Fatal(err)
			}
			err = src.Reload()
			if !errors.Is(err, policy.ErrInvalidFile) || !strings.Contains(err.Error(), "row_filters[0].filter") {
				t.Fatalf("reload of a filter that does not parse: %v", err)
			}
			if got := ids(); got != "1,2" {
				t.Fatalf("after the failed reload the last good policy must hold: %q", got)
			}
			st, _ := sqe.StatsOf(db)
			if st.Policy.ReloadFailures != 1 {
				t.Fatalf("reload failures %d, want 1", st.Policy.ReloadFailures)
			}

			// A source that already holds a bad policy fails the open.
			badSrc, err := policy.NewFileSource(e.policy)
			if err != nil {
				t.Fatal(err) // the source alone cannot parse SQL: it loads
			}
			if db2, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(badSrc), sqe.WithoutAudit()); err == nil {
				db2.Close()
				t.Fatal("open over a source holding a filter that does not parse succeeded")
			} else if !strings.Contains(err.Error(), "row_filters[0].filter") {
				t.Fatalf("open over a bad source: %v", err)
			}
		})
	}
}

// failClosedMetric reads the sqe.fail_closed counter for one reason.
func failClosedMetric(t *testing.T, reader *sdkmetric.ManualReader, reason string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || m.Name != "sqe.fail_closed" {
				continue
			}
			for _, p := range sum.DataPoints {
				if v, ok := p.Attributes.Value(attribute.Key("reason")); ok && v.AsString() == reason {
					n += p.Value
				}
			}
		}
	}
	return n
}
