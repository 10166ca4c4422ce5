package mysql

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// SET's := is its =: the statement is rewritten as the = form is, and
// anything else that does not parse stays a syntax error.
func TestSetAssignmentOperator(t *testing.T) {
	rewritten := 0
	for _, c := range []struct{ colon, equals string }{
		{"SET @name := ?", "SET @name = ?"},
		{"SET @a := 1, @b := 'x'", "SET @a = 1, @b = 'x'"},
		{"set @a:=1,@b=2", "set @a=1,@b=2"},
		{"SET @a := (SELECT COUNT(*) FROM orders)", "SET @a = (SELECT COUNT(*) FROM orders)"},
		{"SET @a := @b := 5", "SET @a = @b := 5"},
		{"SET @a := CONCAT(':=', @b)", "SET @a = CONCAT(':=', @b)"},
		{"SET SESSION sql_mode := 'ANSI_QUOTES'", "SET SESSION sql_mode = 'ANSI_QUOTES'"},
		{"SET @a := (SELECT ssn FROM customers LIMIT 1)", "SET @a = (SELECT ssn FROM customers LIMIT 1)"},
	} {
		want, wantErr := rewriteMariaDB(c.equals, map[string]*policy.Decision{"shop.customers": customersDecision()})
		got, gotErr := rewriteMariaDB(c.colon, map[string]*policy.Decision{"shop.customers": customersDecision()})
		if wantErr != nil || gotErr != nil {
			// Refused alike, and not for its syntax.
			if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() || errors.Is(gotErr, rewriter.ErrSyntax) {
				t.Errorf("%s: %v; %s: %v", c.colon, gotErr, c.equals, wantErr)
			}
			continue
		}
		if got.SQL != want.SQL || got.Kind != want.Kind {
			t.Errorf("%s gives %s; %s gives %s", c.colon, short(got.SQL), c.equals, short(want.SQL))
		}
		rewritten++
	}
	if rewritten < 6 {
		t.Errorf("only %d of the SET forms were rewritten", rewritten)
	}
	for _, sql := range []string{
		"SET @a := ",
		"SET @a := 1 FROM t",
		"SET @a := 1; SELECT 1 :=",
		"UPDATE orders SET total := 1",
		"SELECT 1 FROM orders WHERE (@a := 1) := 2",
		"SET (@a := 1)",
	} {
		if _, err := rewriteMariaDB(sql, nil); !errors.Is(err, rewriter.ErrSyntax) {
			t.Errorf("%s: %v, want a syntax error", sql, err)
		}
	}
}
