package rewriter

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// mapView decides from a map of table keys; other tables are readable.
type mapView struct {
	policy.BaseView
	d map[string]*policy.Decision
}

var _ policy.View = mapView{}

func (v mapView) Decide(t policy.TableName) (*policy.Decision, error) {
	if d, ok := v.d[t.Key()]; ok {
		return d, nil
	}
	return &policy.Decision{Table: t, Allowed: map[policy.Access]bool{policy.Select: true}}, nil
}
func (mapView) Fingerprint() string { return "v" }
func (mapView) User() session.User  { return session.User{Name: "u"} }

func TestRestrictedColumnsFailClosed(t *testing.T) {
	allow := map[policy.Access]bool{policy.Select: true}
	view := mapView{d: map[string]*policy.Decision{
		"shop.customers": {Allowed: allow, Restricted: map[string]string{"Salary": "no-salary"}},
		"shop.cards":     {Allowed: allow, TagMasks: map[string]policy.Mask{"PAN": {Type: "MASK_SHOW_LAST_4", Policy: "pan"}}},
	}}
	cat := &StaticCatalog{Tables: map[string][]Column{
		"shop.customers": {{Name: "id", DataType: "int"}, {Name: "Salary", DataType: "int"}},
		"shop.cards":     {{Name: "id", DataType: "int"}, {Name: "amount", DataType: "decimal", ColumnType: "decimal(10,2)", Tags: []string{"PAN"}}},
	}}
	req := &Request{Dialect: "mysql", View: view, Catalog: cat}
	got, err := RestrictedColumns(context.Background(), req, true)
	if err != nil {
		t.Fatal(err)
	}
	// The tag mask cannot be computed for a DECIMAL: the column is restricted.
	want := []RestrictedColumn{{"shop", "cards", "amount"}, {"shop", "customers", "salary"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// A table whose tag bindings cannot be planned (its columns are
	// unknown) fails the listing closed instead of showing its columns.
	delete(cat.Tables, "shop.cards")
	listed := &listingCatalog{StaticCatalog: cat, extra: policy.TableName{Schema: "shop", Table: "cards"}}
	req.Catalog = listed
	if _, err := RestrictedColumns(context.Background(), req, true); err == nil || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("want a refusal, got %v", err)
	}
	// A catalog that cannot list tables fails closed too.
	req.Catalog = nil
	if _, err := RestrictedColumns(context.Background(), req, true); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("no catalog: %v", err)
	}
}

// listingCatalog lists a table its columns lookup does not know.
type listingCatalog struct {
	*StaticCatalog
	extra policy.TableName
}

func (c *listingCatalog) ListTables(ctx context.Context) ([]policy.TableName, error) {
	tables, err := c.StaticCatalog.ListTables(ctx)
	return append(tables, c.extra), err
}

// TestMergeHoldsKeepsEveryState: a multi-statement string's effect holds
// what each statement opens; a transaction ended after a session setting
// leaves the setting held.
func TestMergeHoldsKeepsEveryState(t *testing.T) {
	set := Effect{Holds: HoldsSessionSetting}
	begin := Effect{BeginsTransaction: true}
	commit := Effect{EndsTransaction: true}
	for _, c := range []struct {
		name         string
		steps        []Effect
		begins, ends bool
		holds        string
	}{
		{"SET; BEGIN", []Effect{set, begin}, true, false, HoldsSessionSetting},
		{"BEGIN; SET", []Effect{begin, set}, true, false, HoldsSessionSetting},
		{"SET; BEGIN; COMMIT", []Effect{set, begin, commit}, false, true, HoldsSessionSetting},
		{"BEGIN; COMMIT", []Effect{begin, commit}, false, true, ""},
		{"COMMIT; BEGIN", []Effect{commit, begin}, true, true, ""},
		{"USE; SET", []Effect{{Holds: HoldsDatabase}, set}, false, false, HoldsDatabase},
	} {
		got := c.steps[0]
		for _, s := range c.steps[1:] {
			got = MergeHolds(got, s)
		}
		if got.BeginsTransaction != c.begins || got.EndsTransaction != c.ends || got.Holds != c.holds {
			t.Errorf("%s: begins %v ends %v holds %q, want %v %v %q", c.name, got.BeginsTransaction, got.EndsTransaction, got.Holds, c.begins, c.ends, c.holds)
		}
	}
}
