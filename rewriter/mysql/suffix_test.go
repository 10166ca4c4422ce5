package mysql

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// TestLockWaitIsTheLockingReadWithItsTimeout: MariaDB's FOR UPDATE WAIT n
// and LOCK IN SHARE MODE WAIT n are rewritten as the locking read alone,
// with WAIT n after the lock; what is not such a read stays unread.
func TestLockWaitIsTheLockingReadWithItsTimeout(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	rewritesAsPlain(t, dec, []suffixCase{
		{"SELECT id, ssn FROM customers WHERE id = ? FOR UPDATE WAIT 5", "SELECT id, ssn FROM customers WHERE id = ? FOR UPDATE", " wait 5"},
		{"select name from customers order by id limit 2 lock in share mode wait 0", "select name from customers order by id limit 2 lock in share mode", " wait 0"},
		{"SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.ssn LIKE '%1%' FOR UPDATE WAIT 30", "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.ssn LIKE '%1%' FOR UPDATE", " wait 30"},
	})
	for _, sql := range []string{
		"SELECT id FROM customers WAIT 5",
		"SELECT id FROM customers FOR UPDATE WAIT",
		"SELECT id FROM customers FOR UPDATE WAIT -1",
		"SELECT id FROM customers FOR UPDATE WAIT 1.5",
		"SELECT id FROM customers FOR UPDATE WAIT ?",
		"SELECT id FROM customers FOR UPDATE NOWAIT WAIT 5",
		"SELECT id FROM customers FOR UPDATE WAIT 5 WAIT 5",
		"SELECT id FROM customers UNION SELECT id FROM orders FOR UPDATE WAIT 5",
		"SELECT id FROM customers FOR UPDATE WAIT `5`",
		"SELECT id FROM customers FOR UPDATE /* x */ WAIT 5 INTO @x",
		"UPDATE customers SET name = 'x' FOR UPDATE WAIT 5",
	} {
		if reads(sql) {
			t.Errorf("%s: read", sql)
		}
		if _, err := rewriteMariaDB(sql, dec); err == nil {
			t.Errorf("%s: rewritten", sql)
		}
	}
	// On MySQL, which has no WAIT n, it stays a syntax error.
	_, err := Dialect{}.Rewrite(t.Context(), request("SELECT id FROM customers FOR UPDATE WAIT 5", nil))
	if err == nil || !strings.Contains(err.Error(), "syntax") {
		t.Errorf("on MySQL: %v", err)
	}
}

// TestFetchIsTheSelectWithItsRowLimit: MariaDB's OFFSET … ROWS and FETCH
// FIRST|NEXT … ROWS ONLY|WITH TIES are rewritten as the SELECT alone,
// with the clause after it; what is not such a SELECT stays unread.
func TestFetchIsTheSelectWithItsRowLimit(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	rewritesAsPlain(t, dec, []suffixCase{
		{"SELECT id, ssn FROM customers ORDER BY id OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY", "SELECT id, ssn FROM customers ORDER BY id", " offset 1 rows fetch first 2 rows only"},
		{"select name from customers where ssn like ? order by name fetch next row with ties", "select name from customers where ssn like ? order by name", " fetch next rows with ties"},
		{"SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.total DESC OFFSET 3 ROW", "SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.total DESC", " offset 3 rows"},
		{"SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders ORDER BY total LIMIT 5) FETCH FIRST 10 ROWS ONLY", "SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders ORDER BY total LIMIT 5)", " fetch first 10 rows only"},
	})
	for _, sql := range []string{
		"SELECT id FROM customers ORDER BY id FETCH FIRST 2 ROWS",
		"SELECT id FROM customers ORDER BY id OFFSET 1",
		"SELECT id FROM customers ORDER BY id OFFSET ? ROWS",
		"SELECT id FROM customers ORDER BY id FETCH FIRST ? ROWS ONLY",
		"SELECT id FROM customers ORDER BY id FETCH FIRST -1 ROWS ONLY",
		"SELECT id FROM customers ORDER BY id FETCH FIRST 2 ROWS ONLY OFFSET 1 ROWS",
		"SELECT id FROM customers FETCH FIRST 2 ROWS WITH TIES",
		"SELECT id FROM customers ORDER BY id LIMIT 3 FETCH FIRST 2 ROWS ONLY",
		"SELECT id FROM customers ORDER BY id FOR UPDATE FETCH FIRST 2 ROWS ONLY",
		"SELECT id FROM customers UNION SELECT id FROM orders FETCH FIRST 2 ROWS ONLY",
		"SELECT id FROM customers ORDER BY id /* x */ FETCH FIRST 2 ROWS ONLY INTO @x",
		"SELECT id FROM customers ORDER BY id FETCH FIRST 2 ROWS ONLY; SELECT 1",
		"DELETE FROM customers ORDER BY id FETCH FIRST 2 ROWS ONLY",
	} {
		if reads(sql) {
			t.Errorf("%s: read", sql)
		}
	}
}

// suffixCase is a statement with a clause read as a suffix, the same
// statement without it, and the clause as printed after the rewrite.
type suffixCase struct{ sql, plain, tail string }

// rewritesAsPlain checks that each statement is rewritten as its plain
// statement with the clause printed after it.
func rewritesAsPlain(t *testing.T, dec map[string]*policy.Decision, cases []suffixCase) {
	t.Helper()
	for _, c := range cases {
		got, err := rewriteMariaDB(c.sql, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		plain, err := rewriteMariaDB(c.plain, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.plain, err)
		}
		if got.SQL != plain.SQL+c.tail {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got.SQL, plain.SQL+c.tail)
		}
	}
}
