package rewriter

import (
	"strings"
	"unicode/utf8"
)

// maxNear bounds how much of a token a syntax error repeats.
const maxNear = 64

// SyntaxError returns an ErrSyntax error for a statement sql that the
// parser stopped in. start and end are the byte offsets in sql of the
// token it stopped at (start < 0 when unknown, start == end at the end of
// the statement); raw token text is shown only when it is a word, a quoted
// identifier (quoted with identQuote) or an operator, never a literal.
// detail says more when the parser did ("" otherwise).
func SyntaxError(sql string, start, end int, identQuote byte, detail string) *Error {
	e := &Error{Kind: ErrSyntax, Detail: detail}
	switch {
	case start < 0 || start > len(sql) || end < start || end > len(sql):
	case start == end:
		e.Position = utf8.RuneCountInString(sql[:start]) + 1
		e.Near = "end of input"
	default:
		e.Position = utf8.RuneCountInString(sql[:start]) + 1
		e.Near = NearToken(sql[start:end], identQuote)
	}
	return e
}

// NearToken is how a syntax error shows a token of a statement: quoted
// when it is a keyword or bare identifier, an identifier quoted with
// identQuote, or an operator; "a literal" for anything else (strings,
// numbers, hex and bit values, user variables, unfinished quotes), so that
// no value of the statement is repeated.
func NearToken(raw string, identQuote byte) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if isWord(raw) || isOperator(raw) || isQuotedIdent(raw, identQuote) {
		if len(raw) > maxNear {
			cut := maxNear
			for cut > 0 && !utf8.RuneStart(raw[cut]) {
				cut--
			}
			raw = raw[:cut] + "…"
		}
		return "'" + raw + "'"
	}
	return "a literal"
}

func isWord(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '$' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

func isOperator(s string) bool {
	return strings.Trim(s, "()[]{},;.:+-*/%<>=!~^&|?#") == ""
}

func isQuotedIdent(s string, q byte) bool {
	if q == 0 || len(s) < 2 || s[0] != q || s[len(s)-1] != q {
		return false
	}
	// Inside, the quote appears only doubled.
	inner := strings.ReplaceAll(s[1:len(s)-1], string([]byte{q, q}), "")
	return strings.IndexByte(inner, q) < 0
}

// SetStatementKind records, on a refusal err that sqe built (an *Error),
// the kind of the statement it refused, unless one is recorded already.
func SetStatementKind(err error, k Kind) {
	if e, ok := err.(*Error); ok && e.Statement == "" {
		e.Statement = k
	}
}
