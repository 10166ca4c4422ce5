package mysql

import (
	"strings"

	"github.com/sqe-project/sqe/rewriter"
)

// checkComments refuses SQL that hides code in comments: MySQL executable
// comments (/*! … */, /*!NNNNN … */) and MariaDB's (/*M! … */), whose
// contents the server runs as SQL while a parser that assumes another
// version or product drops them, and optimizer hints (/*+ … */) holding a
// semicolon. Ordinary comments and hints are dropped from what reaches the
// server. The scan follows the server's lexer: quoted strings and
// identifiers, -- and # comments; anything it cannot read with certainty
// (an unterminated quote or comment) is left to the parser, which refuses
// it.
func checkComments(sql string) error {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i)
		case c == '#':
			i = skipLine(sql, i)
		case c == '-' && strings.HasPrefix(sql[i:], "--") && (i+2 == len(sql) || sql[i+2] <= ' '):
			i = skipLine(sql, i)
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			body := sql[i+2:]
			if end >= 0 {
				body = sql[i+2 : i+2+end]
			}
			switch {
			case strings.HasPrefix(body, "!"), strings.HasPrefix(body, "M!"):
				return rewriter.Unsupported("executable comments (/*! … */, /*M! … */) are not supported through sqe: write the SQL without the comment")
			case strings.HasPrefix(body, "+") && strings.Contains(body, ";"):
				return rewriter.Unsupported("an optimizer hint holding a semicolon is not supported through sqe")
			}
			if end < 0 {
				return nil
			}
			i += 2 + end + 2
		default:
			i++
		}
	}
	return nil
}

// skipQuoted returns the index just past the quoted string or identifier
// starting at i (len(sql) when it is not closed). A quote doubled inside
// is part of the text; in strings a backslash escapes the next byte (under
// NO_BACKSLASH_ESCAPES a backslash is refused before this runs).
func skipQuoted(sql string, i int) int {
	q := sql[i]
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

func skipLine(sql string, i int) int {
	if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(sql)
}
