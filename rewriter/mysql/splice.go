package mysql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// Verifying a print with spliced select-list entries.
//
// A rewritten statement is printed and the print is parsed again to check
// that it is the statement sqe decided about (verifyPrinted). Most of
// that parse, on a cold rewrite, goes to the masks in select lists (the
// entries of a flattened read, the targets of a read form): dozens of
// nodes and long literals, the same for every statement that reads the
// table. So printVerified prints each large aliased select-list entry on
// its own and checks that text once (by its bytes) by parsing it again as
// exactly one expression that names no table, holds no subquery and no
// placeholder; it prints the statement with a placeholder column in each
// entry's place (a quoted name carrying a random token of this process),
// verifies that skeleton as a whole print would be verified, and puts
// each entry's text in its placeholder's place.
//
// Why the result verifies as the whole print would: the placeholder is
// one token, between a space and " as", and the text a complete token
// sequence (it parsed on its own), so the spliced print's tokens are the
// skeleton's with the placeholder's replaced by the text's; the
// placeholder is a column and the text one expression, both a select
// expression followed by AS, so the spliced print parses as the skeleton
// does with that expression in the placeholder's place: of the same kind,
// naming the same tables, since the text names none. Anything else (a
// statement whose text holds the token, a placeholder printed other than
// once or between other bytes, an entry whose text does not parse as such
// an expression, a statement printed for NO_BACKSLASH_ESCAPES or with
// words put back around the parser) is printed and verified whole. The
// spliced print is byte for byte the whole print (vitess prints a select
// expression the same way wherever it stands); the package's tests check
// that on every statement they rewrite (spliceCrossCheck).

// spliceToken marks this process's placeholders (rewriter.SpliceToken).
var spliceToken = rewriter.SpliceToken

// spliceCrossCheck makes printVerified compare every spliced print with
// the whole statement's print and refuse the statement when they differ
// (set by the package's tests).
var spliceCrossCheck bool

// minSpliced is the length below which an entry is printed in place: a
// short one costs the check little.
const minSpliced = 256

// checkedEntries remembers the texts of entries checked by checkEntry:
// the text itself when it may be spliced, "" when not; at most 1,024 (a
// policy set has far fewer masks).
var checkedEntries = rewriter.TextMemo{Max: 1024}

// spliced is one select-list entry printed by its text.
type spliced struct {
	entry *sqlparser.AliasedExpr
	expr  sqlparser.Expr
	text  string
}

// printVerified prints the statement as read (rd, its tree rewritten) of
// the text query for the connection's server, and verifies the print
// against want: spliced when it can be (see above), else whole. A
// statement printed for NO_BACKSLASH_ESCAPES is verified as printed for
// the parser, which reads backslashes as escapes (the two prints differ
// only in how literals are escaped); a schema change's words are put back
// into both.
func printVerified(rd reading, want rewriter.Printed, query string, noBackslashEscapes, mariaDB bool) (string, error) {
	node := rd.node
	characteristics, isCharacteristics := transactionCharacteristics(rd.stmt)
	isCharacteristics = isCharacteristics && node == sqlparser.SQLNode(rd.stmt)
	if !noBackslashEscapes && rd.mod == nil && !isCharacteristics {
		if text, ok := printSpliced(node, want, query, mariaDB); ok {
			if spliceCrossCheck {
				whole, err := format(node, false)
				if err != nil || whole != text {
					return "", rewriter.Unsupported("the spliced print differs from the whole print")
				}
			}
			return text, nil
		}
	}
	text, err := format(node, noBackslashEscapes)
	if err != nil {
		return "", err
	}
	if isCharacteristics {
		text = characteristics
	}
	check := text
	if noBackslashEscapes {
		if check, err = format(node, false); err != nil {
			return "", err
		}
	}
	if rd.mod != nil {
		if text, err = rd.mod.print(text, noBackslashEscapes); err != nil {
			return "", err
		}
		if check, err = rd.mod.print(check, false); err != nil {
			return "", err
		}
	}
	if err := verifyPrinted(want, check, mariaDB); err != nil {
		return "", err
	}
	return text, nil
}

// printSpliced is printVerified's spliced print; ok is false when it
// cannot be used.
func printSpliced(node sqlparser.SQLNode, want rewriter.Printed, query string, mariaDB bool) (string, bool) {
	stmt, plain := node.(sqlparser.Statement)
	if !plain || strings.Contains(query, spliceToken()) {
		return "", false
	}
	var entries []spliced
	failed := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ae, ok := n.(*sqlparser.AliasedExpr)
		if !ok || ae.As.IsEmpty() {
			return true, nil
		}
		switch ae.Expr.(type) {
		case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.Argument, *sqlparser.NullVal:
			return true, nil
		}
		text, err := format(ae.Expr, false)
		if err != nil {
			failed = true
			return false, nil
		}
		if len(text) >= minSpliced && selfContained(text) {
			entries = append(entries, spliced{entry: ae, expr: ae.Expr, text: text})
			return false, nil
		}
		return true, nil
	}, stmt)
	if failed || len(entries) == 0 {
		return "", false
	}
	placed := make([]rewriter.Splice, len(entries))
	for i, e := range entries {
		name := spliceToken() + strconv.Itoa(i)
		placed[i] = rewriter.Splice{Placeholder: "`" + name + "`", Text: e.text}
		e.entry.Expr = &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(name)}
	}
	skeleton, err := format(node, false)
	for _, e := range entries {
		e.entry.Expr = e.expr
	}
	if err != nil || verifyPrinted(want, skeleton, mariaDB) != nil {
		return "", false
	}
	// An entry is printed after SELECT or a comma and a space, and before
	// " as `alias`".
	return rewriter.SpliceInto(skeleton, placed, func(_ int, before, after string) bool {
		return strings.HasSuffix(before, " ") && strings.HasPrefix(after, " as ")
	})
}

// selfContained reports whether text, printed from a select-list entry,
// parses as exactly one expression that names no table and holds no
// subquery and no placeholder, with no reserved word read as a name.
func selfContained(text string) bool {
	checked, _ := checkedEntries.Do(text, func(text string) (string, error) {
		if checkEntry(text) {
			return text, nil
		}
		return "", nil
	})
	return checked != ""
}

// checkEntry is selfContained without the memo.
func checkEntry(text string) bool {
	if strings.Contains(text, spliceToken()) {
		return false
	}
	if start, _ := reservedAsName("select " + text); start >= 0 {
		return false
	}
	e, err := parseExprUncached(text)
	if err != nil {
		return false
	}
	clean := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.ColName:
			return false, nil // its qualifier names the table it reads, nothing else
		case *sqlparser.Subquery, sqlparser.TableName, *sqlparser.TableName, *sqlparser.Argument,
			*sqlparser.AliasedTableExpr, *sqlparser.Select, *sqlparser.Union:
			clean = false
			return false, nil
		}
		return true, nil
	}, e)
	return clean
}
