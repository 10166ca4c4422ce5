package rewriter

import (
	"errors"
	"strings"
	"testing"
)

func TestTextMemo(t *testing.T) {
	m := TextMemo{Max: 2}
	calls := 0
	upper := func(s string) (string, error) {
		calls++
		if s == "bad" {
			return "", errors.New("bad")
		}
		return strings.ToUpper(s), nil
	}
	for _, in := range []string{"a", "a", "b", "b", "c", "c", "bad", "bad"} {
		out, err := m.Do(in, upper)
		if in == "bad" {
			if err == nil {
				t.Fatal("error not returned")
			}
			continue
		}
		if err != nil || out != strings.ToUpper(in) {
			t.Fatalf("%s: %q %v", in, out, err)
		}
	}
	// a and b are remembered; c (past Max) and the failing text are
	// computed each time.
	if calls != 6 {
		t.Fatalf("calls = %d, want 6", calls)
	}
}
