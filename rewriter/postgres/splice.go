package postgres

import (
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/sqe-project/sqe/rewriter"
)

// Printing with spliced read forms.
//
// A rewritten statement is printed by the deparser and the print is
// parsed again to check that it is the statement sqe decided about
// (verifyPrinted). Most of a cold rewrite's time goes to those two passes
// over the tables' read forms, whose targets are the policy's masks: a
// string mask is dozens of nodes, the same for every statement that reads
// the table. So print computes each read-form target that is not a plain
// column once, keyed by its exact encoding (the bytes the deparser itself
// reads): its text, the deparser's print of SELECT <target>, checked by
// parsing it again as exactly one expression that names no relation and
// holds no subquery. The statement is then printed with a placeholder
// column in each such target's place (a quoted name carrying a random
// token of this process), that skeleton is verified as a whole statement
// would be, and each placeholder is replaced by its target's text.
//
// Why the result is what the whole print would verify as: the placeholder
// is one token, between a space and " AS ", and the text is a
// complete token sequence (it parsed on its own), so the spliced print's
// tokens are the skeleton's with the placeholder's replaced by the
// text's; the placeholder is a column reference and the text one
// expression, both in the target position of a select list before AS
// (an aliased target), so the spliced print parses as the skeleton does
// with that expression in the placeholder's place. It is of the same kind
// and names the same relations, since the text names none. Anything else
// (a placeholder printed other than once or elsewhere than between those
// bytes, a target that does not print as one expression, a statement
// whose text holds the token) prints the whole statement as before.
// The print is byte for byte the whole statement's print (the deparser
// prints a select list's target the same way at any depth); the package's
// tests check that on every statement they rewrite (spliceCrossCheck).
//
// A read form that reads its table and nothing else (its filter holds no
// subquery) goes one step further: its whole select stands in the
// skeleton as one placeholder table, the FROM item's alias kept, and its
// print, the select printed with its frozen targets (readform.go) as
// placeholder columns, verified as a select of that table, and those
// spliced, is computed once per form and per encoding of that select
// (printForm). The skeleton is then the statement as the application
// wrote it with one relation per table, and its print and parse cost
// about what the application's statement costs.

// spliceToken marks this process's placeholders (rewriter.SpliceToken).
var spliceToken = rewriter.SpliceToken

// spliceCrossCheck makes print compare every spliced print with the
// whole statement's print and refuse the statement when they differ (set
// by the package's tests).
var spliceCrossCheck bool

// targetTexts remembers the texts of read-form targets by their encoding
// ("": the target is printed in place), at most 1,024 (a policy set has
// far fewer masks).
var targetTexts = rewriter.TextMemo{Max: 1024}

// print prints the rewritten statement stmt of the text query and
// verifies the print against want (what the print must keep of the tree):
// spliced when it can be (see above), else whole.
func (r *rewrite) print(stmt *pg.Node, want rewriter.Printed, query string) (string, error) {
	if spliceCrossCheck && frozenChanged(r.readForms) {
		return "", rewriter.Unsupported("a frozen read-form target was changed")
	}
	if text, ok := r.printSpliced(stmt, want, query); ok {
		if spliceCrossCheck {
			whole, err := deparse(stmt)
			if err != nil || whole != text {
				return "", rewriter.Unsupported("the spliced print differs from the whole print")
			}
		}
		return text, nil
	}
	text, err := deparse(stmt)
	if err != nil {
		return "", err
	}
	if err := verifyPrinted(want, text); err != nil {
		return "", err
	}
	return text, nil
}

// printSpliced is print with the read forms spliced; ok is false when it
// cannot be (the statement is then printed whole). A read form that reads
// its table only stands in the skeleton as one placeholder table
// (printForm); another has its targets spliced one by one.
func (r *rewrite) printSpliced(stmt *pg.Node, want rewriter.Printed, query string) (string, bool) {
	if len(r.readForms) == 0 || strings.Contains(query, spliceToken()) {
		return "", false
	}
	var placed []rewriter.Splice
	var tables []bool // by splice: a placeholder table, else a target
	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	skeletonWant := rewriter.Printed{Kind: want.Kind, Tables: slices.Clone(want.Tables)}
	for _, pf := range r.readForms {
		if text, entry, ok := printForm(pf); ok {
			if j := slices.Index(skeletonWant.Tables, entry); j >= 0 {
				name := spliceToken() + "t" + strconv.Itoa(len(placed))
				skeletonWant.Tables[j] = printedTable("", "", name, true, "p")
				placed = append(placed, rewriter.Splice{Placeholder: `"` + name + `"`, Text: "(" + text + ")"})
				tables = append(tables, true)
				from, held := pf.from, pf.from.Node
				from.Node = &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: name, Inh: true, Relpersistence: "p",
					Alias: from.GetRangeSubselect().Alias}}
				undo = append(undo, func() { from.Node = held })
				continue
			}
		}
		for i, n := range pf.sel.TargetList {
			rt := n.GetResTarget()
			if rt == nil || rt.Name == "" || rt.Val == nil || rt.Val.GetColumnRef() != nil {
				continue
			}
			var text string
			if ft := frozenAt(pf, i, rt); ft != nil {
				text = ft.text
			} else {
				text = textOfTarget(rt.Val)
			}
			if text == "" {
				continue
			}
			name := spliceToken() + strconv.Itoa(len(placed))
			placed = append(placed, rewriter.Splice{Placeholder: `"` + name + `"`, Text: text})
			tables = append(tables, false)
			val := rt.Val
			rt.Val = placeholderColumn(name)
			undo = append(undo, func() { rt.Val = val })
		}
	}
	if len(placed) == 0 {
		return "", false
	}
	skeleton, err := deparse(stmt)
	if err != nil || verifyPrinted(skeletonWant, skeleton) != nil {
		return "", false
	}
	return rewriter.SpliceInto(skeleton, placed, func(i int, before, after string) bool {
		if tables[i] {
			return fromItemBoundary(before, after)
		}
		return targetBoundary(before, after)
	})
}

// targetBoundary reports whether a placeholder column stands as a target
// is printed: after SELECT or a comma and a space, before " AS name".
func targetBoundary(before, after string) bool {
	return strings.HasSuffix(before, " ") && strings.HasPrefix(after, " AS ")
}

// fromItemBoundary reports whether a placeholder table stands as an item
// of a FROM list, a join or a USING clause is printed: after the keyword
// or a comma and a space, before a space and its alias.
func fromItemBoundary(before, after string) bool {
	return (strings.HasSuffix(before, " FROM ") || strings.HasSuffix(before, ", ") ||
		strings.HasSuffix(before, " JOIN ") || strings.HasSuffix(before, " USING ")) &&
		strings.HasPrefix(after, " ") && len(after) > 1 && after[1] != ' '
}

// placeholderColumn is a column named name.
func placeholderColumn(name string) *pg.Node {
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
		Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}}}}}
}

// frozenAt is the frozen target a placed form shares at target i, when rt
// still holds it.
func frozenAt(pf placedForm, i int, rt *pg.ResTarget) *frozenTarget {
	if i < len(pf.frozen) && pf.frozen[i] != nil && pf.frozen[i].val == rt.Val {
		return pf.frozen[i]
	}
	return nil
}

// formTexts remembers the prints of read-form selects by their form and
// the encoding of the select with its frozen targets as placeholders.
var formTexts = rewriter.TextMemo{Max: 1024}

// printForm returns the print of a placed read form's select, with its
// frozen targets spliced in, when the form can stand in the skeleton as a
// placeholder table: held by the FROM item tableRef made for it, not
// LATERAL, reading its table and nothing else (no subquery, no other
// relation, nothing but its FROM naming a relation). entry is its table
// as the printed check lists it.
//
// Why a placeholder table is sound: it is one token where the deparser
// prints a FROM item, followed by the item's alias, and the select's text
// (the deparser's print of it as a statement, parsed again and checked to
// be a select naming that table only) in parentheses is a subquery in
// that FROM item's place; so the spliced print parses as the skeleton
// with the read form in the placeholder's place: the same kind, and the
// skeleton's relations with the placeholder replaced by the table. The
// deparser prints a subquery in FROM as its statement's print in
// parentheses, so the print is byte for byte the whole one (which the
// tests check on every statement).
func printForm(pf placedForm) (text, entry string, ok bool) {
	if pf.from == nil || pf.form == nil {
		return "", "", false
	}
	rs := pf.from.GetRangeSubselect()
	if rs == nil || rs.Lateral || rs.Alias == nil || rs.Subquery.GetSelectStmt() != pf.sel ||
		len(pf.sel.FromClause) != 1 || !readsItsTableOnly(pf) {
		return "", "", false
	}
	base := pf.sel.FromClause[0].GetRangeVar()
	if base == nil {
		return "", "", false
	}
	entry = printedTable(base.Catalogname, base.Schemaname, base.Relname, base.Inh, base.Relpersistence)
	var inner []rewriter.Splice
	var held []*pg.Node
	for i, n := range pf.sel.TargetList {
		rt := n.GetResTarget()
		ft := frozenAt(pf, i, rt)
		if ft == nil || ft.text == "" {
			held = append(held, nil)
			continue
		}
		name := spliceToken() + "f" + strconv.Itoa(i)
		inner = append(inner, rewriter.Splice{Placeholder: `"` + name + `"`, Text: ft.text})
		held = append(held, rt.Val)
		rt.Val = placeholderColumn(name)
	}
	defer func() {
		for i, val := range held {
			if val != nil {
				pf.sel.TargetList[i].GetResTarget().Val = val
			}
		}
	}()
	node := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: pf.sel}}
	encoded, err := marshalParseResult(&pg.ParseResult{Version: treeVersion(), Stmts: []*pg.RawStmt{{Stmt: node}}})
	if err != nil {
		return "", "", false
	}
	key := strconv.FormatUint(pf.form.id, 36) + ":" + string(encoded)
	text, _ = formTexts.Do(key, func(string) (string, error) {
		skeleton, err := parser.DeparseFromProtobuf(encoded)
		if err != nil || verifyPrinted(printed(node), skeleton) != nil {
			return "", nil
		}
		text, ok := rewriter.SpliceInto(skeleton, inner, func(_ int, before, after string) bool {
			return targetBoundary(before, after)
		})
		if !ok || strings.Contains(text, spliceToken()) {
			return "", nil
		}
		return text, nil
	})
	return text, entry, text != ""
}

// readsItsTableOnly reports whether nothing of a placed form's select but
// its FROM names a relation or holds a subquery (its frozen targets hold
// neither, by what makes them frozenable).
func readsItsTableOnly(pf placedForm) bool {
	found := false
	find := func(m protoMessage, _ *pg.Node) (bool, error) {
		switch m.(type) {
		case *pg.RangeVar, *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect, *pg.RangeFunction,
			*pg.RangeTableFunc, *pg.JsonTable, *pg.WithClause:
			found = true
			return false, nil
		}
		return true, nil
	}
	for i, n := range pf.sel.TargetList {
		if frozenAt(pf, i, n.GetResTarget()) == nil {
			_ = walk(n, find)
		}
	}
	_ = walkFields(pf.sel, find, "target_list", "from_clause")
	return !found && pf.sel.FromClause[0].GetRangeVar() != nil
}

// textOfTarget returns the text of a read-form target's expression: the
// deparser's print of SELECT val without its SELECT, when that parses
// again as exactly one expression naming no relation and holding no
// subquery; "" otherwise.
func textOfTarget(val *pg.Node) string {
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: val}}}}}
	encoded, err := marshalParseResult(&pg.ParseResult{Version: treeVersion(),
		Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}})
	if err != nil {
		return ""
	}
	text, _ := targetTexts.Do(string(encoded), printTarget)
	return text
}

// printTarget is textOfTarget for a SELECT of one target, encoded.
func printTarget(encoded string) (string, error) {
	text, err := parser.DeparseFromProtobuf([]byte(encoded))
	const prefix = "SELECT "
	if err != nil || !strings.HasPrefix(text, prefix) {
		return "", nil
	}
	text = text[len(prefix):]
	if strings.IndexByte(text, 0) >= 0 || strings.Contains(text, spliceToken()) {
		return "", nil
	}
	again, err := parseExprUncached(text)
	if err != nil || !selfContained(again) {
		return "", nil
	}
	return text, nil
}

// selfContained reports whether an expression names no relation and holds
// no subquery.
func selfContained(n *pg.Node) bool {
	found := false
	_ = walk(n, func(m protoMessage, _ *pg.Node) (bool, error) {
		switch m.(type) {
		case *pg.RangeVar, *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect, *pg.RangeFunction:
			found = true
			return false, nil
		}
		return true, nil
	})
	return !found
}
