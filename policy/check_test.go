package policy

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// TestFilterCheck: a row filter checks written rows with itself by
// default, with its own expression when check gives one, and not at all
// with check: false; the check reaches the Decision and the expressions
// the driver parses at load.
func TestFilterCheck(t *testing.T) {
	f := mustParse(t, `version: 1
default: deny
tables:
  s.t:
    access:
      - {principals: [public], allow: [select, update]}
    row_filters:
      - {name: plain, principals: [public], filter: "a = 1"}
      - {name: on, principals: [public], filter: "b = 2", check: true}
      - {name: off, principals: [public], filter: "c = 3", check: false}
      - {name: own, principals: [public], filter: "d = 4", check: "d IN (4, 5)"}
`)
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(TableName{Schema: "s", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"plain": "a = 1", "on": "b = 2", "off": "", "own": "d IN (4, 5)"}
	if len(d.RowFilters) != len(want) {
		t.Fatalf("filters %+v", d.RowFilters)
	}
	for _, rf := range d.RowFilters {
		if rf.Check != want[rf.Policy] {
			t.Errorf("%s: check %q, want %q", rf.Policy, rf.Check, want[rf.Policy])
		}
	}
	var checks []string
	for _, e := range c.Expressions() {
		if e.Kind == ExprCheck {
			checks = append(checks, e.Rule+" "+e.Path+" "+e.Text)
		}
	}
	if got := strings.Join(checks, ";"); got != `own tables."s.t".row_filters[3].check d IN (4, 5)` {
		t.Errorf("check expressions: %s", got)
	}
}

func TestFilterCheckErrors(t *testing.T) {
	for _, bad := range []string{`check: ""`, `check: [a]`, `check: {a: 1}`} {
		_, err := Parse("p.yaml", []byte(`version: 1
tables:
  s.t:
    row_filters:
      - {principals: [public], filter: "a = 1", `+bad+`}
`))
		if err == nil || !strings.Contains(err.Error(), `row_filters[0].check`) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}
