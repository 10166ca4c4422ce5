package udf

import (
	"crypto/md5"
	"fmt"
	"strconv"
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
	clsUpper: bracketRanges(unicode.Lu, 0xFFFF),
	clsLower: bracketRanges(unicode.Ll, 0xFFFF),
	clsDigit: bracketRanges(unicode.Nd, 0xFFFF),
}

// latin1Class is the part of bmpClass up to U+00FF, and beyondLatin1 the
// range of the BMP beyond it.
var latin1Class = [3]string{
	clsUpper: bracketRanges(unicode.Lu, 0xFF),
	clsLower: bracketRanges(unicode.Ll, 0xFF),
	clsDigit: bracketRanges(unicode.Nd, 0xFF),
}

const beyondLatin1 = "\u0100-\uFFFF"

// bracketRanges is the bracket-expression contents for the characters of t
// from U+0001 to last, surrogates excepted.
func bracketRanges(t *unicode.RangeTable, last rune) string {
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
	for r := rune(1); r <= last; r++ {
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

// propName is the Unicode general category of each class.
var propName = [3]string{clsUpper: "Lu", clsLower: "Ll", clsDigit: "Nd"}

// pgClassName is PostgreSQL's bracket class for each class; under an ICU
// collation it is ICU's u_isupper, u_islower and u_isdigit, which are
// exactly Lu, Ll and Nd.
var pgClassName = [3]string{clsUpper: "upper", clsLower: "lower", clsDigit: "digit"}

// ClassProbe returns a query that classifies every BMP character (U+0001 …
// U+FFFF without the surrogates) with the server's own regular-expression
// classes, the way the masks would match them, and the one value it returns
// when that classification is Go's (then a Target may set NamedClasses).
// The server generates the characters itself, so the query is small; any
// other answer, or an error (a PostgreSQL built without ICU has no
// pg_catalog."und-x-icu"), means the SQL must keep the explicit lists.
// ok is false for a dialect that has no probe.
func ClassProbe(d Dialect) (query, want string, ok bool) {
	switch d {
	case Postgres:
		return pgClassProbe(), goClassDigest(), true
	case MySQL:
	default:
		return "", "", false
	}
	g := gen{d: MySQL}
	flags := make([]string, len(propName))
	for c, p := range propName {
		flags[c] = "ch REGEXP " + g.lit(myRegexpFlags+`\p{`+p+"}")
	}
	hex := "SELECT 0 n"
	for i := 1; i < 16; i++ {
		hex += " UNION ALL SELECT " + itoa(i)
	}
	query = "WITH h AS (" + hex + ") " +
		"SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(cp, ':', c ORDER BY cp SEPARATOR ','))) FROM (" +
		"SELECT cp, CONCAT(" + strings.Join(flags, ", ") + ") c FROM (" +
		"SELECT cp, " + myText("CHAR(cp USING utf32)") + " ch FROM (" +
		"SELECT a.n * 4096 + b.n * 256 + c.n * 16 + d.n cp FROM h a, h b, h c, h d) q " +
		"WHERE cp > 0 AND cp NOT BETWEEN 55296 AND 57343) r) s WHERE c <> '000'"
	return query, goClassDigest(), true
}

// pgClassProbe classifies each character with the very patterns the
// masks use for one class (groupPattern with named classes), under
// icuRoot as maskString reads values.
func pgClassProbe() string {
	g := gen{d: Postgres, t: Target{Dialect: Postgres, NamedClasses: true}}
	flags := make([]string, len(propName))
	for c := range propName {
		flags[c] = "CASE WHEN ch ~ " + g.lit(g.groupPattern(1<<c)) + " THEN '1' ELSE '0' END"
	}
	return "SELECT count(*)::text || ':' || md5(string_agg(cp::text || ':' || c, ',' ORDER BY cp)) FROM (" +
		"SELECT cp, " + strings.Join(flags, " || ") + " AS c FROM (" +
		"SELECT cp, chr(cp) COLLATE " + icuRoot + " AS ch FROM generate_series(1, 65535) AS cp " +
		"WHERE cp NOT BETWEEN 55296 AND 57343) AS r) AS s WHERE c <> '000'"
}

// goClassDigest is the answer of ClassProbe's query under Go's tables.
func goClassDigest() string {
	var b strings.Builder
	n := 0
	for r := rune(1); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		f := [3]byte{'0', '0', '0'}
		for c, t := range []*unicode.RangeTable{clsUpper: unicode.Lu, clsLower: unicode.Ll, clsDigit: unicode.Nd} {
			if unicode.Is(t, r) {
				f[c] = '1'
			}
		}
		if f == [3]byte{'0', '0', '0'} {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(strconv.Itoa(int(r)) + ":" + string(f[:]))
	}
	return strconv.Itoa(n) + ":" + fmt.Sprintf("%x", md5.Sum([]byte(b.String())))
}
