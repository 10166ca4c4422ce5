package mysql

import (
	"context"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// hostileValues are request values that would break out of a literal
// spliced into SQL text by a scanner that disagrees with the server.
var hostileValues = []string{
	`O'Brien`, `back\slash`, `trailing\`, `x' OR '1'='1`, `a */ b /* c`, `-- comment`, "tab\there\x01\x1f",
	`''`, `\'`, `"`, "`", `${{USER.x}}`, policy.RequestValueMarker(0), `$$`, `E'\\'`,
}

// literalIn parses canonical text (which must be one comparison) and
// returns the value of the string literal on its right.
func literalIn(t *testing.T, text string) sqlparser.Expr {
	t.Helper()
	e, err := parseExpr(text)
	if err != nil {
		t.Fatalf("%q does not parse: %v", text, err)
	}
	cmp, ok := e.(*sqlparser.ComparisonExpr)
	if !ok {
		t.Fatalf("%q is not one comparison: %T", text, e)
	}
	return cmp.Right
}

func TestRequestValueStaysOneLiteral(t *testing.T) {
	for _, v := range hostileValues {
		for _, expr := range []string{"dept = " + policy.RequestValueMarker(0), "dept = '" + policy.RequestValueMarker(0) + "'", `dept = "` + policy.RequestValueMarker(0) + `"`} {
			out, err := rewriter.PolicyExprSQL(Syntax, expr, []policy.RequestValue{{Value: v}})
			if err != nil {
				t.Fatalf("%q with %q: %v", expr, v, err)
			}
			lit, ok := literalIn(t, out).(*sqlparser.Literal)
			if !ok || lit.Type != sqlparser.StrVal || lit.Val != v {
				t.Fatalf("%q with %q gave %q: not the value as one string literal", expr, v, out)
			}
			// What the server gets, in both sql_modes, reads back as the
			// same single literal.
			for _, nbe := range []bool{false, true} {
				e, _ := parseExpr(out)
				text, err := format(e, nbe)
				if err != nil {
					t.Fatal(err)
				}
				if nbe {
					// Under NO_BACKSLASH_ESCAPES only quotes are doubled.
					want := "'" + strings.ReplaceAll(v, "'", "''") + "'"
					if !strings.HasSuffix(text, " = "+want) {
						t.Fatalf("NO_BACKSLASH_ESCAPES: %q with %q printed %q", expr, v, text)
					}
					continue
				}
				if got := literalIn(t, text).(*sqlparser.Literal); got.Val != v {
					t.Fatalf("%q with %q printed %q, which reads %q", expr, v, text, got.Val)
				}
			}
		}
	}
}

func TestRequestValueWithinLiteral(t *testing.T) {
	m := policy.RequestValueMarker
	out, err := rewriter.PolicyExprSQL(Syntax, "name like '%"+m(0)+"-"+m(1)+"%'", []policy.RequestValue{{Value: `a'\` + m(1)}, {Value: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := parseExpr(out)
	lit := e.(*sqlparser.ComparisonExpr).Right.(*sqlparser.Literal)
	if want := `%a'\` + m(1) + `-b%`; lit.Val != want {
		t.Fatalf("got %q, want %q (a value is not searched for markers)", lit.Val, want)
	}
}

func TestRequestValueKinds(t *testing.T) {
	m := policy.RequestValueMarker(0)
	for _, c := range []struct {
		v    policy.RequestValue
		expr string
		want string
	}{
		{policy.RequestValue{Null: true}, "dept = " + m, "dept = null"},
		{policy.RequestValue{Null: true}, "dept = '" + m + "'", "dept = ''"},
		{policy.RequestValue{Value: "12"}, "level < " + m, "`level` < 12"},
		{policy.RequestValue{Value: "-3.5"}, "level - " + m + " > 0", "`level` - -3.5 > 0"},
		{policy.RequestValue{Value: "12 or 1=1"}, "level < " + m, "`level` < '12 or 1=1'"},
		{policy.RequestValue{Value: "7"}, "level < '" + m + "'", "`level` < '7'"},
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
		"`" + m + "` = 1",
		"t.`" + m + "` = 1",
		"db." + m + " = 1",
		m + "(1) = 1",
		"x" + m + " = 1",
		"upper(a) = " + strings.ToUpper(m),
		"cast(a as " + "sqe_request_value) = 1",
		"a = " + policy.RequestValueMarker(1), // no value 1
	} {
		if out, err := rewriter.PolicyExprSQL(Syntax, expr, vals); err == nil {
			t.Errorf("%q was accepted: %q", expr, out)
		}
	}
	// Without values, a marker is refused too: it cannot be told from
	// one a policy forged.
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
	for _, nbe := range []bool{false, true} {
		req := request("SELECT id, name FROM customers", valuesDecision(v))
		req.Session = Session{Database: testCatalog().Schema, NoBackslashEscapes: nbe}
		res, err := Dialect{}.Rewrite(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		want := `'x'' OR ''1''=''1\\'`
		if nbe {
			want = `'x'' OR ''1''=''1\'`
		}
		if strings.Count(res.SQL, want) < 2 || strings.Contains(res.SQL, policy.RequestValueTable) {
			t.Fatalf("NO_BACKSLASH_ESCAPES %v: the value is not one literal per place %s:\n%s", nbe, want, short(res.SQL))
		}
	}
	// A marker in a backquoted name refuses the statement, naming the policy.
	dec := valuesDecision("EU")
	dec["shop.customers"].RowFilters[0].Expr = "`" + policy.RequestValueMarker(0) + "` = 1"
	_, err := rewriteSQL(t, "SELECT id FROM customers", dec)
	if err == nil || !strings.Contains(err.Error(), "by-dept") {
		t.Fatalf("a marker in a quoted name: %v", err)
	}
}
