package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// TestVacuumAndAnalyze: maintenance of named tables the caller reads
// without any policy passes (schema-qualified); VERBOSE (row counts), the
// whole database, a table under a read policy and a table the caller may
// not alter are refused.
func TestVacuumAndAnalyze(t *testing.T) {
	noAlter := &policy.Decision{Allowed: map[policy.Access]bool{policy.Select: true}, DeniedBy: map[policy.Access]string{policy.Alter: "ro"}}
	decisions := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision(), "shop.audit": noAlter}
	for sql, want := range map[string]string{
		"VACUUM orders":                        "VACUUM shop.orders",
		"ANALYZE orders":                       "ANALYZE shop.orders",
		"ANALYZE orders (total)":               "ANALYZE shop.orders(total)",
		"VACUUM (FULL, ANALYZE) orders, items": "VACUUM (full, analyze) shop.orders, public.items",
	} {
		res, err := Dialect{}.Rewrite(context.Background(), request(sql, decisions))
		if err != nil || !strings.EqualFold(res.SQL, want) {
			t.Errorf("%s: %v %v, want %s", sql, res, err, want)
		}
	}
	for sql, why := range map[string]string{
		"VACUUM":                    "table list",
		"ANALYZE":                   "table list",
		"VACUUM (VERBOSE) orders":   "VERBOSE",
		"ANALYZE VERBOSE orders":    "VERBOSE",
		"VACUUM customers":          "read policy",
		"ANALYZE orders, customers": "read policy",
		"ANALYZE audit":             "alter denied",
	} {
		_, err := Dialect{}.Rewrite(context.Background(), request(sql, decisions))
		if err == nil || !strings.Contains(err.Error(), why) || !(errors.Is(err, rewriter.ErrUnsupported) || errors.Is(err, policy.ErrAccessDenied)) {
			t.Errorf("%s: %v, want a refusal about %q", sql, err, why)
		}
	}
}
