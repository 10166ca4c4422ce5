package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// listingRequest reads sql with the listing's columns in the catalog and
// a restricted column (shop.customers.salary) to hide.
func listingRequest(t *testing.T, sql string, dec map[string]*policy.Decision) string {
	t.Helper()
	cat := testCatalog()
	named := func(n string) rewriter.Column { return rewriter.Column{Name: n, DataType: "name", ColumnType: "name"} }
	cat.Tables["information_schema.columns"] = []rewriter.Column{named("table_catalog"), named("table_schema"), named("table_name"),
		named("column_name"), {Name: "ordinal_position", DataType: "integer", ColumnType: "integer"}, named("udt_name")}
	req := request(sql, dec)
	req.Catalog = cat
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res.SQL
}

// fenced returns the fenced derived table of the output: what is between
// its FROM and OFFSET 0.
func fenced(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "FROM information_schema.columns WHERE")
	j := strings.Index(out, "OFFSET 0")
	if i < 0 || j < i {
		t.Fatalf("no fenced listing:\n%s", out)
	}
	return out[i:j]
}

// A fenced column listing takes the application's conditions that select
// its rows by equality with a constant, a placeholder or
// current_database(); no other condition crosses the fence.
func TestListingConditionsCrossTheFence(t *testing.T) {
	dec := simpleDecisions()
	// A subquery in the conditions fences the listing.
	fallible := " AND (SELECT count(*) FROM shop.orders) > 0"
	out := listingRequest(t, "SELECT c.column_name FROM information_schema.columns c JOIN pg_catalog.pg_class p ON p.relname = c.table_name "+
		"WHERE c.table_catalog = current_database() AND table_schema = $1 AND 'x' = c.table_name AND c.ordinal_position > 1"+fallible, dec)
	in := fenced(t, out)
	for _, want := range []string{"information_schema.columns.table_catalog = current_database()",
		"information_schema.columns.table_schema = $1", "information_schema.columns.table_name = 'x'", "'salary'"} {
		if !strings.Contains(in, want) {
			t.Fatalf("fence lacks %q:\n%s", want, in)
		}
	}
	for _, not := range []string{"ordinal_position >", "count(", "relname"} {
		if strings.Contains(in, not) {
			t.Fatalf("fence has %q:\n%s", not, in)
		}
	}
	// The application's conditions stay where they were.
	if !strings.Contains(out[strings.Index(out, "OFFSET 0"):], "c.table_catalog = current_database()") {
		t.Fatalf("the condition left its place:\n%s", out)
	}
	for _, sql := range []string{
		// On the nullable side of an outer join: the WHERE clause keeps
		// its NULL-extended rows from another match.
		"SELECT 1 FROM pg_catalog.pg_class p LEFT JOIN information_schema.columns c ON c.table_name = p.relname WHERE c.table_name = 'x'" + fallible,
		// Unqualified, with two listings in scope.
		"SELECT 1 FROM information_schema.columns a, information_schema.columns b WHERE table_name = 'x'" + fallible,
		// Not an equality with a fixed operand.
		"SELECT 1 FROM information_schema.columns c WHERE c.table_name = c.column_name" + fallible,
		"SELECT 1 FROM information_schema.columns c WHERE c.table_name = lower($1)" + fallible,
		"SELECT 1 FROM information_schema.columns c WHERE c.table_name = 'x' OR c.table_name = 'y'" + fallible,
	} {
		in := fenced(t, listingRequest(t, sql, dec))
		if strings.Count(in, "table_name") != 1 { // the listing filter's own
			t.Fatalf("%s: copied into the fence:\n%s", sql, in)
		}
	}
	// A masked column of the listing is not read raw inside the fence.
	dec["information_schema.columns"] = &policy.Decision{Allowed: map[policy.Access]bool{policy.Select: true},
		Masks: map[string]policy.Mask{"table_name": {Type: "MASK_NULL", Policy: "no-names"}}}
	in = fenced(t, listingRequest(t, "SELECT 1 FROM information_schema.columns c WHERE c.table_name = 'x' AND c.table_schema = 'shop'"+fallible, dec))
	if strings.Contains(in, "table_name = 'x'") || !strings.Contains(in, "table_schema = 'shop'") {
		t.Fatalf("masked column:\n%s", in)
	}
}
