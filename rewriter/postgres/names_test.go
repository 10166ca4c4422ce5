package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// A three-part name naming the connection's database reads as
// schema.table (and db.schema.table.column as schema.table.column), under
// the table's policy; another database, or an unknown one, is refused.
func TestThreePartNames(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, c := range []struct{ sql, want string }{
		{"SELECT id FROM shopdb.shop.orders", "FROM shop.orders"},
		{"SELECT shopdb.shop.orders.id FROM shopdb.shop.orders", "SELECT shop.orders.id FROM shop.orders"},
		{"SELECT shopdb.shop.orders.* FROM shop.orders", "SELECT shop.orders.* FROM shop.orders"},
		{"SELECT name FROM shopdb.shop.customers", "region = 'EU'"},
		{"DROP TABLE shopdb.shop.orders", "DROP TABLE shop.orders"},
		{"SELECT id FROM ShopDB.shop.orders", "FROM shop.orders"}, // an unquoted name folds to lower case
		{"COMMENT ON TABLE shopdb.shop.orders IS 'x'", "COMMENT ON TABLE shop.orders"},
	} {
		req := request(c.sql, dec)
		s := NewSession(testCatalog().Path, false)
		s.Database = "shopdb"
		req.Session = s
		res, err := rewriteReq(t, req)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if !strings.Contains(res.SQL, c.want) || strings.Contains(res.SQL, "shopdb") {
			t.Errorf("%s: %s, want %q and no database name", c.sql, dialecttest.Short(res.SQL), c.want)
		}
	}
	for _, sql := range []string{
		"SELECT id FROM otherdb.shop.orders", "SELECT otherdb.shop.orders.id FROM shop.orders",
		"DROP TABLE otherdb.shop.orders", `SELECT "ShopDB".shop.orders.id FROM shop.orders`,
	} {
		req := request(sql, dec)
		s := NewSession(testCatalog().Path, false)
		s.Database = "shopdb"
		req.Session = s
		_, err := rewriteReq(t, req)
		var re *rewriter.Error
		if !errors.As(err, &re) || !re.Unimplemented {
			t.Errorf("%s: %v, want the cross-database refusal", sql, err)
		}
	}
	// Without the connection's database every three-part name is refused.
	if _, err := rewriteSQL(t, "SELECT id FROM shopdb.shop.orders", dec); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Errorf("unknown database: %v, want a refusal", err)
	}
}
