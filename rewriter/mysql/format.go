package mysql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// format prints a statement for the server. It differs from vitess's own
// formatting in three ways, each a safety property:
//   - comments are dropped, so no executable comment or hint the parser
//     treated as a comment reaches the server;
//   - string literals are escaped for the connection's sql_mode, so a
//     value means the same to the server as it did to the parser;
//   - positional arguments are printed as ?, and the statement is refused
//     if they would come out in another order than they came in.
func format(node sqlparser.SQLNode, noBackslashEscapes bool) (string, error) {
	var args []string
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) {
		switch n := node.(type) {
		case *sqlparser.ParsedComments:
			return
		case *sqlparser.Argument:
			args = append(args, n.Name)
			buf.WriteString("?")
			return
		case *sqlparser.Literal:
			if n.Type == sqlparser.StrVal {
				writeQuoted(buf.Builder, n.Val, noBackslashEscapes)
				return
			}
		case *sqlparser.Limit:
			// LIMIT ? OFFSET ? (GORM's form): printed as LIMIT off, n the
			// placeholders would swap.
			if n != nil && n.Offset != nil && argIndex(n.Rowcount) >= 0 && argIndex(n.Rowcount) < argIndex(n.Offset) {
				buf.WriteString(" limit ")
				buf.WriteNode(n.Rowcount)
				buf.WriteString(" offset ")
				buf.WriteNode(n.Offset)
				return
			}
		}
		node.Format(buf)
	})
	buf.SetEscapeAllIdentifiers()
	buf.WriteNode(node)
	for i, name := range args {
		if name != "v"+strconv.Itoa(i+1) {
			return "", rewriter.Unsupported("placeholders would change order in the rewritten statement")
		}
	}
	return buf.String(), nil
}

// argIndex returns the position of a placeholder (v1 is 1), or -1 for any
// other expression.
func argIndex(e sqlparser.Expr) int {
	a, ok := e.(*sqlparser.Argument)
	if !ok || !strings.HasPrefix(a.Name, "v") {
		return -1
	}
	i, err := strconv.Atoi(a.Name[1:])
	if err != nil {
		return -1
	}
	return i
}

// quoteString returns s as a MySQL string literal (see writeQuoted).
func quoteString(s string, noBackslashEscapes bool) string {
	var b strings.Builder
	writeQuoted(&b, s, noBackslashEscapes)
	return b.String()
}

// writeQuoted writes s to b as a MySQL string literal. A quote is always
// doubled (valid in every mode); a backslash is doubled only when it is an
// escape character.
func writeQuoted(b *strings.Builder, s string, noBackslashEscapes bool) {
	special := "'"
	if !noBackslashEscapes {
		special = "'\\\x00"
	}
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for {
		i := strings.IndexAny(s, special)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		switch s[i] {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(`\0`)
		}
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
}
