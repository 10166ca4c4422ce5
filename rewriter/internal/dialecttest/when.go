package dialecttest

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// WhenDecision masks email (last 4) where the row's name is not 'pub',
// and reads the restricted salary in the condition of the ssn mask.
func WhenDecision() *policy.Decision {
	d := CustomersDecision()
	d.Masks = map[string]policy.Mask{
		"email": {Type: "MASK_SHOW_LAST_4", When: "name <> 'pub'", Policy: "mail-when"},
		"ssn":   {Type: "MASK_NULL", When: "salary > 10", Policy: "ssn-when"},
	}
	return d
}

// RewriteWhen rewrites sql with d deciding shop.customers, the request
// naming the dialect (as the driver's do: conditional masks are checked
// against it).
func (d Dialect) RewriteWhen(t testing.TB, sql string, dec *policy.Decision) (string, error) {
	t.Helper()
	req := d.Request(sql, map[string]*policy.Decision{"shop.customers": dec})
	req.Dialect = d.Rewriter.Name()
	res, err := d.Rewrite(t, req)
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

// MaskWhenReadForm: a join reads customers through the read form, whose
// masks hold their conditions (each of wants is in the output); the
// restricted column the condition reads is never selected (selected is
// how the output would select it), nor may the statement select it.
func MaskWhenReadForm(t *testing.T, d Dialect, wants []string, selected string) {
	t.Helper()
	out, err := d.RewriteWhen(t, "SELECT * FROM customers JOIN orders ON orders.customer_id = customers.id", WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	ContainsAll(t, out, wants...)
	if strings.Contains(out, selected) {
		t.Fatalf("restricted column selected:\n%s", Short(out))
	}
	if _, err := d.RewriteWhen(t, "SELECT salary FROM customers", WhenDecision()); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("salary: %v", err)
	}
}

// MaskWhenWrites: a write reads a masked column of its target masked,
// with the mask's condition (each of wants is in the output).
func MaskWhenWrites(t *testing.T, d Dialect, wants []string) {
	t.Helper()
	out, err := d.RewriteWhen(t, "UPDATE customers SET name = email WHERE ssn = 'x'", WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	ContainsAll(t, out, wants...)
}

// MaskWhenPolicyErrors: a condition that reads another table, a
// subquery, a column the table lacks, or does not parse is a policy error
// naming the policy and column, never placed; more are the dialect's own
// such conditions (aggregates, placeholders, variables).
func MaskWhenPolicyErrors(t *testing.T, d Dialect, more []string) {
	t.Helper()
	for _, when := range append([]string{
		"EXISTS (SELECT 1 FROM shop.orders)",
		"id IN (SELECT customer_id FROM orders)",
		"orders.total > 1",
		"customers.name = 'x'",
		"nosuch = 1",
		"name = = 'x'",
	}, more...) {
		dec := CustomersDecision()
		dec.Masks = map[string]policy.Mask{"email": {Type: "MASK", When: when, Policy: "bad-when"}}
		_, err := d.RewriteWhen(t, "SELECT id FROM customers", dec)
		var re *rewriter.Error
		if !errors.Is(err, policy.ErrPolicy) || !errors.As(err, &re) || re.Policy != "bad-when" || re.Column != "email" {
			t.Errorf("when %q: %v", when, err)
		}
	}
}

// ConditionColumns checks that the columns text reads are visibility
// and owner, lower-cased and once each, and not the context functions'.
func ConditionColumns(t *testing.T, d Dialect, text string) {
	t.Helper()
	cols, err := d.Syntax.(rewriter.ConditionSyntax).ConditionColumns(text)
	if err != nil || strings.Join(cols, ",") != "visibility,owner" {
		t.Fatalf("cols %v, err %v", cols, err)
	}
}

// MaskWhenTagMask: a tag's mask (of maskType) carries its condition
// (want is in the output); one that reads a column the tagged table
// lacks cannot be computed for it, and restricts the column (fail
// closed).
func MaskWhenTagMask(t *testing.T, d Dialect, maskType, want string) {
	t.Helper()
	dec := CustomersDecision()
	dec.Masks = nil
	dec.TagMasks = map[string]policy.Mask{"PII": {Type: maskType, When: "region <> 'US'", Policy: "pii-when"}}
	dec.ColumnTags = map[string][]string{"email": {"PII"}}
	out, err := d.RewriteWhen(t, "SELECT email FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, want) {
		t.Fatalf("tag mask without its condition:\n%s", Short(out))
	}
	dec.TagMasks = map[string]policy.Mask{"PII": {Type: "MASK", When: "nosuch = 1", Policy: "pii-bad"}}
	if _, err := d.RewriteWhen(t, "SELECT email FROM customers", dec); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("tag mask with a condition on a missing column: %v", err)
	}
}

// MaskWhenContextFunctions: context functions in a condition (when) are
// resolved from the session, as in row filters: the output holds
// neither function, and holds want (the comparison with the caller's
// name).
func MaskWhenContextFunctions(t *testing.T, d Dialect, when, want string) {
	t.Helper()
	dec := CustomersDecision()
	dec.Masks = map[string]policy.Mask{"email": {Type: "MASK_NULL", When: when, Policy: "ctx"}}
	out, err := d.RewriteWhen(t, "SELECT email FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(out), "current_user") || strings.Contains(out, "is_role_in_session") || !strings.Contains(out, want) {
		t.Fatalf("context functions not resolved:\n%s", Short(out))
	}
}

// ContainsAll fails unless out holds every one of wants.
func ContainsAll(t testing.TB, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, Short(out))
		}
	}
}
