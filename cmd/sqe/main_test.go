package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqe-project/sqe/internal/testdb"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExplainPrintsTheRewrite(t *testing.T) {
	code, out, errOut := runCLI("explain", "--policy", "demo_policy.yaml", "--dialect", "mysql", "--user", "erin",
		"--roles", "eu_analyst", "--schema", "testdata/shop.sql", "-v", "SELECT name FROM customers WHERE id = ?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and `id` = ?") ||
		!strings.Contains(out, `row filter "eu-only"`) || !strings.Contains(out, "written rows must satisfy it") {
		t.Fatalf("unexpected output:\n%s", out)
	}
}

func TestExplainRefusalExitsOne(t *testing.T) {
	code, out, errOut := runCLI("explain", "--policy", "demo_policy.yaml", "--dialect", "mysql", "--user", "sam",
		"--roles", "support", "--schema", "testdata/shop.sql", "SELECT salary FROM customers")
	if code != 1 || out != "" || !strings.Contains(errOut, "column access denied") || !strings.Contains(errOut, "no-salary") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("want one line on stderr, got %q", errOut)
	}
}

func TestBadCommandLines(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuch"},
		{"explain"},
		{"explain", "--policy", "demo_policy.yaml", "--dialect", "oracle", "--user", "u", "--schema", "testdata/shop.sql", "SELECT 1"},
		{"explain", "--policy", "demo_policy.yaml", "--dialect", "mysql", "--user", "u", "SELECT 1"},
		{"explain", "--bogus"},
		{"demo", "extra"},
	} {
		code, _, errOut := runCLI(args...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"--help"}, {"explain", "--help"}, {"demo", "--help"}} {
		if code, _, _ := runCLI(args...); code != 0 {
			t.Errorf("%v: exit %d, want 0", args, code)
		}
	}
}

func TestExplainMalformedPolicy(t *testing.T) {
	code, _, errOut := runCLI("explain", "--policy", "testdata/shop.sql", "--dialect", "mysql", "--user", "u",
		"--schema", "testdata/shop.sql", "SELECT 1")
	if code != 1 || !strings.Contains(errOut, "shop.sql") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestExplainRunAgainstARealDatabase(t *testing.T) {
	dbDSN, name := testdb.NewMySQLDatabase(t)
	raw := testdb.OpenMySQL(t, dbDSN)
	testdb.Exec(t, raw, "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT)",
		"INSERT INTO customers VALUES (1, 'Ada', 'EU', '123-45-6789', 'a@x', 1), (2, 'Bob', 'US', '987-65-4321', 'b@x', 2)")
	policy := strings.ReplaceAll(string(demoPolicy), "shop.", name+".")
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", "--policy", path, "--dialect", "mysql", "--user", "erin", "--roles", "eu_analyst",
		"--dsn", dbDSN, "--run", "SELECT id, name FROM customers ORDER BY id")
	if code != 0 || !strings.Contains(out, "Ada") || strings.Contains(out, "Bob") || !strings.Contains(out, "(1 rows)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestDemo runs the demo on its embedded server and checks what each user
// is shown.
func TestDemo(t *testing.T) {
	code, out, errOut := runCLI("demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"xxx-xx-6789", "xxxx@xxxxxxx.xxx", "(no rows)", "column access denied", `policy "no-salary")`, "91000"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(out, "Error ") {
		t.Errorf("the demo shows a database error:\n%s", out)
	}
	// Every line fits in 100 columns.
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	// The EU analyst never sees a US customer: Grace Hopper appears for the
	// admin and the support agent only.
	if n := strings.Count(out, "Grace Hopper"); n != 4 {
		t.Errorf("Grace Hopper appears %d times, want 4 (admin and support, two queries)", n)
	}
}

// TestHelpIsPrintedOnce: each command's usage appears once, for
// "sqe CMD --help" and "sqe help CMD" alike.
func TestHelpIsPrintedOnce(t *testing.T) {
	for _, c := range []struct{ cmd, head string }{
		{"explain", "usage: sqe explain"}, {"fetch", "usage: sqe fetch"}, {"demo", "usage: sqe demo"}, {"lint", "usage: sqe lint"},
	} {
		for _, args := range [][]string{{c.cmd, "--help"}, {c.cmd, "-h"}, {"help", c.cmd}} {
			code, out, errOut := runCLI(args...)
			if code != 0 || out != "" || strings.Count(errOut, c.head) != 1 {
				t.Errorf("%v: exit %d, stdout %q, usage shown %d times:\n%s", args, code, out, strings.Count(errOut, c.head), errOut)
			}
		}
	}
	// A bad flag is one line, without the usage.
	code, _, errOut := runCLI("fetch", "--bogus")
	if code != 2 || strings.Contains(errOut, "usage: sqe fetch") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("fetch --bogus: exit %d: %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, _ := runCLI(arg)
		// A test binary's main module has no release version: (devel).
		if code != 0 || !strings.HasPrefix(out, "sqe ") || !strings.Contains(out, "(devel)") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: exit %d, %q", arg, code, out)
		}
	}
}

// TestExplainFlagsAfterTheSQL: flags may follow the statement.
func TestExplainFlagsAfterTheSQL(t *testing.T) {
	code, out, errOut := runCLI("explain", "SELECT name FROM customers WHERE id = ?", "--policy", "demo_policy.yaml",
		"--dialect", "mysql", "--user", "erin", "--roles", "eu_analyst", "--schema", "testdata/shop.sql")
	if code != 0 || !strings.Contains(out, "`shop`.`customers`.`region` = 'EU'") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// After "--", everything is an argument.
	code, _, errOut = runCLI("explain", "--policy", "demo_policy.yaml", "--dialect", "mysql", "--user", "erin",
		"--schema", "testdata/shop.sql", "--", "SELECT 1", "--user")
	if code != 2 || !strings.Contains(errOut, "exactly one SQL statement") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestDialectOfDSN(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://u:p@localhost:5432/db?sslmode=disable": "postgres",
		"postgresql://localhost/db":                        "postgres",
		"host=/var/run/postgresql dbname=db user=u":        "postgres",
		"u:p@tcp(127.0.0.1:3306)/db?parseTime=true":        "mysql",
		"root@unix(/tmp/mysql.sock)/db":                    "mysql",
		"u@/db":                                            "mysql",
	} {
		if got := dialectOfDSN(dsn); got != want {
			t.Errorf("dialectOfDSN(%q) = %s, want %s", dsn, got, want)
		}
	}
}

// TestExplainRunTakesTheDialectFromTheDSN runs against the real
// PostgreSQL server without --dialect, and keeps audit lines out of the
// output unless -v asks for them.
func TestExplainRunTakesTheDialectFromTheDSN(t *testing.T) {
	dbDSN, _ := testdb.NewPostgresDatabase(t)
	raw := testdb.OpenPostgres(t, dbDSN)
	testdb.Exec(t, raw, "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT)",
		"INSERT INTO customers VALUES (1, 'Ada', 'EU', '123-45-6789', 'a@x', 1), (2, 'Bob', 'US', '987-65-4321', 'b@x', 2)")
	policy := strings.ReplaceAll(string(demoPolicy), "shop.", "public.")
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", "SELECT id, name FROM customers ORDER BY id", "--policy", path, "--user", "erin",
		"--roles", "eu_analyst", "--dsn", dbDSN, "--run")
	if code != 0 || !strings.Contains(out, "FROM public.customers WHERE") || !strings.Contains(out, "Ada") || strings.Contains(out, "Bob") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "sqe statement") {
		t.Fatalf("audit lines without -v:\n%s\n%s", out, errOut)
	}
	code, out, errOut = runCLI("explain", "SELECT id, name FROM customers ORDER BY id", "--policy", path, "--user", "erin",
		"--roles", "eu_analyst", "--dsn", dbDSN, "--run", "-v")
	if code != 0 || strings.Contains(out, "sqe statement") || !strings.Contains(errOut, "sqe statement") ||
		!strings.Contains(errOut, "user=erin") {
		t.Fatalf("-v: exit %d\n%s\n%s", code, out, errOut)
	}
}
