package mysql

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// splicedDecisions mask customers with Hive's string masks, whose SQL is
// what splicing is for, under a row filter.
func splicedDecisions() map[string]*policy.Decision {
	d := dialecttest.CustomersDecision()
	d.Masks = map[string]policy.Mask{
		"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
		"email": {Type: "MASK", Policy: "email-mask"},
	}
	return map[string]*policy.Decision{"shop.customers": d}
}

// TestSplicedPrintIsTheWholePrint: rewritten statements that read masked
// columns in several places, read again as trees, print spliced byte for
// byte as they print whole, with no placeholder left and the tree the
// same afterwards.
func TestSplicedPrintIsTheWholePrint(t *testing.T) {
	for _, sql := range []string{
		"SELECT id, name, ssn, email FROM customers WHERE id = 1",
		"SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > 3",
		"SELECT ssn FROM customers WHERE id IN (SELECT customer_id FROM orders) UNION SELECT email FROM customers",
		"WITH x AS (SELECT ssn, email FROM customers) SELECT * FROM x, customers c WHERE c.email LIKE 'a%'",
		"SELECT (SELECT max(ssn) FROM customers c2 WHERE c2.id = c.id) AS m, c.email FROM customers c LEFT JOIN orders o ON upper(c.ssn) = o.id",
	} {
		out, err := rewriteSQL(t, sql, splicedDecisions())
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		rd, err := read(out, false)
		if err != nil {
			t.Fatalf("%s: the rewrite does not read again: %v", sql, err)
		}
		want := rd.printed(tableRefs(rd.node))
		whole, err := format(rd.node, false)
		if err != nil {
			t.Fatal(err)
		}
		spliced, ok := printSpliced(rd.node, want, out, false, placed{})
		if !ok {
			t.Fatalf("%s: not spliced", sql)
		}
		if spliced != whole {
			t.Fatalf("%s: spliced print differs from the whole print:\n%s\n%s", sql, short(spliced), short(whole))
		}
		if after, _ := format(rd.node, false); after != whole {
			t.Fatalf("%s: the spliced print left the tree changed", sql)
		}
		if strings.Contains(spliced, spliceToken()) {
			t.Fatalf("%s: a placeholder is left", sql)
		}
	}
}

// TestSpliceFallsBackToTheWholePrint: a statement whose text holds the
// placeholders' token is printed whole, and so is one printed for
// NO_BACKSLASH_ESCAPES.
func TestSpliceFallsBackToTheWholePrint(t *testing.T) {
	// email's mask holds a backslash, which the two modes print
	// differently.
	dec := splicedDecisions()
	dec["shop.customers"].Masks["email"] = policy.Mask{Type: "CUSTOM", Policy: "email-slash",
		Expr: "concat('" + strings.Repeat("x", 300) + `\\', {col})`}
	out, err := rewriteSQL(t, "SELECT id, ssn, email FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := read(out, false)
	if err != nil {
		t.Fatal(err)
	}
	want := rd.printed(tableRefs(rd.node))
	if _, ok := printSpliced(rd.node, want, out+" -- "+spliceToken(), false, placed{}); ok {
		t.Fatal("spliced a statement holding the token")
	}
	whole, err := format(rd.node, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole, "x\\', ") {
		t.Fatalf("the backslash is not in the print: %s", short(whole))
	}
	got, err := printVerified(rd, want, out, true, false, placed{})
	if err != nil || got != whole {
		t.Fatalf("NO_BACKSLASH_ESCAPES print: %v\n%s\n%s", err, short(got), short(whole))
	}
}

// TestSplicedEntryIsSelfContained: an entry's text is spliced only when
// it is one expression that names no table and holds no subquery and no
// placeholder.
func TestSplicedEntryIsSelfContained(t *testing.T) {
	for text, want := range map[string]bool{
		"case when `shop`.`customers`.`region` = 'EU' then upper(`shop`.`customers`.`ssn`) end": true,
		"concat(`c`.`name`, (select 'x'))":                false,
		"(select max(`id`) from `shop`.`orders`)":         false,
		"exists (select 1 from dual)":                     false,
		"`ssn` in (select `ssn` from `shop`.`customers`)": false,
		"concat(`name`, ?)":                               false,
		"`a`, `b`":                                        false,
		"`a` as `b`":                                      false,
		"upper(`name`) from `shop`.`customers` where `id` = 1 union": false,
	} {
		if got := checkEntry(text); got != want {
			t.Fatalf("%s: spliced %v, want %v", text, got, want)
		}
	}
}

// TestLiteralListsAreSpliced: an IN list of at least minSplicedList
// unsigned integers or plain strings is put into the print by its text
// (the skeleton holds one placeholder in its place), byte for byte the
// whole print; a shorter list, or one with a placeholder, a negative
// number, an expression or a string either printer escapes, is printed
// and parsed in place.
func TestLiteralListsAreSpliced(t *testing.T) {
	list := func(n int, element func(i int) string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = element(i)
		}
		return strings.Join(out, ", ")
	}
	ints := list(20, func(i int) string { return fmt.Sprint(i * 7) })
	strs := list(20, func(i int) string { return fmt.Sprintf("'c%dé𐀀%%_'", i) })
	for _, tc := range []struct {
		sql   string
		lists []string
	}{
		{"SELECT id, ssn FROM customers WHERE id IN (" + ints + ") AND name <> 'x'", []string{ints}},
		{"SELECT id FROM customers WHERE name NOT IN (" + strs + ")", []string{strs}},
		{"SELECT c.ssn FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.id IN (" + ints + ") OR c.id IN (" + ints + ")", []string{ints, ints}},
		{"SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE id IN (" + ints + "))", []string{ints}},
		{"SELECT id FROM customers WHERE id IN (" + list(15, func(i int) string { return fmt.Sprint(i) }) + ")", nil},
		{"SELECT id FROM customers WHERE id IN (" + ints + ", ?)", nil},
		{"SELECT id FROM customers WHERE id IN (" + ints + ", -1)", nil},
		{"SELECT id FROM customers WHERE id IN (" + ints + ", 1 + 1)", nil},
		{"SELECT id FROM customers WHERE id IN (" + ints + ", 1.5)", nil},
		{"SELECT id FROM customers WHERE name IN (" + strs + ", 'it''s')", nil},
		{"SELECT id FROM customers WHERE name IN (" + strs + ", 'a\\\\b')", nil},
		{"SELECT id FROM customers WHERE name IN (" + strs + ", 'a\\nb')", nil},
		{"SELECT id FROM customers WHERE (id, name) IN ((1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g'), (8, 'h'), (9, 'i'), (10, 'j'), (11, 'k'), (12, 'l'), (13, 'm'), (14, 'n'), (15, 'o'), (16, 'p'))", nil},
	} {
		var got []string
		onSplicedLists = func(texts []string) { got = append(got, texts...) }
		out, err := rewriteSQL(t, tc.sql, splicedDecisions())
		onSplicedLists = nil
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if !slices.Equal(got, tc.lists) {
			t.Fatalf("%s: spliced lists %q, want %q", tc.sql, got, tc.lists)
		}
		for _, l := range got {
			if !strings.Contains(out, " in ("+l+")") {
				t.Fatalf("%s: the list is not in the print:\n%s", tc.sql, short(out))
			}
		}
	}
}

// TestLiteralListsInFrozenMasksStayPut: a mask that is itself a long IN
// list, read bare in a condition of a table without a row filter, is a
// frozen tree other statements share once it is frozen; the print takes
// it whole and never puts a placeholder into it (under -race, statements
// in parallel would otherwise write the shared node).
func TestLiteralListsInFrozenMasksStayPut(t *testing.T) {
	dec := splicedDecisions()
	d := dec["shop.customers"]
	d.RowFilters = nil
	values := make([]string, 20)
	for i := range values {
		values[i] = fmt.Sprintf("'v%d'", i)
	}
	d.Masks = map[string]policy.Mask{"email": {Type: "CUSTOM", Policy: "email-in", Expr: "{col} NOT IN (" + strings.Join(values, ", ") + ")"}}
	for i := range 4 {
		var lists []string
		onSplicedLists = func(texts []string) { lists = append(lists, texts...) }
		out, err := rewriteSQL(t, fmt.Sprintf("SELECT id FROM customers WHERE email = %d AND id IN (%s)", i, strings.Repeat("1, ", 19)+"1"), dec)
		onSplicedLists = nil
		if err != nil {
			t.Fatal(err)
		}
		// The first statement rewrites the mask in its own tree (its
		// list may be put in by its text); the later ones share it.
		if i > 1 && (len(lists) != 1 || strings.Contains(lists[0], "'v")) {
			t.Fatalf("statement %d: spliced lists %q (only the application's list may be)", i, lists)
		}
		if !strings.Contains(out, "not in ("+strings.Join(values, ", ")+")") {
			t.Fatalf("statement %d: the mask is not in the print:\n%s", i, short(out))
		}
	}
	dialecttest.SameUnderConcurrency(t, map[string]func() (string, error){
		"bare": func() (string, error) {
			return rewriteSQL(t, "SELECT id FROM customers WHERE email = 1", dec)
		},
	})
}
