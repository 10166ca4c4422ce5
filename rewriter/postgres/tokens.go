package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// Tokens reads sql with the server's own scanner (rewriter.Tokenizer).
// A statement the scanner cannot read gives no tokens.
func (Dialect) Tokens(sql string) ([]rewriter.Token, bool) {
	res, err := pg.Scan(sql)
	if err != nil {
		return nil, false
	}
	out := make([]rewriter.Token, 0, len(res.Tokens))
	for _, t := range res.Tokens {
		start, end := int(t.Start), int(t.End)
		if start < 0 || end > len(sql) || start > end {
			return out, false
		}
		src := sql[start:end]
		tok := rewriter.Token{Text: src, Start: start, End: end}
		switch {
		case t.Token == pg.Token_SQL_COMMENT || t.Token == pg.Token_C_COMMENT:
			tok.Kind = rewriter.TokenComment
		case t.Token == pg.Token_IDENT && strings.HasPrefix(src, `"`):
			tok.Kind = rewriter.TokenName
			tok.Text = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(src, `"`), `"`), `""`, `"`)
		case t.Token == pg.Token_IDENT || t.KeywordKind != pg.KeywordKind_NO_KEYWORD:
			tok.Kind = rewriter.TokenWord
		case t.Token == pg.Token_SCONST:
			tok.Kind = rewriter.TokenString
		case t.Token == pg.Token_ICONST || t.Token == pg.Token_FCONST:
			tok.Kind = rewriter.TokenNumber
		case t.Token > 0 && t.Token < 256 && len(src) == 1:
			tok.Kind = rewriter.TokenPunct
		}
		out = append(out, tok)
	}
	return out, true
}
