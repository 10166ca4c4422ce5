package examples_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

// program is one example program and what it needs.
type program struct {
	dir      string
	mysql    bool // gets SQE_MYSQL_DSN
	postgres bool // gets SQE_POSTGRES_DSN
	// weaken turns the program's policy.yaml into one under which some
	// user sees more than the program allows: the program must fail.
	weaken func(policy string) string
}

func dropLine(substr string) func(string) string {
	return func(p string) string {
		var out []string
		for _, l := range strings.Split(p, "\n") {
			if !strings.Contains(l, substr) {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
}

var programs = []program{
	{dir: "quickstart", weaken: dropLine("name: eu-only")},
	{dir: "gorm", mysql: true, postgres: true, weaken: dropLine("name: ssn-last-4")},
	{dir: "sqlx", mysql: true, postgres: true, weaken: dropLine("name: no-salary")},
	{dir: "pgx", postgres: true, weaken: dropLine("name: no-vip-tag")},
}

// TestExamples builds every example program and runs it against fresh
// databases on the test servers, with its own policy (it must pass) and
// with a weakened one (its checks must catch that and exit 1).
func TestExamples(t *testing.T) {
	bin := t.TempDir()
	for _, p := range programs {
		t.Run(p.dir, func(t *testing.T) {
			exe := filepath.Join(bin, p.dir)
			build := exec.Command("go", "build", "-o", exe, "./"+p.dir)
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build ./%s: %v\n%s", p.dir, err, out)
			}
			env := programEnv(t, p)
			out, code := runProgram(t, exe, env)
			if code != 0 || !strings.Contains(out, "all checks passed") || strings.Contains(out, "FAIL") {
				t.Fatalf("%s exited %d:\n%s", p.dir, code, out)
			}
			policy, err := os.ReadFile(filepath.Join(p.dir, "policy.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			weak := p.weaken(string(policy))
			if weak == string(policy) {
				t.Fatal("the weakened policy is the same")
			}
			path := filepath.Join(t.TempDir(), "weak.yaml")
			if err := os.WriteFile(path, []byte(weak), 0o600); err != nil {
				t.Fatal(err)
			}
			out, code = runProgram(t, exe, programEnv(t, p), "-policy", path)
			if code != 1 {
				t.Fatalf("%s with a weakened policy exited %d, want 1:\n%s", p.dir, code, out)
			}
		})
	}
}

// programEnv is the environment without the test servers' variables, plus
// DSNs of fresh databases for what the program needs.
func programEnv(t *testing.T, p program) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SQE_") {
			env = append(env, kv)
		}
	}
	if p.mysql {
		dsn, _ := testdb.NewMySQLDatabase(t)
		env = append(env, "SQE_MYSQL_DSN="+dsn)
	}
	if p.postgres {
		dsn, _ := testdb.NewPostgresDatabase(t)
		env = append(env, "SQE_POSTGRES_DSN="+dsn)
	}
	return env
}

func runProgram(t *testing.T, exe string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	default:
		t.Fatalf("running %s: %v", exe, err)
		return "", -1
	}
}

// TestExamplesNeedDSN: without a DSN the database examples say what they
// need and exit 2.
func TestExamplesNeedDSN(t *testing.T) {
	bin := t.TempDir()
	for _, dir := range []string{"gorm", "sqlx", "pgx"} {
		exe := filepath.Join(bin, dir)
		if out, err := exec.Command("go", "build", "-o", exe, "./"+dir).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", dir, err, out)
		}
		out, code := runProgram(t, exe, programEnv(t, program{}))
		if code != 2 || !strings.Contains(out, "SQE_POSTGRES_DSN") {
			t.Fatalf("%s without a DSN exited %d:\n%s", dir, code, out)
		}
	}
}
