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

// TestShapesSeenOnceTakeNoCacheEntry: a statement of a new shape leaves
// its rewrite in the cache and nothing else (the shape is marked outside
// it); the second statement of the shape adds the template, which the
// third uses.
func TestShapesSeenOnceTakeNoCacheEntry(t *testing.T) {
	cols := []rewriter.Column{{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"}}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{"shop.customers": cols}}
	src := policy.NewMemorySource()
	if _, err := src.Publish(reusePolicy(t, "region = 'EU'")); err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Source: src, Dialect: "mysql", Catalog: cat, CacheSize: 1000, CacheBytes: 16 << 20, AuditOff: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	cs := NewConnState(nil)
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	// n shapes: IN lists of 1 to n values.
	const n = 20
	statement := func(size, first int) string {
		vals := make([]string, size)
		for i := range vals {
			vals[i] = fmt.Sprint(first + i)
		}
		return "SELECT id FROM customers WHERE id IN (" + strings.Join(vals, ", ") + ")"
	}
	round := func(first int) {
		t.Helper()
		for size := 1; size <= n; size++ {
			p, err := e.Plan(ctx, cs, statement(size, first))
			if err != nil {
				t.Fatal(err)
			}
			e.Finish(ctx, cs, p, time.Time{}, nil)
		}
	}
	entries := func() int { k, _ := e.cache.held(); return k }
	marks := func() (k int) {
		for i := range e.shapes.sets {
			for j := range e.shapes.sets[i] {
				if e.shapes.sets[i][j].Load() != 0 {
					k++
				}
			}
		}
		return k
	}
	round(1)
	if got := entries(); got != n || marks() != n {
		t.Fatalf("after one statement of each of %d shapes the cache holds %d entries and the table %d marks, want %d and %d", n, got, marks(), n, n)
	}
	round(100)
	if got := entries(); got != 3*n || marks() != 0 {
		t.Fatalf("after two statements of each shape the cache holds %d entries (want %d: two rewrites and a template each) and the table %d marks (want none)", got, 3*n, marks())
	}
	if hits := e.Stats().RewriteTemplateHits; hits != 0 {
		t.Fatalf("%d template hits before any template was built", hits)
	}
	round(1000)
	if hits := e.Stats().RewriteTemplateHits; hits != n {
		t.Fatalf("the third statement of each shape: %d template hits, want %d", hits, n)
	}
}

// TestShapeMarks: a mark is found under its own key only; a set holds
// four shapes' marks, and a fifth takes one of them.
func TestShapeMarks(t *testing.T) {
	m := newShapeMarks()
	a := rewriteKey{query: "a", fingerprint: "f", shape: true}
	b := rewriteKey{query: "b", fingerprint: "f", shape: true}
	if m.get(a) != shapeUnseen {
		t.Fatal("a new table has a mark")
	}
	m.mark(a, shapeSeen)
	if m.get(a) != shapeSeen {
		t.Fatal("a's mark is lost")
	}
	m.mark(a, shapeWithoutTemplate)
	if m.get(a) != shapeWithoutTemplate {
		t.Fatal("a's mark is not replaced")
	}
	other := a
	other.fingerprint = "g"
	if m.get(b) != shapeUnseen || m.get(other) != shapeUnseen {
		t.Fatal("a key never marked reads a mark")
	}
	// Four more keys of a's set: the first three and a fill the set and
	// keep their marks; the fourth takes one slot.
	sa, _ := m.set(a)
	var same []rewriteKey
	for i := 0; len(same) < 4; i++ {
		k := rewriteKey{query: fmt.Sprint("c", i), shape: true}
		if sk, _ := m.set(k); sk == sa {
			same = append(same, k)
		}
	}
	for _, k := range same[:3] {
		if m.get(k) != shapeUnseen {
			t.Fatal("a key of a's set reads a mark before it was marked")
		}
		m.mark(k, shapeSeen)
	}
	if m.get(a) != shapeWithoutTemplate {
		t.Fatal("a's mark was lost in a set with room")
	}
	for _, k := range same[:3] {
		if m.get(k) != shapeSeen {
			t.Fatal("a mark was lost in a set with room")
		}
	}
	m.mark(same[3], shapeSeen)
	kept := 0
	for _, k := range append([]rewriteKey{a}, same[:3]...) {
		if m.get(k) != shapeUnseen {
			kept++
		}
	}
	if m.get(same[3]) != shapeSeen || kept != 3 {
		t.Fatalf("a fifth key in a full set: its mark %v, %d of the four others kept, want 3", m.get(same[3]), kept)
	}
	// In a full set, a forgotten key frees its slot for the next: no
	// other mark is lost.
	m = &shapeMarks{seed: m.seed} // empty, the same sets
	full := append([]rewriteKey{a}, same[:3]...)
	for _, k := range full {
		m.mark(k, shapeSeen)
	}
	m.forget(same[2])
	if m.get(same[2]) != shapeUnseen {
		t.Fatal("a forgotten key keeps its mark")
	}
	m.mark(same[3], shapeSeen)
	for _, k := range append(full[:3], same[3]) {
		if m.get(k) != shapeSeen {
			t.Fatalf("after a key was forgotten, a new mark took another's slot: %v", k.query)
		}
	}
}
