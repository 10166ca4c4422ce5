package mysql

import (
	"strings"

	sqlparser "vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// Tokens reads sql with the parser's tokenizer (rewriter.Tokenizer).
func (Dialect) Tokens(sql string) ([]rewriter.Token, bool) {
	var out []rewriter.Token
	ok := tokens(sql, func(t sqlToken) bool {
		out = append(out, coreToken(sql, t))
		return true
	})
	return out, ok
}

// coreToken classifies a token of the parser's tokenizer. Its start, as
// tokens gives it, may lie before a comment the tokenizer skipped: a word
// or number whose text is not exactly the bytes it spans is marked as not
// adjacent to what precedes it.
func coreToken(sql string, t sqlToken) rewriter.Token {
	src := sql[t.start:t.end]
	tok := rewriter.Token{Text: t.val, Start: t.start, End: t.end}
	switch {
	case t.typ == sqlparser.COMMENT:
		tok.Kind = rewriter.TokenComment
	case t.typ == sqlparser.ID && strings.HasPrefix(src, "`"):
		tok.Kind = rewriter.TokenName
	case t.typ == sqlparser.STRING && strings.HasPrefix(src, `"`):
		tok.Kind = rewriter.TokenName
	case t.typ == sqlparser.STRING:
		tok.Kind = rewriter.TokenString
	case t.typ == sqlparser.INTEGRAL || t.typ == sqlparser.FLOAT || t.typ == sqlparser.DECIMAL:
		tok.Kind = rewriter.TokenNumber
	case t.typ > 0 && t.typ < 256:
		tok.Kind, tok.Text = rewriter.TokenPunct, string(rune(t.typ))
	case t.val != "" && isWordToken(t.val):
		tok.Kind = rewriter.TokenWord
	}
	if (tok.Kind == rewriter.TokenWord || tok.Kind == rewriter.TokenNumber || tok.Kind == rewriter.TokenPunct) && len(src) != len(tok.Text) {
		tok.Start = -1 // a comment or a blank lies inside [start, end)
	}
	return tok
}

// isWordToken reports whether s is made of letters, digits, _ and $, as an
// identifier or keyword is.
func isWordToken(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80) {
			return false
		}
	}
	return true
}
