package dialecttest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// WideStatements are statements made large by what does not nest: a
// 20,000-element IN list, 5,000 ORed pairs of conditions, a CASE of 3,000
// branches (each joining two strings with concat) and a select list of
// 3,000 entries, all over customers.
func WideStatements(concat func(a, b string) string) map[string]string {
	in := make([]string, 20000)
	for i := range in {
		in[i] = fmt.Sprint(i)
	}
	pairs := make([]string, 5000)
	for i := range pairs {
		pairs[i] = fmt.Sprintf("(id = %d AND name = 'n%d')", i, i)
	}
	branches := make([]string, 3000)
	for i := range branches {
		branches[i] = fmt.Sprintf("WHEN id = %d THEN %s", i, concat(fmt.Sprintf("'b%d'", i), "name"))
	}
	return map[string]string{
		"IN list":       "SELECT id FROM customers WHERE id IN (" + strings.Join(in, ", ") + ")",
		"OR of ANDs":    "SELECT id FROM customers WHERE " + strings.Join(pairs, " OR "),
		"CASE branches": "SELECT CASE " + strings.Join(branches, " ") + " ELSE ssn END FROM customers",
		"select list":   "SELECT " + strings.Repeat("upper(ssn), ", 3000) + "id FROM customers",
	}
}

// ReadsAll checks that rewrite reads and rewrites each statement (by
// name): no error, and the table still in the output.
func ReadsAll(t *testing.T, statements map[string]string, rewrite func(sql string) (*rewriter.Result, error)) {
	t.Helper()
	for name, sql := range statements {
		res, err := rewrite(sql)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.Contains(res.SQL, "customers") {
			t.Errorf("%s: rewritten to %s", name, Short(res.SQL))
		}
	}
}
