package udf

import (
	"strings"
	"unicode"
)

// suppRange is the bracket-expression range of all supplementary
// characters, which Hive sees as two "other" UTF-16 units each.
const suppRange = "\U00010000-\U0010FFFF"

// bmpClass holds bracket-expression contents (literal characters and
// ranges) for upper-case letters (Lu), lower-case letters (Ll) and decimal
// digits (Nd) of the Basic Multilingual Plane, from Go's Unicode tables.
// The generated SQL spells the classes out instead of relying on the
// server's own classification, so MariaDB, PostgreSQL (under any collation)
// and the Go reference classify every character identically.
var bmpClass = [3]string{
	clsUpper: bracketRanges(unicode.Lu),
	clsLower: bracketRanges(unicode.Ll),
	clsDigit: bracketRanges(unicode.Nd),
}

func bracketRanges(t *unicode.RangeTable) string {
	var b strings.Builder
	lo, hi := rune(-1), rune(-2)
	flush := func() {
		if lo < 0 {
			return
		}
		b.WriteRune(lo)
		if hi > lo {
			if hi > lo+1 {
				b.WriteByte('-')
			}
			b.WriteRune(hi)
		}
	}
	for r := rune(1); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF || !unicode.Is(t, r) {
			continue
		}
		if r == hi+1 {
			hi = r
			continue
		}
		flush()
		lo, hi = r, r
	}
	flush()
	return b.String()
}
