package mysql

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestTableCheckStatementsPrintAsWritten(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"CHECK TABLE orders", "check table `orders`"},
		{"check table orders, shop.customers extended", "check table `orders`, `shop`.`customers` extended"},
		{"CHECKSUM TABLE orders", "checksum table `orders`"},
		{"CHECKSUM TABLE `orders`, region_map QUICK", "checksum table `orders`, `region_map` quick"},
	} {
		res, err := rewriteMariaDB(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.SQL != c.want || res.Kind != rewriter.KindOther {
			t.Errorf("%s:\n got %s %q\nwant %q", c.sql, res.Kind, res.SQL, c.want)
		}
	}
}

func TestTableCheckStatementsNeedTheirAccess(t *testing.T) {
	dec := map[string]*policy.Decision{
		"shop.customers": customersDecision(), // row filter, masks, restricted column
		"shop.region_map": {Table: policy.TableName{Schema: "shop", Table: "region_map"},
			Allowed: map[policy.Access]bool{policy.Select: true}, Restricted: map[string]string{"role": "no-role"}},
		"shop.audit": {Table: policy.TableName{Schema: "shop", Table: "audit"},
			Allowed: map[policy.Access]bool{policy.Create: true}, DeniedBy: map[policy.Access]string{policy.Select: "no-audit"}},
	}
	for _, c := range []struct {
		sql    string
		want   error
		policy string
	}{
		{"CHECK TABLE customers", rewriter.ErrUnsupported, "eu-only"},
		{"CHECK TABLE orders MEDIUM", nil, ""},
		{"CHECK TABLE orders, customers MEDIUM", rewriter.ErrUnsupported, "eu-only"},
		{"CHECK TABLE audit", policy.ErrAccessDenied, ""},
		{"CHECKSUM TABLE orders EXTENDED", nil, ""},
		{"CHECKSUM TABLE audit", policy.ErrAccessDenied, ""},
		{"CHECKSUM TABLE orders, customers", rewriter.ErrUnsupported, "eu-only"},
		{"CHECKSUM TABLE region_map QUICK", rewriter.ErrUnsupported, "no-role"},
		{"CHECK TABLE region_map QUICK", rewriter.ErrUnsupported, "no-role"},
		// Not the statements' forms: not read.
		{"CHECKSUM TABLE orders MEDIUM", rewriter.ErrSyntax, ""},
		{"CHECK TABLE orders FOR UPGRADE", rewriter.ErrSyntax, ""},
		{"CHECK TABLE orders QUICK FAST", rewriter.ErrSyntax, ""},
		{"CHECK TABLE", rewriter.ErrSyntax, ""},
		{"CHECK TABLE orders, (SELECT 1)", rewriter.ErrSyntax, ""},
		{"CHECK TABLE orders 'quick'", rewriter.ErrSyntax, ""},
	} {
		_, err := rewriteMariaDB(c.sql, dec)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.sql, err, c.want)
			continue
		}
		var re *rewriter.Error
		if c.want == rewriter.ErrUnsupported && (!errors.As(err, &re) || re.Table == "" || re.Policy == "" || c.policy != "" && re.Policy != c.policy) {
			t.Errorf("%s: %v names no table and policy (want %q)", c.sql, err, c.policy)
		}
	}
}

func TestTableCheckWordsInsideLiteralsAreNotRead(t *testing.T) {
	for _, sql := range []string{
		"SELECT 'CHECKSUM TABLE customers'",
		"SELECT `checksum` FROM orders",
	} {
		rd, err := read(sql, true)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if _, ok := rd.node.(*tableCheckStmt); ok {
			t.Errorf("%s: read as a table check", sql)
		}
	}
}
