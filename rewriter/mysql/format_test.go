package mysql

import (
	"math/rand/v2"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// TestQuoteStringReadsBack: a literal quoteString prints is read by the
// parser as the same string, whatever quotes, backslashes, NULs and
// multi-byte characters it holds; without backslash escapes only the
// quote is doubled.
func TestQuoteStringReadsBack(t *testing.T) {
	alphabet := []string{"a", "'", `\`, "\x00", "é", "𐀀", "%", "_", "\n", "''", `\'`}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", "'", `\`, "\x00", `a'b\c`}
	for range 500 {
		var s string
		for n := rng.IntN(12); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		q := quoteString(s, false)
		stmt, err := parse("select " + q)
		if err != nil {
			t.Fatalf("%q printed as %s does not parse: %v", s, q, err)
		}
		lit, ok := stmt.(*sqlparser.Select).SelectExprs.Exprs[0].(*sqlparser.AliasedExpr).Expr.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal || lit.Val != s {
			t.Fatalf("%q printed as %s reads back as %#v", s, q, stmt.(*sqlparser.Select).SelectExprs.Exprs[0])
		}
	}
	if got, want := quoteString(`a'b\c`+"\x00", true), `'a''b\c`+"\x00'"; got != want {
		t.Errorf("without backslash escapes: %q, want %q", got, want)
	}
}
