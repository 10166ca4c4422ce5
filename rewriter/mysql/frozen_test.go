package mysql

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
)

// frozenDecisions mask customers with Hive's masks and one that reads the
// caller, under a row filter.
func frozenDecisions() map[string]*policy.Decision {
	d := splicedDecisions()
	d["shop.customers"].Masks["name"] = policy.Mask{Type: "CUSTOM", Expr: "concat({col}, CURRENT_USER())", Policy: "name-user"}
	return d
}

// rewriteAs rewrites sql as user, and counts what its print spliced.
func rewriteAs(t *testing.T, user, sql string) (text string, entries, thens int) {
	t.Helper()
	req := request(sql, frozenDecisions())
	req.User.Name = user
	var mu sync.Mutex
	onSplice = func(e []spliced, w []splicedThen) {
		mu.Lock()
		entries, thens = entries+len(e), thens+len(w)
		mu.Unlock()
	}
	defer func() { onSplice = nil }()
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res.SQL, entries, thens
}

// TestFrozenMasksAreShared: from a mask's second use on, the statement
// places the frozen tree and splices its print (whole entries, an entry
// composed around a guarded mask, a guarded mask inside an expression);
// the statement prints as it did; a mask that reads the caller is
// rewritten for each caller.
func TestFrozenMasksAreShared(t *testing.T) {
	for _, tc := range []struct {
		sql           string
		entries, then int
	}{
		// ssn and email are guarded masks standing as entries.
		{"SELECT id, ssn, email FROM customers WHERE id = %d", 2, 0},
		// Inside an expression, the guarded masks are spliced as the
		// results of their CASEs.
		{"SELECT upper(ssn) AS u, concat(email, 'x') AS e FROM customers WHERE id = %d", 2, 0},
		{"SELECT id FROM customers WHERE ssn LIKE '%%12%%' AND id > %d ORDER BY email", 0, 2},
	} {
		first, _, _ := rewriteAs(t, "alice", fmt.Sprintf(tc.sql, 1))
		again, entries, thens := rewriteAs(t, "alice", fmt.Sprintf(tc.sql, 1))
		if again != first {
			t.Fatalf("%s: the second rewrite prints otherwise:\n%s\n%s", tc.sql, short(first), short(again))
		}
		if entries != tc.entries || thens != tc.then {
			t.Fatalf("%s: spliced %d entries and %d results, want %d and %d:\n%s", tc.sql, entries, thens, tc.entries, tc.then, short(again))
		}
	}
	const sql = "SELECT name, ssn FROM customers WHERE id = 1"
	rewriteAs(t, "alice", sql)
	alice, _, _ := rewriteAs(t, "alice", sql)
	bob, _, _ := rewriteAs(t, "bob", sql)
	if !strings.Contains(alice, "'alice'") || !strings.Contains(bob, "'bob'") || strings.Contains(bob, "alice") {
		t.Fatalf("the mask reading the caller was shared:\n%s\n%s", short(alice), short(bob))
	}
}

// TestFrozenMasksUnderConcurrency: statements sharing frozen masks from
// several goroutines print what one statement alone prints (and, under
// -race, read the shared trees only).
func TestFrozenMasksUnderConcurrency(t *testing.T) {
	rewrites := map[string]func() (string, error){}
	add := func(sql string, decisions func() map[string]*policy.Decision) {
		rewrites[sql] = func() (string, error) {
			res, err := Dialect{}.Rewrite(context.Background(), request(sql, decisions()))
			if err != nil {
				return "", err
			}
			return res.SQL, nil
		}
	}
	for i := range 5 {
		for _, shape := range []string{
			"SELECT id, ssn, email, name FROM customers WHERE id = %d",
			"SELECT upper(ssn) AS u FROM customers WHERE email LIKE 'a%%' AND id > %d",
			"SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %d",
		} {
			add(fmt.Sprintf(shape, i), frozenDecisions)
		}
		// Built-in masks only: the join reads a static read form.
		add(fmt.Sprintf("SELECT c.ssn, c.email, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.id < %d", i), splicedDecisions)
	}
	dialecttest.SameUnderConcurrency(t, rewrites)
}

// TestFrozenableMasks: which masks are rewritten once.
func TestFrozenableMasks(t *testing.T) {
	for expr, want := range map[string]bool{
		"`shop`.`customers`.`ssn`":                                         true,
		"concat(left(ssn, 2), repeat('x', 3))":                             true,
		"case when ssn is null then null else sha2(ssn, 256) end":          true,
		"convert(cast(ssn as char(11)) using utf8mb4) collate utf8mb4_bin": true,
		"regexp_replace(ssn, '[0-9]', 'x')":                                true,
		"ifnull(ssn, ssn = ssn)":                                           true,
		"not (ssn > 'a' and ssn < 'b' or ssn = _utf8mb4'c')":               true,
		"concat(ssn, current_user())":                                      false,
		"concat(ssn, user())":                                              false,
		"session_attribute('dept')":                                        false,
		"is_role_in_session('admin')":                                      false,
		"(select max(ssn) from customers)":                                 false,
		"exists (select 1)":                                                false,
		"concat(ssn, @v)":                                                  false,
		"concat(ssn, ?)":                                                   false,
		"load_file('/etc/passwd')":                                         false,
		"db.f(ssn)":                                                        false,
		"sum(ssn)":                                                         false,
		"ssn in (1, 2)":                                                    true,
		"ssn in (1, ?)":                                                    false,
		"ssn in (select 1)":                                                false,
		"date_add(date'0000-01-01', interval year(born) year)":             true,
		"date_add(born, interval (select 1) year)":                         false,
		"substring(cast(abs(id) as char), 4 + 1)":                          true,
		"substring(ssn, (select 1))":                                       false,
		"substring((select ssn from customers), 2)":                        false,
	} {
		e, err := parseExprUncached(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := frozenableMask(e); got != want {
			t.Fatalf("%s: frozenable %v, want %v", expr, got, want)
		}
	}
}

// TestBuiltinMasksFreeze: every built-in mask, on every kind of column,
// is rewritten once (a built-in mask the allow-list refused would be
// rewritten on every statement instead).
func TestBuiltinMasksFreeze(t *testing.T) {
	types := [][2]string{{"varchar", "varchar(40)"}, {"int", "int"}, {"bigint", "bigint"}, {"date", "date"}}
	dialecttest.EveryBuiltinMask(t, udf.MySQL, "`shop`.`customers`.`c`", "`c`", types, func(desc, x string) {
		e, err := parseExprUncached(x)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if !frozenableMask(e) {
			t.Errorf("%s is not frozenable:\n%s", desc, x)
		}
	})
}

// TestFrozenChanged: the tests' check that no statement changes a frozen
// mask sees a change.
func TestFrozenChanged(t *testing.T) {
	e, err := parseExprUncached("upper(`shop`.`customers`.`ssn`)")
	if err != nil {
		t.Fatal(err)
	}
	print, err := format(e, false)
	if err != nil {
		t.Fatal(err)
	}
	placed := []*frozenMask{{expr: e, print: print}}
	if frozenChanged(placed) {
		t.Fatal("an unchanged mask reads as changed")
	}
	e.(*sqlparser.FuncExpr).Name = sqlparser.NewIdentifierCI("lower")
	if !frozenChanged(placed) {
		t.Fatal("a changed mask reads as unchanged")
	}
}

// TestThenBoundary: a WHEN's result is spliced only where the printer
// puts one.
func TestThenBoundary(t *testing.T) {
	for _, tc := range []struct {
		before, after string
		ok            bool
	}{
		{"case when x then ", " end", true},
		{"case when x then ", " end as `a`", true},
		{"case when x then ", " when y then 1 end", true},
		{"case when x then ", " else 1 end", true},
		{"case when x then ", " as `a`", false},
		{"case when x then ", ", 1", false},
		{"select ", " end", false},
		{"case when x then(", " end", false},
	} {
		if got := thenBoundary(tc.before, tc.after); got != tc.ok {
			t.Fatalf("%q|%q: %v", tc.before, tc.after, got)
		}
	}
}

// TestReadFormsShareFrozenEntries: from a read form's second instance on,
// its mask entries are the frozen trees, spliced by their prints, and the
// statement prints as it did; an entry that reads the caller is rewritten
// for each caller.
func TestReadFormsShareFrozenEntries(t *testing.T) {
	const sql = "SELECT c.name, c.ssn, c.email, o.total FROM customers c LEFT JOIN orders o ON o.customer_id = c.id"
	first, _, _ := rewriteAs(t, "alice", sql)
	if !strings.Contains(first, "(select ") {
		t.Fatalf("the statement does not read customers through its read form: %s", short(first))
	}
	again, entries, _ := rewriteAs(t, "alice", sql)
	if again != first {
		t.Fatalf("the second rewrite prints otherwise:\n%s\n%s", short(first), short(again))
	}
	// ssn and email, spliced whole; the name reads the caller.
	if entries != 2 {
		t.Fatalf("%d entries spliced, want 2: %s", entries, short(again))
	}
	form, err := readFormOf(readFormText(t))
	if err != nil {
		t.Fatal(err)
	}
	sel, frozen := form.instance()
	if frozen == nil {
		t.Fatal("the read form has no frozen entry")
	}
	for i, se := range sel.SelectExprs.Exprs {
		name := se.(*sqlparser.AliasedExpr).As.String()
		if want := name != "name"; (frozen[i] != nil) != want {
			t.Fatalf("entry %s frozen: %v", name, frozen[i] != nil)
		}
	}
	bob, _, _ := rewriteAs(t, "bob", sql)
	if !strings.Contains(bob, "'bob'") || strings.Contains(bob, "alice") {
		t.Fatalf("the entry reading the caller was shared: %s", short(bob))
	}
}

// readFormText is the text of the customers read form the policy of
// frozenDecisions gives.
func readFormText(t *testing.T) string {
	t.Helper()
	for text, f := range readForms.Snapshot() {
		if strings.Contains(text, "FROM `shop`.`customers`") && len(f.entries) > 0 && strings.Contains(text, "CURRENT_USER()") {
			return text
		}
	}
	t.Fatal("no customers read form was parsed")
	return ""
}

// TestGuardedMasksAreShared: a guarded mask standing as a whole entry of a
// flattened read is placed as one frozen tree, shared by every statement
// whose guard prints the same, and spliced without formatting the guard;
// a guard that prints otherwise (another caller's filter, another alias)
// gets its own.
func TestGuardedMasksAreShared(t *testing.T) {
	entriesOf := func(region, sql string) (string, []sqlparser.Expr) {
		t.Helper()
		d := splicedDecisions()
		d["shop.customers"].RowFilters = []policy.RowFilter{{Expr: "region = '" + region + "'", Policy: "region-" + region}}
		var got []sqlparser.Expr
		onSplice = func(e []spliced, _ []splicedThen) {
			for _, s := range e {
				got = append(got, s.expr)
			}
		}
		defer func() { onSplice = nil }()
		res, err := Dialect{}.Rewrite(context.Background(), request(sql, d))
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res.SQL, got
	}
	guardOf := func(e sqlparser.Expr) string {
		if m, _, ok := nullableAsColumn(e); ok {
			e = m
		}
		if c, ok := e.(*sqlparser.CaseExpr); ok && len(c.Whens) == 1 {
			return sqlparser.String(c.Whens[0].Cond)
		}
		return ""
	}
	const shape = "SELECT id, ssn, email FROM customers WHERE id = %d"
	entriesOf("EU", fmt.Sprintf(shape, 1))
	_, second := entriesOf("EU", fmt.Sprintf(shape, 2))
	text, third := entriesOf("EU", fmt.Sprintf(shape, 3))
	if len(second) != 2 || len(third) != 2 || second[0] != third[0] || second[1] != third[1] {
		t.Fatalf("the guarded masks are not shared: %v / %v", second, third)
	}
	for _, e := range third {
		if g := guardOf(e); !strings.Contains(g, "'EU'") {
			t.Fatalf("entry %.60s is not guarded by the filter:\n%s", sqlparser.String(e), short(text))
		}
	}
	usText, us := entriesOf("US", fmt.Sprintf(shape, 4))
	if len(us) != 2 || us[0] == third[0] || us[1] == third[1] || !strings.Contains(guardOf(us[0]), "'US'") || strings.Contains(usText, "'EU'") {
		t.Fatalf("a statement under another filter took the EU guarded masks:\n%s", short(usText))
	}
	_, aliased := entriesOf("EU", "SELECT c.id, c.ssn AS ssn, c.email AS email FROM customers c WHERE c.id = 6")
	if len(aliased) != 2 || aliased[0] == third[0] || !strings.Contains(guardOf(aliased[0]), "c.region") {
		t.Fatalf("another qualifier shared the guarded masks: %v", aliased)
	}
}

// TestStaticReadFormsPrintAsPlaceholderTables: a join reads its tables
// through their read forms; a form the policy rewrite cannot change
// stands in the print's skeleton as one placeholder table (fenced or
// not), and the statement prints as it does whole (the package's
// cross-check); a form whose filter reads the caller is printed in place.
func TestStaticReadFormsPrintAsPlaceholderTables(t *testing.T) {
	decisions := func(filter string) map[string]*policy.Decision {
		d := splicedDecisions()
		d["shop.customers"].RowFilters = []policy.RowFilter{{Expr: filter, Policy: "rows"}}
		return d
	}
	tablesOf := func(user, filter, sql string) (string, int) {
		t.Helper()
		n := 0
		onSplicedTables = func(k int) { n += k }
		defer func() { onSplicedTables = nil }()
		req := request(sql, decisions(filter))
		req.User.Name = user
		res, err := Dialect{}.Rewrite(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res.SQL, n
	}
	for _, tc := range []struct {
		filter, sql string
		tables      int
	}{
		{"region = 'EU'", "SELECT c.name, c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %d", 1},
		// A self join: two instances of one form.
		{"region = 'EU'", "SELECT a.ssn, b.email FROM customers a JOIN customers b ON a.id = b.id + %d", 2},
		// Fenced: an outer join whose condition can fail.
		{"region = 'EU'", "SELECT c.ssn FROM orders o LEFT JOIN customers c ON c.id = o.customer_id AND upper(c.name) LIKE 'A%%' WHERE o.id > %d", 1},
		// In a subquery.
		{"region IN ('EU', 'UK')", "SELECT id FROM orders WHERE customer_id IN (SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %d)", 1},
		// The filter reads the caller: printed in place.
		{"region = CURRENT_USER()", "SELECT c.name, c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %d", 0},
	} {
		for i := range 3 {
			text, n := tablesOf("alice", tc.filter, fmt.Sprintf(tc.sql, i))
			if n != tc.tables {
				t.Fatalf("%s under %s: %d placeholder tables, want %d:\n%s", tc.sql, tc.filter, n, tc.tables, short(text))
			}
		}
	}
	// Each caller's filter of its own: the caller's own form and print.
	alice, _ := tablesOf("alice", "region = CURRENT_USER()", "SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id")
	bob, _ := tablesOf("bob", "region = CURRENT_USER()", "SELECT c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id")
	if !strings.Contains(alice, "'alice'") || !strings.Contains(bob, "'bob'") || strings.Contains(bob, "alice") {
		t.Fatalf("a form reading the caller was shared:\n%s\n%s", short(alice), short(bob))
	}
}
