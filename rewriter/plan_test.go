package rewriter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// namingView is a View whose policy names columns (as the native file's
// does).
type namingView struct {
	mapView
	named map[string][]policy.ColumnRef
}

func (v namingView) NamedColumns(t policy.TableName) []policy.ColumnRef { return v.named[t.Key()] }

// wrappedView hides a View behind another, as the driver's wrappers do.
type wrappedView struct{ policy.View }

func (w wrappedView) Unwrap() policy.View { return w.View }

func TestPlanTableChecksNamedColumns(t *testing.T) {
	all := map[policy.Access]bool{policy.Select: true, policy.Update: true, policy.Alter: true, policy.All: true}
	view := namingView{
		mapView: mapView{"shop.t": {Allowed: all}}, // a passthrough decision
		named: map[string][]policy.ColumnRef{
			"shop.t":    {{Rule: "ok", Section: "masks", Column: "ssn"}, {Rule: "no-salary", Section: "restricted", Column: "salry"}},
			"shop.gone": {{Rule: "x", Section: "masks", Column: "a"}},
		},
	}
	cat := &StaticCatalog{Tables: map[string][]Column{"shop.t": {{Name: "id", DataType: "int"}, {Name: "SSN", DataType: "varchar"}, {Name: "salary", DataType: "int"}}}}
	req := &Request{Dialect: "mysql", View: wrappedView{view}, Catalog: cat}
	ctx := context.Background()
	tbl := policy.TableName{Schema: "shop", Table: "t"}
	for _, a := range []policy.Access{policy.Select, policy.Update} {
		_, err := PlanTable(ctx, req, tbl, a)
		if !errors.Is(err, policy.ErrPolicy) || !strings.Contains(err.Error(), `"no-salary"`) || !strings.Contains(err.Error(), "salry") ||
			!strings.Contains(err.Error(), "shop.t") {
			t.Fatalf("%s: want a policy error naming the rule, the table and the column, got %v", a, err)
		}
	}
	// DDL can fix the table.
	if _, err := PlanTable(ctx, req, tbl, policy.Alter); err != nil {
		t.Fatalf("alter: %v", err)
	}
	// A table that does not exist is left to the server.
	if _, err := PlanTable(ctx, req, policy.TableName{Schema: "shop", Table: "gone"}, policy.Select); err != nil {
		t.Fatalf("missing table: %v", err)
	}
	// Fixed, the passthrough stays a passthrough.
	view.named["shop.t"] = view.named["shop.t"][:1]
	p, err := PlanTable(ctx, req, tbl, policy.Select)
	if err != nil || !p.Passthrough() {
		t.Fatalf("after the fix: %+v %v", p, err)
	}
	// Without a catalog, a table whose rules name columns fails closed.
	req.Catalog = nil
	if _, err := PlanTable(ctx, req, tbl, policy.Select); err == nil {
		t.Fatal("no catalog: the named columns went unchecked")
	}
}
