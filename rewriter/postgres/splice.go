package postgres

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/sqe-project/sqe/rewriter"
)

// Printing with spliced read-form targets.
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

// splice is one read-form target printed by its text.
type splice struct {
	target *pg.ResTarget
	val    *pg.Node
	text   string
}

// printSpliced is print with the read forms' targets spliced; ok is false
// when it cannot be (the statement is then printed whole).
func (r *rewrite) printSpliced(stmt *pg.Node, want rewriter.Printed, query string) (string, bool) {
	if len(r.readForms) == 0 || strings.Contains(query, spliceToken()) {
		return "", false
	}
	var splices []splice
	for _, sel := range r.readForms {
		for _, n := range sel.TargetList {
			rt := n.GetResTarget()
			if rt == nil || rt.Name == "" || rt.Val == nil || rt.Val.GetColumnRef() != nil {
				continue
			}
			if text := textOfTarget(rt.Val); text != "" {
				splices = append(splices, splice{target: rt, val: rt.Val, text: text})
			}
		}
	}
	if len(splices) == 0 {
		return "", false
	}
	placed := make([]rewriter.Splice, len(splices))
	for i, s := range splices {
		name := spliceToken() + strconv.Itoa(i)
		placed[i] = rewriter.Splice{Placeholder: `"` + name + `"`, Text: s.text}
		s.target.Val = &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
			Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}}}}}
	}
	skeleton, err := deparse(stmt)
	for _, s := range splices {
		s.target.Val = s.val
	}
	if err != nil || verifyPrinted(want, skeleton) != nil {
		return "", false
	}
	// A target is printed after SELECT or a comma and a space, and before
	// " AS name".
	return rewriter.SpliceInto(skeleton, placed, func(before byte, after string) bool {
		return before == ' ' && strings.HasPrefix(after, " AS ")
	})
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
