package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestCostlyFiltersAreFenced(t *testing.T) {
	dec := simpleDecisions()
	// region = 'EU' is one comparison: the planner runs it first.
	out := mustRewrite(t, "SELECT id FROM customers WHERE id = 1", dec)
	lacks(t, out, "OFFSET")
	for _, f := range []string{"region = 'EU' OR region = 'UK'", "region IN ('EU', 'UK')", "lower(region) = 'eu'",
		"EXISTS (SELECT 1 FROM region_map m WHERE m.region = region)", "region = current_setting('app.region')"} {
		c := *dec["shop.customers"]
		c.RowFilters = []policy.RowFilter{{Expr: f, Policy: "f"}}
		d := simpleDecisions()
		d["shop.customers"] = &c
		out := mustRewrite(t, "SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id", d)
		contains(t, out, "OFFSET 0) c")
		// Writes guard their own condition with the filter.
		out = mustRewrite(t, "UPDATE customers SET name = 'x' WHERE 1 / id = 1", d)
		contains(t, out, "THEN (1 / id) = 1 ELSE false END")
		if strings.Index(out, "WHERE") > strings.Index(out, "CASE WHEN") {
			t.Fatalf("filter not first: %s", out)
		}
	}
	for _, n := range []string{"a = 1", "a = 1 AND b <> 'x'", "a IS NULL", "flag", "1 = a AND b >= 2"} {
		tree := mustParse(t, "SELECT "+n)
		if !simpleFilter(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val) {
			t.Fatalf("%s should be simple", n)
		}
	}
}

func TestMerge(t *testing.T) {
	dec := simpleDecisions()
	out := mustRewrite(t, "MERGE INTO customers c USING orders o ON o.customer_id = c.id "+
		"WHEN MATCHED AND c.ssn = 'x' THEN UPDATE SET name = c.ssn WHEN NOT MATCHED THEN INSERT (id, name) VALUES (o.id, 'n')", dec)
	want := `MERGE INTO shop.customers c USING shop.orders o ON c.region = 'EU' AND CASE WHEN c.region = 'EU' THEN o.customer_id = c.id ELSE false END ` +
		`WHEN MATCHED AND c.region = 'EU' AND "right"(c.ssn, 4) = 'x' THEN UPDATE SET name = "right"(c.ssn, 4) ` +
		`WHEN NOT MATCHED THEN INSERT (id, name) VALUES (o.id, 'n')`
	if out != want {
		t.Fatalf("\n got: %s\nwant: %s", out, want)
	}
	// The source is a read under its own policy.
	out = mustRewrite(t, "MERGE INTO orders o USING customers c ON o.customer_id = c.id WHEN MATCHED THEN UPDATE SET total = length(c.ssn)", dec)
	assertDerived(t, out)
	for _, sql := range []string{
		"MERGE INTO customers c USING orders o ON o.id = c.id WHEN MATCHED THEN UPDATE SET salary = 1",
		"MERGE INTO customers c USING orders o ON o.id = c.id WHEN NOT MATCHED THEN INSERT VALUES (o.id)",
		"MERGE INTO orders o USING customers c ON o.id = c.id WHEN MATCHED THEN UPDATE SET total = c.salary",
	} {
		_, err := rewriteSQL(t, sql, dec)
		wantKind(t, err, policy.ErrColumnDenied)
	}
	_, err := rewriteSQL(t, "MERGE INTO audit a USING orders o ON o.id = a.id WHEN MATCHED THEN DELETE", dec)
	wantKind(t, err, policy.ErrAccessDenied)
}

func TestCursorsAreTheCallers(t *testing.T) {
	dec := simpleDecisions()
	a := mustRewrite(t, "DECLARE cur CURSOR WITH HOLD FOR SELECT ssn FROM customers; FETCH 1 FROM cur; MOVE cur; CLOSE cur", dec)
	if strings.Count(a, "sqe6122abab967d_cur") != 4 {
		t.Fatalf("cursor names:\n%s", a)
	}
	req := request("FETCH ALL FROM cur", dec)
	req.View = &testView{user: req.User, decisions: dec}
	req.View.(*testView).user.Name = "bob"
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil || strings.Contains(res.SQL, "sqe6122abab967d_cur") {
		t.Fatalf("another caller reaches the cursor: %v %v", res, err)
	}
	out := mustRewrite(t, "CLOSE ALL", dec)
	if out != "CLOSE ALL" {
		t.Fatal(out)
	}
}

func TestSystemCatalogs(t *testing.T) {
	dec := simpleDecisions()
	for _, sql := range []string{"SELECT * FROM pg_catalog.pg_stats", "SELECT * FROM pg_catalog.pg_statistic", "SELECT * FROM pg_catalog.pg_stat_activity",
		"SELECT * FROM public.pg_stat_statements", "SELECT * FROM pg_catalog.pg_prepared_statements", "SELECT * FROM pg_catalog.pg_cursors",
		"SELECT pg_stat_get_live_tuples(1)", "SELECT pg_catalog.pg_stat_get_activity(1)"} {
		_, err := rewriteSQL(t, sql, dec)
		wantKind(t, err, rewriter.ErrUnsupported)
	}
	cat := testCatalog()
	name := rewriter.Column{Name: "table_name", DataType: "name", ColumnType: "name"}
	cat.Tables["information_schema.columns"] = []rewriter.Column{
		{Name: "table_schema", DataType: "name", ColumnType: "name"}, name, {Name: "column_name", DataType: "name", ColumnType: "name"}}
	cat.Tables["pg_catalog.pg_attribute"] = []rewriter.Column{{Name: "attrelid", DataType: "oid", ColumnType: "oid"}, {Name: "attname", DataType: "name", ColumnType: "name"}}
	cat.Tables["pg_catalog.pg_class"] = append(cat.Tables["pg_catalog.pg_class"], rewriter.Column{Name: "reltuples", DataType: "real", ColumnType: "real"})
	for sql, want := range map[string]string{
		"SELECT column_name FROM information_schema.columns": `NOT COALESCE((pg_catalog.lower(information_schema.columns.table_schema::pg_catalog.text), ` +
			`pg_catalog.lower(information_schema.columns.table_name::pg_catalog.text), pg_catalog.lower(information_schema.columns.column_name::pg_catalog.text)) IN (('shop', 'customers', 'salary')), false)`,
		"SELECT attname FROM pg_attribute": `NOT COALESCE((pg_catalog.pg_attribute.attrelid, pg_catalog.lower(pg_catalog.pg_attribute.attname::pg_catalog.text)) ` +
			`IN ((pg_catalog.to_regclass('"shop"."customers"')::pg_catalog.oid, 'salary')), false)`,
		"SELECT reltuples FROM pg_class": `NULL::real AS reltuples`,
	} {
		req := request(sql, dec)
		req.Catalog = cat
		res, err := Dialect{}.Rewrite(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if !strings.Contains(res.SQL, want) {
			t.Fatalf("%s:\n got %s\nwant …%s…", sql, res.SQL, want)
		}
	}
}

func TestExplainOnlyOfOpenTables(t *testing.T) {
	dec := simpleDecisions()
	_, err := rewriteSQL(t, "EXPLAIN SELECT * FROM customers", dec)
	wantKind(t, err, rewriter.ErrUnsupported)
	_, err = rewriteSQL(t, "EXPLAIN SELECT * FROM orders WHERE id IN (SELECT id FROM region_map)", dec)
	wantKind(t, err, rewriter.ErrUnsupported)
	mustRewrite(t, "EXPLAIN SELECT * FROM orders", dec)
}

func TestSessionChangesEndAMultiStatement(t *testing.T) {
	for _, sql := range []string{"SET search_path = shop; SELECT 1", "SET standard_conforming_strings = off; SELECT 1", "COMMIT; SELECT 1"} {
		_, err := rewriteSQL(t, sql, nil)
		wantKind(t, err, rewriter.ErrUnsupported)
	}
	mustRewrite(t, "SELECT 1; SET search_path = shop", nil)
}

func TestRewriteNeverPanics(t *testing.T) {
	// Rewrite turns a panic into a refusal; rewriteAll (the fuzz target's
	// entry) is the same code without the guard.
	res, err := Dialect{}.Rewrite(context.Background(), &rewriter.Request{SQL: "SELECT * FROM shop.customers", View: nil})
	if err == nil {
		t.Fatalf("a request without a view: %v", res)
	}
	if !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("%v", err)
	}
}
