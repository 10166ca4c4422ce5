package postgres

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// hostileValues are request values that would break out of a literal
// spliced into SQL text by a scanner that disagrees with the server.
var hostileValues = []string{
	`O'Brien`, `back\slash`, `trailing\`, `x' OR '1'='1`, `a */ b /* c`, `-- comment`, "tab\there\x01\x1f",
	`''`, `\'`, `"`, `$$`, `$x$`, `E'\\'`, `${{USER.x}}`, policy.RequestValueMarker(0),
}

// stringRight parses canonical text (one comparison) and returns the
// string constant on its right.
func stringRight(t *testing.T, text string) (string, bool) {
	t.Helper()
	e, err := parseExpr(text)
	if err != nil {
		t.Fatalf("%q does not parse: %v", text, err)
	}
	c := e.GetAExpr().GetRexpr().GetAConst()
	if c == nil {
		t.Fatalf("%q is not one comparison with a constant", text)
	}
	sv, ok := c.Val.(*pg.A_Const_Sval)
	if !ok {
		return "", false
	}
	return sv.Sval.Sval, true
}

func TestRequestValueStaysOneLiteral(t *testing.T) {
	m := policy.RequestValueMarker(0)
	for _, v := range hostileValues {
		for _, expr := range []string{"dept = " + m, "dept = '" + m + "'", "dept = E'" + m + "'", "dept = $q$" + m + "$q$"} {
			out, err := rewriter.PolicyExprSQL(Syntax, expr, []policy.RequestValue{{Value: v}})
			if err != nil {
				t.Fatalf("%q with %q: %v", expr, v, err)
			}
			if got, ok := stringRight(t, out); !ok || got != v {
				t.Fatalf("%q with %q gave %q: not the value as one string constant", expr, v, out)
			}
			// A backslash is printed only in E'…', which reads the same
			// whatever standard_conforming_strings is.
			if strings.Contains(v, `\`) && !strings.Contains(out, "E'") {
				t.Fatalf("%q with %q printed %q: a backslash outside E'…'", expr, v, out)
			}
		}
	}
}

func TestRequestValueWithinLiteral(t *testing.T) {
	m := policy.RequestValueMarker
	out, err := rewriter.PolicyExprSQL(Syntax, "name LIKE '%"+m(0)+"-"+m(1)+"%'", []policy.RequestValue{{Value: `a'\` + m(1)}, {Value: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := stringRight(t, out)
	if want := `%a'\` + m(1) + `-b%`; got != want {
		t.Fatalf("got %q, want %q (a value is not searched for markers)", got, want)
	}
}

func TestRequestValueKinds(t *testing.T) {
	m := policy.RequestValueMarker(0)
	for _, c := range []struct {
		v    policy.RequestValue
		expr string
		want string
	}{
		{policy.RequestValue{Null: true}, "dept = " + m, "dept = NULL"},
		{policy.RequestValue{Null: true}, "dept = '" + m + "'", "dept = ''"},
		{policy.RequestValue{Value: "12"}, "level < " + m, "level < 12"},
		{policy.RequestValue{Value: "-3.5"}, "level - " + m + " > 0", "(level - -3.5) > 0"},
		{policy.RequestValue{Value: "12 or 1=1"}, "level < " + m, "level < '12 or 1=1'"},
		{policy.RequestValue{Value: "7"}, "level < '" + m + "'", "level < '7'"},
		{policy.RequestValue{Value: "2024-01-02"}, "d > " + m + "::date", "d > '2024-01-02'::date"},
	} {
		out, err := rewriter.PolicyExprSQL(Syntax, c.expr, []policy.RequestValue{c.v})
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		if out != c.want {
			t.Errorf("%q with %+v: got %q, want %q", c.expr, c.v, out, c.want)
		}
	}
}

func TestRequestValueMisplacedRefused(t *testing.T) {
	m := policy.RequestValueMarker(0)
	vals := []policy.RequestValue{{Value: "x"}}
	for _, expr := range []string{
		`"` + m + `" = 1`,
		"t." + m + " = 1",
		"s." + m + "(1) = 1",
		m + "(1) = 1",
		"x" + m + " = 1",
		"a::sqe_request_value = 1",
		`a COLLATE "` + m + `" = 'x'`,
		"upper(a) = " + strings.ToUpper(m) + "()",
		"a = " + policy.RequestValueMarker(1), // no value 1
	} {
		if out, err := rewriter.PolicyExprSQL(Syntax, expr, vals); err == nil {
			t.Errorf("%q was accepted: %q", expr, out)
		}
	}
	if out, err := rewriter.PolicyExprSQL(Syntax, "a = "+m, nil); err == nil {
		t.Errorf("a marker without values was accepted: %q", out)
	}
	if _, err := rewriter.PolicyExprSQL(Syntax, "a = '"+m+"'", []policy.RequestValue{{Value: "a\x00b"}}); err == nil {
		t.Error("a NUL byte was accepted")
	}
}

// valuesDecision filters shop.customers by a request value in a literal
// and masks name with a CUSTOM expression that compares with one.
func valuesDecision(v string) map[string]*policy.Decision {
	m := policy.RequestValueMarker
	vals := []policy.RequestValue{{Value: v}}
	return map[string]*policy.Decision{"shop.customers": {
		Table: policy.TableName{Schema: "shop", Table: "customers"}, Allowed: allAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = '" + m(0) + "'", Policy: "by-dept", Values: vals}},
		Masks:      map[string]policy.Mask{"name": {Type: "CUSTOM", Expr: "CASE WHEN {col} = " + m(0) + " THEN {col} END", Policy: "own-name", Values: vals}},
	}}
}

func TestRequestValuesInTheRewrite(t *testing.T) {
	const v = `x' OR '1'='1\`
	for _, nonStandard := range []bool{false, true} {
		req := request("SELECT id, name FROM customers", valuesDecision(v))
		req.Session = NewSession(testCatalog().Path, nonStandard)
		res, err := rewriteReq(t, req)
		if err != nil {
			t.Fatal(err)
		}
		// E'…' reads the same whatever standard_conforming_strings is.
		want := `E'x'' OR ''1''=''1\\'`
		if strings.Count(res.SQL, want) < 2 || strings.Contains(res.SQL, policy.RequestValueTable) {
			t.Fatalf("non-standard strings %v: the value is not one literal per place %s:\n%s", nonStandard, want, short(res.SQL))
		}
	}
	dec := valuesDecision("EU")
	dec["shop.customers"].RowFilters[0].Expr = `"` + policy.RequestValueMarker(0) + `" = 1`
	_, err := rewriteSQL(t, "SELECT id FROM customers", dec)
	if err == nil || !strings.Contains(err.Error(), "by-dept") {
		t.Fatalf("a marker in a quoted name: %v", err)
	}
}
