package opa_test

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// demoYAML is the path of the demo's native policy, which the example
// bundle reproduces.
const demoYAML = "../cmd/sqe/demo_policy.yaml"

var demoColumns = map[string][]policy.ColumnInfo{
	"shop.customers": cols("id int", "name varchar(40)", "email varchar(80)", "ssn char(11)", "region char(2)", "salary int"),
	"shop.orders":    cols("id int", "customer_id int", "total numeric(10,2)"),
	"shop.secrets":   cols("id int", "secret varchar(40)"),
	"other.t":        cols("id int"),
}

func cols(specs ...string) []policy.ColumnInfo {
	out := make([]policy.ColumnInfo, len(specs))
	for i, s := range specs {
		var name, typ string
		for j := range s {
			if s[j] == ' ' {
				name, typ = s[:j], s[j+1:]
				break
			}
		}
		out[i] = policy.ColumnInfo{Name: name, Type: typ}
	}
	return out
}

var demoUsers = []session.User{
	{Name: "root-admin", Roles: []string{"admin"}},
	{Name: "erin", Roles: []string{"eu_analyst"}},
	{Name: "sam", Roles: []string{"support"}},
	{Name: "ann", Roles: []string{"analyst"}},
	{Name: "nobody"},
	{Name: "two", Roles: []string{"support", "admin"}},
	{Name: "switch", Roles: []string{"eu_analyst", "admin"}, PrimaryRole: "admin"},
	{Name: "switch2", Roles: []string{"eu_analyst", "admin"}, PrimaryRole: "eu_analyst"},
	{Name: "switch3", Roles: []string{"eu_analyst", "support"}, PrimaryRole: "analyst", SecondaryRoles: []string{"support"}},
	{Name: "all", Roles: []string{"eu_analyst", "support"}, PrimaryRole: "analyst", SecondaryRoles: []string{session.AllSecondaryRoles}},
}

// shape is what a Decision does to statements, without the rule names.
type shape struct {
	Allowed    []policy.Access
	Filters    []string
	Masks      map[string]string
	Restricted []string
}

func shapeOf(d *policy.Decision) shape {
	var s shape
	for a, ok := range d.Allowed {
		if ok {
			s.Allowed = append(s.Allowed, a)
		}
	}
	slices.Sort(s.Allowed)
	for _, f := range d.RowFilters {
		s.Filters = append(s.Filters, f.Expr)
	}
	sort.Strings(s.Filters)
	if !d.Allowed[policy.Select] && !d.Allowed[policy.Update] {
		// A table the caller may neither read nor write has no shape.
		s.Filters = nil
		return s
	}
	s.Masks = map[string]string{}
	for c, m := range d.Masks {
		s.Masks[c] = m.Type
	}
	s.Restricted = slices.Sorted(maps.Keys(d.Restricted))
	return s
}

// TestDemoBundleMatchesDemoPolicy: for every demo user and table the
// example bundle decides exactly as the demo's YAML file.
func TestDemoBundleMatchesDemoPolicy(t *testing.T) {
	native, err := policy.NewFileSource(demoYAML)
	if err != nil {
		t.Fatal(err)
	}
	src, err := opa.New("example/demo")
	if err != nil {
		t.Fatal(err)
	}
	nsnap, _ := native.Snapshot()
	osnap, _ := src.Snapshot()
	checked := 0
	for _, u := range demoUsers {
		nv, nerr := nsnap.View(u)
		ov, oerr := osnap.View(u)
		if oerr != nil {
			t.Fatalf("%s: opa view: %v", u.Name, oerr)
		}
		if nerr != nil {
			t.Fatalf("%s: native view: %v", u.Name, nerr)
		}
		for _, key := range slices.Sorted(maps.Keys(demoColumns)) {
			tn := policy.TableName{Schema: key[:len(key)-len(key[indexDot(key)+1:])-1], Table: key[indexDot(key)+1:]}
			nd, err := nv.Decide(tn)
			if err != nil {
				t.Fatalf("native %s %s: %v", u.Name, key, err)
			}
			if _, err := ov.Decide(tn); !errors.Is(err, policy.ErrNeedsColumns) || !errors.Is(err, policy.ErrAccessDenied) {
				t.Fatalf("opa Decide without columns: %v, want a columns-needed error", err)
			}
			od, err := ov.DecideColumnInfo(tn, demoColumns[key])
			if err != nil {
				t.Fatalf("opa %s %s: %v", u.Name, key, err)
			}
			ns, os := shapeOf(nd), shapeOf(od)
			if !equalShape(ns, os) {
				t.Errorf("%s on %s:\n native %+v\n opa    %+v", u.Name, key, ns, os)
			}
			checked++
		}
	}
	if checked != len(demoUsers)*len(demoColumns) {
		t.Fatalf("checked %d decisions", checked)
	}
}

func indexDot(s string) int {
	for i := range s {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

func equalShape(a, b shape) bool {
	return slices.Equal(a.Allowed, b.Allowed) && slices.Equal(a.Filters, b.Filters) &&
		maps.Equal(a.Masks, b.Masks) && slices.Equal(a.Restricted, b.Restricted)
}
