package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

func writePolicy(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lintPolicy has one problem of each kind lint reports for a native file.
const lintPolicy = `version: 1
default: allow
roles:
  lead: {contains: [analyst]}
users:
  ann: {roles: [lead]}
tables:
  shop.customers:
    row_filters:
      - {name: eu, principals: [role:analyst], filter: "region = = 'EU'"}
      - {name: own, principals: [public], filter: "name = current_user()"}
    masks:
      - {name: ssn-null, principals: [role:analyst], column: ssn, type: MASK_NULL}
      - {name: ssn-4, principals: [role:lead], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: salary-re, principals: [public], column: salary, type: REGEXP_REPLACE, args: ["[0-9]", "x"]}
    restricted:
      - {name: no-salary, principals: [role:orphan], columns: [salry]}
  shop.custmers:
    access:
      - {name: r, principals: [public], allow: [select]}
`

func TestLintNativeFileAgainstASchema(t *testing.T) {
	path := writePolicy(t, lintPolicy)
	code, out, errOut := runCLI("lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", path)
	if code != 1 || !strings.Contains(errOut, "4 error(s)") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{
		`p.yaml:10: error: tables."shop.customers".row_filters[0].filter: rule "eu": row filter does not parse as one mysql SQL expression`,
		`p.yaml:14: warning: tables."shop.customers".masks[1]: mask "ssn-4" never applies: mask "ssn-null" (line 13)`,
		`p.yaml:15: error: tables."shop.customers".masks[2]: mask "salary-re" cannot be computed for shop.customers.salary (int)`,
		`p.yaml:17: warning: tables."shop.customers".restricted[0]: role orphan is granted by no users or groups entry`,
		`p.yaml:17: error: tables."shop.customers".restricted[0].columns: rule "no-salary" names column "salry", which shop.customers does not have`,
		`p.yaml:18: error: tables."shop.custmers": table shop.custmers does not exist`,
		`2 table entries, 0 tag mask(s); 4 error(s), 2 warning(s)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// current_user() parses for MySQL: no finding about rule "own".
	if strings.Contains(out, `"own"`) {
		t.Errorf("a MySQL-only spelling reported for --dialect mysql:\n%s", out)
	}
	code, out, _ = runCLI("lint", "--errors-only", "--dialect", "mysql", "--schema", "testdata/shop.sql", path)
	if code != 1 || strings.Contains(out, "warning:") {
		t.Fatalf("--errors-only: exit %d\n%s", code, out)
	}
}

func TestLintWithoutACatalog(t *testing.T) {
	// Without --dialect both dialects are checked: an expression only
	// MySQL parses is a warning, one neither parses an error.
	code, out, _ := runCLI("lint", writePolicy(t, lintPolicy))
	if code != 1 || !strings.Contains(out, `rule "eu": row filter does not parse as one mysql or postgres SQL expression`) ||
		!strings.Contains(out, `p.yaml:11: warning: tables."shop.customers".row_filters[1].filter: rule "own": row filter does not parse as one postgres SQL expression`) ||
		strings.Contains(out, "custmers") || !strings.Contains(out, "1 error(s), 3 warning(s)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Warnings alone exit 0.
	warnOnly := strings.Replace(lintPolicy, "region = = 'EU'", "region = 'EU'", 1)
	code, out, _ = runCLI("lint", writePolicy(t, warnOnly))
	if code != 0 || !strings.Contains(out, "0 error(s), 3 warning(s)") {
		t.Fatalf("warnings only: exit %d\n%s", code, out)
	}
	// A clean file.
	code, out, _ = runCLI("lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", "demo_policy.yaml")
	if code != 0 || !strings.Contains(out, "0 error(s), 0 warning(s)") {
		t.Fatalf("demo policy: exit %d\n%s", code, out)
	}
	// A file that does not load reports each problem with its line.
	code, out, _ = runCLI("lint", writePolicy(t, "version: 1\ndefault: deny\ntables:\n  shop.t:\n    masks:\n      - {column: c, type: MASK_BOGUS, principals: [public]}\n"))
	if code != 1 || !strings.Contains(out, `p.yaml:6: error: tables."shop.t".masks[0].type: unknown mask type`) {
		t.Fatalf("malformed file: exit %d\n%s", code, out)
	}
}

func TestLintCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"lint"},
		{"lint", "--dialect", "oracle", "demo_policy.yaml"},
		{"lint", "--schema", "testdata/shop.sql", "demo_policy.yaml"},
		{"lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", "--dsn", "x", "demo_policy.yaml"},
	} {
		if code, _, errOut := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

// TestLintAgainstRealDatabases: with --dsn, lint reads the tables of a
// live database and reports unknown tables, unknown columns and masks a
// column's type cannot take, as the driver would refuse them.
func TestLintAgainstRealDatabases(t *testing.T) {
	for _, dialect := range []string{"mysql", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			var dsn, schema string
			var ts string
			if dialect == "mysql" {
				dsn, schema = testdb.NewMySQLDatabase(t)
				testdb.Exec(t, testdb.OpenMySQL(t, dsn), "CREATE TABLE events (id INT PRIMARY KEY, at DATETIME, note VARCHAR(20))")
				ts = "datetime"
			} else {
				dsn, _ = testdb.NewPostgresDatabase(t)
				schema = "public"
				testdb.Exec(t, testdb.OpenPostgres(t, dsn), "CREATE TABLE events (id INT PRIMARY KEY, at TIMESTAMP, note VARCHAR(20))")
				ts = "timestamp without time zone"
			}
			path := writePolicy(t, strings.ReplaceAll(`version: 1
default: allow
tables:
  S.events:
    masks:
      - {name: at-redacted, principals: [public], column: at, type: REDACT, args: [REDACTED]}
      - {name: note-null, principals: [public], column: nott, type: MASK_NULL}
  S.evnts:
    access:
      - {name: r, principals: [public], allow: [select]}
`, "S.", schema+"."))
			code, out, _ := runCLI("lint", "--dialect", dialect, "--dsn", dsn, path)
			for _, want := range []string{
				`p.yaml:6: error: tables."` + schema + `.events".masks[0]: mask "at-redacted" cannot be computed for ` + schema + `.events.at (` + ts + `)`,
				`p.yaml:7: error: tables."` + schema + `.events".masks[1].column: rule "note-null" names column "nott"`,
				`p.yaml:8: error: tables."` + schema + `.evnts": table ` + schema + `.evnts does not exist`,
				"3 error(s), 0 warning(s)",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if code != 1 {
				t.Fatalf("exit %d", code)
			}
			fixed := strings.NewReplacer("nott", "note", "evnts", "events2", "args: [REDACTED]", `args: ["2000-01-01 00:00:00"]`).Replace(string(mustRead(t, path)))
			fixed = strings.Replace(fixed, "  "+schema+".events2:\n    access:\n      - {name: r, principals: [public], allow: [select]}\n", "", 1)
			if code, out, _ := runCLI("lint", "--dialect", dialect, "--dsn", dsn, writePolicy(t, fixed)); code != 0 || !strings.Contains(out, "0 error(s)") {
				t.Fatalf("fixed policy: exit %d\n%s", code, out)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLintRangerBundle: a Ranger bundle is still linted as one.
func TestLintRangerBundle(t *testing.T) {
	code, out, errOut := runCLI("lint", "../../ranger/testdata/shop_bundle.json")
	if code != 0 || !strings.Contains(out, `service "shop_hive"`) || !strings.Contains(out, "0 error(s)") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestLintMaskConditions: a when that reads another table fails as an
// expression; one naming a column the table lacks is a policy error.
func TestLintMaskConditions(t *testing.T) {
	path := writePolicy(t, `version: 1
default: allow
tables:
  shop.customers:
    masks:
      - {name: ok, principals: [public], column: ssn, type: MASK, when: "region <> 'EU' OR name = current_user"}
      - {name: other, principals: [public], column: email, type: MASK, when: "EXISTS (SELECT 1 FROM shop.orders)"}
      - {name: typo, principals: [public], column: name, type: MASK, when: "regoin = 'EU'"}
tags:
  shop.orders.total: [MONEY]
tag_masks:
  - {name: money-when, principals: [public], tag: MONEY, type: MASK_NULL, when: "region <> 'EU'"}
`)
	code, out, errOut := runCLI("lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", path)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{
		`p.yaml:7: error: tables."shop.customers".masks[1].when: rule "other": mask condition (when) is not one mysql SQL expression over its own row`,
		`p.yaml:8: error: tables."shop.customers".masks[2].when: rule "typo": mask condition (when) reads column "regoin", which shop.customers does not have`,
		`p.yaml:12: warning: tag_masks[0].when: tag MONEY's mask "money-when" reads column "region", which shop.orders does not have: shop.orders.total is restricted for its callers instead`,
		`2 error(s)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainShowsMaskConditions: explain -v prints a mask's condition.
func TestExplainShowsMaskConditions(t *testing.T) {
	path := writePolicy(t, `version: 1
default: allow
tables:
  shop.customers:
    masks:
      - {name: ssn-when, principals: [public], column: ssn, type: MASK_SHOW_LAST_4, when: "salary > 10"}
`)
	code, out, errOut := runCLI("explain", "--policy", path, "--dialect", "mysql", "--schema", "testdata/shop.sql", "--user", "sam", "-v",
		"SELECT ssn FROM customers")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"case when `shop`.`customers`.`salary` > 10 is false then convert(`shop`.`customers`.`ssn` using utf8mb4) collate utf8mb4_bin else ",
		`--   mask "ssn-when" on ssn: MASK_SHOW_LAST_4 when salary > 10 (raw where the condition is false)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainShowsRequestValues: explain -v lists the values a Ranger
// filter's request-value markers stand for (an unset attribute is NULL).
func TestExplainShowsRequestValues(t *testing.T) {
	code, out, errOut := runCLI("explain", "--policy", "../../ranger/testdata/shop_bundle.json", "--dialect", "mysql", "--schema", "testdata/shop.sql",
		"--user", "tim", "--groups", "tenants,analysts", "-v", "SELECT id FROM customers")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"where `shop`.`customers`.`tenant_id` = null and",
		`--   row filter "ranger policy 11": tenant_id = sqe_request_value.v0_ AND owner = current_user()`,
		`--     sqe_request_value.v0_ = NULL`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
