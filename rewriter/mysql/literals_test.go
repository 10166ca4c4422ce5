package mysql

import (
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestLiteralTemplates(t *testing.T) {
	dialecttest.Templates(t, testDialect, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
}

// TestLiteralTemplatesOverCorpus: every statement of the package's,
// the shared and the driver's corpora that gets a template gives, with
// any of its literals changed, its own rewrite.
func TestLiteralTemplatesOverCorpus(t *testing.T) {
	dialecttest.TemplatesOverCorpus(t, testDialect, fuzzDecisions(), 100, 200)
}

// FuzzLiteralTemplates: a template filled with any literal text that
// keeps the statement's shape is the statement's own rewrite.
func FuzzLiteralTemplates(f *testing.F) {
	dialecttest.FuzzLiteralTemplates(f, testDialect, []string{
		"SELECT c.ssn, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 1 AND c.name <> 'x' ORDER BY 2",
		"SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total BETWEEN 10 AND 20) AND email = 'a@b'",
		"SELECT r.role, c.email FROM region_map r JOIN customers c USING (region) WHERE r.role = 'x' AND c.id >= 3",
	}, fuzzDecisions)
}
