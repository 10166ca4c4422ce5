package mysql

import (
	"errors"
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
//
// A tree in which none of the three arises (no comment, no placeholder,
// no string literal with a byte either printer would escape) is printed
// by vitess's generated fast printer, which prints every node as its
// Format does; the package's tests compare the two prints of every tree
// they format (spliceCrossCheck).
func format(node sqlparser.SQLNode, noBackslashEscapes bool) (string, error) {
	if !noBackslashEscapes && fastPrintable(node) {
		buf := sqlparser.NewTrackedBuffer(nil)
		buf.SetEscapeAllIdentifiers()
		node.FormatFast(buf)
		text := buf.String()
		if spliceCrossCheck {
			if slow, err := formatNodes(node, false); err != nil || slow != text {
				return "", rewriter.Unsupported("the fast print differs from the print")
			}
		}
		return text, nil
	}
	return formatNodes(node, noBackslashEscapes)
}

// formatFor is format for the statement read from query. A query holding
// a placeholder (? or :name) has one in its tree, which only formatNodes
// prints, so it goes there without fastPrintable's walk looking for it
// first (a quarter of the print's cost); a ':' in a literal only costs the
// fast printer.
func formatFor(node sqlparser.SQLNode, query string, noBackslashEscapes bool) (string, error) {
	if strings.ContainsAny(query, "?:") {
		return formatNodes(node, noBackslashEscapes)
	}
	return format(node, noBackslashEscapes)
}

// formatNodes is format's printer that sees every node.
func formatNodes(node sqlparser.SQLNode, noBackslashEscapes bool) (string, error) {
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

// fastPrintable reports whether node prints the same through vitess's fast
// printer as through formatNodes: a tree of the usual nodes of a query
// only (fastNode), holding no comment, no placeholder and no string
// literal with a byte vitess escapes (NUL, both quotes, backspace,
// newline, return, tab, control-Z, backslash) where formatNodes doubles a
// quote. An allow-list of nodes, because the walk does not see every
// literal of every node (a column definition's default, for one).
func fastPrintable(node sqlparser.SQLNode) bool {
	if _, literal := node.(*sqlparser.Literal); !literal && !fastNode(node) {
		// The walk does not call its function for a node it does not know
		// (the statements sqe reads around the parser).
		return false
	}
	err := sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.ColName:
			return false, nil // identifiers only, which fastNode admits
		case *sqlparser.ParsedComments:
			if x != nil && x.Length() > 0 {
				return false, errNotFast
			}
		case *sqlparser.Literal:
			if x.Type == sqlparser.StrVal && strings.ContainsAny(x.Val, fastEscaped) {
				return false, errNotFast
			}
		default:
			if !fastNode(n) {
				return false, errNotFast
			}
		}
		return true, nil
	}, node)
	return err == nil
}

// fastNode reports whether n is one of the nodes fastPrintable lets the
// fast printer print: each holds its literals, comments and placeholders
// only in fields the walk visits.
func fastNode(n sqlparser.SQLNode) bool {
	switch n.(type) {
	case *sqlparser.Select, *sqlparser.SelectExprs, *sqlparser.AliasedExpr, *sqlparser.StarExpr,
		*sqlparser.AliasedTableExpr, sqlparser.TableName, *sqlparser.JoinTableExpr, *sqlparser.JoinCondition,
		*sqlparser.DerivedTable, *sqlparser.Subquery, sqlparser.Columns,
		sqlparser.IdentifierCI, sqlparser.IdentifierCS, *sqlparser.ColName,
		*sqlparser.Where, *sqlparser.GroupBy, sqlparser.OrderBy, *sqlparser.Order, *sqlparser.Limit,
		*sqlparser.NullVal, sqlparser.BoolVal, sqlparser.ValTuple,
		*sqlparser.ComparisonExpr, *sqlparser.AndExpr, *sqlparser.OrExpr, *sqlparser.NotExpr,
		*sqlparser.IsExpr, *sqlparser.BetweenExpr, *sqlparser.BinaryExpr, *sqlparser.UnaryExpr,
		*sqlparser.ExistsExpr, *sqlparser.CaseExpr, *sqlparser.When,
		*sqlparser.FuncExpr, *sqlparser.Exprs, *sqlparser.CastExpr, *sqlparser.ConvertExpr,
		*sqlparser.ConvertType, *sqlparser.ConvertUsingExpr, *sqlparser.CollateExpr,
		*sqlparser.CountStar, *sqlparser.Count, *sqlparser.Sum, *sqlparser.Max, *sqlparser.Min, *sqlparser.Avg:
		return true
	}
	return false
}

// errNotFast stops fastPrintable's walk.
var errNotFast = errors.New("not printable by the fast printer")

// fastEscaped are the bytes vitess's fast printer escapes in a string
// literal (sqltypes.SQLEncodeMap).
const fastEscaped = "\x00'\"\b\n\r\t\x1a\\"

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
