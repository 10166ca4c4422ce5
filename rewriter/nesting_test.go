package rewriter

import (
	"slices"
	"testing"
)

// TestNestingBound: runs add up, separators end them, a parenthesis or a
// CASE opens a level from where it stands, and structure is never reset.
func TestNestingBound(t *testing.T) {
	L, O, S, E := NestLevel, NestOperand, NestSeparator, NestStatementEnd
	open, cl, cs, cw, ce, st := NestOpen, NestClose, NestCase, NestCaseSeparator, NestCaseEnd, NestStructure
	for _, c := range []struct {
		name  string
		kinds []Nesting
		want  int
	}{
		{"operands", []Nesting{O, O, O}, 0},
		{"a chain", []Nesting{O, L, O, L, O, L, O}, 3},
		{"a list", []Nesting{O, L, O, S, O, L, O, S, O, L, O}, 1},
		{"parentheses on a chain", []Nesting{O, L, O, L, open, O, L, O, cl}, 4},
		{"a list inside parentheses", []Nesting{L, open, O, L, O, S, O, L, O, cl, L, O}, 3},
		{"CASE branches", []Nesting{L, cs, cw, O, L, O, cw, O, cw, O, L, O, cw, O, ce}, 3},
		{"CASE after a chain", []Nesting{O, L, O, L, cs, cw, O, L, O, cw, O, ce}, 4},
		{"WHEN outside CASE", []Nesting{L, cw, L, cw, L}, 5},
		{"END outside CASE", []Nesting{L, ce, L}, 3},
		{"structure across lists", []Nesting{L, O, S, O, st, L, O, S, O, st, L, O, S, O}, 3},
		{"statements", []Nesting{L, L, L, E, L}, 3},
	} {
		if got, _ := NestingBound(slices.Values(c.kinds)); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// Open levels count parentheses and CASEs open at once, not runs.
	for _, c := range []struct {
		kinds []Nesting
		want  int
	}{
		{[]Nesting{L, L, L, L}, 0},
		{[]Nesting{open, open, cl, open, cs, cw, L, ce, cl, cl}, 3},
		{[]Nesting{open, cl, open, cl, open, cl}, 1},
	} {
		if _, got := NestingBound(slices.Values(c.kinds)); got != c.want {
			t.Errorf("%v: %d open, want %d", c.kinds, got, c.want)
		}
	}
}
