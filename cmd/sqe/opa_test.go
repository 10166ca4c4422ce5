package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRego writes a .rego file.
func writeRego(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.rego")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExplainWithRegoBundle(t *testing.T) {
	code, out, errOut := runCLI("explain", "--policy", "../../opa/example/demo", "--dialect", "mysql", "--schema", "testdata/shop.sql",
		"--user", "erin", "--roles", "eu_analyst", "-v", "SELECT * FROM shop.customers")
	if code != 0 || !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU'") || strings.Contains(out, "salary`") ||
		!strings.Contains(out, `row filter "eu-only": region = 'EU'`) || !strings.Contains(out, `restricted "no-salary": salary`) {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	code, _, errOut = runCLI("explain", "--policy", "../../opa/example/demo", "--dialect", "mysql", "--schema", "testdata/shop.sql",
		"--user", "sam", "--roles", "support", "SELECT salary FROM shop.customers")
	if code != 1 || !strings.Contains(errOut, "column access denied") || !strings.Contains(errOut, "no-salary") {
		t.Fatalf("restricted column: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI("explain", "--policy", "../../opa/example/demo", "--dialect", "mysql", "--schema", "testdata/shop.sql",
		"--user", "nobody", "SELECT id FROM shop.orders")
	if code != 1 || !strings.Contains(errOut, "access denied") {
		t.Fatalf("no role: exit %d, stderr %q", code, errOut)
	}
}

func TestLintRegoBundle(t *testing.T) {
	code, out, errOut := runCLI("lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", "--tables", "shop.customers,shop.orders", "../../opa/example/demo")
	if code != 0 || !strings.Contains(out, "revision demo-1, 1 module(s), 2 table(s) probed; 0 error(s), 0 warning(s)") {
		t.Fatalf("demo bundle: exit %d, stderr %q\n%s", code, errOut, out)
	}
	bad := writeRego(t, `package sqe

import rego.v1

decision := {
	"allow": true,
	"row_filters": [{"name": "eu", "filter": "region = = 'EU'"}],
	"masks": {"ssn": {"type": "MASK", "name": "ssn-mask"}, "email": {"expr": "CONCAT('x', {col}", "name": "email-custom"}},
} if input.table.name == "customers"

decision := {"allow": true, "restricted": [{"name": "no-pay", "column": "pay"}]} if input.table.name == "orders"
`)
	code, out, _ = runCLI("lint", "--dialect", "mysql", "--schema", "testdata/shop.sql", "--tables", "shop.customers,shop.orders,shop.nope", bad)
	for _, want := range []string{
		`error: table shop.customers, rule "eu": row filter does not parse as one mysql SQL expression`,
		`error: table shop.customers, rule "email-custom": CUSTOM mask expression does not parse as one mysql SQL expression`,
		`error: a caller without roles: sqe: policy error: opa no-pay on shop.orders: restricted column "pay": the table has no such column`,
		`error: table shop.nope does not exist`,
		"3 table(s) probed; 4 error(s), 0 warning(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	code, out, _ = runCLI("lint", writeRego(t, "package sqe\n\ndecision := {\n"))
	if code != 1 || !strings.Contains(out, "sqe: opa bundle") || !strings.Contains(out, "1 error(s)") {
		t.Fatalf("a bundle that does not compile: exit %d\n%s", code, out)
	}
}
