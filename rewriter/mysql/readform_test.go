package mysql

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// selectCorpus is every SELECT the package's tests, its fuzz seed corpus
// and the driver's adversarial corpus hold: the string literals of those
// Go files and the corpus entries that parse as one SELECT.
func selectCorpus(t *testing.T) []string {
	var texts []string
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../../adversarial*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range append(files, more...) {
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					texts = append(texts, s)
				}
			}
			return true
		})
	}
	seeds, err := filepath.Glob("testdata/fuzz/FuzzRewrite/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					texts = append(texts, s)
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range texts {
		s = strings.NewReplacer("{S}", "shop", "{N}", "n1").Replace(s)
		if seen[s] {
			continue
		}
		seen[s] = true
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

// pointerNodes is every node of n held by pointer, by identity.
func pointerNodes(n sqlparser.SQLNode) map[sqlparser.SQLNode]bool {
	out := map[sqlparser.SQLNode]bool{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && !v.IsNil() {
			out[n] = true
		}
		return true, nil
	}, n)
	return out
}

// TestReadFormsAreCopies: a read form handed out by the cache equals the
// parse of its text, shares no node with the cached tree or another
// copy, and changing it (column references, literals, clauses) changes
// no later answer.
func TestReadFormsAreCopies(t *testing.T) {
	for _, text := range selectCorpus(t) {
		want, err := parse(text)
		if err != nil {
			t.Fatal(err)
		}
		a, err := parseReadForm(text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := parseReadForm(text)
		if err != nil {
			t.Fatal(err)
		}
		readForms.RLock()
		cached := readForms.m[text]
		readForms.RUnlock()
		for name, got := range map[string]sqlparser.Statement{"first": a, "second": b} {
			if !sqlparser.Equals.SQLNode(got, want) || sqlparser.String(got) != sqlparser.String(want) {
				t.Fatalf("%s: the %s copy is not the parse", text, name)
			}
		}
		inB, inCached := pointerNodes(b), pointerNodes(cached)
		for n := range pointerNodes(a) {
			if inB[n] || inCached[n] {
				t.Fatalf("%s: two copies share a %T", text, n)
			}
		}
		// Change everything the rewrite changes in place, and more.
		sel := a.(*sqlparser.Select)
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
		again, err := parseReadForm(text)
		if err != nil {
			t.Fatal(err)
		}
		if !sqlparser.Equals.SQLNode(again, want) || sqlparser.String(again) != sqlparser.String(want) {
			t.Fatalf("%s: a change to a handed-out read form reached the cache", text)
		}
	}
}
