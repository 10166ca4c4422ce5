package dialecttest

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// HiveDialect is what the Hive cases need to know of a dialect's output.
type HiveDialect struct {
	Dialect
	// Caller is the caller's name (User) as the dialect's printer writes
	// it in a literal.
	Caller string
	// QuotedCall calls the function name with one argument, 1, with the
	// name quoted as the dialect quotes names.
	QuotedCall func(name string) string
}

// hiveDecision is CustomersDecision with the Hive row filter filter
// (policy hive-filter) and, when mask is not "", the Hive CUSTOM mask
// mask on name (policy hive-mask).
func hiveDecision(filter, mask string) map[string]*policy.Decision {
	dec := CustomersDecision()
	dec.RowFilters = nil
	if filter != "" {
		dec.RowFilters = []policy.RowFilter{{Expr: filter, Policy: "hive-filter", Hive: true}}
	}
	if mask != "" {
		dec.Masks["name"] = policy.Mask{Type: "CUSTOM", Expr: mask, Policy: "hive-mask", Hive: true}
	}
	return map[string]*policy.Decision{"shop.customers": dec}
}

// rewriteHive rewrites sql under the decisions with the request naming
// the dialect (as the driver's do).
func (d HiveDialect) rewriteHive(t *testing.T, sql string, dec map[string]*policy.Decision) (string, error) {
	t.Helper()
	req := d.Request(sql, dec)
	req.Dialect = d.Rewriter.Name()
	res, err := d.Rewrite(t, req)
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

// HiveLoggedInUser: logged_in_user() in a Hive row filter or CUSTOM mask
// is the caller's name in the output (renamed to current_user() on the
// dialect's tree, then inlined); in a string literal or a comment it is
// text, not a call; in an expression that is not marked as Hive SQL it is
// not renamed; with an argument it is refused.
func HiveLoggedInUser(t *testing.T, d HiveDialect) {
	t.Helper()
	const q = "SELECT id, name FROM customers"
	for _, filter := range []string{
		"name = logged_in_user()",
		"name = LOGGED_IN_USER ( )",
		"name IN (SELECT logged_in_user() FROM shop.orders)",
		"CASE WHEN name = logged_in_user() THEN 1 ELSE 0 END = 1",
	} {
		out, err := d.rewriteHive(t, q, hiveDecision(filter, ""))
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		if strings.Contains(strings.ToLower(out), "logged_in_user") || calls(out, "current_user") || !strings.Contains(out, d.Caller) {
			t.Fatalf("%s: not the caller's name:\n%s", filter, Short(out))
		}
	}
	out, err := d.rewriteHive(t, q, hiveDecision("", "CASE WHEN logged_in_user() = region THEN {col} END"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(out), "logged_in_user") || !strings.Contains(out, d.Caller) {
		t.Fatalf("CUSTOM mask: not the caller's name:\n%s", Short(out))
	}
	// Text, not calls: the name in a literal and in comments.
	for _, filter := range []string{
		"name = 'logged_in_user()'",
		"name = /* logged_in_user() */ 'logged_in_user()'",
		"name = 'logged_in_user()' -- logged_in_user()\n",
	} {
		out, err := d.rewriteHive(t, q, hiveDecision(filter, ""))
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		rest := strings.ReplaceAll(out, "'logged_in_user()'", "")
		if rest == out || strings.Contains(rest, "logged_in_user") || strings.Contains(out, d.Caller) || calls(out, "current_user") {
			t.Fatalf("%s: the literal changed:\n%s", filter, Short(out))
		}
	}
	// Not Hive SQL: the call is the database's.
	dec := hiveDecision("name = logged_in_user()", "")
	dec["shop.customers"].RowFilters[0].Hive = false
	if out, err := d.rewriteHive(t, q, dec); err != nil || !strings.Contains(out, "logged_in_user()") || strings.Contains(out, d.Caller) {
		t.Fatalf("a filter that is not Hive SQL: %v\n%s", err, Short(out))
	}
	// A qualified call is the database's own function, not renamed.
	if out, err := d.rewriteHive(t, q, hiveDecision("name = shop.logged_in_user()", "")); err != nil ||
		!strings.Contains(out, "logged_in_user()") || strings.Contains(out, d.Caller) {
		t.Fatalf("a qualified call: %v\n%s", err, Short(out))
	}
	hiveRefused(t, d, q, hiveDecision("name = logged_in_user('x')", ""), "hive-filter", "logged_in_user()")
}

// HiveOnlyFunctionsRefused: a Hive row filter or CUSTOM mask that calls
// a Hive function with no MySQL or PostgreSQL meaning is a policy error
// naming the table, the policy and the function, wherever the call sits
// and however its name is written (quoted too), and whether or not the
// statement reads the masked column; nothing is rewritten.
func HiveOnlyFunctionsRefused(t *testing.T, d HiveDialect) {
	t.Helper()
	const q = "SELECT id FROM customers"
	for filter, fn := range map[string]string{
		"reflect('java.lang.Math', 'abs', id) > 0":                                         "reflect()",
		"region = 'EU' AND JAVA_METHOD('java.lang.System', 'exit', 1) = 1":                 "java_method()",
		"id IN (SELECT customer_id FROM shop.orders WHERE in_file(status, '/etc/passwd'))": "in_file()",
		"CASE WHEN name = 'x' THEN current_groups() ELSE 'y' END = 'y'":                    "current_groups()",
		"mask(name) = 'xxx'":                  "mask()",
		"current_database() = 'shop'":         "current_database()",
		"shop.reflect(1) = 1":                 "reflect()",
		d.QuotedCall("reflect") + " = 1":      "reflect()",
		d.QuotedCall("in_file") + " = 1":      "in_file()",
		"name = 'reflect()' AND stack(1) = 1": "stack()",
	} {
		hiveRefused(t, d, q, hiveDecision(filter, ""), "hive-filter", fn)
	}
	// A CUSTOM mask: refused even where the statement does not read the
	// masked column.
	for _, sql := range []string{q, "SELECT id, name FROM customers", "UPDATE customers SET region = 'EU' WHERE id = 1"} {
		hiveRefused(t, d, sql, hiveDecision("", "CASE WHEN 1=1 THEN mask_hash({col}) ELSE {col} END"), "hive-mask", "mask_hash()")
	}
	// The names as text: in literals and comments they are no calls.
	for _, filter := range []string{
		"name <> 'reflect(1)'",
		"name <> /* in_file( */ 'x'",
		"name <> 'x' -- java_method(\n",
	} {
		if _, err := d.rewriteHive(t, q, hiveDecision(filter, "")); err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
	}
}

// hiveRefused fails unless sql under dec is refused with a policy error
// naming shop.customers, the policy pol and the function fn.
func hiveRefused(t *testing.T, d HiveDialect, sql string, dec map[string]*policy.Decision, pol, fn string) {
	t.Helper()
	out, err := d.rewriteHive(t, sql, dec)
	var re *rewriter.Error
	if !errors.Is(err, policy.ErrPolicy) || !errors.As(err, &re) || re.Policy != pol || re.Table != "shop.customers" ||
		!strings.Contains(err.Error(), "Hive function "+fn) {
		t.Fatalf("%s under %+v: want a policy error naming %s and %s, got %v\n%s", sql, dec["shop.customers"], pol, fn, err, Short(out))
	}
}

// calls reports whether out calls the function name (unquoted or quoted,
// in any case).
func calls(out, name string) bool {
	low := strings.ToLower(out)
	return strings.Contains(low, name+"(") || strings.Contains(low, `"`+name+`"(`) || strings.Contains(low, "`"+name+"`(")
}
