package dialecttest

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// HostileValues are request values that would break out of a literal
// spliced into SQL text by a scanner that disagrees with the server, in
// either dialect.
var HostileValues = []string{
	`O'Brien`, `back\slash`, `trailing\`, `x' OR '1'='1`, `a */ b /* c`, `-- comment`, "tab\there\x01\x1f",
	`''`, `\'`, `"`, "`", `$$`, `$x$`, `E'\\'`, `${{USER.x}}`, policy.RequestValueMarker(0),
}

// RequestValueStaysOneLiteral places each hostile value in each of
// exprs, which must hold the marker as "dept = …" in the dialect's forms
// (as a column reference, inside each kind of string literal), and hands
// the output to check, which reads it back with the dialect's parser.
func RequestValueStaysOneLiteral(t *testing.T, d Dialect, exprs []string, check func(t *testing.T, expr, v, out string)) {
	t.Helper()
	m := policy.RequestValueMarker(0)
	for _, v := range HostileValues {
		for _, expr := range append([]string{"dept = " + m, "dept = '" + m + "'"}, exprs...) {
			out, err := rewriter.PolicyExprSQL(d.Syntax, expr, []policy.RequestValue{{Value: v}})
			if err != nil {
				t.Fatalf("%q with %q: %v", expr, v, err)
			}
			check(t, expr, v, out)
		}
	}
}

// RequestValueWithinLiteral places two values inside one string literal
// (read returns the string constant on the right of the output's
// comparison): a value is not searched for markers.
func RequestValueWithinLiteral(t *testing.T, d Dialect, read func(t *testing.T, out string) string) {
	t.Helper()
	m := policy.RequestValueMarker
	out, err := rewriter.PolicyExprSQL(d.Syntax, "name LIKE '%"+m(0)+"-"+m(1)+"%'", []policy.RequestValue{{Value: `a'\` + m(1)}, {Value: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, out), `%a'\`+m(1)+`-b%`; got != want {
		t.Fatalf("got %q, want %q (a value is not searched for markers)", got, want)
	}
}

// ValueKindCase is a request value placed in Expr, and the output.
type ValueKindCase struct {
	Value      policy.RequestValue
	Expr, Want string
}

// RequestValueKinds checks the literal each value becomes.
func RequestValueKinds(t *testing.T, d Dialect, cases []ValueKindCase) {
	t.Helper()
	for _, c := range cases {
		out, err := rewriter.PolicyExprSQL(d.Syntax, c.Expr, []policy.RequestValue{c.Value})
		if err != nil {
			t.Fatalf("%q: %v", c.Expr, err)
		}
		if out != c.Want {
			t.Errorf("%q with %+v: got %q, want %q", c.Expr, c.Value, out, c.Want)
		}
	}
}

// RequestValueMisplacedRefused checks that a marker anywhere but in a
// value's place (a quoted name, a function name, part of a word; more
// are the dialect's own such places), a marker without its value, and a
// NUL byte in a value are refused.
func RequestValueMisplacedRefused(t *testing.T, d Dialect, more []string) {
	t.Helper()
	m := policy.RequestValueMarker(0)
	vals := []policy.RequestValue{{Value: "x"}}
	for _, expr := range append([]string{
		d.Syntax.QuoteIdent(m) + " = 1",
		m + "(1) = 1",
		"x" + m + " = 1",
		"a = " + policy.RequestValueMarker(1), // no value 1
	}, more...) {
		if out, err := rewriter.PolicyExprSQL(d.Syntax, expr, vals); err == nil {
			t.Errorf("%q was accepted: %q", expr, out)
		}
	}
	// Without values, a marker is refused too: it cannot be told from
	// one a policy forged.
	if out, err := rewriter.PolicyExprSQL(d.Syntax, "a = "+m, nil); err == nil {
		t.Errorf("a marker without values was accepted: %q", out)
	}
	if _, err := rewriter.PolicyExprSQL(d.Syntax, "a = '"+m+"'", []policy.RequestValue{{Value: "a\x00b"}}); err == nil {
		t.Error("a NUL byte was accepted")
	}
}

// ValuesDecision filters shop.customers by a request value in a literal
// and masks name with a CUSTOM expression that compares with one.
func ValuesDecision(v string) map[string]*policy.Decision {
	m := policy.RequestValueMarker
	vals := []policy.RequestValue{{Value: v}}
	return map[string]*policy.Decision{"shop.customers": {
		Table: policy.TableName{Schema: "shop", Table: "customers"}, Allowed: AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = '" + m(0) + "'", Policy: "by-dept", Values: vals}},
		Masks:      map[string]policy.Mask{"name": {Type: "CUSTOM", Expr: "CASE WHEN {col} = " + m(0) + " THEN {col} END", Policy: "own-name", Values: vals}},
	}}
}

// ValuesSession is a session the rewrite of a request value is checked
// in, and the literal the value must become there.
type ValuesSession struct {
	Name    string
	Session rewriter.Session
	Want    string
}

// RequestValuesInTheRewrite checks that a hostile value in a filter and
// a mask becomes, in each session, one literal at each place; and that a
// marker in a quoted name refuses the statement, naming the policy.
func RequestValuesInTheRewrite(t *testing.T, d Dialect, sessions []ValuesSession) {
	t.Helper()
	for _, s := range sessions {
		req := d.Request("SELECT id, name FROM customers", ValuesDecision(`x' OR '1'='1\`))
		req.Session = s.Session
		res, err := d.Rewrite(t, req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(res.SQL, s.Want) < 2 || strings.Contains(res.SQL, policy.RequestValueTable) {
			t.Fatalf("%s: the value is not one literal per place %s:\n%s", s.Name, s.Want, Short(res.SQL))
		}
	}
	dec := ValuesDecision("EU")
	dec["shop.customers"].RowFilters[0].Expr = d.Syntax.QuoteIdent(policy.RequestValueMarker(0)) + " = 1"
	_, err := d.RewriteSQL(t, "SELECT id FROM customers", dec)
	if err == nil || !strings.Contains(err.Error(), "by-dept") {
		t.Fatalf("a marker in a quoted name: %v", err)
	}
}
