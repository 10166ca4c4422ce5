package postgres

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// hiveDialect: a double-quoted name is the call's name.
var hiveDialect = dialecttest.HiveDialect{
	Dialect:    testDialect,
	Caller:     `E'al''ice\\'`,
	QuotedCall: func(name string) string { return `"` + name + `"(1)` },
}

func TestHiveLoggedInUser(t *testing.T) { dialecttest.HiveLoggedInUser(t, hiveDialect) }

func TestHiveOnlyFunctionsRefused(t *testing.T) { dialecttest.HiveOnlyFunctionsRefused(t, hiveDialect) }

// A quoted name keeps its case on PostgreSQL ("REFLECT" is not reflect
// to the server), but Hive's names have no case: it is refused all the
// same, and "LOGGED_IN_USER"() is the caller's name.
func TestHiveQuotedNamesHaveNoCase(t *testing.T) {
	if _, err := rewriter.HiveExprSQL(Syntax, `"REFLECT"('java.lang.Math', 'abs', 1) = 1`); err == nil || !strings.Contains(err.Error(), "reflect()") {
		t.Fatalf(`"REFLECT"(…): %v`, err)
	}
	out, err := rewriter.PolicyExprSQL(Syntax, `name = "LOGGED_IN_USER"()`, nil)
	if err != nil || out != `name = "LOGGED_IN_USER"()` {
		t.Fatalf("not Hive SQL: %q %v", out, err)
	}
	if out, err = rewriter.HiveExprSQL(Syntax, `name = "LOGGED_IN_USER"()`); err != nil || out != `name = "current_user"()` {
		t.Fatalf(`"LOGGED_IN_USER"(): %q %v`, out, err)
	}
}
