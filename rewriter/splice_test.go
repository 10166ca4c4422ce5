package rewriter

import (
	"strings"
	"testing"
)

// TestSpliceInto: placeholders printed once between the bytes the
// dialect asks for are replaced, in any order; anything else is refused.
func TestSpliceInto(t *testing.T) {
	bounded := func(_ int, before, after string) bool {
		return strings.HasSuffix(before, " ") && strings.HasPrefix(after, " ")
	}
	splices := []Splice{{"`p1`", "f(b)"}, {"`p0`", "g(a, 'x')"}}
	got, ok := SpliceInto("select `p0` as a, `p1` as b", splices, bounded)
	if !ok || got != "select g(a, 'x') as a, f(b) as b" {
		t.Fatalf("got %q, %v", got, ok)
	}
	for _, skeleton := range []string{
		"select `p0` as a",                // p1 missing
		"select `p0` as a, `p1` as `p1` ", // p1 twice
		"select `p0` as a,`p1` as b",      // p1 after a comma
		"select `p0` as a, `p1`",          // p1 at the end
		"select `p0`,`p1` as b",           // p0 before a comma
	} {
		if got, ok := SpliceInto(skeleton, splices, bounded); ok {
			t.Fatalf("%s: spliced to %q", skeleton, got)
		}
	}
	// The token is the process's: the same on every call.
	first, again := SpliceToken(), SpliceToken()
	if first != again || len(first) < 20 {
		t.Fatalf("token %q, then %q", first, again)
	}
}
