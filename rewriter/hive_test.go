package rewriter

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/udf"
)

// HiveCall: the listed Hive-only functions are refused in any case and
// qualified too; logged_in_user is renamed only unqualified and without
// arguments; every other name stays.
func TestHiveCall(t *testing.T) {
	for _, c := range []struct {
		name      string
		qualified bool
		args      int
		to        string
		refused   bool
	}{
		{"logged_in_user", false, 0, "current_user", false},
		{"LOGGED_IN_USER", false, 0, "current_user", false},
		{"logged_in_user", true, 0, "", false},
		{"logged_in_user", false, 1, "", true},
		{"Reflect", false, 2, "", true},
		{"java_method", true, 1, "", true},
		{"current_database", false, 0, "", true},
		{"mask_show_last_n", false, 2, "", true},
		{"current_user", false, 0, "", false},
		{"upper", false, 1, "", false},
	} {
		to, err := HiveCall(c.name, c.qualified, c.args)
		var he *HiveFunctionError
		if to != c.to || (err != nil) != c.refused || c.refused && (!errors.As(err, &he) || he.Name != strings.ToLower(c.name)) {
			t.Errorf("%+v: %q %v", c, to, err)
		}
	}
}

// plainSyntax is a Syntax that does not read Hive SQL.
type plainSyntax struct{ SyntaxBase }

func (plainSyntax) UDF() udf.Dialect                       { return udf.MySQL }
func (plainSyntax) QuoteIdent(s string) string             { return s }
func (plainSyntax) CanonicalExpr(s string) (string, error) { return s, nil }

// A Hive expression is refused by a dialect that cannot read Hive SQL,
// never passed on as it is.
func TestHiveExprNeedsAHiveSyntax(t *testing.T) {
	if out, err := HiveExprSQL(plainSyntax{}, "owner = logged_in_user()"); err == nil {
		t.Fatalf("got %q", out)
	}
	if out, err := policyExprSQL(plainSyntax{}, "owner = logged_in_user()", nil, true); err == nil {
		t.Fatalf("got %q", out)
	}
	if out, err := policyExprSQL(plainSyntax{}, "owner = logged_in_user()", nil, false); err != nil || out != "owner = logged_in_user()" {
		t.Fatalf("not Hive SQL: %q %v", out, err)
	}
}
