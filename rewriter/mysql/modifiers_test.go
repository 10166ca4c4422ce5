package mysql

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestSchemaChangeModifiers(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"CREATE OR REPLACE TABLE t1 (id INT)", "create or replace table `t1` (\n\t`id` INT\n)"},
		{"create or replace temporary table t1 (id int)", "create or replace temporary table `t1` (\n\t`id` int\n)"},
		{"ALTER ONLINE TABLE orders ADD COLUMN note VARCHAR(10)", "alter online table `orders` add column `note` VARCHAR(10)"},
		{"alter ignore table orders add unique (total)", "alter ignore table `orders` add unique key (`total`)"},
	} {
		res, err := rewriteMariaDB(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.SQL != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.sql, res.SQL, c.want)
		}
		if res.Kind != rewriter.KindDDL {
			t.Errorf("%s: kind %s", c.sql, res.Kind)
		}
	}
}

func TestSchemaChangeModifiersNeedTheirAccess(t *testing.T) {
	noDrop := &policy.Decision{Table: policy.TableName{Schema: "shop", Table: "t1"},
		Allowed: map[policy.Access]bool{policy.Create: true, policy.Select: true}}
	orders := &policy.Decision{Table: policy.TableName{Schema: "shop", Table: "orders"},
		Allowed: map[policy.Access]bool{policy.Alter: true, policy.Select: true}}
	dec := map[string]*policy.Decision{"shop.t1": noDrop, "shop.orders": orders, "shop.customers": customersDecision()}
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"CREATE TABLE t1 (id INT)", nil},
		{"CREATE OR REPLACE TABLE t1 (id INT)", policy.ErrAccessDenied},
		{"ALTER ONLINE TABLE orders ADD COLUMN note INT", nil},
		{"ALTER IGNORE TABLE orders ADD UNIQUE (total)", policy.ErrAccessDenied},
		{"ALTER IGNORE TABLE customers ADD UNIQUE (name)", rewriter.ErrUnsupported},
		{"CREATE OR REPLACE TABLE t1 AS SELECT salary FROM customers", policy.ErrColumnDenied},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", nil},
		{"CREATE OR REPLACE TABLE t1 (id INT) SELECT 1 FROM orders; DROP TABLE orders", policy.ErrAccessDenied},
		// Schema changes the parser does not read are refused as such.
		{"CREATE OR TABLE t1 (id INT)", rewriter.ErrUnsupported},
		{"ALTER ONLINE IGNORE TABLE orders ADD COLUMN x INT", rewriter.ErrUnsupported},
		{"ALTER ONLINE VIEW v AS SELECT 1", rewriter.ErrUnsupported},
		{"CREATE OR REPLACE TABLE", rewriter.ErrUnsupported},
	} {
		_, err := rewriteMariaDB(c.sql, dec)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.sql, err, c.want)
		}
	}
}
