package policy

import (
	"fmt"
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
		if n := len(p.ix.exact) + len(p.ix.wild); n > 2 {
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
