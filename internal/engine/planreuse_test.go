package engine

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/session"
)

func reusePolicy(t *testing.T, filter string) *policy.File {
	t.Helper()
	f, err := policy.Parse("reuse.yaml", []byte(`version: 1
default: allow
tables:
  shop.customers:
    row_filters:
      - {name: f, principals: [group:ops], filter: "`+filter+`"}
      - {name: bob-only, principals: [user:bob], filter: "id = 7"}
`))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPlanReuseFollowsCallerSnapshotAndSession: a connection hands the
// same read-only Plan to the same caller's later runs of a statement
// (connRewrite.plan). Every change that makes newPlan build another Plan
// must get another: a new caller, the same caller changed in place, a new
// policy snapshot, a change of the session state; and no Plan handed out
// earlier may change afterwards.
func TestPlanReuseFollowsCallerSnapshotAndSession(t *testing.T) {
	src := policy.NewMemorySource()
	if _, err := src.Publish(reusePolicy(t, "region = 'EU'")); err != nil {
		t.Fatal(err)
	}
	cols := []rewriter.Column{{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"}}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{"shop.customers": cols, "hr.customers": cols}}
	e, err := New(Config{Source: src, Dialect: "mysql", Catalog: cat, CacheSize: 16, CacheBytes: 1 << 20, AuditOff: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cs := NewConnState(nil)
	const q = "SELECT id FROM customers WHERE id = ?"
	plan := func(ctx context.Context) *Plan {
		t.Helper()
		p, err := e.Plan(ctx, cs, q)
		if err != nil {
			t.Fatal(err)
		}
		e.Finish(ctx, cs, p, time.Time{}, nil)
		return p
	}
	ann := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	bob := session.NewContext(context.Background(), session.User{Name: "bob"})

	first := plan(ann)  // a miss: the rewrite is made
	second := plan(ann) // the connection's rewrite: its Plan is kept
	if third := plan(ann); third != second {
		t.Fatal("the same caller's next run got a new Plan: the reuse is not exercised")
	}
	if !reflect.DeepEqual(*first, *second) {
		t.Fatalf("the kept Plan differs from the one built for the caller:\n%+v\n%+v", *first, *second)
	}
	kept := *second
	check := func(ctx context.Context, what, name, want string) *Plan {
		t.Helper()
		p := plan(ctx)
		if p == second || p.who.Name != name || !strings.Contains(p.SQL, want) {
			t.Fatalf("%s: the Plan for %s (same as the kept one: %v) sends %s", what, p.who.Name, p == second, p.SQL)
		}
		if !reflect.DeepEqual(*second, kept) {
			t.Fatalf("%s: a Plan handed out earlier changed", what)
		}
		return p
	}
	check(bob, "another caller", "bob", "= 7")
	if p := plan(ann); p.who.Name != "ann" || !strings.Contains(p.SQL, "'EU'") || strings.Contains(p.SQL, "= 7") {
		t.Fatalf("the first caller again: %s for %s", p.SQL, p.who.Name)
	}
	// The caller's User changed in place (through session.Peek) is
	// another caller.
	shared, _ := session.Peek(ann)
	shared.Groups = []string{"sales"}
	if p := plan(ann); p == second || strings.Contains(p.SQL, "'EU'") || len(p.who.Groups) != 1 || p.who.Groups[0] != "sales" {
		t.Fatalf("the caller changed in place: %s for %v", p.SQL, p.who.Groups)
	}
	shared.Groups = []string{"ops"}
	// The same groups in another order make the same fingerprint, hence
	// the same rewrite, but the Plan names the caller as it came (its
	// audit record lists the groups in the caller's order).
	for _, groups := range [][]string{{"ops", "eu"}, {"eu", "ops"}, {"ops", "eu"}} {
		ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: groups})
		for range 3 {
			if p := plan(ctx); !slices.Equal(p.who.Groups, groups) || !strings.Contains(p.SQL, "'EU'") {
				t.Fatalf("groups %v: the Plan is for %v and sends %s", groups, p.who.Groups, p.SQL)
			}
		}
	}
	if _, err := src.Publish(reusePolicy(t, "region = 'US'")); err != nil {
		t.Fatal(err)
	}
	check(ann, "a new snapshot", "ann", "'US'")
	plan(ann) // kept again, for the new snapshot
	cs.Apply(rewriter.Effect{Session: mysql.Session{Database: "hr"}}, "ann", "")
	p := check(ann, "another database", "ann", "`hr`")
	if strings.Contains(p.SQL, "`shop`") {
		t.Fatalf("another database: %s", p.SQL)
	}
}
