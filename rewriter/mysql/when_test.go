package mysql

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestMaskWhenReadForm(t *testing.T) {
	// The condition reads the raw row inside the read form; where it is
	// false the raw value (in the masked strings' form) is seen, else the mask.
	dialecttest.MaskWhenReadForm(t, testDialect, []string{
		"case when `shop`.`customers`.`name` != 'pub' is false then convert(`shop`.`customers`.`email` using utf8mb4) collate utf8mb4_bin else ",
		"case when `shop`.`customers`.`region` = 'EU' then case when `shop`.`customers`.`salary` > 10 is false then convert(`shop`.`customers`.`ssn` using utf8mb4) collate utf8mb4_bin else convert(null using utf8mb4) collate utf8mb4_bin end end as `ssn`",
		"from `shop`.`customers` where `shop`.`customers`.`region` = 'EU'",
	}, "as `salary`")
}

// A conditional mask is a mask: a condition of the statement on the
// column reads the CASE, which must not be computed on hidden rows, so it
// is guarded by the filter there (flat form); read only in the select
// list, the flat form computes it for admitted rows only, after the
// filter.
func TestMaskWhenFences(t *testing.T) {
	out, err := testDialect.RewriteWhen(t, "SELECT id FROM customers WHERE email = 'x'", dialecttest.WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU' and case when `shop`.`customers`.`region` = 'EU' then case when ") ||
		strings.Contains(out, "limit 18446744073709551615") {
		t.Fatalf("not guarded:\n%s", dialecttest.Short(out))
	}
	out, err = testDialect.RewriteWhen(t, "SELECT email FROM customers WHERE id = 1", dialecttest.WhenDecision())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU' and `id` = 1") || !strings.Contains(out, "is false then") {
		t.Fatalf("flat form without the filter first, or without the condition:\n%s", dialecttest.Short(out))
	}
}

// A write reads a masked column of its target masked: the same CASE.
func TestMaskWhenWrites(t *testing.T) {
	dialecttest.MaskWhenWrites(t, testDialect, []string{
		"set `name` = case when `shop`.`customers`.`name` != 'pub' is false then",
		"case when `shop`.`customers`.`salary` > 10 is false then convert(`shop`.`customers`.`ssn` using utf8mb4) collate utf8mb4_bin else convert(null using utf8mb4) collate utf8mb4_bin end = 'x'",
	})
}

// A condition that reads another table, a subquery, a column the table
// lacks or an aggregate is a policy error, never placed.
func TestMaskWhenPolicyErrors(t *testing.T) {
	dialecttest.MaskWhenPolicyErrors(t, testDialect, []string{"COUNT(*) > 1", "@x = 1", "name = ?"})
}

func TestConditionColumns(t *testing.T) {
	dialecttest.ConditionColumns(t, testDialect, "Visibility = 'public' AND (owner = current_user() OR is_role_in_session('admin')) AND visibility IS NOT NULL")
}

// A tag's mask whose condition reads a column the tagged table lacks
// cannot be computed for it: the column is restricted (fail closed).
func TestMaskWhenTagMask(t *testing.T) {
	dialecttest.MaskWhenTagMask(t, testDialect, "MASK_SHOW_FIRST_4",
		"case when `shop`.`customers`.`region` != 'US' is false then convert(`shop`.`customers`.`email` using utf8mb4) collate utf8mb4_bin else")
}

// Context functions in a condition are resolved from the session, as in
// row filters.
func TestMaskWhenContextFunctions(t *testing.T) {
	dialecttest.MaskWhenContextFunctions(t, testDialect, "name <> current_user() AND NOT is_role_in_session('admin')", "`shop`.`customers`.`name` != 'al''ice")
}
