package policy

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func TestRuleReachedThroughSeveralPrincipals(t *testing.T) {
	c := mustCompile(t, `
version: 1
default: allow
tables:
  s.t:
    row_filters:
      - {name: f1, principals: [role:a, role:b, public, public, user:u, group:g], filter: "x = 1"}
      - {name: f2, principals: [role:b], filter: "y = 2"}
    restricted:
      - {name: r1, principals: [role:a, role:b], columns: [c, c]}
`)
	checkDecision(t, decide(t, c, session.User{Name: "u", Groups: []string{"g"}, Roles: []string{"a", "b"}}, "s.t"), want{
		allow:      "all",
		filters:    []string{"f1", "f2"},
		restricted: map[string]string{"c": "r1"},
	})
}

// bigPolicy has n roles, each with rules on its own table and on a shared
// table, plus one wildcard entry.
func bigPolicy(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\ndefault: deny\ntables:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  s.t%d:\n    access: [{principals: [role:r%d], allow: [select]}]\n", i, i)
		fmt.Fprintf(&b, "    row_filters: [{principals: [role:r%d], filter: \"k = %d\"}]\n", i, i)
	}
	b.WriteString("  s.shared:\n    access:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "      - {principals: [role:r%d], allow: [select]}\n", i)
	}
	b.WriteString("  \"s.log_*\":\n    access: [{principals: [public], allow: [select]}]\n")
	return b.String()
}

func TestViewPinsOnlyItsPrincipals(t *testing.T) {
	c := mustCompile(t, bigPolicy(2000))
	v, err := c.View(session.User{Name: "u", Roles: []string{"r7"}})
	if err != nil {
		t.Fatal(err)
	}
	fv := v.(*fileView)
	if len(fv.pins) != 2 { // role:r7 and public
		t.Fatalf("%d pins", len(fv.pins))
	}
	for _, p := range fv.pins {
		if n := len(c.entriesOf(p.pid)); n > 2 {
			t.Errorf("pinned index has %d entries", n)
		}
	}
	checkDecision(t, decide(t, c, session.User{Name: "u", Roles: []string{"r7"}}, "s.t7"), want{allow: "select", filters: []string{"s.t7/row_filters[0]"}})
	checkDecision(t, decide(t, c, session.User{Name: "u", Roles: []string{"r7"}}, "s.t8"), want{allow: ""})
	checkDecision(t, decide(t, c, session.User{Name: "u", Roles: []string{"r7"}}, "s.shared"), want{allow: "select"})
	checkDecision(t, decide(t, c, session.User{Name: "u"}, "s.log_x"), want{allow: "select"})
}

func BenchmarkView(b *testing.B) {
	c := mustCompile(b, bigPolicy(5000))
	u := session.User{Name: "u", Groups: []string{"g1", "g2"}, Roles: []string{"r1", "r2", "r3"}, Attributes: map[string]string{"tenant": "7"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.View(u); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecide(b *testing.B) {
	c := mustCompile(b, bigPolicy(5000))
	u := session.User{Name: "u", Roles: []string{"r1", "r2", "r3"}}
	tn := TableName{"s", "t2"}
	b.ReportAllocs()
	for b.Loop() {
		v, _ := c.View(u)
		if d, _ := v.Decide(tn); !d.Allows(Select) {
			b.Fatal("denied")
		}
	}
}

// TestWildcardIndexMatchesBruteForce compares the wildcard index with
// matching every pattern, on random patterns and names.
func TestWildcardIndexMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	part := func(wild bool) string {
		const alphabet = "ab_"
		var b strings.Builder
		for n := rng.IntN(5); n >= 0; n-- {
			switch x := rng.IntN(10); {
			case wild && x == 0:
				b.WriteByte('*')
			case wild && x == 1:
				b.WriteByte('?')
			default:
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		}
		return b.String()
	}
	for round := 0; round < 200; round++ {
		var w wildIndex
		type pat struct{ s, t string }
		var pats []pat
		for i := 0; i < 30; i++ {
			p := pat{part(rng.IntN(3) == 0), part(true)}
			if !strings.ContainsAny(p.s+p.t, "*?") {
				p.t += "*"
			}
			pats = append(pats, p)
			w.add(p.s, p.t, int32(i))
		}
		for q := 0; q < 50; q++ {
			k := tkey{part(false), part(false)}
			got := w.match(k, nil, nil)
			slices.Sort(got)
			var want []int32
			for i, p := range pats {
				if glob(p.s).match(k.schema) && glob(p.t).match(k.table) {
					want = append(want, int32(i))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%v: index %v, brute force %v (patterns %v)", k, got, want, pats)
			}
		}
	}
}

// TestWildcardLookupSkipsUnrelatedPatterns: with a thousand wildcard
// entries, a lookup looks only at the patterns whose literal text the
// table's name carries.
func TestWildcardLookupSkipsUnrelatedPatterns(t *testing.T) {
	var w wildIndex
	for i := 0; i < 1000; i++ {
		w.add("s", fmt.Sprintf("p%d_*", i), int32(i))        // prefix anchor
		w.add("*", fmt.Sprintf("*_x%d", i), int32(1000+i))   // suffix anchor, any schema
		w.add(fmt.Sprintf("db%d", i), "*", int32(2000+i))    // whole schema
		w.add("*", fmt.Sprintf("exact%d", i), int32(3000+i)) // literal table, any schema
		w.add(fmt.Sprintf("s%d", i), "a?c", int32(4000+i))   // schema-only anchor
	}
	w.add("*", "*", 9999)
	for _, tc := range []struct {
		k        tkey
		want     []int32
		examined int
	}{
		{tkey{"s", "p5_log"}, []int32{5, 9999}, 2},
		{tkey{"s", "p50_log"}, []int32{50, 9999}, 2},
		{tkey{"other", "t_x7"}, []int32{1007, 9999}, 2},
		{tkey{"db3", "anything"}, []int32{2003, 9999}, 2},
		{tkey{"zz", "exact12"}, []int32{3012, 9999}, 2},
		{tkey{"s7", "abc"}, []int32{4007, 9999}, 2},
		{tkey{"none", "none"}, []int32{9999}, 1},
	} {
		examined := 0
		got := w.match(tc.k, nil, &examined)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || examined != tc.examined {
			t.Errorf("%v: matched %v after examining %d patterns; want %v after %d", tc.k, got, examined, tc.want, tc.examined)
		}
	}
}

func TestProbeIndex(t *testing.T) {
	h := newProbeIndex(5000)
	for i := int32(0); i < 5000; i++ {
		h.put(i%97, i, i*3)
	}
	for i := int32(0); i < 5000; i++ {
		if e, ok := h.get(i%97, i); !ok || e != i*3 {
			t.Fatalf("get(%d, %d) = %d, %v", i%97, i, e, ok)
		}
		if _, ok := h.get(i%97+1, i); ok {
			t.Fatalf("get(%d, %d) found", i%97+1, i)
		}
	}
	var empty probeIndex
	if _, ok := empty.get(0, 0); ok {
		t.Fatal("empty index found an entry")
	}
}

func TestPriorityOrdersRules(t *testing.T) {
	pub := []Principal{{Kind: PrincipalPublic}}
	f := &File{Version: FileVersion, Tables: []FileTable{
		{Schema: "s", Table: "*", Masks: []MaskRule{{Name: "wild-high", Principals: pub, Column: "a", Type: "MASK_NULL", Priority: 10}}},
		{Schema: "s", Table: "t",
			Access: []AccessRule{
				{Name: "low-deny", Principals: pub, Deny: []Access{Select}},
				{Name: "high-deny", Principals: pub, Deny: []Access{Select}, Priority: 5},
				{Name: "allow", Principals: pub, Allow: []Access{All}, Priority: 100},
			},
			RowFilters: []FilterRule{{Name: "f-low", Principals: pub, Filter: "1=1"}, {Name: "f-high", Principals: pub, Filter: "2=2", Priority: 1}},
			Masks:      []MaskRule{{Name: "exact", Principals: pub, Column: "a", Type: "MASK_HASH"}, {Name: "b-low", Principals: pub, Column: "b", Type: "MASK"}, {Name: "b-high", Principals: pub, Column: "b", Type: "MASK_NULL", Priority: 2}},
		},
	}}
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkDecision(t, decide(t, c, session.User{Name: "u"}, "s.t"), want{
		allow:    "update,create,drop,alter,index,lock",
		deniedBy: map[Access]string{Select: "high-deny", All: "high-deny"},
		filters:  []string{"f-high", "f-low"},
		masks:    map[string]string{"a": "wild-high", "b": "b-high"},
	})
	// Without priorities, file order (exact entries first).
	for i := range f.Tables {
		for j := range f.Tables[i].Access {
			f.Tables[i].Access[j].Priority = 0
		}
		for j := range f.Tables[i].Masks {
			f.Tables[i].Masks[j].Priority = 0
		}
		for j := range f.Tables[i].RowFilters {
			f.Tables[i].RowFilters[j].Priority = 0
		}
	}
	c, _ = Compile(f, 1)
	checkDecision(t, decide(t, c, session.User{Name: "u"}, "s.t"), want{
		allow:    "update,create,drop,alter,index,lock",
		deniedBy: map[Access]string{Select: "low-deny"},
		filters:  []string{"f-low", "f-high"},
		masks:    map[string]string{"a": "exact", "b": "b-low"},
	})
}

func TestCompileCopiesTheFile(t *testing.T) {
	f := mustParse(t, evalPolicy)
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := decide(t, c, session.User{Name: "x", Groups: []string{"ops"}}, "shop.customers").Clone()
	for i := range f.Tables {
		t := &f.Tables[i]
		for j := range t.Restricted {
			t.Restricted[j].Columns[0] = "changed"
		}
		for j := range t.Masks {
			for k := range t.Masks[j].Args {
				t.Masks[j].Args[k] = "9"
			}
		}
		t.Access = nil
	}
	f.Roles, f.Users, f.Groups = nil, nil, nil
	after := decide(t, c, session.User{Name: "x", Groups: []string{"ops"}}, "shop.customers")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("changing the File changed the snapshot:\n%+v\n%+v", before, after)
	}
}

func TestOptionDefaults(t *testing.T) {
	o := defaultOptions()
	if o.mergeBound != DefaultMergeBound || o.mergeMinPins != DefaultMergeMinPrincipals || o.viewRetries != DefaultViewRetries ||
		o.retryBackoff != DefaultRetryBackoff || o.decisionCache != DefaultDecisionCacheSize || !o.partialLoads || o.deferredLoad {
		t.Errorf("defaults %+v", o)
	}
	if DefaultMergeBound != 100_000 {
		t.Errorf("merge bound default %d", DefaultMergeBound)
	}
	o = buildOptions(o, []Option{WithMergeBound(7), WithViewRetries(-1), WithDecisionCacheSize(-3), WithRetryBackoff(-1), nil})
	if o.mergeBound != 7 || o.viewRetries != 0 || o.decisionCache != 0 || o.retryBackoff != 0 {
		t.Errorf("options %+v", o)
	}
	// A source's options reach the snapshots it compiles.
	path := filepath.Join(t.TempDir(), "p.yaml")
	writeFile(t, path, evalPolicy)
	src, err := NewFileSource(path, WithDecisionCacheSize(0), WithMergeBound(12))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := src.Snapshot()
	if c := s.(*Compiled); c.opts.decisionCache != 0 || c.opts.mergeBound != 12 || c.counters != src.Counters() {
		t.Errorf("snapshot options %+v", c.opts)
	}
	v, _ := s.View(session.User{Name: "alice"})
	d1, _ := v.Decide(TableName{"shop", "customers"})
	d2, _ := v.Decide(TableName{"shop", "customers"})
	if d1 == d2 || !reflect.DeepEqual(d1, d2) {
		t.Error("decision cache size 0 still cached")
	}
	// Shared counters.
	ctr := NewCounters()
	a := NewMemorySource(WithCounters(ctr))
	b := NewMemorySource(WithCounters(ctr))
	a.Publish(mustParse(t, evalPolicy))
	b.Publish(mustParse(t, evalPolicy))
	if ctr.Stats().Reloads != 2 || a.Stats().Reloads != 2 {
		t.Errorf("shared counters %+v", ctr.Stats())
	}
}
