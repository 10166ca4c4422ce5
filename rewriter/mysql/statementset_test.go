package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// TestStatementSetRewritesTheStatementAfterFor: SET STATEMENT … FOR
// keeps its settings, printed from what was read, and the statement after
// FOR is rewritten as it is alone.
func TestStatementSetRewritesTheStatementAfterFor(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	for _, c := range []struct{ sql, prefix, body string }{
		{"SET STATEMENT max_statement_time = 1 FOR SELECT id, ssn FROM customers WHERE id = ?",
			"SET STATEMENT max_statement_time = 1 FOR ", "SELECT id, ssn FROM customers WHERE id = ?"},
		{"set statement MAX_STATEMENT_TIME=0.25, lock_wait_timeout = 3 for select name from customers",
			"SET STATEMENT max_statement_time = 0.25, lock_wait_timeout = 3 FOR ", "select name from customers"},
		{"SET STATEMENT innodb_lock_wait_timeout = 2 FOR UPDATE customers SET name = ? WHERE id = ?",
			"SET STATEMENT innodb_lock_wait_timeout = 2 FOR ", "UPDATE customers SET name = ? WHERE id = ?"},
		{"SET STATEMENT max_statement_time = 5 FOR INSERT INTO customers (id, name, region) VALUES (?, ?, 'EU') RETURNING id, ssn",
			"SET STATEMENT max_statement_time = 5 FOR ", "INSERT INTO customers (id, name, region) VALUES (?, ?, 'EU') RETURNING id, ssn"},
	} {
		got, err := rewriteMariaDB(c.sql, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		alone, err := rewriteMariaDB(c.body, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if got.SQL != c.prefix+alone.SQL {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got.SQL, c.prefix+alone.SQL)
		}
		if got.Kind != alone.Kind || got.Protected != alone.Protected || len(got.WriteChecks) != len(alone.WriteChecks) {
			t.Errorf("%s: the result differs from the statement's alone: %+v, %+v", c.sql, got, alone)
		}
	}
}

// TestStatementSetRefusals: variables outside the allow-list, values that
// are not plain numbers, comments, nesting and statements other than
// queries and writes are refused, naming what is refused; on MySQL the
// form stays a syntax error.
func TestStatementSetRefusals(t *testing.T) {
	for _, c := range []struct{ sql, says string }{
		{"SET STATEMENT sql_mode = 'ANSI_QUOTES' FOR SELECT id FROM customers", "sql_mode"},
		{"SET STATEMENT max_join_size = 10 FOR SELECT id FROM customers", "max_join_size"},
		{"SET STATEMENT max_statement_time = ? FOR SELECT id FROM customers", "plain number"},
		{"SET STATEMENT max_statement_time = -1 FOR SELECT id FROM customers", "plain number"},
		{"SET STATEMENT max_statement_time = '1' FOR SELECT id FROM customers", "plain number"},
		{"SET STATEMENT max_statement_time = 1e3 FOR SELECT id FROM customers", "plain number"},
		{"SET STATEMENT `max_statement_time` = 1 FOR SELECT id FROM customers", "not read"},
		{"SET STATEMENT max_statement_time = /* x */ 1 FOR SELECT id FROM customers", "plain number"},
		{"SET STATEMENT max_statement_time = 1 /* x */ FOR SELECT id FROM customers", "not read"},
		{"SET STATEMENT max_statement_time = 1 SELECT id FROM customers", "not read"},
		{"SET STATEMENT max_statement_time = 1 FOR", "not read"},
		{"SET STATEMENT max_statement_time = 1 FOR SET STATEMENT lock_wait_timeout = 1 FOR SELECT 1", "query or a write"},
		{"SET STATEMENT max_statement_time = 1 FOR CREATE TABLE x (id INT)", "query or a write"},
		{"SET STATEMENT max_statement_time = 1 FOR SET @a = 1", "query or a write"},
		{"SET STATEMENT max_statement_time = 1 FOR SELECT salary FROM customers", "salary"},
	} {
		_, err := rewriteMariaDB(c.sql, map[string]*policy.Decision{"shop.customers": customersDecision()})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.sql, err, c.says)
		}
	}
	_, err := Dialect{}.Rewrite(context.Background(), request("SET STATEMENT max_statement_time = 1 FOR SELECT id FROM customers", nil))
	if !errors.Is(err, rewriter.ErrSyntax) {
		t.Errorf("on MySQL: %v, want a syntax error", err)
	}
}
