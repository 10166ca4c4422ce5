package mysql

import (
	"reflect"
	"slices"
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
//
// A static read form (readform.go), a derived table every instance of
// which prints the same, stands in the skeleton as one placeholder table
// and its checked print, once per form and fence, is put in its place
// (formText).

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
// print splices; onSplicedTables how many placeholder tables it held;
// onSplicedLists the IN lists it put in by their text.
var (
	onSplice        func(entries []spliced, thens []splicedThen)
	onSplicedTables func(n int)
	onSplicedLists  func(texts []string)
)

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
func printVerified(rd reading, want rewriter.Printed, query string, noBackslashEscapes, mariaDB bool, shared placed) (string, error) {
	node := rd.node
	characteristics, isCharacteristics := transactionCharacteristics(rd.stmt)
	isCharacteristics = isCharacteristics && node == sqlparser.SQLNode(rd.stmt)
	if !noBackslashEscapes && rd.mod == nil && !isCharacteristics {
		if text, ok := printSpliced(node, want, query, mariaDB, shared); ok {
			if spliceCrossCheck {
				whole, err := format(node, false)
				if err != nil || whole != text {
					return "", rewriter.Unsupported("the spliced print differs from the whole print")
				}
			}
			return text, nil
		}
	}
	text, err := formatFor(node, query, noBackslashEscapes)
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

// placed is what a statement placed that other statements share: the
// prints of its frozen masks, by node (frozen.go), and its static read
// forms, by their select (readform.go).
type placed struct {
	frozen map[sqlparser.Expr]frozenPrint
	forms  map[*sqlparser.Select]*readForm
}

// printSpliced is printVerified's spliced print; ok is false when it
// cannot be used. An entry or a WHEN's result that is a frozen mask the
// statement placed is spliced with its print, without printing it; a
// derived table that is a static read form stands in the skeleton as a
// placeholder table, its select's print (formText) spliced in.
func printSpliced(node sqlparser.SQLNode, want rewriter.Printed, query string, mariaDB bool, shared placed) (string, bool) {
	stmt, plain := node.(sqlparser.Statement)
	if !plain || strings.Contains(query, spliceToken()) {
		return "", false
	}
	frozen := shared.frozen
	var entries []spliced
	var thens []splicedThen
	var tables []splicedTable
	var lists []splicedList
	failed := false
	var visit func(n sqlparser.SQLNode) (bool, error)
	visit = func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.ColName:
			return false, nil // nothing to splice in its identifiers
		case *sqlparser.ComparisonExpr:
			if _, ok := frozenText(frozen, x); ok {
				return false, nil // shared: never changed, not even for the print
			}
			if text, ok := literalList(x); ok {
				lists = append(lists, splicedList{cmp: x, list: x.Right, text: text})
				_ = sqlparser.Walk(visit, x.Left)
				return false, nil
			}
			return true, nil
		case *sqlparser.AliasedTableExpr:
			if t, ok := placedFormTable(x, shared.forms); ok {
				tables = append(tables, t)
				return false, nil
			}
			return true, nil
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
	if failed || len(entries)+len(thens)+len(tables)+len(lists) == 0 {
		return "", false
	}
	if onSplice != nil {
		onSplice(entries, thens)
	}
	if onSplicedTables != nil {
		onSplicedTables(len(tables))
	}
	if onSplicedLists != nil {
		texts := make([]string, len(lists))
		for i, l := range lists {
			texts[i] = l.text
		}
		onSplicedLists(texts)
	}
	splices := make([]rewriter.Splice, 0, len(entries)+len(thens)+len(tables)+len(lists))
	bounds := make([]func(before, after string) bool, 0, cap(splices))
	placeholder := func(text string, bounded func(before, after string) bool) string {
		name := spliceToken() + strconv.Itoa(len(splices))
		splices = append(splices, rewriter.Splice{Placeholder: "`" + name + "`", Text: text})
		bounds = append(bounds, bounded)
		return name
	}
	column := func(text string, bounded func(before, after string) bool) *sqlparser.ColName {
		return &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(placeholder(text, bounded))}
	}
	for _, e := range entries {
		e.entry.Expr = column(e.text, entryBoundary)
	}
	for _, t := range thens {
		t.when.Val = column(t.text, thenBoundary)
	}
	for _, l := range lists {
		l.cmp.Right = sqlparser.ValTuple{column(l.text, listBoundary)}
	}
	skeletonWant := want
	if len(tables) > 0 {
		skeletonWant.Tables = slices.Clone(want.Tables)
	}
	for _, t := range tables {
		name := placeholder(t.text, fromItemBoundary)
		j := slices.Index(skeletonWant.Tables, t.entry)
		if j < 0 {
			failed = true
			continue
		}
		skeletonWant.Tables[j] = "\x00" + name
		t.ate.Expr = sqlparser.TableName{Name: sqlparser.NewIdentifierCS(name)}
	}
	skeleton, err := formatFor(node, query, false)
	for _, e := range entries {
		e.entry.Expr = e.expr
	}
	for _, t := range thens {
		t.when.Val = t.val
	}
	for _, t := range tables {
		t.ate.Expr = t.expr
	}
	for _, l := range lists {
		l.cmp.Right = l.list
	}
	if failed || err != nil || verifyPrinted(skeletonWant, skeleton, mariaDB) != nil {
		return "", false
	}
	return rewriter.SpliceInto(skeleton, splices, func(i int, before, after string) bool {
		return bounds[i](before, after)
	})
}

// entryBoundary reports whether a placeholder stands as a select-list
// entry is printed: after SELECT or a comma and a space, before
// " as `alias`".
func entryBoundary(before, after string) bool {
	return strings.HasSuffix(before, " ") && strings.HasPrefix(after, " as ")
}

// listBoundary reports whether a placeholder stands as the one element of
// an IN list is printed: after "in (", before ")".
func listBoundary(before, after string) bool {
	return strings.HasSuffix(before, " in (") && strings.HasPrefix(after, ")")
}

// splicedList is an IN list of plain literals printed by its text.
type splicedList struct {
	cmp  *sqlparser.ComparisonExpr
	list sqlparser.Expr
	text string
}

// minSplicedList is the number of elements below which an IN list is
// printed and parsed in place.
const minSplicedList = 16

// literalList is the print of the elements of cmp's list when cmp is an
// IN or NOT IN of at least minSplicedList literals, each an unsigned
// integer (digits only) or a string with no byte either printer escapes:
// the text is then a sequence of integer and string tokens separated by
// commas, which needs no parse to check. In the skeleton the list holds
// one placeholder column; the spliced print is the skeleton's tokens with
// that column's replaced by the literals', inside the same parentheses
// after the same IN: the same statement, naming the same tables.
func literalList(cmp *sqlparser.ComparisonExpr) (string, bool) {
	if cmp.Operator != sqlparser.InOp && cmp.Operator != sqlparser.NotInOp {
		return "", false
	}
	list, ok := cmp.Right.(sqlparser.ValTuple)
	if !ok || len(list) < minSplicedList {
		return "", false
	}
	var b strings.Builder
	for i, e := range list {
		lit, ok := e.(*sqlparser.Literal)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case lit.Type == sqlparser.IntVal && digits(lit.Val):
			b.WriteString(lit.Val)
		case lit.Type == sqlparser.StrVal && !strings.ContainsAny(lit.Val, fastEscaped):
			b.WriteByte('\'')
			b.WriteString(lit.Val)
			b.WriteByte('\'')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fromItemBoundary reports whether a placeholder table stands as an item
// of a FROM list or a join is printed: after FROM, a comma or a join's
// keyword and a space, before " as " and its alias.
func fromItemBoundary(before, after string) bool {
	return (strings.HasSuffix(before, " from ") || strings.HasSuffix(before, ", ") ||
		strings.HasSuffix(before, "join ")) && strings.HasPrefix(after, " as `")
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

// splicedTable is a static read form's derived table printed as its
// select's checked print in parentheses (text): ate holds it (expr,
// while the skeleton is printed with a placeholder table), entry is its
// table as the printed check lists it.
type splicedTable struct {
	ate         *sqlparser.AliasedTableExpr
	expr        sqlparser.SimpleTableExpr
	text, entry string
}

// placedFormTable reads ate as a derived table that is an instance of a
// static read form the statement placed, and returns its splice.
func placedFormTable(ate *sqlparser.AliasedTableExpr, forms map[*sqlparser.Select]*readForm) (splicedTable, bool) {
	dt, ok := ate.Expr.(*sqlparser.DerivedTable)
	if !ok || len(forms) == 0 || dt.Lateral || ate.As.IsEmpty() || ate.Columns != nil || ate.Hints != nil || ate.Partitions != nil {
		return splicedTable{}, false
	}
	sel, ok := dt.Select.(*sqlparser.Select)
	if !ok || forms[sel] == nil {
		return splicedTable{}, false
	}
	text, entry, ok := formText(forms[sel], sel)
	return splicedTable{ate: ate, expr: ate.Expr, text: text, entry: entry}, ok
}

// formTexts remembers the checked prints of static read forms, by form
// and fence (a form's instance is fenced or not); a print that cannot be
// spliced is remembered as "".
var formTexts = rewriter.Bounded[formKey, formPrint]{Max: 1024}

type formKey struct {
	form   *readForm
	fenced bool
}

// formPrint is a static read form's checked print, in parentheses as the
// derived table prints it, and its table as the printed check lists it.
type formPrint struct {
	text, entry string
}

// formText is the print of sel, an instance of the static form f, as the
// form's first such instance printed it (in parentheses), when it can
// stand in the skeleton in a placeholder table's place: sel is still a
// select of one table without hints or partitions, with no clause the
// form does not have but the fence, and its print parses again, alone,
// as a select that reads that table and nothing else.
//
// Why a placeholder table is sound: the placeholder is one token printed
// where a FROM item's table stands, followed by " as " and the item's
// alias; the text is a whole select naming one table and holding no
// subquery, so "(" text ")" in its place is a derived table with that
// alias, and the spliced print parses as the skeleton with the form in
// the placeholder's place: of the same kind, and naming the skeleton's
// tables with the placeholder replaced by the form's. A static form's
// instances all print the same (staticForm); the package's tests compare
// every spliced print with the whole print.
func formText(f *readForm, sel *sqlparser.Select) (text, entry string, ok bool) {
	fenced := false
	if sel.Limit != nil {
		lit, isLit := sel.Limit.Rowcount.(*sqlparser.Literal)
		if sel.Limit.Offset != nil || !isLit || lit.Val != maxRows {
			return "", "", false
		}
		fenced = true
	}
	if len(sel.From) != 1 || (sel.Where == nil) != (f.rest.Where == nil) || sel.GroupBy != nil || sel.Having != nil ||
		len(sel.OrderBy) > 0 || sel.Into != nil || sel.With != nil {
		return "", "", false
	}
	inner, isATE := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !isATE || inner.Hints != nil || inner.Partitions != nil || !inner.As.IsEmpty() {
		return "", "", false
	}
	tn, isName := inner.Expr.(sqlparser.TableName)
	if !isName {
		return "", "", false
	}
	key := formKey{form: f, fenced: fenced}
	fp, known := formTexts.Get(key)
	if !known {
		fp = formTexts.Put(key, printForm(sel))
	}
	if fp.text == "" || fp.entry != tn.Qualifier.String()+"\x00"+tn.Name.String() {
		return "", "", false
	}
	return fp.text, fp.entry, true
}

// printForm prints a static form's instance and checks the print: one
// select, parsed again alone, naming one table and holding no subquery
// or derived table.
func printForm(sel *sqlparser.Select) formPrint {
	text, err := format(sel, false)
	if err != nil || strings.Contains(text, spliceToken()) {
		return formPrint{}
	}
	rd, err := read(text, false)
	if err != nil || rd.mod != nil {
		return formPrint{}
	}
	again, isSelect := rd.node.(*sqlparser.Select)
	if !isSelect {
		return formPrint{}
	}
	nested := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.Subquery, *sqlparser.DerivedTable, *sqlparser.JSONTableExpr, *sqlparser.With:
			nested = true
		}
		return !nested, nil
	}, again)
	p := printedOf(again, tableRefs(again))
	if nested || len(p.Tables) != 1 || p.Kind != statementName(sel) {
		return formPrint{}
	}
	return formPrint{text: "(" + text + ")", entry: p.Tables[0]}
}
