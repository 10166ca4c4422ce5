package postgres

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestMaskWhenReadForm(t *testing.T) {
	// The condition reads the raw row inside the read form; where it is
	// false the raw value is seen, else the mask, which keeps the type.
	dialecttest.MaskWhenReadForm(t, testDialect, []string{
		"CASE WHEN shop.customers.name <> 'pub' IS FALSE THEN shop.customers.email ELSE CASE WHEN shop.customers.email IS NULL THEN NULL::varchar(60) ELSE ",
		"CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.salary > 10 IS FALSE THEN shop.customers.ssn ELSE NULL::varchar(11) END END AS ssn",
		"FROM shop.customers WHERE shop.customers.region = 'EU') customers JOIN shop.orders",
	}, "AS salary")
}

// A conditional mask is a mask: a condition of the statement on the
// column reads it guarded by the filter (computed only where the filter
// holds), and the read stays merged; read only in the select list, the
// merged form computes it for admitted rows only.
func TestMaskWhenFences(t *testing.T) {
	out, err := testDialect.RewriteWhen(t, "SELECT id FROM customers WHERE email = 'x'", dialecttest.WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.name <> 'pub' IS FALSE THEN") ||
		!strings.Contains(out, "WHERE shop.customers.region = 'EU') customers WHERE email = 'x'") {
		t.Fatalf("not guarded, or fenced:\n%s", dialecttest.Short(out))
	}
	out, err = testDialect.RewriteWhen(t, "SELECT email FROM customers WHERE id = 1", dialecttest.WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "OFFSET 0") || !strings.Contains(out, "IS FALSE THEN") {
		t.Fatalf("fenced without need, or without the condition:\n%s", dialecttest.Short(out))
	}
	// An outer join reads the masked table merged: the conditional mask's
	// CASE is not strict, but the guard around it is NULL on a row the
	// filter rejects and on a NULL-extended row (the filter is NULL there).
	out, err = testDialect.RewriteWhen(t, "SELECT o.id, c.email FROM orders o LEFT JOIN customers c ON c.id = o.customer_id", dialecttest.WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "OFFSET 0") || !strings.Contains(out, "CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.name <> 'pub' IS FALSE") {
		t.Fatalf("outer join fenced, or the mask not guarded:\n%s", dialecttest.Short(out))
	}
}

// A write reads a masked column of its target masked: the same CASE,
// and a condition reading it is guarded by the filter.
func TestMaskWhenWrites(t *testing.T) {
	dialecttest.MaskWhenWrites(t, testDialect, []string{
		"SET name = CASE WHEN customers.name <> 'pub' IS FALSE THEN customers.email ELSE ",
		"WHERE customers.region = 'EU' AND CASE WHEN customers.region = 'EU' THEN CASE WHEN customers.salary > 10 IS FALSE THEN customers.ssn ELSE NULL::varchar(11) END = 'x' ELSE false END",
	})
}

// A condition that reads another table, a subquery, a column the table
// lacks, an aggregate or a window function is a policy error, never
// placed.
func TestMaskWhenPolicyErrors(t *testing.T) {
	dialecttest.MaskWhenPolicyErrors(t, testDialect, []string{"count(*) > 1", "max(id) > 1", "row_number() OVER () > 1", "name = $1"})
}

func TestConditionColumns(t *testing.T) {
	dialecttest.ConditionColumns(t, testDialect,
		"\"Visibility\" = 'public' AND (owner = current_user OR is_role_in_session('admin')) AND visibility IS NOT NULL")
}

// A tag's mask carries its condition; one that reads a column the
// tagged table lacks restricts the column (fail closed).
func TestMaskWhenTagMask(t *testing.T) {
	dialecttest.MaskWhenTagMask(t, testDialect, "MASK_NULL",
		"THEN CASE WHEN shop.customers.region <> 'US' IS FALSE THEN shop.customers.email ELSE NULL::varchar(60) END END AS email")
}

// Context functions in a condition are resolved from the session, as in
// row filters.
func TestMaskWhenContextFunctions(t *testing.T) {
	dialecttest.MaskWhenContextFunctions(t, testDialect, "name <> current_user AND NOT is_role_in_session('admin')", "shop.customers.name <> ")
}
