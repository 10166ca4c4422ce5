package mysql

import (
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// positionRE finds the position in the parser's error: one past the byte
// offset just after the token it stopped at. The rest of its text (the
// token itself, which may be a literal) is not used.
var positionRE = regexp.MustCompile(`^[a-z ]+ at position (\d+)( near )?`)

// syntaxError turns the parser's error for piece, which starts at byte
// offset at of sql, into an ErrSyntax error positioned in sql.
func syntaxError(sql string, at int, piece string, err error) error {
	m := positionRE.FindStringSubmatch(err.Error())
	if m == nil {
		return rewriter.SyntaxError(sql, -1, -1, '`', "")
	}
	pos, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		return rewriter.SyntaxError(sql, -1, -1, '`', "")
	}
	// Without "near", the parser stopped at the end of the text.
	start, end := tokenEnding(piece, pos-1, m[2] == "")
	if start >= 0 {
		start, end = start+at, end+at
	}
	return rewriter.SyntaxError(sql, start, end, '`', "")
}

// tokenEnding returns the byte offsets in piece of the token that ends at
// end, as the tokenizer scans it (start == end == len(piece) for the end of
// the text, -1, -1 when no token ends there).
func tokenEnding(piece string, end int, atEOF bool) (int, int) {
	if atEOF || end > len(piece) {
		return len(piece), len(piece)
	}
	tk := parser.NewStringTokenizer(piece)
	for {
		prev := tk.Pos
		typ, _ := tk.Scan()
		if typ == 0 || tk.Pos <= prev {
			return -1, -1
		}
		if tk.Pos >= end {
			if tk.Pos != end {
				return -1, -1
			}
			start := prev
			for start < end && isBlank(piece[start]) {
				start++
			}
			return start, end
		}
	}
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// sqlToken is one token of a statement as the parser's tokenizer reads it.
type sqlToken struct {
	typ        int    // the parser's token type
	val        string // its text as the tokenizer gives it
	start, end int    // its byte offsets in the statement
}

// tokens reads sql with the parser's tokenizer, calling yield for each
// token until yield returns false. It reports whether the tokenizer read
// sql to its end (or to where yield stopped) without an error.
func tokens(sql string, yield func(sqlToken) bool) bool {
	tk := parser.NewStringTokenizer(sql)
	for {
		prev := tk.Pos
		typ, val := tk.Scan()
		if typ == 0 {
			return true
		}
		if typ == sqlparser.LEX_ERROR || tk.Pos <= prev {
			return false
		}
		start := prev
		for start < tk.Pos && isBlank(sql[start]) {
			start++
		}
		if !yield(sqlToken{typ: typ, val: val, start: start, end: tk.Pos}) {
			return true
		}
	}
}

// tokenList is a statement's tokens, read whole.
type tokenList struct {
	sql  string
	toks []sqlToken
}

// readTokens reads every token of sql; ok is false when the tokenizer
// stopped at something it cannot read.
func readTokens(sql string) (l tokenList, ok bool) {
	l.sql = sql
	ok = tokens(sql, func(t sqlToken) bool {
		l.toks = append(l.toks, t)
		return true
	})
	return l, ok
}

// word is token i as a keyword: its text, lower-cased ("" past the end);
// a quoted name keeps its quotes, so it is no keyword.
func (l tokenList) word(i int) string {
	if i >= len(l.toks) {
		return ""
	}
	return strings.ToLower(l.sql[l.toks[i].start:l.toks[i].end])
}
