package ranger

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// zoneRes is a database/table/column policy resource.
func zoneRes(db, table, column string) map[string]*PolicyResource {
	r := map[string]*PolicyResource{"database": {Values: []string{db}}}
	if table != "" {
		r["table"] = &PolicyResource{Values: []string{table}}
	}
	if column != "" {
		r["column"] = &PolicyResource{Values: []string{column}}
	}
	return r
}

func allowSelect(id int, zone string, res map[string]*PolicyResource, users ...string) *Policy {
	return &Policy{ID: Int64(id), Name: "allow " + strings.Join(users, ","), ZoneName: zone, Resources: res,
		PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}, {Type: "update"}}, Users: users}}}
}

func denySelect(id int, zone string, res map[string]*PolicyResource, users ...string) *Policy {
	return &Policy{ID: Int64(id), Name: "deny " + strings.Join(users, ","), ZoneName: zone, Resources: res,
		DenyPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: users}}}
}

type testZone struct {
	resources []map[string][]string
	policies  []*Policy
	tags      bool
}

// zonedBundle is the shop service-def with the given unzoned policies and
// zones, shaped as Ranger's policy download ships them: each zone's
// policies sit under securityZones, not in the service's policies.
func zonedBundle(t *testing.T, unzoned []*Policy, zones map[string]testZone) *Bundle {
	t.Helper()
	b := loadShop(t)
	b.Policies = unzoned
	b.TagPolicies = nil
	b.Tags = nil
	b.SecurityZones = map[string]json.RawMessage{}
	for name, z := range zones {
		raw, err := json.Marshal(map[string]any{"zoneName": name, "resources": z.resources, "policies": z.policies, "containsAssociatedTagService": z.tags})
		if err != nil {
			t.Fatal(err)
		}
		b.SecurityZones[name] = raw
	}
	return b
}

func zonedView(t *testing.T, b *Bundle, user string) *View {
	t.Helper()
	s, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Current().View(session.User{Name: user})
	if err != nil {
		t.Fatal(err)
	}
	return v.(*View)
}

func mustDecide(t *testing.T, v *View, db, table string) *policy.Decision {
	t.Helper()
	d, err := v.Decide(policy.TableName{Schema: db, Table: table})
	if err != nil {
		t.Fatalf("%s on %s.%s: %v", v.user.Name, db, table, err)
	}
	return d
}

func TestZonedTableUsesTheZonePolicies(t *testing.T) {
	unzoned := []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann", "fred")}
	b := zonedBundle(t, unzoned, map[string]testZone{
		"finance": {
			resources: []map[string][]string{{"database": {"fin"}, "table": {"*"}, "column": {"*"}}},
			policies: []*Policy{
				allowSelect(100, "finance", zoneRes("fin", "*", "*"), "fred"),
				denySelect(101, "finance", zoneRes("fin", "secret", "*"), "fred"),
			},
		},
	})
	ann := zonedView(t, b, "ann")
	fred := zonedView(t, b, "fred")

	if d := mustDecide(t, ann, "shop", "orders"); !d.Allows(policy.Select) || d.AllowedBy[policy.Select] != "ranger policy 1" {
		t.Errorf("ann on an unzoned table: %+v", d)
	}
	// The unzoned allow does not reach into the zone.
	if d := mustDecide(t, ann, "fin", "ledger"); d.Allows(policy.Select) || d.Allows(policy.Update) || d.DeniedBy[policy.Select] != ReasonNoPolicy {
		t.Errorf("ann in the zone: %+v", d)
	}
	if d := mustDecide(t, fred, "fin", "ledger"); !d.Allows(policy.Select) || d.AllowedBy[policy.Select] != "ranger policy 100" {
		t.Errorf("fred in the zone: %+v", d)
	}
	// The zone's deny applies.
	if d := mustDecide(t, fred, "fin", "secret"); d.Allows(policy.Select) || d.DeniedBy[policy.Select] != "ranger policy 101" || !d.Allows(policy.Update) {
		t.Errorf("fred on the zone's denied table: %+v", d)
	}
	// Outside the zone fred has the unzoned policies.
	if d := mustDecide(t, fred, "shop", "orders"); !d.Allows(policy.Select) || d.AllowedBy[policy.Select] != "ranger policy 1" {
		t.Errorf("fred outside the zone: %+v", d)
	}
	// Zone names match a database case-insensitively, as the service-def's
	// matcher options say.
	if d := mustDecide(t, ann, "FIN", "Ledger"); d.Allows(policy.Select) {
		t.Errorf("ann in the zone, upper case: %+v", d)
	}
	// Decisions are cached per table: asking again gives the same answers.
	if d := mustDecide(t, ann, "shop", "orders"); !d.Allows(policy.Select) {
		t.Errorf("ann on an unzoned table, cached: %+v", d)
	}
	if d := mustDecide(t, ann, "fin", "ledger"); d.Allows(policy.Select) {
		t.Errorf("ann in the zone, cached: %+v", d)
	}
}

func TestWildcardAndSeveralZones(t *testing.T) {
	unzoned := []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann")}
	b := zonedBundle(t, unzoned, map[string]testZone{
		"sales": {
			resources: []map[string][]string{
				{"database": {"shop"}, "table": {"sales_*"}, "column": {"*"}},
				{"database": {"crm"}, "table": {"*"}},
				{"database": {"ops"}},
			},
			policies: []*Policy{allowSelect(200, "sales", zoneRes("*", "*", "*"), "sam")},
		},
		"finance": {
			resources: []map[string][]string{{"database": {"fin*"}, "table": {"*"}, "column": {"*"}}},
			policies:  []*Policy{allowSelect(300, "finance", zoneRes("*", "*", "*"), "fay")},
		},
	})
	cases := []struct {
		user, db, table string
		allowed         bool
		by              string
	}{
		{"ann", "shop", "orders", true, "ranger policy 1"},
		{"ann", "shop", "sales_eu", false, ReasonNoPolicy},
		{"ann", "crm", "contacts", false, ReasonNoPolicy},
		{"ann", "finance", "ledger", false, ReasonNoPolicy},
		{"sam", "shop", "sales_eu", true, "ranger policy 200"},
		{"sam", "crm", "contacts", true, "ranger policy 200"},
		{"sam", "ops", "jobs", true, "ranger policy 200"},
		{"ann", "ops", "jobs", false, ReasonNoPolicy},
		{"sam", "shop", "orders", false, ReasonNoPolicy},
		{"sam", "fin", "ledger", false, ReasonNoPolicy},
		{"fay", "fin", "ledger", true, "ranger policy 300"},
		{"fay", "finance_eu", "ledger", true, "ranger policy 300"},
		{"fay", "shop", "sales_eu", false, ReasonNoPolicy},
	}
	views := map[string]*View{}
	for _, c := range cases {
		v := views[c.user]
		if v == nil {
			v = zonedView(t, b, c.user)
			views[c.user] = v
		}
		d := mustDecide(t, v, c.db, c.table)
		got := d.AllowedBy[policy.Select]
		if !c.allowed {
			got = d.DeniedBy[policy.Select]
		}
		if d.Allows(policy.Select) != c.allowed || got != c.by {
			t.Errorf("%s on %s.%s: allowed %v by %q, want %v by %q", c.user, c.db, c.table, d.Allows(policy.Select), got, c.allowed, c.by)
		}
	}
}

func TestOverlappingZonesFailClosed(t *testing.T) {
	unzoned := []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann")}
	b := zonedBundle(t, unzoned, map[string]testZone{
		"a": {resources: []map[string][]string{{"database": {"x"}, "table": {"*"}, "column": {"*"}}},
			policies: []*Policy{allowSelect(10, "a", zoneRes("*", "*", "*"), "ann")}},
		"b": {resources: []map[string][]string{{"database": {"x"}, "table": {"t"}, "column": {"*"}}},
			policies: []*Policy{allowSelect(20, "b", zoneRes("*", "*", "*"), "ann")}},
	})
	v := zonedView(t, b, "ann")
	_, err := v.Decide(policy.TableName{Schema: "x", Table: "t"})
	if !errors.Is(err, policy.ErrAccessDenied) || !strings.Contains(err.Error(), "more than one security zone (a, b)") {
		t.Errorf("x.t: %v", err)
	}
	if d := mustDecide(t, v, "x", "u"); !d.Allows(policy.Select) || d.AllowedBy[policy.Select] != "ranger policy 10" {
		t.Errorf("x.u: %+v", d)
	}
}

func TestColumnZones(t *testing.T) {
	unzoned := []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann")}
	zones := map[string]testZone{
		"pii": {resources: []map[string][]string{{"database": {"shop"}, "table": {"customers"}, "column": {"ssn", "dob"}}},
			policies: []*Policy{allowSelect(50, "pii", zoneRes("shop", "customers", "*"), "paul")}},
	}
	b := zonedBundle(t, unzoned, zones)
	ann := zonedView(t, b, "ann")
	tn := policy.TableName{Schema: "shop", Table: "customers"}
	d, err := ann.Decide(tn)
	if err != nil {
		t.Fatal(err)
	}
	// The zone's columns are decided by the zone's policies, the others
	// and the table itself (Ranger evaluates a table with zoned columns
	// below it under the unzoned policies) by the unzoned ones.
	if !d.Allows(policy.Select) || !d.Allows(policy.Update) || d.Restricted["ssn"] != ReasonNoPolicy || d.Restricted["dob"] != ReasonNoPolicy || len(d.Restricted) != 2 {
		t.Errorf("ann: %+v", d)
	}
	paul := zonedView(t, b, "paul")
	if _, err := paul.Decide(tn); !IsColumnsNeeded(err) {
		t.Errorf("paul without columns: %v", err)
	}
	d, err = paul.DecideColumns(tn, []string{"id", "SSN"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) || d.Allows(policy.Update) || d.Restricted["id"] != ReasonNoPolicy || len(d.Restricted) != 1 {
		t.Errorf("paul: %+v", d)
	}

	// A zone naming columns by pattern: only the table's columns decide.
	zones["pii"] = testZone{resources: []map[string][]string{{"database": {"shop"}, "table": {"customers"}, "column": {"ss*"}}}}
	ann = zonedView(t, zonedBundle(t, unzoned, zones), "ann")
	_, err = ann.Decide(tn)
	var ce *ColumnsNeededError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, `security zone "pii" names columns by pattern`) {
		t.Fatalf("pattern zone: %v", err)
	}
	d, err = ann.DecideColumns(tn, []string{"id", "ssn", "ss_2"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) || len(d.Restricted) != 2 || d.Restricted["id"] != "" {
		t.Errorf("pattern zone with columns: %+v", d)
	}
}

func TestZoneWithoutResourcesUsesUnzonedPolicies(t *testing.T) {
	unzoned := []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann")}
	b := zonedBundle(t, unzoned, map[string]testZone{"empty": {}})
	if d := mustDecide(t, zonedView(t, b, "ann"), "shop", "orders"); !d.Allows(policy.Select) {
		t.Errorf("%+v", d)
	}
}

func TestUnparsableZonesFailClosed(t *testing.T) {
	b := zonedBundle(t, []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "ann")}, nil)
	b.SecurityZones = map[string]json.RawMessage{"z": json.RawMessage(`{"resources": "shop"}`)}
	v := zonedView(t, b, "ann")
	if _, err := v.Decide(policy.TableName{Schema: "shop", Table: "orders"}); !errors.Is(err, policy.ErrAccessDenied) || !strings.Contains(err.Error(), `security zone "z"`) {
		t.Errorf("%v", err)
	}
}

func TestZoneTagPolicies(t *testing.T) {
	// shop.payments carries the RESTRICTED tag, whose tag policy denies
	// select to contractors.
	build := func(tagZone string, zoneHasTags bool) *View {
		b := loadShop(t)
		b.Policies = []*Policy{allowSelect(1, "", zoneRes("*", "*", "*"), "cody")}
		for _, p := range b.TagPolicies.Policies {
			if p.ID == 101 {
				p.ZoneName = tagZone
			}
		}
		raw, err := json.Marshal(map[string]any{
			"resources":                    []map[string][]string{{"database": {"shop"}, "table": {"payments"}, "column": {"*"}}},
			"policies":                     []*Policy{allowSelect(2, "pay", zoneRes("shop", "payments", "*"), "cody")},
			"containsAssociatedTagService": zoneHasTags,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.SecurityZones = map[string]json.RawMessage{"pay": raw}
		s, err := NewStatic(b)
		if err != nil {
			t.Fatal(err)
		}
		v, err := s.Current().View(session.User{Name: "cody", Groups: []string{"contractors"}})
		if err != nil {
			t.Fatal(err)
		}
		return v.(*View)
	}
	const tagDeny = "ranger tag policy 101"
	cases := []struct {
		tagZone     string
		zoneHasTags bool
		allowed     bool
	}{
		// A zone without a tag service uses the unzoned tag policies.
		{"", false, false},
		{"pay", false, true},
		// A zone with one uses its own tag policies only.
		{"pay", true, false},
		{"", true, true},
	}
	for _, c := range cases {
		d := mustDecide(t, build(c.tagZone, c.zoneHasTags), "shop", "payments")
		if d.Allows(policy.Select) != c.allowed {
			t.Errorf("tag policy in zone %q, zone has a tag service %v: select %v, want %v (%+v)", c.tagZone, c.zoneHasTags, d.Allows(policy.Select), c.allowed, d)
		}
		if !c.allowed && d.DeniedBy[policy.Select] != tagDeny {
			t.Errorf("tag policy in zone %q, zone has a tag service %v: denied by %q", c.tagZone, c.zoneHasTags, d.DeniedBy[policy.Select])
		}
		if c.allowed && d.AllowedBy[policy.Select] != "ranger policy 2" {
			t.Errorf("tag policy in zone %q, zone has a tag service %v: allowed by %q", c.tagZone, c.zoneHasTags, d.AllowedBy[policy.Select])
		}
	}
}
