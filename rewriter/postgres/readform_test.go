package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
)

// frozenDecisions mask customers with Hive's masks and a context
// function under a row filter; orders are filtered with a mapping-table
// subquery, so that their read form holds a relation besides its own.
func frozenDecisions() map[string]*policy.Decision {
	d := simpleDecisions()
	d["shop.customers"].Masks = map[string]policy.Mask{
		"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
		"email": {Type: "MASK", Policy: "email-mask"},
		"name":  {Type: "CUSTOM", Expr: "{col} || current_user || invoker_role()", Policy: "name-user"},
	}
	d["shop.orders"] = &policy.Decision{
		Allowed: dialecttest.AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "customer_id IN (SELECT id FROM shop.customers WHERE region = 'EU')",
			Policy: "eu-orders"}},
		Masks: map[string]policy.Mask{"total": {Type: "MASK_HASH", Policy: "total-hash"}},
	}
	return d
}

// rewriteAs rewrites sql's single statement as user (primary role
// user+"-role") up to its tree, and prints it.
func rewriteAs(t *testing.T, user, sql string) (*rewrite, string) {
	t.Helper()
	req := request(sql, frozenDecisions())
	req.User.Name, req.User.PrimaryRole = user, user+"-role"
	tree := mustParse(t, sql)
	stmt := tree.Stmts[0].Stmt
	r, _, want, err := rewriteTree(context.Background(), req, stmt, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	text, err := r.print(stmt, want, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r, text
}

// TestFrozenTargetsAreShared: from a read form's second rewrite on, its
// masks that hold no context function and no subquery are the frozen
// trees, the same for every caller, and the statement prints as it did;
// a target with a context function is rewritten for each caller.
func TestFrozenTargetsAreShared(t *testing.T) {
	const sql = "SELECT id, name, ssn, email FROM customers WHERE id = %d"
	_, first := rewriteAs(t, "alice", fmt.Sprintf(sql, 1))
	r, again := rewriteAs(t, "alice", fmt.Sprintf(sql, 1))
	if again != first {
		t.Fatalf("the second rewrite prints otherwise:\n%s\n%s", dialecttest.Short(first), dialecttest.Short(again))
	}
	if len(r.readForms) != 1 || r.readForms[0].frozen == nil {
		t.Fatal("the second rewrite of the read form shares no frozen target")
	}
	pf := r.readForms[0]
	frozen := map[string]bool{}
	for i, n := range pf.sel.TargetList {
		rt := n.GetResTarget()
		frozen[rt.Name] = frozenAt(pf, i, rt) != nil
	}
	for name, want := range map[string]bool{"id": true, "region": true, "ssn": true, "email": true, "name": false} {
		if frozen[name] != want {
			t.Fatalf("target %s frozen: %v, want %v", name, frozen[name], want)
		}
	}
	_, bob := rewriteAs(t, "bob", fmt.Sprintf(sql, 1))
	if !strings.Contains(bob, "'bob'") || !strings.Contains(bob, "'bob-role'") || strings.Contains(bob, "alice") {
		t.Fatalf("the context functions were not bob's: %s", dialecttest.Short(bob))
	}
	if !strings.Contains(again, "'alice'") || !strings.Contains(again, "'alice-role'") {
		t.Fatalf("the context functions were not alice's: %s", dialecttest.Short(again))
	}
}

// TestFrozenTargetsUnderConcurrency: rewrites sharing frozen targets from
// several goroutines print what one rewrite alone prints (and, under
// -race, read the shared trees only).
func TestFrozenTargetsUnderConcurrency(t *testing.T) {
	rewrites := map[string]func() (string, error){}
	for _, shape := range []string{
		"SELECT id, ssn, email FROM customers WHERE id = %d",
		"SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %d",
		"SELECT email FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total = %d)",
	} {
		for i := range 5 {
			sql := fmt.Sprintf(shape, i)
			rewrites[sql] = func() (string, error) {
				req := request(sql, frozenDecisions())
				req.User.Name, req.User.PrimaryRole = "alice", "alice-role"
				res, err := Dialect{}.Rewrite(context.Background(), req)
				if err != nil {
					return "", err
				}
				return res.SQL, nil
			}
		}
	}
	dialecttest.SameUnderConcurrency(t, rewrites)
}

// TestFrozenableTargets: which read-form targets are rewritten once.
func TestFrozenableTargets(t *testing.T) {
	frozen := map[string][]string{
		"shop.customers.ssn": {"ssn"},
		"ssn":                {"ssn"},
		"upper(ssn) || 'x'":  {"ssn"},
		"CASE WHEN region = 'EU' THEN ssn::text END":     {"region", "ssn"},
		"NULL::varchar(11)":                              {},
		"coalesce(ssn, email) COLLATE \"C\"":             {"ssn", "email"},
		"regexp_replace(ssn, '[0-9]', 'x', 'g') IS NULL": {"ssn"},
		"pg_catalog.lower(ssn)":                          {"ssn"},
		"NOT (id > 3 AND id IN (1, 2))":                  {"id", "id"},
		"GREATEST(length(ssn) - 4, 0)":                   {"ssn"},
		"ssn[1]":                                         {"ssn"},
		"(CAST('{1,2}' AS bigint[]))[width_bucket(id, CAST('{0,10}' AS bigint[]))]": {"id"},
	}
	refused := []string{
		"current_user",
		"ssn || session_user",
		"ssn || invoker_role()",
		"session_attribute('dept')",
		"pg_read_file('x')",
		"(SELECT ssn FROM shop.customers)",
		"EXISTS (SELECT 1)",
		"other.t.ssn",
		"customers.ssn",
		"shop.orders.ssn",
		"count(*)",
		"sum(id) OVER ()",
		"public.f(ssn)",
		"$1",
		"ROW(ssn, email)",
		"(ssn).f",
		"ARRAY[ssn]",
		"(CAST('{1}' AS int[]))[(SELECT 1)]",
		"LEAST(id, (SELECT 1))",
	}
	form := func(expr string) *pg.Node {
		tree, err := pg.Parse("SELECT " + expr + " AS x FROM shop.customers")
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0]
	}
	for expr, cols := range frozen {
		got := frozenableColumns(form(expr), "shop", "customers")
		if got == nil || strings.Join(got, ",") != strings.Join(cols, ",") {
			t.Fatalf("%s: columns %q, want %q", expr, got, cols)
		}
	}
	for _, expr := range refused {
		if got := frozenableColumns(form(expr), "shop", "customers"); got != nil {
			t.Fatalf("%s: frozenable, reading %q", expr, got)
		}
	}
}

// TestBuiltinMasksFreeze: every built-in mask, on every kind of column,
// is a frozenable read-form target (a built-in mask the allow-list
// refused would be rewritten on every statement instead).
func TestBuiltinMasksFreeze(t *testing.T) {
	types := [][2]string{{"character varying", "character varying(40)"}, {"integer", "integer"}, {"bigint", "bigint"}, {"date", "date"}}
	dialecttest.EveryBuiltinMask(t, udf.Postgres, `"shop"."customers"."c"`, `"c"`, types, func(desc, x string) {
		tree, err := pg.Parse("SELECT " + x + " AS x FROM shop.customers")
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if frozenableColumns(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0], "shop", "customers") == nil {
			t.Errorf("%s is not frozenable:\n%s", desc, x)
		}
	})
}

// TestFrozenTargetsStillCheckTheirColumns: a frozen target naming a
// column the table does not have is refused as the policy rewrite
// refuses it.
func TestFrozenTargetsStillCheckTheirColumns(t *testing.T) {
	f, ok := readFormOf("SELECT upper(shop.customers.ssn) AS ssn FROM shop.customers")
	if !ok {
		t.Fatal("the read form was refused")
	}
	first, _ := f.instance()
	f.freeze(first)
	sel, frozen := f.instance()
	if frozen == nil || frozen[0] == nil || sel.TargetList[0].GetResTarget().Val != frozen[0].val {
		t.Fatal("the target was not frozen")
	}
	r := newRewrite(context.Background(), request("SELECT 1", nil), nil)
	table := policy.TableName{Schema: "shop", Table: "customers"}
	for _, tc := range []struct {
		columns []rewriter.Column
		ok      bool
	}{
		{[]rewriter.Column{{Name: "id"}, {Name: "ssn"}}, true},
		{[]rewriter.Column{{Name: "id"}}, false},
	} {
		ref := &tableRef{alias: "customers", table: table, qualifier: []string{"shop", "customers"},
			plan: &rewriter.TablePlan{Table: table, All: tc.columns}}
		err := r.policyExprsUnfrozen(ref, sel, f, frozen)
		if (err == nil) != tc.ok {
			t.Fatalf("columns %v: %v", tc.columns, err)
		}
		if err != nil && !strings.Contains(err.Error(), "names a column") {
			t.Fatalf("refused otherwise than the policy rewrite: %v", err)
		}
	}
}

// TestFrozenChanged: the tests' check that no rewrite changes a frozen
// target sees a change.
func TestFrozenChanged(t *testing.T) {
	val, err := parseExpr("upper(shop.customers.ssn)")
	if err != nil {
		t.Fatal(err)
	}
	forms := []placedForm{{frozen: []*frozenTarget{nil, {val: val, encoding: encodingOf(val)}}}}
	if frozenChanged(forms) {
		t.Fatal("an unchanged target reads as changed")
	}
	val.GetFuncCall().Funcname[0].GetString_().Sval = "lower"
	if !frozenChanged(forms) {
		t.Fatal("a changed target reads as unchanged")
	}
}

// TestReadFormsPrintAsPlaceholderTables: read forms that read their table
// only stand in the skeleton as one placeholder table, in every place a
// FROM item goes; the print is the whole print; a read form whose filter
// reads another table has its targets spliced instead.
func TestReadFormsPrintAsPlaceholderTables(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		tables int // read forms printed as placeholder tables
	}{
		{"SELECT id, ssn, email FROM customers WHERE id = 1", 1},
		{"SELECT c.ssn, m.role FROM customers c JOIN region_map m ON m.region = c.region", 2},
		{"SELECT c.ssn FROM shop.region_map m, customers c LEFT JOIN customers d ON d.id = c.id", 3},
		{"SELECT ssn FROM customers WHERE id IN (SELECT id FROM customers c2) UNION SELECT email FROM customers", 3},
		{"WITH x AS (SELECT ssn FROM customers) SELECT * FROM x", 1},
		{"SELECT * FROM items i, LATERAL (SELECT ssn FROM customers c WHERE c.id = i.id) l", 1},
		{"DELETE FROM items USING customers c WHERE c.id = items.id AND c.ssn = '1'", 1},
		{"UPDATE items SET label = c.email FROM customers c WHERE c.id = items.id", 1},
		{"INSERT INTO items (id, label) SELECT id, ssn FROM customers", 1},
		{"SELECT o.total, c.ssn FROM orders o JOIN customers c ON c.id = o.customer_id", 2},
	} {
		tree := mustParse(t, tc.sql)
		stmt := tree.Stmts[0].Stmt
		req := request(tc.sql, frozenDecisions())
		r, _, want, err := rewriteTree(context.Background(), req, stmt, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		whole, err := deparse(stmt)
		if err != nil {
			t.Fatal(err)
		}
		tables := 0
		for _, pf := range r.readForms {
			if _, _, ok := printForm(pf); ok {
				tables++
			}
		}
		spliced, ok := r.printSpliced(stmt, want, tc.sql)
		if !ok || spliced != whole {
			t.Fatalf("%s: spliced %v:\n%s\n%s", tc.sql, ok, dialecttest.Short(spliced), dialecttest.Short(whole))
		}
		if after, _ := deparse(stmt); after != whole {
			t.Fatalf("%s: the spliced print left the tree changed", tc.sql)
		}
		if tables != tc.tables {
			t.Fatalf("%s: %d read forms as placeholder tables, want %d", tc.sql, tables, tc.tables)
		}
	}
}

// TestFromItemBoundary: a placeholder table is spliced only where a FROM
// item is printed.
func TestFromItemBoundary(t *testing.T) {
	for _, tc := range []struct {
		before, after string
		ok            bool
	}{
		{"SELECT a FROM ", " c WHERE", true},
		{"SELECT a FROM x, ", " c", true},
		{"SELECT a FROM x JOIN ", " c ON true", true},
		{"DELETE FROM t USING ", " c WHERE", true},
		{"SELECT a FROM ", "", false},
		{"SELECT a FROM ", " ", false},
		{"SELECT a FROM ", "  c", false},
		{"TABLE ", " c", false},
		{"INSERT INTO ", " c", false},
		{"SELECT a FROM ONLY ", " c", false},
		{"SELECT a FROM(", " c", false},
	} {
		if got := fromItemBoundary(tc.before, tc.after); got != tc.ok {
			t.Fatalf("%q|%q: %v", tc.before, tc.after, got)
		}
	}
}
