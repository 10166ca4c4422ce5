package mysql

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// The parser reads some Vitess-only syntax that MySQL and MariaDB do not:
// sqe must refuse it rather than print it as something the server would
// read otherwise (or send the server what it would refuse).
func TestVitessOnlySyntaxIsRefused(t *testing.T) {
	for _, sql := range []string{
		"SELECT NEXT VALUE FOR orders",
		"SELECT NEXT 5 VALUES FROM orders",
		"SELECT id FROM orders WHERE id IN ::ids",
		"SELECT id FROM orders WHERE total = :t",
		"USE shop@replica",
		"USE `shop@replica`",
		"SHOW VITESS_TABLETS",
	} {
		if _, err := rewriteMariaDB(sql, nil); !errors.Is(err, rewriter.ErrUnsupported) && !errors.Is(err, rewriter.ErrSyntax) {
			t.Errorf("%s: %v, want a refusal", sql, err)
		}
	}
	// What MySQL reads too passes.
	for _, sql := range []string{"USE shop", "SELECT id FROM orders WHERE id IN (?, ?)", "SELECT 0b101, b'101', x'41'"} {
		if _, err := rewriteMariaDB(sql, nil); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}
