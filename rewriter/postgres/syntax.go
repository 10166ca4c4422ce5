package postgres

import (
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/sqe-project/sqe/rewriter"
)

// parseStatement parses the application's statement text; a statement
// that does not parse is an ErrSyntax error positioned at the token the
// parser stopped at. A statement nested deeper than the parser can write
// out is refused before it is parsed (checkNesting).
func parseStatement(text string) (*pg.ParseResult, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, rewriter.Unsupported("a NUL byte in SQL text")
	}
	if err := checkNesting(text); err != nil {
		return nil, err
	}
	tree, err := pg.Parse(text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	return tree, nil
}

// syntaxError builds the error from the parser's cursor position (1-based,
// in characters). The parser's message quotes the token, which may be a
// literal: only its leading words ("syntax error", "unterminated quoted
// string", …) are kept.
func syntaxError(text string, err error) error {
	var pe *pgparser.Error
	if !errors.As(err, &pe) {
		return rewriter.SyntaxError(text, -1, -1, '"', "")
	}
	detail := pe.Message
	for _, cut := range []string{" at or near ", " at end of input"} {
		if i := strings.Index(detail, cut); i >= 0 {
			detail = detail[:i]
		}
	}
	if detail == "syntax error" || strings.ContainsAny(detail, `'"$`) {
		detail = ""
	}
	if pe.Cursorpos <= 0 {
		return rewriter.SyntaxError(text, -1, -1, '"', detail)
	}
	start := byteOffset(text, pe.Cursorpos-1)
	if start >= len(text) || strings.TrimSpace(text[start:]) == "" {
		return rewriter.SyntaxError(text, len(text), len(text), '"', detail)
	}
	end := -1
	if scan, serr := pg.Scan(text); serr == nil {
		for _, tok := range scan.GetTokens() {
			if int(tok.Start) == start {
				end = int(tok.End)
				break
			}
		}
	}
	if end < 0 {
		// The scanner could not read on (an unterminated quote): the
		// position stands, the token is not shown.
		e := rewriter.SyntaxError(text, start, start+1, '"', detail)
		e.Near = ""
		return e
	}
	return rewriter.SyntaxError(text, start, end, '"', detail)
}

// byteOffset returns the byte offset of the n-th (0-based) character of s.
func byteOffset(s string, n int) int {
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}
