package peersuites

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // the admin connections
	_ "github.com/jackc/pgx/v5/stdlib" // the admin connections

	"github.com/sqe-project/sqe"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the PostgreSQL dialect
	"github.com/sqe-project/sqe/session"
)

// Modes a suite runs in.
const (
	Raw      = "raw"       // the inner driver, without sqe
	AllowAll = "allow-all" // through sqe, a policy that allows everything
	Policed  = "policy"    // through sqe, policies on a table the suite does not use
)

// Modes are the modes in the order they run.
var Modes = []string{Raw, AllowAll, Policed}

// Outcomes of a test.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Test is one top-level test's outcome in one run.
type Test struct {
	Name    string
	Outcome string
	// Output holds the test's output when it failed (bounded).
	Output []string
}

// Run is one suite on one server in one mode.
type Run struct {
	Suite, Server, Mode string
	Tests               []Test
	// Refusals counts the statements sqe refused or that failed, by
	// error text (values removed by sqe).
	Refusals map[string]int
	// PolicyCheck is the outcome of reading the guarded table through sqe
	// after a policy run ("" in other modes): "ok" or what was wrong.
	PolicyCheck string
}

// Count returns the number of tests with the outcome.
func (r *Run) Count(outcome string) int {
	n := 0
	for _, t := range r.Tests {
		if t.Outcome == outcome {
			n++
		}
	}
	return n
}

// Outcome returns the outcome of the named test ("" when it did not run).
func (r *Run) Outcome(name string) string {
	for _, t := range r.Tests {
		if t.Name == name {
			return t.Outcome
		}
	}
	return ""
}

// Server is a database server the suites run against.
type Server struct {
	Name  string // MySQL or Postgres
	Admin string // a DSN of a user that may create databases
}

// The user sqe applies to the suites' statements (they carry none on
// their contexts), and the guarded table of the policy runs.
const (
	PeerUser   = "peer"
	PeerRole   = "peer"
	GuardTable = "sqe_peer_guard"
)

// policyFor returns the policy file of mode on a database whose schema
// (MySQL database, PostgreSQL schema) is schema.
func policyFor(mode, schema string) string {
	p := "version: 1\ndefault: allow\n"
	if mode == Policed {
		p += fmt.Sprintf(`tables:
  %s.%s:
    row_filters:
      - {name: peer-tenant, principals: [role:%s], filter: "tenant = 'a'"}
    masks:
      - {name: peer-secret, principals: [role:%[3]s], column: secret, type: MASK_SHOW_LAST_4}
    restricted:
      - {name: peer-note, principals: [role:%[3]s], columns: [note]}
`, schema, GuardTable, PeerRole)
	}
	return p
}

// RunSuite runs every top-level test of p against srv in mode, each in a
// process of its own, on a database created for the run; work holds the
// run's files.
func RunSuite(ctx context.Context, p *Prepared, srv Server, mode, work string) (*Run, error) {
	dbName := "sqe_peer_" + strings.NewReplacer("-", "_").Replace(p.Suite.Name)
	if err := resetDatabase(ctx, srv, dbName); err != nil {
		return nil, err
	}
	dsn, err := DatabaseDSN(srv.Name, srv.Admin, dbName)
	if err != nil {
		return nil, err
	}
	schema := dbName
	if srv.Name == Postgres {
		schema = "public"
	}
	if mode == Policed {
		if err := createGuard(ctx, srv.Name, dsn); err != nil {
			return nil, err
		}
	}
	tag := fmt.Sprintf("%s-%s-%s", p.Suite.Name, srv.Name, mode)
	policyFile := filepath.Join(work, tag+".yaml")
	if err := os.WriteFile(policyFile, []byte(policyFor(mode, schema)), 0o644); err != nil {
		return nil, err
	}
	refused := filepath.Join(work, tag+".refused.jsonl")
	_ = os.Remove(refused)
	env := append(p.Suite.Env(srv.Name, dsn),
		"SQE_PEER_MODE="+mode, "SQE_PEER_POLICY="+policyFile, "SQE_PEER_REFUSED="+refused,
		"SQE_PEER_USER="+PeerUser, "SQE_PEER_ROLES="+PeerRole)

	// The list is taken raw: a suite that sets up its database while
	// it starts (GORM migrates in init) lists nothing when that fails,
	// and its tests then fail one by one with the reason.
	names, err := listTests(ctx, p, append(env[:len(env):len(env)], "SQE_PEER_MODE="+Raw))
	if err != nil {
		return nil, err
	}
	r := &Run{Suite: p.Suite.Name, Server: srv.Name, Mode: mode, Tests: runTests(ctx, p, env, names)}
	if r.Refusals, err = readRefusals(refused); err != nil {
		return nil, err
	}
	if mode == Policed {
		r.PolicyCheck = checkGuard(ctx, srv.Name, dsn, policyFile)
	}
	return r, nil
}

// listTests returns the suite's top-level tests.
func listTests(ctx context.Context, p *Prepared, env []string) ([]string, error) {
	out, err := run(ctx, p.PkgDir(), env, p.Bin, "-test.list", ".")
	if err != nil {
		return nil, fmt.Errorf("%s: list the tests: %w", p.Suite.Name, err)
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Example") {
			names = append(names, line)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: the test binary lists no tests:\n%s", p.Suite.Name, out)
	}
	return names, nil
}

// maxOutput bounds the output kept of a failed test.
const maxOutput = 40

// runTests runs the top-level tests names in one process under
// go tool test2json, and again without those that have an outcome as long
// as the process dies before all have one: the test running when it died
// (a panic, a timeout) failed, and the others go on in a new process. A
// process runs five minutes at most (a peer's suite takes about one on
// the raw driver), so that a test that hangs fails instead of holding the
// run. A process that dies before any test starts (a suite that sets up
// its database while it starts) fails every test left, with its output.
func runTests(ctx context.Context, p *Prepared, env []string, names []string) []Test {
	done := map[string]Test{}
	remaining := names
	for len(remaining) > 0 {
		quoted := make([]string, len(remaining))
		for i, n := range remaining {
			quoted[i] = regexp.QuoteMeta(n)
		}
		tctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		cmd := exec.CommandContext(tctx, "go", "tool", "test2json", "-t", p.Bin,
			"-test.v=test2json", "-test.run", "^(?:"+strings.Join(quoted, "|")+")$", "-test.count=1", "-test.timeout=5m")
		cmd.Dir = p.PkgDir()
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		cancel()
		tests, last := parseEvents(out)
		var left []string
		for _, n := range remaining {
			t, ok := tests[n]
			switch {
			case ok && t.Outcome != "":
				if t.Outcome != Fail {
					t.Output = nil
				}
				done[n] = t
			case n == last || last == "":
				// Running when the process died, or the process died
				// before any test ran.
				t.Name, t.Outcome = n, Fail
				if last == "" {
					t.Output = firstLines(string(out)+stderr.String(), 10)
				} else if stderr.Len() > 0 {
					t.Output = append(t.Output, firstLines(stderr.String(), 5)...)
				}
				done[n] = t
			default:
				left = append(left, n)
			}
		}
		remaining = left
	}
	result := make([]Test, 0, len(names))
	for _, n := range names {
		result = append(result, done[n])
	}
	return result
}

// event is a line of go tool test2json's output.
type event struct {
	Action string
	Test   string
	Output string
}

// parseEvents reads test2json output: the top-level tests with their
// outcome ("" for a test that started and did not end) and output, and
// the last top-level test that started.
func parseEvents(out []byte) (map[string]Test, string) {
	tests := map[string]Test{}
	last := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		top, _, sub := strings.Cut(e.Test, "/")
		t := tests[top]
		t.Name = top
		switch {
		case e.Action == "run" && !sub:
			last = top
		case e.Action == "output":
			line := strings.TrimRight(e.Output, "\n")
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "=== ") && len(t.Output) < maxOutput {
				t.Output = append(t.Output, line)
			}
		case !sub && (e.Action == Pass || e.Action == Fail || e.Action == Skip):
			t.Outcome = e.Action
		}
		tests[top] = t
	}
	return tests, last
}

func firstLines(s string, n int) []string {
	var lines []string
	for line := range strings.Lines(s) {
		if len(lines) == n {
			break
		}
		lines = append(lines, strings.TrimRight(line, "\n"))
	}
	return lines
}

// position is the position in sqe's syntax errors, which differs between
// statements of one class.
var position = regexp.MustCompile(`position [0-9]+`)

// readRefusals counts the lines of the SQE_PEER_REFUSED file by error.
func readRefusals(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for line := range bytes.Lines(b) {
		var r struct {
			Kind    string
			Allowed bool
			Error   string
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		what := "failed"
		if !r.Allowed {
			what = "refused"
		}
		msg := position.ReplaceAllString(r.Error, "position N")
		counts[fmt.Sprintf("%s %s: %s", what, orUnparsed(r.Kind), msg)]++
	}
	return counts, nil
}

func orUnparsed(kind string) string {
	if kind == "" {
		return "(unparsed)"
	}
	return kind
}

// resetDatabase drops the database name and creates it again.
func resetDatabase(ctx context.Context, srv Server, name string) error {
	driverName, stmts := "mysql", []string{
		"DROP DATABASE IF EXISTS `" + name + "`", "CREATE DATABASE `" + name + "`"}
	if srv.Name == Postgres {
		driverName, stmts = "pgx", []string{
			`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`, `CREATE DATABASE "` + name + `"`}
	}
	return execAll(ctx, driverName, srv.Admin, stmts...)
}

func execAll(ctx context.Context, driverName, dsn string, stmts ...string) error {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("peersuites: %s: %w", s, err)
		}
	}
	return nil
}

// The guarded table's rows: the policy run's user sees only the first,
// with its secret masked and without the note.
var guardRows = [][3]string{{"a", "secret-1111", "note-a"}, {"b", "secret-2222", "note-b"}}

func createGuard(ctx context.Context, server, dsn string) error {
	driverName := "mysql"
	if server == Postgres {
		driverName = "pgx"
	}
	stmts := []string{fmt.Sprintf("CREATE TABLE %s (id INT PRIMARY KEY, tenant VARCHAR(10), secret VARCHAR(40), note VARCHAR(40))", GuardTable)}
	for i, r := range guardRows {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s VALUES (%d, '%s', '%s', '%s')", GuardTable, i+1, r[0], r[1], r[2]))
	}
	return execAll(ctx, driverName, dsn, stmts...)
}

// sortedKeys returns m's keys, the most frequent first.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// checkGuard reads the guarded table through sqe as the suites' user and
// says whether the policy file of the run was enforced: "ok", or what
// was wrong.
func checkGuard(ctx context.Context, server, dsn, policyFile string) string {
	driverName := "mysql"
	if server == Postgres {
		driverName = "pgx"
	}
	db, err := sqe.Open(driverName, dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutPolicyWatch(), sqe.WithoutAudit())
	if err != nil {
		return err.Error()
	}
	defer db.Close()
	ctx = session.NewContext(ctx, session.User{Name: PeerUser, Roles: []string{PeerRole}})
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+GuardTable+" ORDER BY id")
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err.Error()
	}
	if strings.Join(cols, ",") != "id,tenant,secret" {
		return fmt.Sprintf("columns %v, want the note restricted", cols)
	}
	var got [][3]string
	for rows.Next() {
		var r [3]string
		if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			return err.Error()
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return err.Error()
	}
	want := [][3]string{{"1", "a", "xxxxxx-1111"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Sprintf("rows %v, want %v (filtered and masked)", got, want)
	}
	return "ok"
}
