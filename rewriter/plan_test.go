package rewriter

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// namingView is a View whose policy names columns (as the native file's
// does).
type namingView struct {
	mapView
	named map[string][]policy.ColumnRef
}

func (v namingView) NamedColumns(t policy.TableName) []policy.ColumnRef { return v.named[t.Key()] }

// wrappedView hides a View behind another, as the driver's wrappers do:
// every method delegates.
type wrappedView struct{ policy.View }

func TestPlanTableChecksNamedColumns(t *testing.T) {
	all := map[policy.Access]bool{policy.Select: true, policy.Update: true, policy.Alter: true, policy.All: true}
	view := namingView{
		mapView: mapView{d: map[string]*policy.Decision{"shop.t": {Allowed: all}}}, // a passthrough decision
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

// columnsView decides only with the table's columns: Decide asks for
// them with its own error wrapping policy.ErrNeedsColumns, as the Ranger
// and Open Policy Agent Views do. Every column typed int is restricted.
type columnsView struct {
	policy.BaseView
	asked []policy.ColumnInfo
}

type askColumnsError struct{ t policy.TableName }

func (e *askColumnsError) Error() string {
	return "the decision on " + e.t.String() + " needs its columns"
}
func (e *askColumnsError) Unwrap() error { return policy.ErrNeedsColumns }

func (v *columnsView) Decide(t policy.TableName) (*policy.Decision, error) {
	return nil, &askColumnsError{t: t}
}

func (v *columnsView) DecideColumnInfo(t policy.TableName, cols []policy.ColumnInfo) (*policy.Decision, error) {
	v.asked = cols
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{policy.Select: true}, Restricted: map[string]string{}}
	for _, c := range cols {
		if c.Type == "int" {
			d.Restricted[strings.ToLower(c.Name)] = "no-ints"
		}
	}
	return d, nil
}

func (*columnsView) Fingerprint() string { return "columns" }
func (*columnsView) User() session.User  { return session.User{Name: "u"} }

// baseOnlyView asks for the columns but has only BaseView's
// DecideColumnInfo.
type baseOnlyView struct{ policy.BaseView }

func (baseOnlyView) Decide(t policy.TableName) (*policy.Decision, error) {
	return nil, &askColumnsError{t: t}
}
func (baseOnlyView) Fingerprint() string { return "base" }
func (baseOnlyView) User() session.User  { return session.User{Name: "u"} }

var (
	_ policy.View = (*columnsView)(nil)
	_ policy.View = baseOnlyView{}
	_ policy.View = namingView{}
	_ policy.View = wrappedView{}
)

// TestPlanTableDecidesWithColumns: a View whose Decide asks for the
// columns is asked again with the catalog's (names, types, tags), through
// a wrapper too; one that cannot answer, or a request without a catalog,
// fails closed.
func TestPlanTableDecidesWithColumns(t *testing.T) {
	tbl := policy.TableName{Schema: "shop", Table: "t"}
	cat := &StaticCatalog{Tables: map[string][]Column{"shop.t": {
		{Name: "id", DataType: "int"},
		{Name: "Name", DataType: "varchar", ColumnType: "varchar(40)", Tags: []string{"PII"}},
	}}}
	ctx := context.Background()
	view := &columnsView{}
	p, err := PlanTable(ctx, &Request{Dialect: "mysql", View: wrappedView{view}, Catalog: cat}, tbl, policy.Select)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.ColumnInfo{{Name: "id", Type: "int"}, {Name: "Name", Type: "varchar(40)", Tags: []string{"PII"}}}
	if !reflect.DeepEqual(view.asked, want) {
		t.Fatalf("the View was asked with %+v, want %+v", view.asked, want)
	}
	if pol, ok := p.RestrictedBy("id"); !ok || pol != "no-ints" || len(p.Columns) != 1 || p.Columns[0].Name != "Name" {
		t.Fatalf("plan: %+v", p)
	}
	for name, req := range map[string]*Request{
		"no DecideColumnInfo": {Dialect: "mysql", View: baseOnlyView{}, Catalog: cat},
		"no catalog":          {Dialect: "mysql", View: &columnsView{}},
		"unknown table":       {Dialect: "mysql", View: &columnsView{}, Catalog: &StaticCatalog{}},
	} {
		if _, err := PlanTable(ctx, req, tbl, policy.Select); !errors.Is(err, policy.ErrAccessDenied) {
			t.Errorf("%s: %v, want a denial", name, err)
		}
	}
}

// TestOverlayDelegates: an Overlay answers for its table and passes every
// other question to the caller's View.
func TestOverlayDelegates(t *testing.T) {
	all := map[policy.Access]bool{policy.Select: true}
	inner := namingView{
		mapView: mapView{d: map[string]*policy.Decision{}},
		named:   map[string][]policy.ColumnRef{"shop.t": {{Rule: "r", Section: "masks", Column: "nope"}}},
	}
	sys := policy.TableName{Schema: "information_schema", Table: "columns"}
	d := &policy.Decision{Table: sys, Allowed: all}
	v := Overlay(inner, sys, d)
	if got, err := v.Decide(sys); err != nil || got != d {
		t.Fatalf("overlaid table: %v %v", got, err)
	}
	if got, err := v.DecideColumnInfo(sys, nil); err != nil || got != d {
		t.Fatalf("overlaid table by columns: %v %v", got, err)
	}
	tbl := policy.TableName{Schema: "shop", Table: "t"}
	if len(v.NamedColumns(tbl)) != 1 || v.Fingerprint() != "v" {
		t.Fatal("the overlay hides the caller's View")
	}
	if _, err := v.DecideColumnInfo(tbl, nil); !errors.Is(err, policy.ErrAccessDenied) {
		t.Fatalf("another table by columns: %v", err)
	}
	cat := &StaticCatalog{Tables: map[string][]Column{"shop.t": {{Name: "id", DataType: "int"}}}}
	if _, err := PlanTable(context.Background(), &Request{Dialect: "mysql", View: v, Catalog: cat}, tbl, policy.Select); !errors.Is(err, policy.ErrPolicy) {
		t.Fatalf("a misspelt column behind the overlay: %v", err)
	}
}
