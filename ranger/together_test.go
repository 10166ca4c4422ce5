package ranger

import (
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// togetherSnapshot is the shop bundle with accessed-together conditions
// on database tg: a and b may not be read together, c only beside d, and
// e's condition names a column.
func togetherSnapshot(t *testing.T) *Snapshot {
	t.Helper()
	b := loadShop(t)
	b.ServiceDef.PolicyConditions = append(b.ServiceDef.PolicyConditions,
		&PolicyConditionDef{Name: "together", Evaluator: evaluatorPkg + "RangerHiveResourcesAccessedTogetherCondition"},
		&PolicyConditionDef{Name: "not-together", Evaluator: evaluatorPkg + "RangerHiveResourcesNotAccessedTogetherCondition"})
	cond := func(it *PolicyItem, typ string, vals ...string) *PolicyItem {
		it.Conditions = []Condition{{Type: typ, Values: vals}}
		return it
	}
	b.Policies = append(b.Policies,
		&Policy{ID: 60, Name: "a and b apart", Resources: map[string]*PolicyResource{
			"database": {Values: []string{"tg"}}, "table": {Values: []string{"a", "b"}}, "column": {Values: []string{"*"}}},
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{cond(selectFor("u"), "together", "tg.a", "tg.b")}},
		&Policy{ID: 61, Name: "c only beside d", Resources: res3("tg", "c", "*"),
			PolicyItems: []*PolicyItem{cond(selectFor("u"), "not-together", "tg.c", "tg.d")}},
		&Policy{ID: 62, Name: "e's ssn apart from f", Resources: res3("tg", "e", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{cond(selectFor("u"), "together", "tg.e.ssn", "tg.f")}},
	)
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	return src.Current()
}

func tgTables(names ...string) []policy.TableName {
	out := make([]policy.TableName, len(names))
	for i, n := range names {
		out[i] = policy.TableName{Schema: "tg", Table: n}
	}
	return out
}

// An accessed-together deny applies when the statement reads both
// tables, and, since a View that was not told the statement's tables
// cannot know, whenever it was not told; a spec that names a column
// cannot be decided from tables and applies too. A not-together allow
// grants only when sqe knows the other table is not read.
func TestAccessedTogetherFailsClosed(t *testing.T) {
	s := togetherSnapshot(t)
	pv, err := s.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	v := pv.(*View)
	const unknown60 = "ranger policy 60: deny " + reasonUnknownCondition
	const unknown62 = "ranger policy 62: deny " + reasonUnknownCondition
	for _, c := range []struct {
		name      string
		statement []policy.TableName // nil: not told
		table     string
		want      string
	}{
		{"a, not told", nil, "a", unknown60},
		{"a alone", tgTables("a"), "a", "allowed"},
		{"a with c", tgTables("a", "c"), "a", "allowed"},
		{"a with b", tgTables("a", "b"), "a", "ranger policy 60"},
		{"b with a", tgTables("b", "a", "b"), "b", "ranger policy 60"},
		{"c, not told", nil, "c", ReasonNoPolicy},
		{"c alone", tgTables("c"), "c", "allowed"},
		{"c with a", tgTables("c", "a"), "c", "allowed"},
		{"c with d", tgTables("c", "d"), "c", ReasonNoPolicy},
		{"e alone", tgTables("e"), "e", unknown62},
		{"e with f", tgTables("e", "f"), "e", unknown62},
	} {
		var view policy.View = v
		if c.statement != nil {
			view = v.ForStatementTables(c.statement)
		}
		d, err := view.Decide(policy.TableName{Schema: "tg", Table: c.table})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := "allowed"
		if !d.Allows(policy.Select) {
			got = d.Reason(policy.Select)
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// The statement's tables are part of the fingerprint, so the shared
	// decision cache does not give one statement's decision to another.
	fa, fab := v.ForStatementTables(tgTables("a")).Fingerprint(), v.ForStatementTables(tgTables("b", "a")).Fingerprint()
	if fa == fab || fa == v.Fingerprint() || fab != v.ForStatementTables(tgTables("a", "b", "a")).Fingerprint() {
		t.Errorf("fingerprints: %q %q %q", v.Fingerprint(), fa, fab)
	}
}

// Without accessed-together conditions the statement's tables change
// nothing, and the View is its own.
func TestStatementTablesOnlyWhenNeeded(t *testing.T) {
	s := shopSnapshot(t)
	pv, err := s.View(session.User{Name: "ann", Groups: []string{"analysts"}})
	if err != nil {
		t.Fatal(err)
	}
	v := pv.(*View)
	if got := v.ForStatementTables(tgTables("a")); got != policy.View(v) {
		t.Errorf("a snapshot without accessed-together conditions gave another View")
	}
}
