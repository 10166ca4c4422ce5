package postgres

import (
	"context"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestLiteralTemplates(t *testing.T) {
	dialecttest.Templates(t, testDialect, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
}

// TestNoTemplateOverCatalogs: a read of a catalog relation, whose
// listing the rewrite shapes, is never reused for other literal values.
func TestNoTemplateOverCatalogs(t *testing.T) {
	q := "SELECT relname FROM pg_catalog.pg_class WHERE relname = 'customers'"
	req := request(q, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := Dialect{}.Tokens(q)
	lits := rewriter.TemplateLiterals(q, toks)
	if len(lits) != 1 {
		t.Fatalf("%d template literals", len(lits))
	}
	rewrite := func(r *rewriter.Request) (*rewriter.Result, error) { return Dialect{}.Rewrite(context.Background(), r) }
	if _, ok := rewriter.BuildTemplate(rewrite, req, Dialect{}, res, lits); ok {
		t.Fatal("a read of pg_class got a template")
	}
}

// TestLiteralTemplatesOverCorpus: every statement of the package's,
// the shared and the driver's corpora that gets a template gives, with
// any of its literals changed, its own rewrite.
func TestLiteralTemplatesOverCorpus(t *testing.T) {
	dialecttest.TemplatesOverCorpus(t, testDialect, simpleDecisions(), 60, 150)
}

// FuzzLiteralTemplates: a template filled with any literal text that
// keeps the statement's shape is the statement's own rewrite.
func FuzzLiteralTemplates(f *testing.F) {
	dialecttest.FuzzLiteralTemplates(f, testDialect, []string{
		"SELECT c.ssn, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 1 AND c.name <> 'x' ORDER BY 2",
		"SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total BETWEEN 10 AND 20) AND email = 'a@b'",
		"WITH w AS (SELECT id, ssn FROM customers WHERE id > 5) SELECT * FROM w WHERE ssn = '1234'",
	}, simpleDecisions)
}
