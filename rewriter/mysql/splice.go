package mysql

import (
	"reflect"
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
//
// A frozen mask (frozen.go) is never printed again: an entry that is one
// (a guarded mask standing as a whole entry is one, guardedFrozenMask)
// takes its checked print; an entry holding guarded frozen masks is
// printed with a placeholder as each one's WHEN result and their prints
// put in (composedEntry, checked once per such print); and a guarded
// frozen mask elsewhere is a placeholder WHEN result in the skeleton,
// found once after " then " and before " when ", " else " or " end":
// a complete expression stands as a WHEN's result whatever it is, so the
// spliced print parses as the skeleton with the mask in its place.

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

// onSplice, when set (by the package's tests), is told what each spliced
// print splices.
var onSplice func(entries []spliced, thens []splicedThen)

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
func printVerified(rd reading, want rewriter.Printed, query string, noBackslashEscapes, mariaDB bool, frozen map[sqlparser.Expr]frozenPrint) (string, error) {
	node := rd.node
	characteristics, isCharacteristics := transactionCharacteristics(rd.stmt)
	isCharacteristics = isCharacteristics && node == sqlparser.SQLNode(rd.stmt)
	if !noBackslashEscapes && rd.mod == nil && !isCharacteristics {
		if text, ok := printSpliced(node, want, query, mariaDB, frozen); ok {
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
// cannot be used. frozen are the prints of the frozen masks the statement
// placed, by node (frozen.go): an entry or a WHEN's result that is one of
// them is spliced with that text, without printing it.
func printSpliced(node sqlparser.SQLNode, want rewriter.Printed, query string, mariaDB bool, frozen map[sqlparser.Expr]frozenPrint) (string, bool) {
	stmt, plain := node.(sqlparser.Statement)
	if !plain || strings.Contains(query, spliceToken()) {
		return "", false
	}
	var entries []spliced
	var thens []splicedThen
	failed := false
	var visit func(n sqlparser.SQLNode) (bool, error)
	visit = func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.When:
			if text, ok := frozenText(frozen, x.Val); ok && text != "" {
				thens = append(thens, splicedThen{when: x, val: x.Val, text: text})
				_ = sqlparser.Walk(visit, x.Cond)
				return false, nil
			}
			return true, nil
		case *sqlparser.AliasedExpr:
			if x.As.IsEmpty() {
				return true, nil
			}
			if text, ok := frozenText(frozen, x.Expr); ok {
				if text != "" {
					entries = append(entries, spliced{entry: x, expr: x.Expr, text: text})
				}
				return false, nil
			}
			switch x.Expr.(type) {
			case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.Argument, *sqlparser.NullVal:
				return true, nil
			}
			if holdsFrozen(x.Expr, frozen) {
				if text, ok := composedEntry(x.Expr, frozen); ok {
					entries = append(entries, spliced{entry: x, expr: x.Expr, text: text})
					return false, nil
				}
				return true, nil
			}
			text, err := format(x.Expr, false)
			if err != nil {
				failed = true
				return false, nil
			}
			if len(text) >= minSpliced && selfContained(text) {
				entries = append(entries, spliced{entry: x, expr: x.Expr, text: text})
				return false, nil
			}
			return true, nil
		case sqlparser.Expr:
			if _, ok := frozenText(frozen, x); ok {
				return false, nil
			}
		}
		return true, nil
	}
	_ = sqlparser.Walk(visit, stmt)
	if failed || len(entries)+len(thens) == 0 {
		return "", false
	}
	if onSplice != nil {
		onSplice(entries, thens)
	}
	placed := make([]rewriter.Splice, 0, len(entries)+len(thens))
	placeholder := func(text string) *sqlparser.ColName {
		name := spliceToken() + strconv.Itoa(len(placed))
		placed = append(placed, rewriter.Splice{Placeholder: "`" + name + "`", Text: text})
		return &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(name)}
	}
	for _, e := range entries {
		e.entry.Expr = placeholder(e.text)
	}
	for _, t := range thens {
		t.when.Val = placeholder(t.text)
	}
	skeleton, err := format(node, false)
	for _, e := range entries {
		e.entry.Expr = e.expr
	}
	for _, t := range thens {
		t.when.Val = t.val
	}
	if err != nil || verifyPrinted(want, skeleton, mariaDB) != nil {
		return "", false
	}
	return rewriter.SpliceInto(skeleton, placed, func(i int, before, after string) bool {
		if i < len(entries) {
			// An entry is printed after SELECT or a comma and a space, and
			// before " as `alias`".
			return strings.HasSuffix(before, " ") && strings.HasPrefix(after, " as ")
		}
		return thenBoundary(before, after)
	})
}

// thenBoundary reports whether a placeholder stands as a WHEN's result is
// printed: after " then ", before the next WHEN, the ELSE or the END of
// its CASE.
func thenBoundary(before, after string) bool {
	return strings.HasSuffix(before, " then ") &&
		(strings.HasPrefix(after, " when ") || strings.HasPrefix(after, " else ") || strings.HasPrefix(after, " end"))
}

// splicedThen is one WHEN's result printed by its text.
type splicedThen struct {
	when *sqlparser.When
	val  sqlparser.Expr
	text string
}

// frozenText is the print of e when it is a frozen mask the statement
// placed (only a node held by pointer can be one); "" for one printed in
// place. A frozen mask is shared: the print never walks into one to
// splice inside it.
func frozenText(frozen map[sqlparser.Expr]frozenPrint, e sqlparser.Expr) (string, bool) {
	p, ok := frozenPrintOf(frozen, e)
	return p.text, ok
}

// frozenPrintOf is frozenText with the print's name.
func frozenPrintOf(frozen map[sqlparser.Expr]frozenPrint, e sqlparser.Expr) (frozenPrint, bool) {
	if len(frozen) == 0 || e == nil || reflect.ValueOf(e).Kind() != reflect.Pointer {
		return frozenPrint{}, false
	}
	p, ok := frozen[e]
	return p, ok
}

// holdsFrozen reports whether e holds a frozen mask the statement placed,
// without walking into one.
func holdsFrozen(e sqlparser.Expr, frozen map[sqlparser.Expr]frozenPrint) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if x, ok := n.(sqlparser.Expr); ok {
			if _, ok := frozenPrintOf(frozen, x); ok {
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

// composedEntries remembers composed entries by the entry's print with
// placeholders and the names of the prints spliced into it: the text
// itself when it may be spliced (selfContained), "" when not.
var composedEntries = rewriter.TextMemo{Max: 1024}

// composedEntry is the print of e, an entry's expression whose frozen
// masks are all results of WHENs (a guarded mask), printed with those as
// placeholders and their texts spliced in: the entry's own print, without
// printing the masks again, when it is selfContained. ok is false for
// another shape or an entry that is not.
func composedEntry(e sqlparser.Expr, frozen map[sqlparser.Expr]frozenPrint) (string, bool) {
	var thens []splicedThen
	var prints []frozenPrint
	other := false
	notFrozen := func(n sqlparser.SQLNode) (bool, error) {
		if x, ok := n.(sqlparser.Expr); ok {
			if _, ok := frozenPrintOf(frozen, x); ok {
				other = true
			}
		}
		return !other, nil
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if w, ok := n.(*sqlparser.When); ok {
			if p, ok := frozenPrintOf(frozen, w.Val); ok && p.text != "" {
				thens = append(thens, splicedThen{when: w, val: w.Val, text: p.text})
				prints = append(prints, p)
				return false, sqlparser.Walk(notFrozen, w.Cond)
			}
		}
		return notFrozen(n)
	}, e)
	if other || len(thens) == 0 {
		return "", false
	}
	placed := make([]rewriter.Splice, len(thens))
	for i, t := range thens {
		name := spliceToken() + "e" + strconv.Itoa(i)
		placed[i] = rewriter.Splice{Placeholder: "`" + name + "`", Text: t.text}
		t.when.Val = &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(name)}
	}
	skeleton, err := format(e, false)
	for _, t := range thens {
		t.when.Val = t.val
	}
	if err != nil {
		return "", false
	}
	var key strings.Builder
	key.WriteString(skeleton)
	for _, p := range prints {
		key.WriteByte(0)
		key.WriteString(p.id)
	}
	text, _ := composedEntries.Do(key.String(), func(string) (string, error) {
		text, ok := rewriter.SpliceInto(skeleton, placed, func(_ int, before, after string) bool {
			return thenBoundary(before, after)
		})
		if !ok || !selfContained(text) {
			return "", nil
		}
		return text, nil
	})
	return text, text != ""
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
