package peersuites

import (
	"fmt"
	"io"
	"strings"
)

// Report is every run of the suites, and the suites that could not run.
type Report struct {
	Runs []*Run
	// Skipped maps a suite that did not run to the reason.
	Skipped map[string]string
	// Known are the failures through sqe that are understood (see
	// ParseKnown), by suite, server and test.
	Known map[string]string
}

// ParseKnown reads the known failures: one per line, "suite server test
// reason…"; blank lines and lines starting with # are ignored.
func ParseKnown(text string) (map[string]string, error) {
	known := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("known failures, line %d: want: suite server test reason", i+1)
		}
		key := knownKey(f[0], f[1], f[2])
		if _, dup := known[key]; dup {
			return nil, fmt.Errorf("known failures, line %d: %s %s %s is listed twice", i+1, f[0], f[1], f[2])
		}
		known[key] = strings.Join(f[3:], " ")
	}
	return known, nil
}

func knownKey(suite, server, test string) string { return suite + " " + server + " " + test }

// KnownReason returns why t, failing in r, is a known failure ("" when it
// is not one).
func (rep *Report) KnownReason(r *Run, t Test) string {
	return rep.Known[knownKey(r.Suite, r.Server, t.Name)]
}

// New returns the regressions of r that are not known failures.
func (rep *Report) New(r *Run) []Test {
	var out []Test
	for _, t := range rep.Regressions(r) {
		if rep.KnownReason(r, t) == "" {
			out = append(out, t)
		}
	}
	return out
}

// baseline returns the raw run of r's suite on r's server.
func (rep *Report) baseline(r *Run) *Run {
	for _, b := range rep.Runs {
		if b.Suite == r.Suite && b.Server == r.Server && b.Mode == Raw {
			return b
		}
	}
	return nil
}

// Regressions returns the tests of r that passed on the raw driver and
// did not pass in r (a skip counts: sqe must not turn a pass into one).
func (rep *Report) Regressions(r *Run) []Test {
	base := rep.baseline(r)
	if base == nil || r.Mode == Raw {
		return nil
	}
	var out []Test
	for _, t := range r.Tests {
		if t.Outcome != Pass && base.Outcome(t.Name) == Pass {
			out = append(out, t)
		}
	}
	return out
}

// OK reports whether every run through sqe passed what the raw driver
// passed, but for known failures, and every policy run enforced its
// policy.
func (rep *Report) OK() bool {
	for _, r := range rep.Runs {
		if len(rep.New(r)) > 0 || (r.Mode == Policed && r.PolicyCheck != "ok") {
			return false
		}
	}
	return true
}

// WriteMarkdown writes the per-suite table, the regressions with the
// first lines of their output, and sqe's refusals.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| suite | server | mode | tests | passed | failed | skipped | passing raw only: known | new | policy enforced |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rep.Runs {
		known, news, check := "", "", ""
		if r.Mode != Raw {
			n := len(rep.New(r))
			known, news = fmt.Sprint(len(rep.Regressions(r))-n), fmt.Sprint(n)
		}
		if r.Mode == Policed {
			check = r.PolicyCheck
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %s | %s | %s |\n",
			r.Suite, r.Server, r.Mode, len(r.Tests), r.Count(Pass), r.Count(Fail), r.Count(Skip), known, news, check)
	}
	for name, why := range rep.Skipped {
		fmt.Fprintf(&b, "\n%s: skipped: %s\n", name, why)
	}
	for _, r := range rep.Runs {
		reg := rep.Regressions(r)
		if len(reg) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s on %s, %s: %d tests pass raw and not through sqe\n\n", r.Suite, r.Server, r.Mode, len(reg))
		for _, t := range reg {
			if why := rep.KnownReason(r, t); why != "" {
				fmt.Fprintf(&b, "- %s (%s, known): %s\n", t.Name, t.Outcome, why)
			} else {
				fmt.Fprintf(&b, "- %s (%s, NEW): %s\n", t.Name, t.Outcome, Reason(t.Output))
			}
		}
	}
	for _, r := range rep.Runs {
		if len(r.Refusals) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s on %s, %s: statements refused or failed through sqe\n\n", r.Suite, r.Server, r.Mode)
		for _, k := range sortedKeys(r.Refusals) {
			fmt.Fprintf(&b, "- %d × %s\n", r.Refusals[k], k)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Reason picks the line of a failed test's output that says why: the
// first that states an error (testify's "Error:", a panic, an sqe
// error), else the first that mentions one, else the first line.
func Reason(output []string) string {
	for i, l := range output {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Error:") && i+1 < len(output) {
			// testify: the message, then its first detail line.
			t = strings.Join(strings.Fields(t+" "+output[i+1]), " ")
		}
		if strings.HasPrefix(t, "Error:") || strings.HasPrefix(t, "panic:") || strings.Contains(t, "sqe:") {
			return t
		}
	}
	for _, l := range output {
		low := strings.ToLower(l)
		if (strings.Contains(low, "error") || strings.Contains(low, "got")) && !strings.Contains(low, "error trace:") {
			return strings.TrimSpace(l)
		}
	}
	if len(output) > 0 {
		return strings.TrimSpace(output[0])
	}
	return "(no output)"
}
