package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// whenDecision masks email (last 4) where the row's name is not 'pub',
// and reads the restricted salary in the condition of the ssn mask.
func whenDecision() *policy.Decision {
	d := customersDecision()
	d.Masks = map[string]policy.Mask{
		"email": {Type: "MASK_SHOW_LAST_4", When: "name <> 'pub'", Policy: "mail-when"},
		"ssn":   {Type: "MASK_NULL", When: "salary > 10", Policy: "ssn-when"},
	}
	return d
}

func rewriteWhen(t *testing.T, sql string, d *policy.Decision) (string, error) {
	t.Helper()
	req := request(sql, map[string]*policy.Decision{"shop.customers": d})
	req.Dialect = Name
	res, err := rewriteReq(t, req)
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

func TestMaskWhenReadForm(t *testing.T) {
	out, err := rewriteWhen(t, "SELECT * FROM customers JOIN orders ON orders.customer_id = customers.id", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	// The condition reads the raw row inside the read form; where it is
	// false the raw value is seen, else the mask, which keeps the type.
	for _, want := range []string{
		"CASE WHEN shop.customers.name <> 'pub' IS FALSE THEN shop.customers.email ELSE CASE WHEN shop.customers.email IS NULL THEN NULL::varchar(60) ELSE ",
		"CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.salary > 10 IS FALSE THEN shop.customers.ssn ELSE NULL::varchar(11) END END AS ssn",
		"FROM shop.customers WHERE shop.customers.region = 'EU') customers JOIN shop.orders",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, short(out))
		}
	}
	if strings.Contains(out, "AS salary") {
		t.Fatalf("restricted column selected:\n%s", short(out))
	}
	if _, err := rewriteWhen(t, "SELECT salary FROM customers", whenDecision()); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("salary: %v", err)
	}
}

// A conditional mask is a mask: a condition of the statement on the
// column reads it guarded by the filter (computed only where the filter
// holds), and the read stays merged; read only in the select list, the
// merged form computes it for admitted rows only.
func TestMaskWhenFences(t *testing.T) {
	out, err := rewriteWhen(t, "SELECT id FROM customers WHERE email = 'x'", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.name <> 'pub' IS FALSE THEN") ||
		!strings.Contains(out, "WHERE shop.customers.region = 'EU') customers WHERE email = 'x'") {
		t.Fatalf("not guarded, or fenced:\n%s", short(out))
	}
	out, err = rewriteWhen(t, "SELECT email FROM customers WHERE id = 1", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "OFFSET 0") || !strings.Contains(out, "IS FALSE THEN") {
		t.Fatalf("fenced without need, or without the condition:\n%s", short(out))
	}
	// An outer join reads the masked table merged: the conditional mask's
	// CASE is not strict, but the guard around it is NULL on a row the
	// filter rejects and on a NULL-extended row (the filter is NULL there).
	out, err = rewriteWhen(t, "SELECT o.id, c.email FROM orders o LEFT JOIN customers c ON c.id = o.customer_id", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "OFFSET 0") || !strings.Contains(out, "CASE WHEN shop.customers.region = 'EU' THEN CASE WHEN shop.customers.name <> 'pub' IS FALSE") {
		t.Fatalf("outer join fenced, or the mask not guarded:\n%s", short(out))
	}
}

// A write reads a masked column of its target masked: the same CASE,
// and a condition reading it is guarded by the filter.
func TestMaskWhenWrites(t *testing.T) {
	out, err := rewriteWhen(t, "UPDATE customers SET name = email WHERE ssn = 'x'", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"SET name = CASE WHEN customers.name <> 'pub' IS FALSE THEN customers.email ELSE ",
		"WHERE customers.region = 'EU' AND CASE WHEN customers.region = 'EU' THEN CASE WHEN customers.salary > 10 IS FALSE THEN customers.ssn ELSE NULL::varchar(11) END = 'x' ELSE false END",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, short(out))
		}
	}
}

// A condition that reads another table, a subquery, a column the table
// lacks or an aggregate is a policy error, never placed.
func TestMaskWhenPolicyErrors(t *testing.T) {
	for _, when := range []string{
		"EXISTS (SELECT 1 FROM shop.orders)",
		"id IN (SELECT customer_id FROM orders)",
		"orders.total > 1",
		"customers.name = 'x'",
		"nosuch = 1",
		"count(*) > 1",
		"max(id) > 1",
		"row_number() OVER () > 1",
		"name = $1",
		"name = = 'x'",
	} {
		d := customersDecision()
		d.Masks = map[string]policy.Mask{"email": {Type: "MASK", When: when, Policy: "bad-when"}}
		_, err := rewriteWhen(t, "SELECT id FROM customers", d)
		var re *rewriter.Error
		if !errors.Is(err, policy.ErrPolicy) || !errors.As(err, &re) || re.Policy != "bad-when" || re.Column != "email" {
			t.Errorf("when %q: %v", when, err)
		}
	}
}

func TestConditionColumns(t *testing.T) {
	cols, err := Syntax.(rewriter.ConditionSyntax).ConditionColumns(
		"\"Visibility\" = 'public' AND (owner = current_user OR is_role_in_session('admin')) AND visibility IS NOT NULL")
	if err != nil || strings.Join(cols, ",") != "visibility,owner" {
		t.Fatalf("cols %v, err %v", cols, err)
	}
}

// A tag's mask carries its condition; one that reads a column the
// tagged table lacks restricts the column (fail closed).
func TestMaskWhenTagMask(t *testing.T) {
	d := customersDecision()
	d.Masks = nil
	d.TagMasks = map[string]policy.Mask{"PII": {Type: "MASK_NULL", When: "region <> 'US'", Policy: "pii-when"}}
	d.ColumnTags = map[string][]string{"email": {"PII"}}
	out, err := rewriteWhen(t, "SELECT email FROM customers", d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "THEN CASE WHEN shop.customers.region <> 'US' IS FALSE THEN shop.customers.email ELSE NULL::varchar(60) END END AS email") {
		t.Fatalf("tag mask without its condition:\n%s", short(out))
	}
	d.TagMasks = map[string]policy.Mask{"PII": {Type: "MASK", When: "nosuch = 1", Policy: "pii-bad"}}
	if _, err := rewriteWhen(t, "SELECT email FROM customers", d); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("tag mask with a condition on a missing column: %v", err)
	}
}

// Context functions in a condition are resolved from the session, as in
// row filters.
func TestMaskWhenContextFunctions(t *testing.T) {
	d := customersDecision()
	d.Masks = map[string]policy.Mask{"email": {Type: "MASK_NULL", When: "name <> current_user AND NOT is_role_in_session('admin')", Policy: "ctx"}}
	out, err := rewriteWhen(t, "SELECT email FROM customers", d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(out), "current_user") || strings.Contains(out, "is_role_in_session") || !strings.Contains(out, "shop.customers.name <> ") {
		t.Fatalf("context functions not resolved:\n%s", short(out))
	}
}
