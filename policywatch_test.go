package sqe_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe"
)

// writePolicy replaces the policy file the way configuration management
// does: write a temporary file, rename it over the old one.
func writePolicy(t *testing.T, e *env, template string) {
	t.Helper()
	tmp := e.policy + ".tmp"
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf(template, e.schema)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.policy); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds; the deadline is far beyond what
// the event needs, so a loaded machine makes the test slower, not flaky.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A running *sql.DB opened with WithPolicyFile follows the file on disk:
// a row filter added to the file applies without a Reload call, a file
// that does not load keeps the last good policy in force, and a later
// good file applies again.
func TestPolicyFileFollowedOnDisk(t *testing.T) {
	open := "version: 1\ndefault: allow\n# schema %[1]s: no rules\n"
	filtered := "version: 1\ndefault: allow\ntables:\n  %[1]s.customers:\n    row_filters:\n      - {name: region, principals: [public], filter: \"region = 'EU'\"}\n"
	broken := strings.Replace(filtered, "region = 'EU'", "region = = 'EU'", 1) // does not parse as SQL
	us := strings.Replace(filtered, "'EU'", "'US'", 1)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, open)
			ids := func() string {
				t.Helper()
				rows, _, err := query(as(nobody), e.db, "SELECT id FROM customers ORDER BY id")
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r[0])
				}
				return strings.Join(out, ",")
			}
			stats := func() sqe.Stats {
				st, ok := sqe.StatsOf(e.db)
				if !ok {
					t.Fatal("no stats")
				}
				return st
			}
			if got := ids(); got != "1,2,3" {
				t.Fatalf("before the change: %q", got)
			}
			v1 := stats().Policy.Version

			// A statement under way when the file changes finishes under
			// the policy it started with.
			inFlight, err := e.db.QueryContext(as(nobody), "SELECT id FROM customers ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			defer inFlight.Close()
			if !inFlight.Next() {
				t.Fatalf("in-flight statement: no first row: %v", inFlight.Err())
			}

			writePolicy(t, e, filtered)
			eventually(t, "the row filter added on disk to apply", func() bool { return ids() == "1,2" })
			if st := stats(); st.Policy.Version == v1 || st.Policy.ReloadFailures != 0 {
				t.Errorf("after the change: version %d (was %d), reload failures %d", st.Policy.Version, v1, st.Policy.ReloadFailures)
			}
			var rest []int
			for inFlight.Next() {
				var id int
				if err := inFlight.Scan(&id); err != nil {
					t.Fatal(err)
				}
				rest = append(rest, id)
			}
			if err := inFlight.Err(); err != nil || fmt.Sprint(rest) != "[2 3]" {
				t.Errorf("the in-flight statement went on with %v (%v), want [2 3]", rest, err)
			}
			_ = inFlight.Close()

			// A file whose filter does not parse for the dialect: counted,
			// and the last good policy stays in force.
			v2 := stats().Policy.Version
			writePolicy(t, e, broken)
			eventually(t, "the broken file to be counted", func() bool { return stats().Policy.ReloadFailures == 1 })
			st := stats()
			if st.Policy.Version != v2 || st.Policy.LastError == nil || !strings.Contains(st.Policy.LastError.Error(), "row_filters[0].filter") {
				t.Errorf("after the broken file: version %d (want %d), last error %v", st.Policy.Version, v2, st.Policy.LastError)
			}
			for range 3 {
				if got := ids(); got != "1,2" {
					t.Fatalf("under the kept policy: %q", got)
				}
			}

			// A good file again.
			writePolicy(t, e, us)
			eventually(t, "the good file to apply", func() bool { return ids() == "3" })
			if st := stats(); st.Policy.LastError != nil || st.Policy.ReloadFailures != 1 {
				t.Errorf("after recovery: last error %v, reload failures %d", st.Policy.LastError, st.Policy.ReloadFailures)
			}
		})
	}
}
