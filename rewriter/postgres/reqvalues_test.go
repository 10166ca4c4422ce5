package postgres

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

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
	dialecttest.RequestValueStaysOneLiteral(t, testDialect, []string{"dept = E'" + m + "'", "dept = $q$" + m + "$q$"}, func(t *testing.T, expr, v, out string) {
		if got, ok := stringRight(t, out); !ok || got != v {
			t.Fatalf("%q with %q gave %q: not the value as one string constant", expr, v, out)
		}
		// A backslash is printed only in E'…', which reads the same
		// whatever standard_conforming_strings is.
		if strings.Contains(v, `\`) && !strings.Contains(out, "E'") {
			t.Fatalf("%q with %q printed %q: a backslash outside E'…'", expr, v, out)
		}
	})
}

func TestRequestValueWithinLiteral(t *testing.T) {
	dialecttest.RequestValueWithinLiteral(t, testDialect, func(t *testing.T, out string) string {
		got, _ := stringRight(t, out)
		return got
	})
}

func TestRequestValueKinds(t *testing.T) {
	m := policy.RequestValueMarker(0)
	dialecttest.RequestValueKinds(t, testDialect, []dialecttest.ValueKindCase{
		{Value: policy.RequestValue{Null: true}, Expr: "dept = " + m, Want: "dept = NULL"},
		{Value: policy.RequestValue{Null: true}, Expr: "dept = '" + m + "'", Want: "dept = ''"},
		{Value: policy.RequestValue{Value: "12"}, Expr: "level < " + m, Want: "level < 12"},
		{Value: policy.RequestValue{Value: "-3.5"}, Expr: "level - " + m + " > 0", Want: "(level - -3.5) > 0"},
		{Value: policy.RequestValue{Value: "12 or 1=1"}, Expr: "level < " + m, Want: "level < '12 or 1=1'"},
		{Value: policy.RequestValue{Value: "7"}, Expr: "level < '" + m + "'", Want: "level < '7'"},
		{Value: policy.RequestValue{Value: "2024-01-02"}, Expr: "d > " + m + "::date", Want: "d > '2024-01-02'::date"},
	})
}

func TestRequestValueMisplacedRefused(t *testing.T) {
	m := policy.RequestValueMarker(0)
	dialecttest.RequestValueMisplacedRefused(t, testDialect, []string{
		"t." + m + " = 1",
		"s." + m + "(1) = 1",
		"a::sqe_request_value = 1",
		`a COLLATE "` + m + `" = 'x'`,
		"upper(a) = " + strings.ToUpper(m) + "()",
	})
}

func TestRequestValuesInTheRewrite(t *testing.T) {
	// E'…' reads the same whatever standard_conforming_strings is.
	const want = `E'x'' OR ''1''=''1\\'`
	path := testCatalog().Path
	dialecttest.RequestValuesInTheRewrite(t, testDialect, []dialecttest.ValuesSession{
		{Name: "standard strings", Session: NewSession(path, false), Want: want},
		{Name: "non-standard strings", Session: NewSession(path, true), Want: want},
	})
}
