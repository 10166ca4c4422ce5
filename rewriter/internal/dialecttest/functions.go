package dialecttest

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// RefusedNaming asserts that req is refused with ErrUnsupported and that
// the error names what (without regard to case where the dialect's
// names have none).
func (d Dialect) RefusedNaming(t testing.TB, req *rewriter.Request, what string) {
	t.Helper()
	_, err := d.Rewrite(t, req)
	var re *rewriter.Error
	if !errors.Is(err, rewriter.ErrUnsupported) || !errors.As(err, &re) {
		t.Fatalf("%s: want ErrUnsupported naming %s, got %v", req.SQL, what, err)
	}
	msg := err.Error()
	if d.FoldedNames {
		msg, what = strings.ToLower(msg), strings.ToLower(what)
	}
	if !strings.Contains(msg, what) {
		t.Fatalf("%s: the error does not name %s: %v", req.SQL, what, err)
	}
}

// QualifiedFunctionAllowsItsSchemaOnly: allowing billing.fx and fx does
// not allow other.fx.
func QualifiedFunctionAllowsItsSchemaOnly(t *testing.T, d Dialect) {
	t.Helper()
	req := d.Request("SELECT other.fx(1)", nil)
	req.AllowedFunctions = []string{"billing.fx", "fx"}
	d.RefusedNaming(t, req, "other.fx")
}

// FileFunctionStaysRefused: sql, which calls fn, a function that reads
// the server's files, stays refused when fn is allowed.
func FileFunctionStaysRefused(t *testing.T, d Dialect, sql, fn string) {
	t.Helper()
	req := d.Request(sql, nil)
	req.AllowedFunctions = []string{strings.ToLower(fn)}
	d.RefusedNaming(t, req, fn)
}

// PolicyExpressionsAreNotChecked: the functions of a policy's row filter
// (filter) and of a CUSTOM mask of name (mask) are the policy's, not
// checked against the allowed functions; a read, a join and a write
// (which reads its target's masks too) each hold every one of wants.
func PolicyExpressionsAreNotChecked(t *testing.T, d Dialect, filter, mask string, wants []string) {
	t.Helper()
	dec := CustomersDecision()
	dec.RowFilters = []policy.RowFilter{{Expr: filter, Policy: "p"}}
	dec.Masks["name"] = policy.Mask{Type: "CUSTOM", Expr: mask, Policy: "m"}
	for _, sql := range []string{
		"SELECT id, name FROM customers WHERE name > ''",
		"SELECT c.id, c.name FROM customers c JOIN orders o ON o.customer_id = c.id",
		"UPDATE customers SET email = name WHERE id = 1",
	} {
		out, err := d.RewriteSQL(t, sql, map[string]*policy.Decision{"shop.customers": dec})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		ContainsAll(t, out, wants...)
	}
}

// RefusedFunctions: each statement, over shop.customers under
// CustomersDecision, is refused naming its function.
func RefusedFunctions(t *testing.T, d Dialect, cases map[string]string) {
	t.Helper()
	dec := map[string]*policy.Decision{"shop.customers": CustomersDecision()}
	for sql, name := range cases {
		d.RefusedNaming(t, d.Request(sql, dec), name)
	}
}
