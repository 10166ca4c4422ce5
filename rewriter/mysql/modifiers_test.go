package mysql

import (
	"errors"
	"strings"
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

func TestWriteModifiersPrintAsWritten(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"INSERT LOW_PRIORITY INTO orders (id) VALUES (1)", "insert low_priority into `shop`.`orders`(`id`) values (1)"},
		{"insert delayed orders (id) values (?)", "insert delayed into `shop`.`orders`(`id`) values (?)"},
		{"INSERT HIGH_PRIORITY IGNORE INTO orders (id) VALUES (1)", "insert high_priority ignore into `shop`.`orders`(`id`) values (1)"},
		{"REPLACE DELAYED INTO orders (id) VALUES (1)", "replace delayed into `shop`.`orders`(`id`) values (1)"},
		{"UPDATE LOW_PRIORITY IGNORE orders SET total = 0 ORDER BY id LIMIT 2", "update low_priority ignore `shop`.`orders` set `total` = 0 order by `id` asc limit 2"},
		{"DELETE LOW_PRIORITY QUICK IGNORE FROM orders ORDER BY id LIMIT 1", "delete low_priority quick ignore from `shop`.`orders` order by `id` asc limit 1"},
		// The parser reads QUICK here as a table to delete from; the
		// server reads the modifier.
		{"DELETE QUICK FROM orders", "delete quick from `shop`.`orders`"},
		{"DELETE quick IGNORE FROM orders WHERE id = 1", "delete quick ignore from `shop`.`orders` where `id` = 1"},
		{"DELETE QUICK o FROM orders o JOIN customers c ON c.id = o.customer_id",
			"delete quick `o` from `shop`.`orders` as `o` join `shop`.`customers` as `c` on `c`.`id` = `o`.`customer_id`"},
	} {
		res, err := rewriteMariaDB(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.SQL != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.sql, res.SQL, c.want)
		}
	}
}

func TestWriteModifiersKeepTheWritesPolicy(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	// The filtered target keeps its filter in front of the WHERE.
	for _, sql := range []string{
		"UPDATE LOW_PRIORITY IGNORE customers SET name = 'x'",
		"DELETE LOW_PRIORITY QUICK IGNORE FROM customers",
		"DELETE QUICK FROM customers",
	} {
		res, err := rewriteMariaDB(sql, dec)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if !strings.Contains(res.SQL, "where `region` = 'EU'") && !strings.Contains(res.SQL, "where `shop`.`customers`.`region` = 'EU'") {
			t.Errorf("%s: %s keeps no row filter", sql, res.SQL)
		}
	}
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"INSERT DELAYED INTO customers (id, salary) VALUES (1, 2)", policy.ErrColumnDenied},
		{"UPDATE LOW_PRIORITY customers SET salary = 0", policy.ErrColumnDenied},
		{"DELETE QUICK FROM audit", policy.ErrAccessDenied},
		{"REPLACE LOW_PRIORITY INTO customers (id) VALUES (1)", rewriter.ErrUnsupported},
		// Where the server reads the modifier and then no statement, the
		// parser's reading of the word as a name is not taken.
		{"DELETE QUICK FROM orders, customers", rewriter.ErrSyntax},
		{"INSERT DELAYED VALUES (1)", rewriter.ErrSyntax},
		{"DELETE QUICK LOW_PRIORITY FROM orders", rewriter.ErrSyntax},
		{"REPLACE HIGH_PRIORITY INTO orders (id) VALUES (1)", rewriter.ErrSyntax},
		// A comment before the word does not make it a name.
		{"INSERT /* c */ DELAYED VALUES (1)", rewriter.ErrSyntax},
		{"DELETE /* c */ QUICK FROM orders", rewriter.ErrSyntax},
	} {
		dec["shop.audit"] = &policy.Decision{Table: policy.TableName{Schema: "shop", Table: "audit"},
			Allowed: map[policy.Access]bool{}, DeniedBy: map[policy.Access]string{policy.Update: "no-audit"}}
		_, err := rewriteMariaDB(c.sql, dec)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.sql, err, c.want)
		}
	}
}

func TestWriteModifiersAreNotFoundInsideLiteralsOrNames(t *testing.T) {
	for _, sql := range []string{
		"SELECT 'DELETE QUICK FROM orders'",
		"INSERT INTO orders (id) VALUES ('low_priority')",
		"DELETE `quick` FROM `quick` JOIN orders",
		"INSERT INTO `delayed` VALUES (1)",
		"UPDATE /* LOW_PRIORITY */ orders SET total = 0",
		"INSERT INTO orders SELECT 1 FROM dual WHERE 'DELAYED' = 'x'",
	} {
		rd, err := read(sql, true)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if rd.mod != nil {
			t.Errorf("%s: read with the words %q", sql, rd.mod.words)
		}
	}
}
