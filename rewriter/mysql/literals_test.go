package mysql

import (
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestLiteralTemplates(t *testing.T) {
	dialecttest.Templates(t, testDialect, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
}
