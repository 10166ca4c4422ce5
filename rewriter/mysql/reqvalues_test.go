package mysql

import (
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

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
	m := policy.RequestValueMarker(0)
	dialecttest.RequestValueStaysOneLiteral(t, testDialect, []string{`dept = "` + m + `"`}, func(t *testing.T, expr, v, out string) {
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
	})
}

func TestRequestValueWithinLiteral(t *testing.T) {
	dialecttest.RequestValueWithinLiteral(t, testDialect, func(t *testing.T, out string) string {
		return literalIn(t, out).(*sqlparser.Literal).Val
	})
}

func TestRequestValueKinds(t *testing.T) {
	m := policy.RequestValueMarker(0)
	dialecttest.RequestValueKinds(t, testDialect, []dialecttest.ValueKindCase{
		{Value: policy.RequestValue{Null: true}, Expr: "dept = " + m, Want: "dept = null"},
		{Value: policy.RequestValue{Null: true}, Expr: "dept = '" + m + "'", Want: "dept = ''"},
		{Value: policy.RequestValue{Value: "12"}, Expr: "level < " + m, Want: "`level` < 12"},
		{Value: policy.RequestValue{Value: "-3.5"}, Expr: "level - " + m + " > 0", Want: "`level` - -3.5 > 0"},
		{Value: policy.RequestValue{Value: "12 or 1=1"}, Expr: "level < " + m, Want: "`level` < '12 or 1=1'"},
		{Value: policy.RequestValue{Value: "7"}, Expr: "level < '" + m + "'", Want: "`level` < '7'"},
	})
}

func TestRequestValueMisplacedRefused(t *testing.T) {
	m := policy.RequestValueMarker(0)
	dialecttest.RequestValueMisplacedRefused(t, testDialect, []string{
		"t.`" + m + "` = 1",
		"db." + m + " = 1",
		"upper(a) = " + strings.ToUpper(m),
		"cast(a as " + "sqe_request_value) = 1",
	})
}

func TestRequestValuesInTheRewrite(t *testing.T) {
	dialecttest.RequestValuesInTheRewrite(t, testDialect, []dialecttest.ValuesSession{
		{Name: "backslash escapes", Session: Session{Database: "shop"}, Want: `'x'' OR ''1''=''1\\'`},
		{Name: "NO_BACKSLASH_ESCAPES", Session: Session{Database: "shop", NoBackslashEscapes: true}, Want: `'x'' OR ''1''=''1\'`},
	})
}
