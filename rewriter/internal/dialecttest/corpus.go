package dialecttest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Corpus is every text the Go files matching patterns hold as a string
// literal and the package's fuzz seed corpus (testdata/fuzz/FuzzRewrite)
// holds, in that order, once each, with the {S} and {N} placeholders of
// the driver's corpora filled in; blank texts are left out. The caller
// keeps those its parser reads.
func Corpus(t *testing.T, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, pattern := range patterns {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.NewReplacer("{S}", "shop", "{N}", "n1").Replace(s)
		if seen[s] || strings.TrimSpace(s) == "" {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					add(s)
				}
			}
			return true
		})
	}
	seeds, err := filepath.Glob("testdata/fuzz/FuzzRewrite/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) < 100 {
		t.Fatalf("seed corpus too small: %d files", len(seeds))
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					add(s)
				}
			}
		}
	}
	return out
}
