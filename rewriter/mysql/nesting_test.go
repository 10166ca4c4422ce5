package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// deepShapes are statements whose trees nest one level (or more) per
// repetition, each as a function of the number of repetitions.
var deepShapes = map[string]func(n int) string{
	"concatenation": func(n int) string {
		return "SELECT CONCAT(name" + strings.Repeat(", 'x'", 1) + ")" + strings.Repeat(" + 1", n) + " FROM customers"
	},
	"ANDs":  func(n int) string { return "SELECT id FROM customers WHERE id = 1" + strings.Repeat(" AND id = 1", n) },
	"ORs":   func(n int) string { return "SELECT id FROM customers WHERE id = 1" + strings.Repeat(" OR id = 1", n) },
	"joins": func(n int) string { return "SELECT 1 FROM customers c" + strings.Repeat(" JOIN orders ON true", n) },
	"unions with lists": func(n int) string {
		return "SELECT id, 1 FROM customers" + strings.Repeat(" UNION SELECT 1, 2", n)
	},
	"minus signs": func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "id FROM customers" },
	"NOTs":        func(n int) string { return "SELECT id FROM customers WHERE " + strings.Repeat("NOT ", n) + "true" },
	"calls": func(n int) string {
		return "SELECT " + strings.Repeat("upper(", n) + "ssn" + strings.Repeat(")", n) + " FROM customers"
	},
	"CASEs": func(n int) string {
		return "SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + "ssn" + strings.Repeat(" END", n) + " FROM customers"
	},
	"parentheses": func(n int) string {
		return "SELECT " + strings.Repeat("(", n) + "ssn" + strings.Repeat(")", n) + " FROM customers"
	},
	"chain in list": func(n int) string {
		return "SELECT id FROM customers WHERE id IN (1, 2" + strings.Repeat(" + 1", n) + ")"
	},
}

// TestDeepStatementsAreRefused: a statement nested deeper than the walks
// and the printer can recurse is refused with an error, whatever shape
// the nesting takes. (Without the check these are rewritten, and a chain
// ten times as long overflows the goroutine's stack: a fatal error.)
func TestDeepStatementsAreRefused(t *testing.T) {
	for name, shape := range deepShapes {
		_, err := Dialect{}.Rewrite(context.Background(), request(shape(maxNesting+1), fuzzDecisions()))
		if err == nil || !strings.Contains(err.Error(), "levels deep") {
			t.Errorf("%s: %v, want the nesting refused by name", name, err)
		}
	}
	// Levels of their own (subqueries, calls, CASEs) are refused from
	// maxOpen on, where the walks' cost would grow in their square.
	for name, sql := range map[string]string{
		"EXISTS":      strings.Repeat("SELECT 1 FROM customers WHERE EXISTS (", maxOpen+1) + "SELECT 1" + strings.Repeat(")", maxOpen+1),
		"subqueries":  strings.Repeat("SELECT (", maxOpen+1) + "SELECT ssn FROM customers" + strings.Repeat(")", maxOpen+1),
		"calls":       deepShapes["calls"](maxOpen + 1),
		"CASEs":       deepShapes["CASEs"](maxOpen + 1),
		"parentheses": deepShapes["parentheses"](maxOpen + 1),
	} {
		_, err := Dialect{}.Rewrite(context.Background(), request(sql, fuzzDecisions()))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nests more than %d levels", maxOpen)) {
			t.Errorf("%s: %v, want the nesting refused by name", name, err)
		}
	}
}

// TestWideStatementsAreRead: lists and the branches of a CASE do not
// nest, and conditions of thousands of terms stay within the limit.
func TestWideStatementsAreRead(t *testing.T) {
	wide := dialecttest.WideStatements(func(a, b string) string { return "CONCAT(" + a + ", " + b + ")" })
	wide["9,000 ANDs"] = deepShapes["ANDs"](9000)
	wide["900 subqueries"] = strings.Repeat("SELECT (", 900) + "SELECT ssn FROM customers" + strings.Repeat(")", 900)
	dialecttest.ReadsAll(t, wide, func(sql string) (*rewriter.Result, error) {
		return Dialect{}.Rewrite(context.Background(), request(sql, fuzzDecisions()))
	})
}
