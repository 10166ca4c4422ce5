package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// deepShapes are statements whose trees nest one level (or more) per
// repetition, each as a function of the number of repetitions.
var deepShapes = map[string]func(n int) string{
	"concatenation": func(n int) string { return "SELECT name" + strings.Repeat(" || 'x'", n) + " FROM customers" },
	"casts":         func(n int) string { return "SELECT id" + strings.Repeat("::int", n) + " FROM customers" },
	"joins":         func(n int) string { return "SELECT 1 FROM customers c" + strings.Repeat(" JOIN orders ON true", n) },
	"unions":        func(n int) string { return "SELECT id FROM customers" + strings.Repeat(" UNION SELECT 1", n) },
	"unions with lists": func(n int) string {
		return "SELECT id, 1 FROM customers" + strings.Repeat(" UNION SELECT 1, 2", n)
	},
	"minus signs": func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "id FROM customers" },
	"NOTs":        func(n int) string { return "SELECT id FROM customers WHERE " + strings.Repeat("NOT ", n) + "true" },
	"subqueries": func(n int) string {
		return strings.Repeat("SELECT (", n) + "SELECT ssn FROM customers" + strings.Repeat(")", n)
	},
	"calls": func(n int) string {
		return "SELECT " + strings.Repeat("upper(", n) + "ssn" + strings.Repeat(")", n) + " FROM customers"
	},
	"CASEs": func(n int) string {
		return "SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + "ssn" + strings.Repeat(" END", n) + " FROM customers"
	},
	"arrays": func(n int) string { return "SELECT " + strings.Repeat("ARRAY[", n) + "1" + strings.Repeat("]", n) },
	"rows":   func(n int) string { return "SELECT " + strings.Repeat("ROW(", n) + "1" + strings.Repeat(")", n) },
	"parentheses": func(n int) string {
		return "SELECT " + strings.Repeat("(", n) + "ssn" + strings.Repeat(")", n) + " FROM customers"
	},
	"chain in list": func(n int) string {
		return "SELECT id FROM customers WHERE id IN (1, 2" + strings.Repeat(" + 1", n) + ")"
	},
}

// TestDeepStatementsAreRefused: a statement nested deeper than the parser
// and the deparser can recurse is refused with an error, whatever shape
// the nesting takes. Without the check the process dies (SIGSEGV in the
// parser's C code at 30,000 to 40,000 levels, in the deparser from about
// 4,500), and so does this test.
func TestDeepStatementsAreRefused(t *testing.T) {
	for name, shape := range deepShapes {
		for _, n := range []int{maxNesting + 1, 4500, 40000} {
			sql := shape(n)
			_, err := rewriteAll(context.Background(), request(sql, simpleDecisions()))
			if err == nil {
				t.Errorf("%s, %d levels: rewritten", name, n)
			} else if n == 40000 && !strings.Contains(err.Error(), fmt.Sprintf("nests more than %d levels", maxNesting)) {
				t.Errorf("%s, %d levels: %v, want the nesting refused by name", name, n, err)
			}
		}
	}
}

// TestWideStatementsAreRead: lists, chains of AND and OR and the branches
// of a CASE do not nest, so statements made large by them are read and
// rewritten, and so is a chain just within the limit.
func TestWideStatementsAreRead(t *testing.T) {
	wide := dialecttest.WideStatements(func(a, b string) string { return a + " || " + b })
	wide["chain of 900"] = "SELECT name" + strings.Repeat(" || 'x'", 900) + " FROM customers"
	wide["900 parentheses"] = deepShapes["parentheses"](900)
	dialecttest.ReadsAll(t, wide, func(sql string) (*rewriter.Result, error) {
		return rewriteAll(context.Background(), request(sql, simpleDecisions()))
	})
}

// TestNestingBoundHoldsTheTree: the bound is at least the number of
// levels each shape nests per repetition, so a statement is never read
// when its tree is deeper than the limit.
func TestNestingBoundHoldsTheTree(t *testing.T) {
	for name, shape := range deepShapes {
		for _, n := range []int{10, 200} {
			got, ok := nestingBound(shape(n))
			if !ok || got < n {
				t.Errorf("%s, %d levels: bound %d (%v)", name, n, got, ok)
			}
		}
	}
	if got, _ := nestingBound("SELECT a, b FROM t WHERE a = 1 AND b = 2 OR c IN (1, 2, 3)"); got > 6 {
		t.Errorf("a flat statement: bound %d", got)
	}
}

// TestTokenStartsCountEveryToken: the shortcut that skips the scanner
// counts at least as many places as the scanner finds tokens.
func TestTokenStartsCountEveryToken(t *testing.T) {
	for _, sql := range []string{
		"SELECT a.b::int, 'x''y', $1, $$q$$ || E'\\n' FROM t WHERE x>=-1 AND NOT(y<>2) /* c */ -- d\n",
		"SELECT ä.ö FROM\"T\"JOIN u USING(id)",
		"SELECT 1e-3+.5-0x1f, B'01', U&'\\0041', x[1:2]",
	} {
		res, err := pg.Scan(sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := tokenStarts(sql); got < len(res.Tokens) {
			t.Errorf("%q: %d places, %d tokens", sql, got, len(res.Tokens))
		}
	}
	for name, shape := range deepShapes {
		sql := shape(3000)
		res, _ := pg.Scan(sql)
		if got := tokenStarts(sql); res != nil && got < len(res.Tokens) {
			t.Errorf("%s: %d places, %d tokens", name, got, len(res.Tokens))
		}
	}
}

// TestDeepestReadableStatements: each shape nested as deep as the bound
// lets through is parsed, rewritten and printed in full without the
// process dying: the limit leaves the C code its margin only if this
// holds for every shape.
func TestDeepestReadableStatements(t *testing.T) {
	for name, shape := range deepShapes {
		lo, hi := 1, maxNesting+1 // bound(shape(lo)) <= maxNesting < bound(shape(hi))
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if b, _ := nestingBound(shape(mid)); b <= maxNesting {
				lo = mid
			} else {
				hi = mid
			}
		}
		sql := shape(lo)
		if err := checkNesting(sql); err != nil {
			t.Fatalf("%s, %d repetitions: %v", name, lo, err)
		}
		res, err := rewriteAll(context.Background(), request(sql, simpleDecisions()))
		if err != nil || res.SQL == "" {
			t.Errorf("%s, %d repetitions: %v (the deparser never ran, so the margin is unproven)", name, lo, err)
		}
	}
}
