package mysql

import (
	"reflect"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// selectCorpus is every SELECT the package's tests, the cases it shares
// (dialecttest), its fuzz seed corpus and the driver's adversarial corpus
// hold: the string literals of those Go files and the corpus entries that
// parse as one SELECT.
func selectCorpus(t *testing.T) []string {
	var out []string
	for _, s := range dialecttest.Corpus(t, "*_test.go", "../internal/dialecttest/*.go", "../../adversarial*_test.go") {
		if stmt, err := parse(s); err == nil {
			if _, ok := stmt.(*sqlparser.Select); ok {
				out = append(out, s)
			}
		}
	}
	if len(out) < 300 {
		t.Fatalf("corpus too small: %d selects", len(out))
	}
	return out
}

// pointerNodes is every node of n held by pointer, by identity; a node of
// no size (NULL) holds nothing to change, and Go may give every one the
// same address.
func pointerNodes(n sqlparser.SQLNode) map[sqlparser.SQLNode]bool {
	out := map[sqlparser.SQLNode]bool{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Type().Size() > 0 {
			out[n] = true
		}
		return true, nil
	}, n)
	return out
}

// TestReadFormsAreCopies: an instance of a read form handed out by the
// cache equals the parse of its text (guarded masks hoisted), shares no
// node with the cached tree or another instance, and changing it (column
// references, literals, clauses) changes no later answer.
func TestReadFormsAreCopies(t *testing.T) {
	forms := 0
	for _, text := range selectCorpus(t) {
		want, err := parse(text)
		if err != nil {
			t.Fatal(err)
		}
		hoistGuardedMasks(want.(*sqlparser.Select))
		form, err := readFormOf(text)
		if err == errNotAReadForm {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		forms++
		a, _ := form.instance()
		b, _ := form.instance()
		for name, got := range map[string]sqlparser.Statement{"first": a, "second": b} {
			if !sqlparser.Equals.SQLNode(got, want) || sqlparser.String(got) != sqlparser.String(want) {
				t.Fatalf("%s: the %s instance is not the parse:\n%s\n%s", text, name, sqlparser.String(got), sqlparser.String(want))
			}
		}
		inB, inCached := pointerNodes(b), pointerNodes(form.rest)
		for _, ae := range form.entries {
			for n := range pointerNodes(ae) {
				inCached[n] = true
			}
		}
		for n := range pointerNodes(a) {
			if inB[n] || inCached[n] {
				t.Fatalf("%s: two copies share a %T", text, n)
			}
		}
		// Change everything the rewrite changes in place, and more.
		sel := a
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.ColName:
				n.Name = sqlparser.NewIdentifierCI("changed")
				n.Qualifier = sqlparser.NewTableName("changed")
			case *sqlparser.Literal:
				n.Val = "changed"
			}
			return true, nil
		}, sel)
		sel.Where = nil
		sel.Limit = &sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral("1")}
		sel.SelectExprs = nil
		again, _ := form.instance()
		if !sqlparser.Equals.SQLNode(again, want) || sqlparser.String(again) != sqlparser.String(want) {
			t.Fatalf("%s: a change to a handed-out read form reached the cache", text)
		}
	}
	if forms < 200 {
		t.Fatalf("only %d read forms in the corpus", forms)
	}
}
