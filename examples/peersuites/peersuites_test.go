package peersuites

import (
	"strings"
	"testing"
)

// go tool test2json output of a run with a passing subtest, a failing
// top-level test and unrelated output.
const events = `{"Action":"start"}
{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"run","Test":"TestA/sub"}
{"Action":"pass","Test":"TestA/sub"}
{"Action":"output","Test":"TestA","Output":"    a_test.go:10: boom: Error 1146 (42S02)\n"}
{"Action":"fail","Test":"TestA"}
not json
{"Action":"fail"}
`

func TestParseEvents(t *testing.T) {
	tests, last := parseEvents([]byte(events))
	got := tests["TestA"]
	if got.Outcome != Fail {
		t.Fatalf("outcome %q, want fail (the subtest's pass is not the test's)", got.Outcome)
	}
	if len(got.Output) != 1 || !strings.Contains(got.Output[0], "Error 1146") {
		t.Fatalf("output %q, want the error line only", got.Output)
	}
	if _, ran := tests["TestB"]; ran || last != "TestA" {
		t.Fatalf("tests %v, last %q", tests, last)
	}
	// A process that died in TestC: started, no outcome.
	tests, last = parseEvents([]byte(events + `{"Action":"run","Test":"TestC"}
{"Action":"output","Test":"TestC","Output":"panic: boom\n"}
`))
	if c := tests["TestC"]; last != "TestC" || c.Outcome != "" || len(c.Output) != 1 {
		t.Fatalf("a test running when the process died: %+v, last %q", c, last)
	}
}

func TestRegressions(t *testing.T) {
	raw := &Run{Suite: "s", Server: MySQL, Mode: Raw, Tests: []Test{{Name: "T1", Outcome: Pass}, {Name: "T2", Outcome: Fail}, {Name: "T3", Outcome: Pass}}}
	via := &Run{Suite: "s", Server: MySQL, Mode: AllowAll, Tests: []Test{{Name: "T1", Outcome: Skip}, {Name: "T2", Outcome: Fail}, {Name: "T3", Outcome: Pass}}}
	other := &Run{Suite: "s", Server: Postgres, Mode: AllowAll, Tests: []Test{{Name: "T1", Outcome: Fail}}}
	rep := &Report{Runs: []*Run{raw, via, other}}
	reg := rep.Regressions(via)
	if len(reg) != 1 || reg[0].Name != "T1" {
		t.Fatalf("regressions %v, want T1 (pass turned skip) only", reg)
	}
	if reg := rep.Regressions(other); len(reg) != 0 {
		t.Fatalf("a run without a raw baseline on its server has regressions %v", reg)
	}
	if rep.OK() {
		t.Fatal("a report with a regression is OK")
	}
}

func TestPolicyNamesTheGuardedTable(t *testing.T) {
	if p := policyFor(AllowAll, "db"); strings.Contains(p, GuardTable) {
		t.Fatalf("the allow-all policy polices a table:\n%s", p)
	}
	p := policyFor(Policed, "db")
	for _, want := range []string{"db." + GuardTable, "row_filters", "MASK_SHOW_LAST_4", "restricted"} {
		if !strings.Contains(p, want) {
			t.Fatalf("the policy run's policy lacks %q:\n%s", want, p)
		}
	}
}

func TestDatabaseDSN(t *testing.T) {
	got, err := DatabaseDSN(MySQL, "u:p@tcp(127.0.0.1:3306)/?multiStatements=false", "x")
	if err != nil || !strings.Contains(got, "/x?") || !strings.Contains(got, "parseTime=true") {
		t.Fatalf("mysql: %q %v", got, err)
	}
	got, err = DatabaseDSN(Postgres, "postgres://u:p@127.0.0.1:5432/postgres?sslmode=disable", "x")
	if err != nil || got != "postgres://u:p@127.0.0.1:5432/x?sslmode=disable" {
		t.Fatalf("postgres: %q %v", got, err)
	}
}

func TestKnownFailures(t *testing.T) {
	known, err := ParseKnown("# comment\n\ns mysql T1 the reason, in words\n")
	if err != nil {
		t.Fatal(err)
	}
	raw := &Run{Suite: "s", Server: MySQL, Mode: Raw, Tests: []Test{{Name: "T1", Outcome: Pass}, {Name: "T2", Outcome: Pass}}}
	via := &Run{Suite: "s", Server: MySQL, Mode: Policed, PolicyCheck: "ok", Tests: []Test{{Name: "T1", Outcome: Fail}, {Name: "T2", Outcome: Pass}}}
	rep := &Report{Runs: []*Run{raw, via}, Known: known}
	if got := rep.KnownReason(via, via.Tests[0]); got != "the reason, in words" {
		t.Fatalf("reason %q", got)
	}
	if !rep.OK() {
		t.Fatal("a known failure fails the report")
	}
	via.Tests[1].Outcome = Fail
	if rep.OK() {
		t.Fatal("an unknown failure passes the report")
	}
	for _, bad := range []string{"s mysql T1\n", "s mysql T1 a\ns mysql T1 b\n"} {
		if _, err := ParseKnown(bad); err == nil {
			t.Errorf("ParseKnown(%q) accepted", bad)
		}
	}
}

func TestReason(t *testing.T) {
	out := []string{"    x_test.go:10: ", "        \tError Trace:\tx_test.go:10", "        \tError:      \tReceived unexpected error:", "        \t            \tsqe: boom"}
	if got := Reason(out); got != "Error: Received unexpected error: sqe: boom" {
		t.Fatalf("Reason = %q", got)
	}
	if got := Reason([]string{"first", "panic: bad"}); got != "panic: bad" {
		t.Fatalf("Reason = %q", got)
	}
}
