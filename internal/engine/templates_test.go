package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// TestLiteralTemplatesFollowTheRewriteKey: a statement served by a
// literal template is the statement its own rewrite gives, for the same
// caller, snapshot and session only; a template is built on the second
// statement of a shape and used from the third; literals the rewrite
// reads are never filled in.
func TestLiteralTemplatesFollowTheRewriteKey(t *testing.T) {
	cols := []rewriter.Column{{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"},
		{Name: "ssn", DataType: "varchar", ColumnType: "varchar(11)"}}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{"shop.customers": cols}}
	newEngine := func(noTemplates bool) (*Engine, *policy.MemorySource) {
		src := policy.NewMemorySource()
		if _, err := src.Publish(reusePolicy(t, "region = 'EU'")); err != nil {
			t.Fatal(err)
		}
		e, err := New(Config{Source: src, Dialect: "mysql", Catalog: cat, CacheSize: 1000, CacheBytes: 16 << 20, AuditOff: true,
			NoLiteralTemplates: noTemplates}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		return e, src
	}
	e, src := newEngine(false)
	plain, plainSrc := newEngine(true)
	cs, plainCS := NewConnState(nil), NewConnState(nil)
	ann := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	bob := session.NewContext(context.Background(), session.User{Name: "bob"})
	run := func(ctx context.Context, q string) *Plan {
		t.Helper()
		p, err := e.Plan(ctx, cs, q)
		if err != nil {
			t.Fatal(err)
		}
		e.Finish(ctx, cs, p, time.Time{}, nil)
		want, err := plain.Plan(ctx, plainCS, q)
		if err != nil {
			t.Fatal(err)
		}
		plain.Finish(ctx, plainCS, want, time.Time{}, nil)
		if p.SQL != want.SQL || p.sqlFingerprint != audit.Fingerprint(q) || p.Result.Protected != want.Result.Protected {
			t.Fatalf("%s:\n got %s\nwant %s", q, p.SQL, want.SQL)
		}
		return p
	}
	hits := func() uint64 { return e.Stats().RewriteTemplateHits }
	const shape = "SELECT id, ssn FROM customers WHERE id = %d AND region <> '%s'"
	for i := range 2 {
		run(ann, fmt.Sprintf(shape, i, "US"))
	}
	if hits() != 0 {
		t.Fatalf("a template served the first two statements of a shape: %d", hits())
	}
	p := run(ann, fmt.Sprintf(shape, 42, "XX"))
	if hits() != 1 || !strings.Contains(p.SQL, "= 42") || !strings.Contains(p.SQL, "'XX'") {
		t.Fatalf("the third statement of the shape: %d template hits, %s", hits(), p.SQL)
	}
	// Another caller has another view: its own rewrite, its own filter.
	if p := run(bob, fmt.Sprintf(shape, 43, "XX")); hits() != 1 || !strings.Contains(p.SQL, "= 7") {
		t.Fatalf("bob: %d template hits, %s", hits(), p.SQL)
	}
	// A new snapshot: the template of the old one is not used.
	for _, s := range []*policy.MemorySource{src, plainSrc} {
		if _, err := s.Publish(reusePolicy(t, "region = 'US'")); err != nil {
			t.Fatal(err)
		}
	}
	if p := run(ann, fmt.Sprintf(shape, 44, "XX")); hits() != 1 || !strings.Contains(p.SQL, "'US'") {
		t.Fatalf("after the policy changed: %d template hits, %s", hits(), p.SQL)
	}
	for i := range 3 {
		run(ann, fmt.Sprintf(shape, 50+i, "YY"))
	}
	if hits() != 3 { // the first is seen, the second builds, two use it
		t.Fatalf("the new snapshot's template: %d template hits", hits())
	}
	// Literals the rewrite reads are part of the shape as written.
	for _, q := range []string{"SELECT id, ssn FROM customers WHERE id = 1 ORDER BY %d", "SELECT id FROM customers WHERE ssn LIKE '%d%%'",
		"SELECT id FROM customers WHERE id = 1 LIMIT %d"} {
		for i := range 4 {
			run(ann, fmt.Sprintf(q, i+1))
		}
	}
	if hits() != 3 {
		t.Fatalf("a literal the rewrite reads was filled in: %d template hits", hits())
	}
	if st := plain.Stats(); st.RewriteTemplateHits != 0 {
		t.Fatalf("WithoutLiteralTemplates: %d template hits", st.RewriteTemplateHits)
	}
}
