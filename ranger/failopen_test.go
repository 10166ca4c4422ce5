package ranger

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

func res3(db, table, column string) map[string]*PolicyResource {
	return map[string]*PolicyResource{"database": {Values: []string{db}}, "table": {Values: []string{table}}, "column": {Values: []string{column}}}
}

func selectFor(users ...string) *PolicyItem {
	return &PolicyItem{Accesses: []ItemAccess{{Type: "select"}}, Users: users}
}

func withScript(it *PolicyItem, script string) *PolicyItem {
	it.Conditions = []Condition{{Type: "expression", Values: []string{script}}}
	return it
}

// A condition script that fails while it runs must count against the
// caller: a deny or allow exception applies, an allow or deny exception
// does not, a filter or mask item fails its table or column closed.
func TestScriptRuntimeFailureFailsClosed(t *testing.T) {
	// Strings have no method left: the script compiles and fails when it
	// runs, in Ranger as in sqe. USER.dept.split on a user without dept
	// fails too.
	const unsupported = "USER.dept.left(4) == 'ENGG'"
	const split = "USER.dept.split(',').includes('ENGG')"
	b := loadShop(t)
	b.Policies = append(b.Policies,
		&Policy{ID: 70, Name: "deny engineers, by a method sqe lacks", Resources: res3("fx", "deny1", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u", "v", "w")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u", "v", "w"), unsupported)}},
		&Policy{ID: 71, Name: "deny engineers, split", Resources: res3("fx", "deny2", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u", "v", "w")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u", "v", "w"), split)}},
		&Policy{ID: 72, Name: "allow exception that fails", Resources: res3("fx", "allowex", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u", "v", "w")},
			AllowExceptions: []*PolicyItem{withScript(selectFor("u", "v", "w"), unsupported)}},
		&Policy{ID: 73, Name: "deny exception that fails", Resources: res3("fx", "denyex", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u", "v", "w")},
			DenyPolicyItems: []*PolicyItem{selectFor("u", "v", "w")},
			DenyExceptions:  []*PolicyItem{withScript(selectFor("u", "v", "w"), unsupported)}},
		&Policy{ID: 74, Name: "read filtered and masked", Resources: map[string]*PolicyResource{
			"database": {Values: []string{"fx"}}, "table": {Values: []string{"filtered", "masked"}}, "column": {Values: []string{"*"}}},
			PolicyItems: []*PolicyItem{selectFor("u", "v", "w")}},
		&Policy{ID: 75, Name: "filter engineers", PolicyType: PolicyTypeRowFilter,
			Resources: map[string]*PolicyResource{"database": {Values: []string{"fx"}}, "table": {Values: []string{"filtered"}}},
			RowFilterPolicyItems: []*PolicyItem{withScript(&PolicyItem{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u", "v", "w"},
				RowFilterInfo: &RowFilterInfo{FilterExpr: "region = 'EU'"}}, unsupported)}},
		&Policy{ID: 76, Name: "mask engineers", PolicyType: PolicyTypeDataMask, Resources: res3("fx", "masked", "ssn"),
			DataMaskPolicyItems: []*PolicyItem{withScript(&PolicyItem{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u", "v", "w"},
				DataMaskInfo: &DataMaskInfo{DataMaskType: "MASK_NULL"}}, unsupported)}},
	)
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	snap := src.Current()
	engg := session.User{Name: "u", Attributes: map[string]string{"dept": "ENGG,OPS"}}
	sales := session.User{Name: "v", Attributes: map[string]string{"dept": "SALES"}}
	nodept := session.User{Name: "w"}
	tbl := func(name string) policy.TableName { return policy.TableName{Schema: "fx", Table: name} }
	decideFor := func(u session.User, table string) (*policy.Decision, error) {
		t.Helper()
		v, err := snap.View(u)
		if err != nil {
			t.Fatal(err)
		}
		return v.Decide(tbl(table))
	}

	for _, c := range []struct {
		user      session.User
		table     string
		allowed   bool
		policy    string
		unknownBy bool
	}{
		{engg, "deny1", false, "ranger policy 70", true},
		{sales, "deny1", false, "ranger policy 70", true},
		{engg, "deny2", false, "ranger policy 71", false}, // Ranger's split: the deny applies
		{sales, "deny2", true, "", false},                 // and does not for another department
		{nodept, "deny2", false, "ranger policy 71", true},
		{engg, "allowex", false, "ranger policy 72", true},
		{engg, "denyex", false, "ranger policy 73", false},
	} {
		d, err := decideFor(c.user, c.table)
		if err != nil {
			t.Fatalf("%s on %s: %v", c.user.Name, c.table, err)
		}
		if d.Allows(policy.Select) != c.allowed {
			t.Errorf("%s on %s: select allowed = %v, want %v (%v)", c.user.Name, c.table, d.Allows(policy.Select), c.allowed, d.DeniedBy)
			continue
		}
		if c.policy != "" && !strings.HasPrefix(d.Reason(policy.Select), c.policy) {
			t.Errorf("%s on %s: denied by %q, want %s", c.user.Name, c.table, d.Reason(policy.Select), c.policy)
		}
		if got := strings.Contains(d.Reason(policy.Select), "cannot evaluate"); got != c.unknownBy {
			t.Errorf("%s on %s: reason %q names the failed condition: %v, want %v", c.user.Name, c.table, d.Reason(policy.Select), got, c.unknownBy)
		}
	}

	// A filter item whose condition fails fails the table closed.
	_, err = decideFor(engg, "filtered")
	if !errors.Is(err, policy.ErrAccessDenied) || !strings.Contains(err.Error(), "ranger policy 75") {
		t.Errorf("filter with a failing condition: %v", err)
	}
	// A mask item whose condition fails restricts the column.
	v, _ := snap.View(engg)
	d, err := v.(*View).DecideColumns(tbl("masked"), []string{"id", "ssn"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) || !strings.Contains(d.Restricted["ssn"], "ranger policy 76") || d.Restricted["id"] != "" {
		t.Errorf("mask with a failing condition: restricted %v, masks %v", d.Restricted, d.Masks)
	}

	if n := snap.ScriptFailures(); n == 0 {
		t.Error("script failures were not counted")
	}
	if st := src.Stats(); st.ScriptFailures != snap.ScriptFailures() {
		t.Errorf("Stats.ScriptFailures = %d, snapshot %d", st.ScriptFailures, snap.ScriptFailures())
	}
}

// Ranger's own script forms: split, intersects and the [[X]] shorthand.
func TestScriptSplitForms(t *testing.T) {
	r := &request{
		userAttrs: map[string]string{"partners": "acme,globex"},
		tags:      []*tagForEval{{Type: "PARTNERS", Attributes: map[string]string{"names": "initech,globex"}}},
		st:        &evalState{},
	}
	r.curTag = r.tags[0]
	for script, want := range map[string]bool{
		"HAS_USER_ATTR('partners') && TAGS.PARTNERS.names.split(',').intersects(USER.partners.split(','))": true,
		"TAGS.PARTNERS.names.split(',').intersects(['acme'])":                                              false,
		"[[TAG.names]].intersects([[USER.partners]])":                                                      true,
		"[[TAG.names]].includes('acme')":                                                                   false,
		"[[USER.partners,'|']].length == 1":                                                                true,
		"'a,b,c'.split(',', 2).length == 2 && 'ab'.split('').length == 2 && 'ab'.split().length == 1":      true,
		"ctx.result = true; 'not a boolean'":                                                               true,
	} {
		c, info := newScriptCond(script, false, "expression", nil)
		if !info.supported {
			t.Errorf("%s: %s", script, info.reason)
			continue
		}
		if got := c.eval(r); got != triOf(want) {
			t.Errorf("%s = %v, want %v", script, got, want)
		}
	}
}

// tagAllowBundle is the minimal case of a tag allow followed by a
// resource deny: tag PII on db1.t1, a tag policy allowing select to
// analysts, policy 1 denying select to ann on db1.t1.*, and policy 2 (an
// override without deny items) allowing select elsewhere.
func tagAllowBundle(t *testing.T, other map[string]*PolicyResource) *Bundle {
	t.Helper()
	b := loadShop(t)
	b.Policies = []*Policy{
		{ID: 1, Name: "no ann on t1", Resources: res3("db1", "t1", "*"),
			DenyPolicyItems: []*PolicyItem{selectFor("ann")}},
		{ID: 2, Name: "analysts elsewhere", PolicyPriority: 1, Resources: other,
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Groups: []string{"analysts"}}}},
	}
	b.TagPolicies.Policies = []*Policy{
		{ID: 100, Name: "PII: analysts read", Resources: map[string]*PolicyResource{"tag": {Values: []string{"PII"}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "hive:select"}}, Groups: []string{"analysts"}}}},
	}
	b.Tags = &ServiceTags{ServiceName: b.ServiceName, TagVersion: b.Tags.TagVersion,
		Tags: map[string]*Tag{"1": {Type: "PII"}},
		ServiceResources: []*ServiceResource{{ID: 1, ResourceElements: map[string]*PolicyResource{
			"database": {Values: []string{"db1"}}, "table": {Values: []string{"t1"}}}}},
		ResourceToTagIDs: map[string][]Int64{"1": {1}},
	}
	return b
}

// An allow by a tag policy must not end evaluation before a resource
// deny because a policy on another column, table or database came first:
// Ranger never hands such a policy to the request.
func TestTagAllowDoesNotSkipResourceDeny(t *testing.T) {
	ann := session.User{Name: "ann", Groups: []string{"analysts"}}
	for _, c := range []struct {
		name      string
		other     map[string]*PolicyResource // as the per-principal index files it
		engine    map[string]*PolicyResource // literal, for the engine's candidates
		c9Allowed bool
	}{
		{"another column", res3("db1", "t1", "c9"), res3("db1", "t1", "c9"), true},
		{"another table", res3("db1", "t9*", "*"), res3("db1", "t9", "*"), false},
		{"another database", res3("db9*", "t1", "*"), res3("db9", "t1", "*"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := NewStatic(tagAllowBundle(t, c.other))
			if err != nil {
				t.Fatal(err)
			}
			v, err := src.Current().View(ann)
			if err != nil {
				t.Fatal(err)
			}
			d, err := v.(*View).DecideColumns(policy.TableName{Schema: "db1", Table: "t1"}, []string{"c1", "c9"})
			if err != nil {
				t.Fatal(err)
			}
			if d.Allows(policy.Select) != c.c9Allowed {
				t.Fatalf("select allowed = %v, want %v: %+v", d.Allows(policy.Select), c.c9Allowed, d)
			}
			if c.c9Allowed && (d.Restricted["c1"] != "ranger policy 1" || d.Restricted["c9"] != "") {
				t.Errorf("restricted = %v, want c1 by ranger policy 1", d.Restricted)
			}
			if !c.c9Allowed && d.Reason(policy.Select) != "ranger policy 1" {
				t.Errorf("select denied by %q, want ranger policy 1", d.Reason(policy.Select))
			}

			// The engine, which hands every policy to every request.
			src, err = NewStatic(tagAllowBundle(t, c.engine))
			if err != nil {
				t.Fatal(err)
			}
			e := src.Current().eng
			r := &request{res: &accessResource{elems: map[string]any{"database": "db1", "table": "t1", "column": "c1"}},
				accessType: "select", user: "ann", groups: map[string]bool{"analysts": true}}
			if res := e.evaluate(r, PolicyTypeAccess); res.allowed || res.policyID != 1 {
				t.Errorf("engine: ann on db1.t1.c1 allowed=%v by policy %d, want denied by 1", res.allowed, res.policyID)
			}
		})
	}
}

// A tag whose validity sqe cannot place in time (a recurring schedule
// Ranger's admin would refuse: it names neither days of the month nor days
// of the week) may be attached or not: its tag policies may take access
// away but not grant it.
func TestTagOfUnknownValidityDoesNotGrant(t *testing.T) {
	b := tagAllowBundle(t, res3("db9", "t9", "*"))
	b.Policies = b.Policies[1:] // no resource deny: only the tag policy could grant
	b.Tags.Tags["1"].ValidityPeriods = []*ValiditySchedule{{StartTime: "2020/01/01 00:00:00", EndTime: "2090/01/01 00:00:00",
		Recurrences: []json.RawMessage{json.RawMessage(`{"schedule":{"minute":"0","hour":"9"},"interval":{"hours":8}}`)}}}
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Current().View(session.User{Name: "ann", Groups: []string{"analysts"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.(*View).DecideColumns(policy.TableName{Schema: "db1", Table: "t1"}, []string{"c1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) {
		t.Errorf("a tag of unknown validity granted select: %+v", d)
	}

	// The same tag without the recurrence grants: the test asks the right question.
	b.Tags.Tags["1"].ValidityPeriods[0].Recurrences = nil
	src, _ = NewStatic(b)
	v, _ = src.Current().View(session.User{Name: "ann", Groups: []string{"analysts"}})
	if d, err := v.(*View).DecideColumns(policy.TableName{Schema: "db1", Table: "t1"}, []string{"c1"}); err != nil || !d.Allows(policy.Select) {
		t.Errorf("a valid tag did not grant: %+v %v", d, err)
	}
}

// A ${{...}} expression in a policy's resource values that cannot be
// evaluated for the caller leaves sqe unable to tell whether the policy
// covers the table: its deny items apply, its allow items do not grant.
func TestResourceExpressionFailureFailsClosed(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies,
		&Policy{ID: 80, Name: "u reads fx", Resources: res3("fx", "*", "*"),
			PolicyItems: []*PolicyItem{selectFor("u")}},
		// Strings have no method left: the expression fails when it runs.
		&Policy{ID: 81, Name: "no u on their department's database", Resources: res3("${{USER.dept.left(2)}}", "*", "*"),
			DenyPolicyItems: []*PolicyItem{selectFor("u")}},
		&Policy{ID: 82, Name: "u reads their department's database", Resources: res3("${{USER.dept.left(2)}}", "*", "*"),
			PolicyItems: []*PolicyItem{selectFor("u")}},
	)
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Current().View(session.User{Name: "u", Attributes: map[string]string{"dept": "fxops"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(policy.TableName{Schema: "fx", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) || !strings.HasPrefix(d.Reason(policy.Select), "ranger policy 81") {
		t.Errorf("fx.t: select allowed = %v, denied by %q; want denied by ranger policy 81", d.Allows(policy.Select), d.Reason(policy.Select))
	}
	d, err = v.Decide(policy.TableName{Schema: "gx", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) {
		t.Errorf("gx.t: policy 82 granted on a database sqe could not resolve")
	}
}

// An allow exception of a tag policy whose condition fails takes the tag
// allow away, and the denial names the tag policy.
func TestTagAllowExceptionFailureNamesTagPolicy(t *testing.T) {
	b := tagAllowBundle(t, res3("db9", "t9", "*"))
	b.Policies = b.Policies[1:] // no resource deny
	b.TagPolicies.Policies[0].AllowExceptions = []*PolicyItem{withScript(
		&PolicyItem{Accesses: []ItemAccess{{Type: "hive:select"}}, Groups: []string{"analysts"}}, "USER.dept.left(2) == 'hr'")}
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Current().View(session.User{Name: "ann", Groups: []string{"analysts"}, Attributes: map[string]string{"dept": "sales"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.(*View).DecideColumns(policy.TableName{Schema: "db1", Table: "t1"}, []string{"c1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) || d.Reason(policy.Select) != "ranger tag policy 100: allow exception condition sqe cannot evaluate" {
		t.Errorf("select allowed = %v, denied by %q", d.Allows(policy.Select), d.Reason(policy.Select))
	}
}

// A condition script that reads the column's name cannot be answered for
// "every column no policy names" at once: Decide must ask for the
// table's columns rather than decide the others as if none were ssn.
func TestScriptReadingTheColumnNeedsColumns(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies,
		&Policy{ID: 95, Name: "deny ssn by script", Resources: res3("sc", "deny", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u"), "RES.column == 'ssn'")}},
		&Policy{ID: 96, Name: "allow all but ssn by script", Resources: res3("sc", "allow", "*"),
			PolicyItems: []*PolicyItem{withScript(selectFor("u"), "REQ.resource.column != 'ssn'")}},
	)
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Current().View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []string{"deny", "allow"} {
		tn := policy.TableName{Schema: "sc", Table: tbl}
		if d, err := v.Decide(tn); !IsColumnsNeeded(err) {
			t.Fatalf("%s: Decide = %+v, %v; want the columns asked for", tbl, d, err)
		}
		d, err := v.DecideColumnInfo(tn, []policy.ColumnInfo{{Name: "ssn"}, {Name: "name"}})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allows(policy.Select) || d.Restricted["ssn"] == "" || d.Restricted["name"] != "" {
			t.Errorf("%s: with columns: allowed %v, restricted %v", tbl, d.Allowed, d.Restricted)
		}
	}
}
