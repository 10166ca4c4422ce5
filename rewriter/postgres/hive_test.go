package postgres

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// hiveDialect: a double-quoted name is the call's name, compared without
// case ("REFLECT"(1) is refused too).
var hiveDialect = dialecttest.HiveDialect{
	Dialect:    testDialect,
	Caller:     `E'al''ice\\'`,
	QuotedCall: func(name string) string { return `"` + strings.ToUpper(name) + `"(1)` },
}

func TestHiveLoggedInUser(t *testing.T) { dialecttest.HiveLoggedInUser(t, hiveDialect) }

func TestHiveOnlyFunctionsRefused(t *testing.T) { dialecttest.HiveOnlyFunctionsRefused(t, hiveDialect) }
