package mysql

import (
	"context"
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

func rewriteWhen(sql string, d *policy.Decision) (string, error) {
	req := request(sql, map[string]*policy.Decision{"shop.customers": d})
	req.Dialect = Name
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

func TestMaskWhenReadForm(t *testing.T) {
	out, err := rewriteWhen("SELECT * FROM customers JOIN orders ON orders.customer_id = customers.id", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	// The condition reads the raw row inside the read form; where it is
	// false the raw value (in the masked strings' form) is seen, else the mask.
	for _, want := range []string{
		"case when `shop`.`customers`.`name` != 'pub' is false then convert(`shop`.`customers`.`email` using utf8mb4) collate utf8mb4_bin else ",
		"case when `shop`.`customers`.`region` = 'EU' then case when `shop`.`customers`.`salary` > 10 is false then convert(`shop`.`customers`.`ssn` using utf8mb4) collate utf8mb4_bin else convert(null using utf8mb4) collate utf8mb4_bin end end as `ssn`",
		"from `shop`.`customers` where `shop`.`customers`.`region` = 'EU'",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in\n%s", want, short(out))
		}
	}
	// The restricted column is read by the condition only, never selected.
	if strings.Contains(out, "as `salary`") {
		t.Fatalf("restricted column selected:\n%s", short(out))
	}
	if _, err := rewriteWhen("SELECT salary FROM customers", whenDecision()); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("salary: %v", err)
	}
}

// A conditional mask is a mask: a condition of the statement on the
// column reads the CASE, which must not be computed on hidden rows, so it
// is guarded by the filter there (flat form); read only in the select
// list, the flat form computes it for admitted rows only, after the
// filter.
func TestMaskWhenFences(t *testing.T) {
	out, err := rewriteWhen("SELECT id FROM customers WHERE email = 'x'", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU' and case when `shop`.`customers`.`region` = 'EU' then case when ") ||
		strings.Contains(out, "limit 18446744073709551615") {
		t.Fatalf("not guarded:\n%s", short(out))
	}
	out, err = rewriteWhen("SELECT email FROM customers WHERE id = 1", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU' and `id` = 1") || !strings.Contains(out, "is false then") {
		t.Fatalf("flat form without the filter first, or without the condition:\n%s", short(out))
	}
}

// A write reads a masked column of its target masked: the same CASE.
func TestMaskWhenWrites(t *testing.T) {
	out, err := rewriteWhen("UPDATE customers SET name = email WHERE ssn = 'x'", whenDecision())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"set `name` = case when `shop`.`customers`.`name` != 'pub' is false then",
		"case when `shop`.`customers`.`salary` > 10 is false then convert(`shop`.`customers`.`ssn` using utf8mb4) collate utf8mb4_bin else convert(null using utf8mb4) collate utf8mb4_bin end = 'x'",
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
		"COUNT(*) > 1",
		"@x = 1",
		"name = ?",
		"name = = 'x'",
	} {
		d := customersDecision()
		d.Masks = map[string]policy.Mask{"email": {Type: "MASK", When: when, Policy: "bad-when"}}
		_, err := rewriteWhen("SELECT id FROM customers", d)
		var re *rewriter.Error
		if !errors.Is(err, policy.ErrPolicy) || !errors.As(err, &re) || re.Policy != "bad-when" || re.Column != "email" {
			t.Errorf("when %q: %v", when, err)
		}
	}
}

func TestConditionColumns(t *testing.T) {
	cols, err := Syntax.(rewriter.ConditionSyntax).ConditionColumns("Visibility = 'public' AND (owner = current_user() OR is_role_in_session('admin')) AND visibility IS NOT NULL")
	if err != nil || strings.Join(cols, ",") != "visibility,owner" {
		t.Fatalf("cols %v, err %v", cols, err)
	}
}

// A tag's mask whose condition reads a column the tagged table lacks
// cannot be computed for it: the column is restricted (fail closed).
func TestMaskWhenTagMask(t *testing.T) {
	d := customersDecision()
	d.Masks = nil
	d.TagMasks = map[string]policy.Mask{"PII": {Type: "MASK_SHOW_FIRST_4", When: "region <> 'US'", Policy: "pii-when"}}
	d.ColumnTags = map[string][]string{"email": {"PII"}}
	out, err := rewriteWhen("SELECT email FROM customers", d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "case when `shop`.`customers`.`region` != 'US' is false then convert(`shop`.`customers`.`email` using utf8mb4) collate utf8mb4_bin else") {
		t.Fatalf("tag mask without its condition:\n%s", short(out))
	}
	d.TagMasks = map[string]policy.Mask{"PII": {Type: "MASK", When: "nosuch = 1", Policy: "pii-bad"}}
	if _, err := rewriteWhen("SELECT email FROM customers", d); !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("tag mask with a condition on a missing column: %v", err)
	}
}

// Context functions in a condition are resolved from the session, as in
// row filters.
func TestMaskWhenContextFunctions(t *testing.T) {
	d := customersDecision()
	d.Masks = map[string]policy.Mask{"email": {Type: "MASK_NULL", When: "name <> current_user() AND NOT is_role_in_session('admin')", Policy: "ctx"}}
	out, err := rewriteWhen("SELECT email FROM customers", d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(out), "current_user") || strings.Contains(out, "is_role_in_session") || !strings.Contains(out, "`shop`.`customers`.`name` != 'al''ice") {
		t.Fatalf("context functions not resolved:\n%s", short(out))
	}
}
