package sqe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
)

// TestJoinConjunctsGuarded: in a read of inner-joined tables, a WHERE
// conjunct that can fail on a value is guarded by the filters of the
// tables it reads instead of fencing them, so the statement stays flat
// for the planner; no such conjunct ever runs on a hidden row (a
// division by zero on the hidden customer's name would fail the
// statement on PostgreSQL, an overflowing EXP on both), and the rows are
// those of the filter applied by hand. An outer join keeps the fence.
func TestJoinConjunctsGuarded(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { joinConjunctsGuarded(t, b) })
	}
}

func joinConjunctsGuarded(t *testing.T, b backend) {
	e := newEnv(t, b, fixturePolicy)
	const eu = "(SELECT * FROM customers WHERE region = 'EU')"
	fence := "OFFSET 0"
	if b.name == "mysql" {
		fence = "limit 18446744073709551615"
	}
	for _, tc := range []struct {
		q, ref string
		args   []any
		fenced bool
	}{
		{"SELECT c.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE 1 / (CASE WHEN c.name = 'Cy-US-CANARY' THEN 0 ELSE 1 END) = 1 ORDER BY 1",
			"SELECT c.id, o.total FROM " + eu + " c JOIN orders o ON o.customer_id = c.id ORDER BY 1", nil, false},
		{"SELECT c.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE lower(c.name) LIKE $1 AND o.total > 0 ORDER BY 1",
			"SELECT c.id, o.total FROM " + eu + " c JOIN orders o ON o.customer_id = c.id WHERE lower(c.name) LIKE $1 ORDER BY 1", []any{"%y%"}, false},
		{"SELECT c.id, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE lower(c.name) LIKE $1 ORDER BY 1",
			"SELECT c.id, o.total FROM " + eu + " c JOIN orders o ON o.customer_id = c.id WHERE lower(c.name) LIKE $1 ORDER BY 1", []any{"%a%"}, false},
		{"SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE EXP(CASE WHEN c.name = 'Cy-US-CANARY' THEN 1000 ELSE 1 END) > 0 ORDER BY o.id LIMIT 10",
			"SELECT o.id, c.name FROM orders o JOIN " + eu + " c ON c.id = o.customer_id ORDER BY o.id LIMIT 10", nil, false},
		{"SELECT a.id, b.id FROM customers a JOIN customers b ON a.id < b.id WHERE 1 / (CASE WHEN b.name = 'Cy-US-CANARY' THEN 0 ELSE 1 END) = 1 ORDER BY 1, 2",
			"SELECT a.id, b.id FROM " + eu + " a JOIN " + eu + " b ON a.id < b.id ORDER BY 1, 2", nil, false},
		{"SELECT c.id FROM customers c, orders o WHERE o.customer_id = c.id AND o.total / (CASE WHEN c.ssn = '555-55-5555' THEN 0 ELSE 1 END) > 0 ORDER BY 1",
			"SELECT c.id FROM " + eu + " c, orders o WHERE o.customer_id = c.id ORDER BY 1", nil, false},
		{"SELECT c.id, o.total FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE 1 / (CASE WHEN c.name = 'Cy-US-CANARY' THEN 0 ELSE 1 END) = 1 ORDER BY 2",
			"SELECT c.id, o.total FROM orders o LEFT JOIN " + eu + " c ON c.id = o.customer_id ORDER BY 2", nil, true},
	} {
		if b.name == "mysql" {
			tc.q, tc.ref = strings.ReplaceAll(tc.q, "$1", "?"), strings.ReplaceAll(tc.ref, "$1", "?")
		}
		got, _, err := query(as(analyst), e.db, tc.q, tc.args...)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		assertNoCanary(t, analyst, tc.q, got, err)
		want, _, err := query(context.Background(), e.raw, tc.ref, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", tc.q, got, want)
		}
		ex, err := sqe.Explain(as(admin), e.db, analyst, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if fenced := strings.Contains(ex.SQL, fence); fenced != tc.fenced || !fenced && !strings.Contains(strings.ToLower(ex.SQL), "else false end") {
			t.Errorf("%s: fenced %v, want %v:\n%s", tc.q, fenced, tc.fenced, ex.SQL)
		}
	}
}
