package rewriter

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Literal templates let a statement that differs from one already
// rewritten only in the values of some of its literals reuse that rewrite:
// an application that builds its SQL with literals instead of placeholders
// ("... WHERE id = 42") sends a new text for every value, and each would
// otherwise be parsed, planned, printed and checked again.
//
// A literal takes part only when two things hold of it:
//
//   - its text is what both dialects' printers print for its value, with
//     a class that is the type the server gives it (PlainLiteral): a plain
//     integer of a known range, a plain decimal, a string of printable
//     characters without quotes or backslashes. Anything else stays part
//     of the statement's shape, as written.
//   - the dialect says it stands where no decision of the rewrite reads
//     its value (InertLiterals): one side of a comparison whose other side is a
//     column, an element of a column's IN list, a bound of a column's
//     BETWEEN. A literal read as a column position (ORDER BY 2), a LIKE
//     pattern, a function's argument (a session attribute's name, a
//     relation name) or a LIMIT is never in a template.
//
// The template is built from a second rewrite of the statement with those
// literals replaced by sentinel values of the same classes: every place
// the output prints a sentinel is a slot, and the template stands only if
// each sentinel is printed as itself and nowhere in another form (a
// result column named after it), each is printed at least once, and the
// template filled with the statement's own literals is byte for byte the
// output of its own rewrite. Only reads whose rewrite has no write checks
// and no effect on the connection are templated (TemplateResult); the
// engine keys templates by everything else the rewrite depends on, as it
// keys rewrites.

// LiteralClass is the type a template literal has on the server: two
// literals of one class are read the same way wherever they stand.
type LiteralClass byte

// Literal classes.
const (
	ClassInt32   LiteralClass = 'i' // a plain integer of at most 2147483647
	ClassInt64   LiteralClass = 'l' // a plain integer of at most 9223372036854775807
	ClassDecimal LiteralClass = 'd' // digits, a point, digits
	ClassString  LiteralClass = 's' // a quoted string of plain characters
)

// LiteralTemplates is implemented by a dialect whose rewrites can be
// reused across literal values (see the comment above).
type LiteralTemplates interface {
	// Tokens reads a statement, the rewrite's output too (Tokenizer).
	// Its number and string tokens are the literals a template may fill
	// in, when their text is one PlainLiteral accepts.
	Tokenizer
	// InertLiterals parses sql and returns the printed text of every
	// literal that stands where no decision of the rewrite reads its
	// value; ok is false when sql does not parse.
	InertLiterals(sql string) (texts []string, ok bool)
}

// TemplateLiteral is a literal of a statement that may take part in a
// template: its position and class.
type TemplateLiteral struct {
	Start, End int
	Class      LiteralClass
}

// TemplateLiterals returns the literals of sql, as the dialect's tokens
// give them, that may take part in a template. A statement of several
// statements, or one the scanner does not read whole, has none.
func TemplateLiterals(sql string, tokens []Token) []TemplateLiteral {
	var out []TemplateLiteral
	for _, t := range tokens {
		if t.Kind == TokenPunct && t.Text == ";" {
			return nil
		}
		if t.Kind != TokenNumber && t.Kind != TokenString || t.Start < 0 || t.End > len(sql) || t.Start >= t.End {
			continue
		}
		if c, ok := PlainLiteral(t.Kind, sql[t.Start:t.End]); ok {
			out = append(out, TemplateLiteral{Start: t.Start, End: t.End, Class: c})
		}
	}
	return out
}

// ShapeKey is sql with every literal of lits replaced by its class: two
// statements with one key differ at most in those literals' values. The
// key is length-prefixed, so no two different statements share one.
func ShapeKey(sql string, lits []TemplateLiteral) string {
	var b strings.Builder
	b.Grow(len(sql) + 4*len(lits) + 8)
	var n [binary.MaxVarintLen64]byte
	prev := 0
	for _, l := range lits {
		b.Write(n[:binary.PutUvarint(n[:], uint64(l.Start-prev))])
		b.WriteString(sql[prev:l.Start])
		b.WriteByte(byte(l.Class))
		prev = l.End
	}
	b.Write(n[:binary.PutUvarint(n[:], uint64(len(sql)-prev))])
	b.WriteString(sql[prev:])
	return b.String()
}

// Template is a rewritten statement with slots where the values of some
// of its input's literals are printed.
type Template struct {
	parts []string // output text around the slots: len(slots)+1
	slots []int    // the input literal each slot prints
	// fixed are the input literals that are part of the statement as
	// written (not inert), by index, with their text.
	fixed map[int]string
	n     int // the number of template literals of the input
}

// Apply fills the template with the literals of sql (as
// TemplateLiterals returns them for a statement of the template's
// shape). ok is false when a literal the template keeps as written has
// another value: the statement is then rewritten on its own.
func (t *Template) Apply(sql string, lits []TemplateLiteral) (string, bool) {
	if len(lits) != t.n {
		return "", false
	}
	for i, text := range t.fixed {
		if sql[lits[i].Start:lits[i].End] != text {
			return "", false
		}
	}
	size := 0
	for _, p := range t.parts {
		size += len(p)
	}
	for _, s := range t.slots {
		size += lits[s].End - lits[s].Start
	}
	var b strings.Builder
	b.Grow(size)
	for i, s := range t.slots {
		b.WriteString(t.parts[i])
		b.WriteString(sql[lits[s].Start:lits[s].End])
	}
	b.WriteString(t.parts[len(t.parts)-1])
	return b.String(), true
}

// Size is the bytes the template holds.
func (t *Template) Size() int {
	n := 64 + 8*len(t.slots) + 48*len(t.fixed)
	for _, p := range t.parts {
		n += 16 + len(p)
	}
	for _, s := range t.fixed {
		n += len(s)
	}
	return n
}

// TemplateResult reports whether a rewrite may be reused for other
// literal values: a read of application tables only (no catalog
// relation, whose listings the rewrite shapes, and no temporary table),
// cacheable, with no write checks and no effect on the connection.
func TemplateResult(res *Result) bool {
	if res == nil || res.Kind != KindSelect || !res.Cacheable || len(res.WriteChecks) > 0 || res.Effect != (Effect{}) {
		return false
	}
	for _, t := range res.Tables {
		if systemSchema(t.Schema) {
			return false
		}
	}
	return true
}

// systemSchema reports whether a schema is one of either server's own
// (catalogs, statistics, a connection's temporary tables).
func systemSchema(s string) bool {
	s = strings.ToLower(s)
	switch s {
	case "information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys", "":
		return true
	}
	return strings.HasPrefix(s, "pg_temp") || strings.HasPrefix(s, "pg_toast_temp")
}

// BuildTemplate makes the template of a statement whose rewrite is res
// (req is the request that made it, lits the statement's template
// literals). It rewrites the statement once more, with sentinels in
// place of its inert literals; ok is false when the statement has no
// inert literal or the output does not prove that they are only printed.
func BuildTemplate(rewrite func(*Request) (*Result, error), req *Request, d LiteralTemplates, res *Result, lits []TemplateLiteral) (*Template, bool) {
	if !TemplateResult(res) || len(lits) == 0 {
		return nil, false
	}
	sql := req.SQL
	sentinels := make([]string, len(lits))
	for i, l := range lits {
		s, ok := sentinel(l.Class, i)
		if !ok || strings.Contains(sql, strings.Trim(s, "'")) || strings.Contains(res.SQL, strings.Trim(s, "'")) {
			return nil, false
		}
		sentinels[i] = s
	}
	// Which literals are inert, read from the statement with every
	// literal a sentinel (distinct values, the same tree).
	all := replaceLiterals(sql, lits, func(i int) string { return sentinels[i] })
	texts, ok := d.InertLiterals(all)
	if !ok {
		return nil, false
	}
	index := make(map[string]int, len(sentinels))
	for i, s := range sentinels {
		index[s] = i
	}
	inert := make([]bool, len(lits))
	count := 0
	for _, t := range texts {
		if i, ok := index[t]; ok && !inert[i] {
			inert[i] = true
			count++
		}
	}
	if count == 0 {
		return nil, false
	}
	tmpl := &Template{fixed: map[int]string{}, n: len(lits)}
	in := replaceLiterals(sql, lits, func(i int) string {
		if inert[i] {
			return sentinels[i]
		}
		tmpl.fixed[i] = sql[lits[i].Start:lits[i].End]
		return tmpl.fixed[i]
	})
	sreq := *req
	sreq.SQL = in
	sres, err := rewrite(&sreq)
	if err != nil || !TemplateResult(sres) || !slices.Equal(sres.Tables, res.Tables) {
		return nil, false
	}
	if !tmpl.slotsFrom(d, sres.SQL, sentinels, inert) {
		return nil, false
	}
	if out, ok := tmpl.Apply(sql, lits); !ok || out != res.SQL {
		return nil, false
	}
	return tmpl, true
}

// slotsFrom cuts out into the template's parts and slots at every
// printed sentinel, read with the dialect's scanner: a slot is a literal
// token whose text is exactly an inert literal's sentinel. Each such
// sentinel must be printed at least once, and every occurrence of its
// text in the output must be such a token (never inside a name, a
// comment or another literal).
func (t *Template) slotsFrom(d Tokenizer, out string, sentinels []string, inert []bool) bool {
	tokens, ok := d.Tokens(out)
	if !ok {
		return false
	}
	index := make(map[string]int, len(sentinels))
	for i, s := range sentinels {
		if inert[i] {
			index[s] = i
		}
	}
	printed := make([]int, len(sentinels))
	prev := 0
	for _, tok := range tokens {
		if tok.Kind != TokenString && tok.Kind != TokenNumber || tok.Start < prev || tok.End > len(out) {
			continue
		}
		i, ok := index[out[tok.Start:tok.End]]
		if !ok {
			continue
		}
		printed[i]++
		t.parts = append(t.parts, out[prev:tok.Start])
		t.slots = append(t.slots, i)
		prev = tok.End
	}
	t.parts = append(t.parts, out[prev:])
	for i, s := range sentinels {
		if inert[i] && (printed[i] == 0 || strings.Count(out, strings.Trim(s, "'")) != printed[i]) {
			return false
		}
	}
	return true
}

// sentinel is the text of a literal of the class, distinct for each i,
// that no application statement is likely to hold (BuildTemplate checks
// that the statement and its rewrite do not).
func sentinel(c LiteralClass, i int) (string, bool) {
	if i >= 100000 {
		return "", false
	}
	switch c {
	case ClassInt32:
		return strconv.Itoa(1357900000 + i), true
	case ClassInt64:
		return strconv.FormatInt(8357913579000000000+int64(i), 10), true
	case ClassDecimal:
		return "97531.1" + strconv.Itoa(i) + "7", true
	case ClassString:
		return "'qzsqe" + strconv.Itoa(i) + "xq'", true
	}
	return "", false
}

// replaceLiterals is sql with literal i's text replaced by with(i).
func replaceLiterals(sql string, lits []TemplateLiteral, with func(i int) string) string {
	var b strings.Builder
	prev := 0
	for i, l := range lits {
		b.WriteString(sql[prev:l.Start])
		b.WriteString(with(i))
		prev = l.End
	}
	b.WriteString(sql[prev:])
	return b.String()
}

// PlainLiteral classifies a number or string token's text (both
// dialects print these as written): an unsigned integer of an integer
// class, a plain decimal, or a string in single quotes whose value
// PlainString accepts. Anything else (signs, exponents, escapes, an E,
// X or N prefix, a character set introducer) is not a template literal.
func PlainLiteral(kind TokenKind, src string) (LiteralClass, bool) {
	switch kind {
	case TokenNumber:
		if c, ok := PlainInteger(src); ok {
			return c, true
		}
		if PlainDecimal(src) {
			return ClassDecimal, true
		}
	case TokenString:
		if len(src) >= 2 && src[0] == '\'' && src[len(src)-1] == '\'' && PlainString(src[1:len(src)-1]) {
			return ClassString, true
		}
	}
	return 0, false
}

// PlainInteger classifies a literal's text as an integer of one of the
// integer classes: digits only, no sign, no leading zero but for 0.
func PlainInteger(text string) (LiteralClass, bool) {
	if text == "" || len(text) > 19 || len(text) > 1 && text[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false
	}
	if v <= 2147483647 {
		return ClassInt32, true
	}
	return ClassInt64, true
}

// PlainDecimal reports whether text is digits, a point and digits, with
// no leading zero but for a single one and at most 30 digits in all.
func PlainDecimal(text string) bool {
	dot := strings.IndexByte(text, '.')
	if dot <= 0 || dot == len(text)-1 || len(text) > 31 {
		return false
	}
	if dot > 1 && text[0] == '0' {
		return false
	}
	for i := 0; i < len(text); i++ {
		if i != dot && (text[i] < '0' || text[i] > '9') {
			return false
		}
	}
	return true
}

// PlainString reports whether a string literal's value can be printed
// between single quotes as it is, under every setting of both servers:
// valid UTF-8, no quote, no backslash, no control character, no
// placeholder mark.
func PlainString(v string) bool {
	if !utf8.ValidString(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c < 0x20 || c == 0x7f, c == '\'', c == '\\', c == '?', c == '$', c == '"', c == '`':
			return false
		}
	}
	return true
}
