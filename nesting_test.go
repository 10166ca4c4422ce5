package sqe_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// TestDeepStatementsFailWithoutStoppingTheProcess: a statement nested
// deeper than the parsers can recurse (PostgreSQL's parser dies of
// SIGSEGV at some 30,000 chained operators; vitess's walks overflow the
// goroutine's stack at a million) comes back from database/sql as an
// error that says why, and the same pool then serves the next statement.
func TestDeepStatementsFailWithoutStoppingTheProcess(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, benchPolicy)
			ctx := session.NewContext(context.Background(), session.User{Name: "r", Roles: []string{"reader"}})
			levels := 40000
			if b.name == "mysql" {
				levels = 200000
			}
			deep := "SELECT id FROM customers WHERE id = 1" + strings.Repeat(" + 1", levels)
			rows, err := e.db.QueryContext(ctx, deep)
			if err == nil {
				rows.Close()
				t.Fatalf("a statement nested %d levels deep ran", levels)
			}
			if !strings.Contains(err.Error(), "nests more than") {
				t.Fatalf("%d levels: %v, want the nesting named", levels, err)
			}
			var n int
			if err := e.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers").Scan(&n); err != nil {
				t.Fatalf("the next statement: %v", err)
			}
		})
	}
}
