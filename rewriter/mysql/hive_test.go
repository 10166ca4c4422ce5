package mysql

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// hiveDialect: a backquoted name is the call's name.
var hiveDialect = dialecttest.HiveDialect{
	Dialect:    testDialect,
	Caller:     `'al''ice\\'`,
	QuotedCall: func(name string) string { return "`" + name + "`(1)" },
}

func TestHiveLoggedInUser(t *testing.T) { dialecttest.HiveLoggedInUser(t, hiveDialect) }

func TestHiveOnlyFunctionsRefused(t *testing.T) { dialecttest.HiveOnlyFunctionsRefused(t, hiveDialect) }
