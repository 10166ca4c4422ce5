package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// splicedDecisions mask customers with Hive's string masks, whose SQL is
// what splicing is for, under a row filter.
func splicedDecisions() map[string]*policy.Decision {
	d := simpleDecisions()
	d["shop.customers"].Masks = map[string]policy.Mask{
		"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
		"email": {Type: "MASK", Policy: "email-mask"},
		"name":  {Type: "CUSTOM", Expr: "left({col}, 1) || (SELECT 'x')", Policy: "name-sub"},
	}
	return d
}

// printOf rewrites sql's single statement up to its print and prints it
// spliced, and whole; the tree is the same after the spliced print.
func printOf(t *testing.T, sql string) (spliced string, ok bool, whole string) {
	t.Helper()
	req := request(sql, splicedDecisions())
	tree := mustParse(t, sql)
	stmt := tree.Stmts[0].Stmt
	r, _, want, err := rewriteTree(context.Background(), req, stmt, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	before, err := deparse(stmt)
	if err != nil {
		t.Fatal(err)
	}
	spliced, ok = r.printSpliced(stmt, want, sql)
	after, err := deparse(stmt)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("the spliced print left the tree changed:\n%s\n%s", dialecttest.Short(before), dialecttest.Short(after))
	}
	return spliced, ok, before
}

// TestSplicedPrintIsTheWholePrint: statements that read masked tables in
// several places print spliced, byte for byte as the whole statement
// prints, with no placeholder left.
func TestSplicedPrintIsTheWholePrint(t *testing.T) {
	for _, sql := range []string{
		"SELECT id, ssn, email FROM customers WHERE id = 1",
		"SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > 3",
		"SELECT ssn FROM customers WHERE id IN (SELECT customer_id FROM orders) UNION SELECT email FROM customers",
		"WITH x AS (SELECT ssn, email FROM customers) SELECT * FROM x, customers c WHERE c.email LIKE 'a%'",
		"SELECT (SELECT max(ssn) FROM customers c2 WHERE c2.id = c.id), c.email FROM customers c LEFT JOIN orders o ON upper(c.ssn) = 'x' || o.id",
		"SELECT count(*) FROM customers WHERE length(email) / (id - 7) > 1",
	} {
		spliced, ok, whole := printOf(t, sql)
		if !ok {
			t.Fatalf("%s: not spliced", sql)
		}
		if spliced != whole {
			t.Fatalf("%s: spliced print differs from the whole print:\n%s\n%s", sql, spliced, whole)
		}
		if strings.Contains(spliced, spliceToken()) {
			t.Fatalf("%s: a placeholder is left: %s", sql, spliced)
		}
	}
}

// TestSpliceFallsBackToTheWholePrint: a statement whose text holds the
// placeholders' token, or whose read forms have no target that prints on
// its own, is printed whole.
func TestSpliceFallsBackToTheWholePrint(t *testing.T) {
	for _, sql := range []string{
		"SELECT ssn FROM customers WHERE name = '" + spliceToken() + "0'",
		`SELECT ssn AS "` + spliceToken() + `0" FROM customers`,
		"SELECT id, total FROM orders",
	} {
		if _, ok, _ := printOf(t, sql); ok {
			t.Fatalf("%s: spliced", sql)
		}
		if out := mustRewrite(t, sql, splicedDecisions()); strings.Count(out, spliceToken()) != strings.Count(sql, spliceToken()) {
			t.Fatalf("%s: the rewrite changed the token's occurrences: %s", sql, out)
		}
	}
}

// TestTargetTextIsSelfContained: a target's text is kept only when it is
// one expression that names no relation and holds no subquery.
func TestTargetTextIsSelfContained(t *testing.T) {
	for text, want := range map[string]bool{
		"CASE WHEN region = 'EU' THEN upper(ssn) END": true,
		"left(name, 1) || (SELECT 'x')":               false,
		"(SELECT max(id) FROM shop.orders)":           false,
		"EXISTS (SELECT 1)":                           false,
		"ssn IN (SELECT ssn FROM shop.customers)":     false,
	} {
		e, err := parseExprUncached(text)
		if err != nil {
			t.Fatal(err)
		}
		got := textOfTarget(e)
		if (got != "") != want {
			t.Fatalf("%s: kept %q, want kept: %v", text, got, want)
		}
		if want {
			again, err := deparseExpr(e)
			if err != nil || got != again {
				t.Fatalf("%s: text %q, deparsed %q (%v)", text, got, again, err)
			}
		}
	}
}
