package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestCostlyFiltersAreFenced(t *testing.T) {
	dec := simpleDecisions()
	// A statement whose conditions cannot fail reads the merged form.
	out := mustRewrite(t, "SELECT id FROM customers WHERE id = 1", dec)
	lacks(t, out, "OFFSET")
	// filtered is the decisions with customers under the filter f.
	filtered := func(f string) map[string]*policy.Decision {
		c := *dec["shop.customers"]
		c.RowFilters = []policy.RowFilter{{Expr: f, Policy: "f"}}
		d := simpleDecisions()
		d["shop.customers"] = &c
		return d
	}
	const maskedOuterRead = "SELECT c.id, c.ssn FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.ssn LIKE '1%' ORDER BY c.ssn"
	// An IN list of constants is as simple as a comparison.
	for _, f := range []string{"region IN ('EU', 'UK')", "region NOT IN ('US') AND id > 0"} {
		d := filtered(f)
		lacks(t, mustRewrite(t, maskedOuterRead, d), "OFFSET 0")
		lacks(t, mustRewrite(t, "UPDATE customers SET name = 'x' WHERE id = 1", d), "CASE WHEN")
		contains(t, mustRewrite(t, "UPDATE customers SET name = 'x' WHERE 1 / id = 1", d), "THEN (1 / id) = 1 ELSE false END")
	}
	// The same read under a filter that is not simple is fenced.
	contains(t, mustRewrite(t, maskedOuterRead, filtered("region = 'EU' OR region = 'UK'")), "OFFSET 0) c")
	for _, f := range []string{"region = 'EU' OR region = 'UK'", "lower(region) = 'eu'",
		"EXISTS (SELECT 1 FROM region_map m WHERE m.region = region)", "region = current_setting('app.region')"} {
		d := filtered(f)
		out := mustRewrite(t, "SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id = $1", d)
		lacks(t, out, "OFFSET 0) c")
		out = mustRewrite(t, "SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE 1 / c.id = 1", d)
		contains(t, out, "OFFSET 0) c")
		// Writes guard their own condition with the filter.
		out = mustRewrite(t, "UPDATE customers SET name = 'x' WHERE 1 / id = 1", d)
		contains(t, out, "THEN (1 / id) = 1 ELSE false END")
		if strings.Index(out, "WHERE") > strings.Index(out, "CASE WHEN") {
			t.Fatalf("filter not first: %s", out)
		}
		out = mustRewrite(t, "UPDATE customers SET name = 'x' WHERE id = 1", d)
		contains(t, out, "THEN id = 1 ELSE false END")
	}
	for _, n := range []string{"a = 1", "a = 1 AND b <> 'x'", "a IS NULL", "flag", "1 = a AND b >= 2", "a IN ('x', 'y')", "a NOT IN (1, 2) AND b = 3"} {
		tree := mustParse(t, "SELECT "+n)
		if !simpleFilter(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val) {
			t.Fatalf("%s should be simple", n)
		}
	}
	for _, n := range []string{"a = 1 OR b = 2", "a IN (SELECT x FROM t)", "a IN (1, 1 / b)", "lower(a) IN ('x')", "a = ANY (ARRAY[1, 2])", "a IN (b::int)", "a < ALL (ARRAY[1])"} {
		tree := mustParse(t, "SELECT "+n)
		if simpleFilter(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val) {
			t.Fatalf("%s should not be simple", n)
		}
	}
}

// TestFallibleConjunctsAreGuarded: a single-table read whose only
// conditions that can fail are conjuncts of its WHERE keeps its table
// merged, those conjuncts guarded by the filter over the read form's
// columns; the others stay as written, for the indexes. Where the guard
// cannot be written (a filter column masked or not visible, a filter that
// is not simple), the table is fenced.
func TestFallibleConjunctsAreGuarded(t *testing.T) {
	dec := simpleDecisions()
	for sql, want := range map[string]string{
		"SELECT id FROM customers WHERE lower(name) = 'x' AND id > 3 ORDER BY id LIMIT 5": " customers WHERE CASE WHEN customers.region = 'EU' THEN lower(name) = 'x' ELSE false END AND id > 3 ORDER BY id LIMIT 5",
		"SELECT c.id FROM customers c WHERE 1 / c.id = 1":                                 " c WHERE CASE WHEN c.region = 'EU' THEN (1 / c.id) = 1 ELSE false END",
		"SELECT id FROM customers WHERE lower(ssn) = 'x' OR id = 1":                       " customers WHERE CASE WHEN customers.region = 'EU' THEN lower(ssn) = 'x' OR id = 1 ELSE false END",
	} {
		out := mustRewrite(t, sql, dec)
		contains(t, out, want)
		lacks(t, out, "OFFSET 0")
	}
	// The filter reads a masked column: no guard can read its raw value.
	masked := simpleDecisions()
	c := *masked["shop.customers"]
	c.Masks = map[string]policy.Mask{"region": {Type: "MASK_NULL", Policy: "region-null"}}
	masked["shop.customers"] = &c
	// The filter reads a column the caller may not see.
	hidden := simpleDecisions()
	h := *hidden["shop.customers"]
	h.Restricted = map[string]string{"region": "no-region"}
	hidden["shop.customers"] = &h
	// The filter is not simple.
	or := simpleDecisions()
	o := *or["shop.customers"]
	o.RowFilters = []policy.RowFilter{{Expr: "region = 'EU' OR region = 'UK'", Policy: "europe"}}
	or["shop.customers"] = &o
	for _, d := range []map[string]*policy.Decision{masked, hidden, or} {
		out := mustRewrite(t, "SELECT id FROM customers WHERE lower(name) = 'x'", d)
		contains(t, out, "OFFSET 0) customers WHERE lower(name) = 'x'")
	}
}

// TestFenceRule: a row-filtered table is fenced unless no expression of
// the statement outside its select list can fail on a row's values and no
// masked column of the table is read there unguarded, whatever its filter
// (the planner does not reliably run even a single comparison first). A
// simple filter guards each mask (CASE WHEN filter THEN mask END), so a
// masked column read in a condition or under an outer join fences only a
// table whose filter is not simple.
func TestFenceRule(t *testing.T) {
	mapping := simpleDecisions()
	c := *mapping["shop.customers"]
	c.RowFilters = []policy.RowFilter{{Expr: "region IN (SELECT m.region FROM region_map m WHERE m.role IN ('a'))", Policy: "m"}}
	mapping["shop.customers"] = &c
	for _, dec := range []map[string]*policy.Decision{simpleDecisions(), mapping} {
		simple := dec["shop.customers"].RowFilters[0].Expr == "region = 'EU'"
		for _, tc := range []struct {
			sql    string
			fenced bool
			// guarded: fenced only for the masks it reads or its WHERE
			// conjuncts that can fail, which a simple filter guards
			// (CASE WHEN filter THEN … END).
			masks bool
		}{
			{"SELECT id FROM customers WHERE id = 2", false, false},
			{"SELECT id, ssn, email FROM customers WHERE id = $1", false, false},
			{"SELECT id, upper(ssn) FROM customers WHERE id IN (1, 2) OR name LIKE 'a%' ORDER BY id LIMIT 10", false, false},
			{"SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total BETWEEN 1 AND $1", false, false},
			{"SELECT count(*), max(ssn) FROM customers WHERE name IS NOT NULL GROUP BY region", false, false},
			{"SELECT DISTINCT name FROM customers WHERE id = ANY($1)", false, false},
			{"SELECT name FROM customers WHERE id = $1 FOR UPDATE", false, false},
			{"SELECT c.id FROM customers c WHERE c.id IS DISTINCT FROM 3 AND NOT c.name = 'x'", false, false},
			// Conditions that can fail on a value.
			{"SELECT id FROM customers WHERE id * 429496730 IS NOT NULL", true, true},
			{"SELECT id FROM customers WHERE 1 / (CASE WHEN name = 'x' THEN 0 END) = 1", true, true},
			{"SELECT id FROM customers WHERE name::int = 1", true, true},
			{"SELECT id FROM customers WHERE lower(name) = 'x'", true, true},
			{"SELECT id FROM customers WHERE name LIKE $1", true, true},
			{`SELECT id FROM customers WHERE name LIKE 'a\'`, true, true},
			{"SELECT id FROM customers WHERE name LIKE 'a!%' ESCAPE '!'", true, true},
			{"SELECT id FROM customers WHERE name ~ 'x'", true, true},
			{"SELECT id FROM customers ORDER BY length(name)", true, false},
			{"SELECT id FROM customers WHERE id = 1 GROUP BY id HAVING count(*) > 0", true, false},
			{"SELECT id, row_number() OVER (ORDER BY name) FROM customers", true, false},
			{"SELECT (SELECT 1) FROM customers WHERE id = 1", true, false},
			{"SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders)", true, false},
			{"WITH x AS (SELECT 1) SELECT id FROM customers WHERE id = 1", true, false},
			{"SELECT id FROM customers WHERE id = 1 UNION SELECT 1", true, false},
			{"SELECT DISTINCT ON (name) id FROM customers ORDER BY name", true, false},
			{"SELECT id FROM customers c, LATERAL (SELECT 1) l WHERE c.id = 1", true, false},
			{"SELECT id FROM customers LIMIT (SELECT 1)", true, false},
			{"SELECT id FROM customers WHERE id = 1::int", true, true},
			{"SELECT o.id FROM customers c JOIN orders o ON c = o", true, false},
			// A masked column read in a condition.
			{"SELECT id FROM customers WHERE ssn = '1234'", true, true},
			{"SELECT id FROM customers WHERE email IS NULL", true, true},
			{"SELECT id FROM customers ORDER BY ssn", true, true},
			{"SELECT id, ssn AS s FROM customers ORDER BY s", true, true},
			{"SELECT id, ssn FROM customers ORDER BY 2", true, true},
			{"SELECT ssn, count(*) FROM customers GROUP BY 1", true, true},
			{"SELECT ssn, count(*) FROM customers GROUP BY ssn", true, true},
			{"SELECT c.id FROM customers c JOIN orders o ON o.id::text = c.ssn", true, false},
			{"SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id AND c.ssn > 'x'", true, true},
			{"SELECT c.id FROM customers c JOIN orders USING (ssn)", true, true},
			{"SELECT id FROM customers NATURAL JOIN orders", true, true},
			{"SELECT id FROM customers c WHERE c IS NOT NULL", true, false},
			{"SELECT id FROM customers WHERE customers IS NOT NULL", true, false},
			{"SELECT * FROM customers ORDER BY 1", true, true},
			{"SELECT upper(name) AS n FROM customers ORDER BY n", true, true},
			// A mask on the nullable side of an outer join.
			{"SELECT o.id, c.ssn FROM orders o LEFT JOIN customers c ON c.id = o.customer_id", true, true},
			{"SELECT o.id FROM customers c FULL JOIN orders o ON c.id = o.customer_id", true, true},
		} {
			out, err := rewriteSQL(t, tc.sql, dec)
			if err != nil {
				t.Fatalf("%s: %v", tc.sql, err)
			}
			want := tc.fenced && !(tc.masks && simple)
			if got := strings.Contains(out, "OFFSET 0) c"); got != want {
				t.Errorf("%s (filter %s): fenced %v, want %v\n%s", tc.sql, dec["shop.customers"].RowFilters[0].Expr, got, want, out)
			}

		}
	}
	// In a policy's own expressions, a filter that is not simple or any
	// mask fences the table the expression reads.
	dec := simpleDecisions()
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{
		Expr: "customer_id IN (SELECT c.id FROM customers c)", Policy: "mapped"}}}
	out := mustRewrite(t, "SELECT total FROM orders WHERE id = 1", dec)
	contains(t, out, "OFFSET 0) c")
	// Writes: a simple filter guards a condition that can fail or reads a
	// mask, and only those.
	for _, tc := range []struct {
		sql     string
		guarded bool
	}{
		{"UPDATE customers SET name = 'x' WHERE id = 1", false},
		{"DELETE FROM customers WHERE id IN (1, 2) AND name LIKE 'x%'", false},
		{"UPDATE customers SET name = 'x' WHERE id * 429496730 IS NOT NULL", true},
		{"DELETE FROM customers WHERE ssn = 'x'", true},
		{"UPDATE customers SET name = 'x' WHERE id IN (SELECT customer_id FROM orders)", true},
	} {
		out := mustRewrite(t, tc.sql, simpleDecisions())
		if got := strings.Contains(out, "CASE WHEN"); got != tc.guarded {
			t.Errorf("%s: guarded %v, want %v\n%s", tc.sql, got, tc.guarded, out)
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
	req.View = &dialecttest.View{Caller: req.User, Decisions: dec}
	req.View.(*dialecttest.View).Caller.Name = "bob"
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

// TestAttributeNotationIsRefused: PostgreSQL reads c.name that is no column
// of c as name(c), a function of the whole row. On a write target that
// reads the raw row (RETURNING c.to_json gave back raw and restricted
// values); on a read it is a row-wide expression the fence rule does not
// see. On a table under policy it is refused, naming table and name.
func TestAttributeNotationIsRefused(t *testing.T) {
	dec := simpleDecisions()
	for _, sql := range []string{
		"UPDATE customers c SET name = 'x' WHERE c.id = 1 RETURNING c.to_json",
		"UPDATE customers c SET name = c.to_json::text WHERE c.id = 1",
		"UPDATE customers SET name = 'x' WHERE customers.row_to_json IS NULL",
		"DELETE FROM customers c WHERE c.to_jsonb IS NULL",
		"SELECT id FROM customers c WHERE c.to_json IS NOT NULL",
		"SELECT c.to_json FROM customers c",
		"SELECT shop.customers.to_json FROM shop.customers",
	} {
		_, err := rewriteSQL(t, sql, dec)
		wantKind(t, err, rewriter.ErrUnsupported)
		var re *rewriter.Error
		if !errors.As(err, &re) || re.Table != "shop.customers" || !strings.HasPrefix(re.Column, "to_json") && re.Column != "row_to_json" {
			t.Fatalf("%s: %v, want the table and the name", sql, err)
		}
	}
	// Columns, and tables without policy, are as before.
	mustRewrite(t, "UPDATE customers c SET name = 'x' WHERE c.id = 1 RETURNING c.id, c.name", dec)
	mustRewrite(t, "SELECT o.to_json FROM orders o", map[string]*policy.Decision{})
}
