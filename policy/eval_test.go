package policy

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

const evalPolicy = `
version: 1
default: deny
roles:
  admin: {contains: [analyst, support]}
  eu_analyst: {contains: [analyst]}
  lead: {contains: [eu_analyst]}
groups:
  eu-team: {roles: [eu_analyst]}
  contractors: {roles: [temp]}
users:
  alice: {roles: [admin]}
tables:
  "shop.*":
    masks:
      - {name: wild-ssn, principals: [public], column: ssn, type: MASK_NULL}
      - {name: wild-phone, principals: [public], column: phone, type: MASK}
    row_filters:
      - {name: wild-tenant, principals: [public], filter: "tenant = 1"}
  shop.customers:
    access:
      - {name: staff-read, principals: [role:analyst, role:support, group:ops], allow: [select]}
      - {name: admin-write, principals: [role:admin], allow: [all]}
      - {name: no-temps, principals: [role:temp], deny: [all]}
      - {name: no-bob-update, principals: [user:bob], deny: [update, drop]}
    row_filters:
      - {name: eu-only, principals: [role:eu_analyst], filter: "region = 'EU'"}
      - {name: not-deleted, principals: [role:support], filter: "deleted_at IS NULL"}
    masks:
      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: ssn-hash, principals: [public], column: SSN, type: MASK_HASH}
      - {name: email-domain, principals: [role:support], column: email, type: CUSTOM, expr: "CONCAT('***', {col})"}
      - {name: salary-null, principals: [public], column: salary, type: MASK_NULL}
      - {name: first-2, principals: [user:carol], column: name, type: MASK_SHOW_FIRST_N, args: ["2"]}
    restricted:
      - {name: no-salary, principals: [role:support], columns: [salary]}
      - {name: no-notes, principals: [group:ops], columns: [notes, SALARY]}
  "*.audit_?og":
    access:
      - {name: audit-read, principals: [role:admin], allow: [select]}
  "archive.*":
    access:
      - {name: archive-closed, principals: [public], deny: [all]}
  sys.audit_log:
    restricted:
      - {name: no-ip, principals: [public], columns: [ip]}
`

type want struct {
	allow      string            // allowed access types: "all", "" (none) or a comma list
	deniedBy   map[Access]string // checked entries of DeniedBy
	filters    []string          // RowFilters, by policy name
	masks      map[string]string // column -> policy
	restricted map[string]string // column -> policy
}

func mustCompile(t testing.TB, src string) *Compiled {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(f, 7)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func decide(t testing.TB, s Snapshot, u session.User, table string) *Decision {
	t.Helper()
	v, err := s.View(u)
	if err != nil {
		t.Fatalf("View(%+v): %v", u, err)
	}
	schema, tb, _ := strings.Cut(table, ".")
	d, err := v.Decide(TableName{Schema: schema, Table: tb})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func allowedString(d *Decision) string {
	var got []string
	for _, a := range Accesses {
		if d.Allows(a) {
			got = append(got, string(a))
		}
	}
	if len(got) == len(Accesses) {
		if !d.Allows(All) {
			return "all-but-not-All"
		}
		return "all"
	}
	if d.Allows(All) {
		return "All-but-not-all"
	}
	return strings.Join(got, ",")
}

func checkDecision(t *testing.T, d *Decision, w want) {
	t.Helper()
	if got := allowedString(d); got != w.allow {
		t.Errorf("allowed %q, want %q (denied by %v)", got, w.allow, d.DeniedBy)
	}
	for a, r := range w.deniedBy {
		if got := d.Reason(a); got != r {
			t.Errorf("reason for %s: %q, want %q", a, got, r)
		}
	}
	for _, a := range Accesses {
		if !d.Allows(a) && d.DeniedBy[a] == "" {
			t.Errorf("%s denied without a reason", a)
		}
		if d.Allows(a) && d.DeniedBy[a] != "" {
			t.Errorf("%s allowed with reason %q", a, d.DeniedBy[a])
		}
	}
	var filters []string
	for _, f := range d.RowFilters {
		filters = append(filters, f.Policy)
	}
	if !slices.Equal(filters, w.filters) {
		t.Errorf("filters %q, want %q", filters, w.filters)
	}
	masks := map[string]string{}
	for c, m := range d.Masks {
		masks[c] = m.Policy
	}
	if w.masks == nil {
		w.masks = map[string]string{}
	}
	if !maps.Equal(masks, w.masks) {
		t.Errorf("masks %v, want %v", masks, w.masks)
	}
	restricted := maps.Clone(d.Restricted)
	if restricted == nil {
		restricted = map[string]string{}
	}
	if w.restricted == nil {
		w.restricted = map[string]string{}
	}
	if !maps.Equal(restricted, w.restricted) {
		t.Errorf("restricted %v, want %v", restricted, w.restricted)
	}
}

func TestDecide(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	publicMasks := map[string]string{"ssn": "ssn-hash", "salary": "salary-null", "phone": "wild-phone"}
	supportMasks := map[string]string{"ssn": "ssn-last4", "email": "email-domain", "phone": "wild-phone"}
	cases := []struct {
		name  string
		user  session.User
		table string
		want  want
	}{
		{"file user gets admin closure", session.User{Name: "alice"}, "shop.customers", want{
			allow:      "all",
			filters:    []string{"not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"analyst reads only", session.User{Name: "x", Roles: []string{"analyst"}}, "shop.customers", want{
			allow:    "select",
			deniedBy: map[Access]string{Update: ReasonNoAllow, All: ReasonNoAllow},
			filters:  []string{"wild-tenant"},
			masks:    publicMasks,
		}},
		{"table names are case-insensitive", session.User{Name: "x", Roles: []string{"analyst"}}, "SHOP.Customers", want{
			allow:   "select",
			filters: []string{"wild-tenant"},
			masks:   publicMasks,
		}},
		{"group grants role, filters ANDed", session.User{Name: "x", Groups: []string{"eu-team"}}, "shop.customers", want{
			allow:   "select",
			filters: []string{"eu-only", "wild-tenant"},
			masks:   publicMasks,
		}},
		{"transitive closure", session.User{Name: "x", Roles: []string{"lead"}}, "shop.customers", want{
			allow:   "select",
			filters: []string{"eu-only", "wild-tenant"},
			masks:   publicMasks,
		}},
		{"no privileges", session.User{Name: "nobody"}, "shop.customers", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonNoAllow, All: ReasonNoAllow},
			filters:  []string{"wild-tenant"},
			masks:    publicMasks,
		}},
		{"deny through a group's role beats allow", session.User{Name: "x", Roles: []string{"admin"}, Groups: []string{"contractors"}}, "shop.customers", want{
			allow:      "",
			deniedBy:   map[Access]string{Select: "no-temps", Update: "no-temps", All: "no-temps"},
			filters:    []string{"not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"deny from a held but inactive role still applies", session.User{Name: "x", Roles: []string{"admin", "temp"}, PrimaryRole: "admin"}, "shop.customers", want{
			allow:      "",
			deniedBy:   map[Access]string{Select: "no-temps"},
			filters:    []string{"not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"allow only from active roles", session.User{Name: "x", Roles: []string{"admin", "eu_analyst"}, PrimaryRole: "eu_analyst"}, "shop.customers", want{
			allow:    "select",
			deniedBy: map[Access]string{Update: ReasonNoAllow},
			filters:  []string{"eu-only", "wild-tenant"},
			masks:    map[string]string{"ssn": "ssn-hash", "phone": "wild-phone"},
			// support is held (through admin), so its restriction applies.
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"secondary ALL activates every held role", session.User{Name: "x", Roles: []string{"admin", "eu_analyst"}, PrimaryRole: "eu_analyst", SecondaryRoles: []string{session.AllSecondaryRoles}}, "shop.customers", want{
			allow:      "all",
			filters:    []string{"eu-only", "not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"listed secondary role is active with its closure", session.User{Name: "x", Roles: []string{"admin", "eu_analyst"}, PrimaryRole: "eu_analyst", SecondaryRoles: []string{"support"}}, "shop.customers", want{
			allow:      "select",
			filters:    []string{"eu-only", "not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"primary role held through containment", session.User{Name: "x", Roles: []string{"admin"}, PrimaryRole: "analyst"}, "shop.customers", want{
			allow:      "select",
			filters:    []string{"wild-tenant"},
			masks:      map[string]string{"ssn": "ssn-hash", "phone": "wild-phone"},
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"user deny on some access types", session.User{Name: "bob", Roles: []string{"admin"}}, "shop.customers", want{
			allow:      "select,create,alter,index,lock",
			deniedBy:   map[Access]string{Update: "no-bob-update", Drop: "no-bob-update", All: "no-bob-update"},
			filters:    []string{"not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary"},
		}},
		{"user principal mask", session.User{Name: "carol", Roles: []string{"analyst"}}, "shop.customers", want{
			allow:   "select",
			filters: []string{"wild-tenant"},
			masks:   map[string]string{"ssn": "ssn-hash", "salary": "salary-null", "phone": "wild-phone", "name": "first-2"},
		}},
		{"group allow and restricted union", session.User{Name: "x", Groups: []string{"ops"}, Roles: []string{"support"}}, "shop.customers", want{
			allow:      "select",
			filters:    []string{"not-deleted", "wild-tenant"},
			masks:      supportMasks,
			restricted: map[string]string{"salary": "no-salary", "notes": "no-notes"},
		}},
		{"restricted beats mask", session.User{Name: "x", Groups: []string{"ops"}}, "shop.customers", want{
			allow:      "select",
			filters:    []string{"wild-tenant"},
			masks:      map[string]string{"ssn": "ssn-hash", "phone": "wild-phone"},
			restricted: map[string]string{"salary": "no-notes", "notes": "no-notes"},
		}},
		{"wildcard entry without allow rules keeps the default", session.User{Name: "alice"}, "shop.other", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonDefaultDeny, All: ReasonDefaultDeny},
			filters:  []string{"wild-tenant"},
			masks:    map[string]string{"ssn": "wild-ssn", "phone": "wild-phone"},
		}},
		{"wildcard allow, exact and wildcard entries both apply", session.User{Name: "alice"}, "sys.audit_log", want{
			allow:      "select",
			deniedBy:   map[Access]string{Update: ReasonNoAllow},
			restricted: map[string]string{"ip": "no-ip"},
		}},
		{"wildcard ? matches one character", session.User{Name: "alice"}, "other.AUDIT_Xog", want{allow: "select"}},
		{"wildcard governs for the unprivileged", session.User{Name: "x", Roles: []string{"analyst"}}, "sys.audit_log", want{
			allow:      "",
			deniedBy:   map[Access]string{Select: ReasonNoAllow},
			restricted: map[string]string{"ip": "no-ip"},
		}},
		{"wildcard does not cross the dot", session.User{Name: "alice"}, "sys.audit_logs", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonDefaultDeny},
		}},
		{"unknown table gets default deny", session.User{Name: "alice"}, "db.unknown", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonDefaultDeny, Lock: ReasonDefaultDeny},
		}},
		{"public deny names the rule", session.User{Name: "alice"}, "archive.x", want{
			allow:    "",
			deniedBy: map[Access]string{Select: "archive-closed", All: "archive-closed"},
		}},
		{"principal names are case-sensitive", session.User{Name: "Alice", Roles: []string{"Admin"}, Groups: []string{"OPS"}}, "shop.customers", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonNoAllow},
			filters:  []string{"wild-tenant"},
			masks:    publicMasks,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(t, c, tc.user, tc.table)
			checkDecision(t, d, tc.want)
			schema, tb, _ := strings.Cut(tc.table, ".")
			if d.Table != (TableName{schema, tb}) {
				t.Errorf("decision table %v", d.Table)
			}
		})
	}
}

func TestDecideMaskContent(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	d := decide(t, c, session.User{Name: "carol", Roles: []string{"support"}}, "shop.customers")
	want := map[string]Mask{
		"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
		"email": {Type: "CUSTOM", Expr: "CONCAT('***', {col})", Policy: "email-domain"},
		"name":  {Type: "MASK_SHOW_FIRST_N", Args: []string{"2"}, Policy: "first-2"},
		"phone": {Type: "MASK", Policy: "wild-phone"},
	}
	if !reflect.DeepEqual(d.Masks, want) {
		t.Errorf("masks\n got %+v\nwant %+v", d.Masks, want)
	}
	wantF := []RowFilter{{Expr: "deleted_at IS NULL", Policy: "not-deleted", Check: "deleted_at IS NULL"}, {Expr: "tenant = 1", Policy: "wild-tenant", Check: "tenant = 1"}}
	if !reflect.DeepEqual(d.RowFilters, wantF) {
		t.Errorf("filters %+v", d.RowFilters)
	}
}

const defaultAllowPolicy = `
version: 1
default: allow
tables:
  shop.open: {}
  shop.denylisted:
    access:
      - {name: no-contractors, principals: [group:contractors], deny: [all]}
      - {name: no-drop, principals: [public], deny: [drop]}
  shop.listed:
    access:
      - {name: readers, principals: [role:reader], allow: [select]}
  "logs.*":
    access:
      - {name: log-readers, principals: [role:reader], allow: [select, lock]}
`

func TestDecideDefaultAllow(t *testing.T) {
	c := mustCompile(t, defaultAllowPolicy)
	reader := session.User{Name: "r", Roles: []string{"reader"}}
	contractor := session.User{Name: "c", Groups: []string{"contractors"}, Roles: []string{"reader"}}
	cases := []struct {
		name  string
		user  session.User
		table string
		want  want
	}{
		{"no rules: default allow", reader, "shop.unknown", want{allow: "all"}},
		{"empty entry: default allow", reader, "shop.open", want{allow: "all"}},
		{"deny-only table keeps the default for others", reader, "shop.denylisted", want{
			allow:    "select,update,create,alter,index,lock",
			deniedBy: map[Access]string{Drop: "no-drop", All: "no-drop"},
		}},
		{"deny-only table denies the matched", contractor, "shop.denylisted", want{
			allow:    "",
			deniedBy: map[Access]string{Select: "no-contractors", Drop: "no-contractors"},
		}},
		{"allow rules make a list", reader, "shop.listed", want{
			allow:    "select",
			deniedBy: map[Access]string{Update: ReasonNoAllow},
		}},
		{"allow rules make a list for everyone", session.User{Name: "x"}, "shop.listed", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonNoAllow},
		}},
		{"wildcard allow rules make a list", reader, "logs.app", want{allow: "select,lock"}},
		{"wildcard allow rules, no match", session.User{Name: "x"}, "logs.app", want{
			allow:    "",
			deniedBy: map[Access]string{Select: ReasonNoAllow},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkDecision(t, decide(t, c, tc.user, tc.table), tc.want)
		})
	}
}

func TestFirstMaskWinsAcrossWildcards(t *testing.T) {
	c := mustCompile(t, `
version: 1
default: allow
tables:
  "*.*":
    masks:
      - {name: any-1, principals: [public], column: a, type: MASK_NULL}
      - {name: any-2, principals: [public], column: b, type: MASK_NULL}
  "s.*":
    masks:
      - {name: s-1, principals: [public], column: a, type: MASK_HASH}
      - {name: s-2, principals: [public], column: c, type: MASK_HASH}
  s.t:
    masks:
      - {name: exact-admin, principals: [role:admin], column: b, type: MASK_NONE}
      - {name: exact-c, principals: [public], column: c, type: MASK}
`)
	checkDecision(t, decide(t, c, session.User{Name: "u"}, "s.t"), want{
		allow: "all",
		masks: map[string]string{"a": "any-1", "b": "any-2", "c": "exact-c"},
	})
	checkDecision(t, decide(t, c, session.User{Name: "u", Roles: []string{"admin"}}, "s.t"), want{
		allow: "all",
		masks: map[string]string{"a": "any-1", "b": "exact-admin", "c": "exact-c"},
	})
	checkDecision(t, decide(t, c, session.User{Name: "u"}, "s.x"), want{
		allow: "all",
		masks: map[string]string{"a": "any-1", "b": "any-2", "c": "s-2"},
	})
}

func TestRoleResolution(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	cases := []struct {
		name         string
		user         session.User
		held, active []string
		err          string
	}{
		{"no roles", session.User{Name: "x"}, []string{}, []string{}, ""},
		{"closure of session roles", session.User{Name: "x", Roles: []string{"lead"}},
			[]string{"analyst", "eu_analyst", "lead"}, []string{"analyst", "eu_analyst", "lead"}, ""},
		{"file user and group roles", session.User{Name: "alice", Groups: []string{"contractors"}},
			[]string{"admin", "analyst", "support", "temp"}, []string{"admin", "analyst", "support", "temp"}, ""},
		{"undeclared roles are their own closure", session.User{Name: "x", Roles: []string{"zeta", ""}},
			[]string{"zeta"}, []string{"zeta"}, ""},
		{"primary role", session.User{Name: "alice", Roles: []string{"eu_analyst"}, PrimaryRole: "support"},
			[]string{"admin", "analyst", "eu_analyst", "support"}, []string{"support"}, ""},
		{"primary plus secondary", session.User{Name: "alice", Roles: []string{"lead"}, PrimaryRole: "support", SecondaryRoles: []string{"eu_analyst"}},
			[]string{"admin", "analyst", "eu_analyst", "lead", "support"}, []string{"analyst", "eu_analyst", "support"}, ""},
		{"primary plus all secondaries", session.User{Name: "x", Roles: []string{"lead", "temp"}, PrimaryRole: "temp", SecondaryRoles: []string{"ALL"}},
			[]string{"analyst", "eu_analyst", "lead", "temp"}, []string{"analyst", "eu_analyst", "lead", "temp"}, ""},
		{"primary not held", session.User{Name: "x", Roles: []string{"analyst"}, PrimaryRole: "admin"},
			nil, nil, `primary role "admin" is not granted to user "x"`},
		{"secondary not held", session.User{Name: "x", Roles: []string{"analyst"}, PrimaryRole: "analyst", SecondaryRoles: []string{"support"}},
			nil, nil, `secondary role "support" is not granted to user "x"`},
		{"secondary not held without primary", session.User{Name: "x", Roles: []string{"analyst"}, SecondaryRoles: []string{"admin"}},
			nil, nil, `secondary role "admin" is not granted`},
		{"ALL among others is a role name", session.User{Name: "x", Roles: []string{"analyst"}, PrimaryRole: "analyst", SecondaryRoles: []string{"ALL", "analyst"}},
			nil, nil, `secondary role "ALL"`},
		{"role names are case-sensitive", session.User{Name: "x", Roles: []string{"analyst"}, PrimaryRole: "Analyst"},
			nil, nil, `primary role "Analyst"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := c.View(tc.user)
			if tc.err != "" {
				if !errors.Is(err, ErrAccessDenied) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want ErrAccessDenied containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.HeldRoles(), tc.held) {
				t.Errorf("held %q, want %q", v.HeldRoles(), tc.held)
			}
			if !slices.Equal(v.ActiveRoles(), tc.active) {
				t.Errorf("active %q, want %q", v.ActiveRoles(), tc.active)
			}
		})
	}
}

func TestDecisionCachedAndClone(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	v, err := c.View(session.User{Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	tn := TableName{"shop", "customers"}
	d1, _ := v.Decide(tn)
	d2, _ := v.Decide(tn)
	if d1 != d2 {
		t.Error("decision not cached per view")
	}
	cl := d1.Clone()
	if !reflect.DeepEqual(cl, d1) {
		t.Fatal("clone differs")
	}
	cl.Masks["ssn"] = Mask{Type: "MASK_NONE"}
	cl.Allowed[Select] = false
	cl.RowFilters[0].Expr = "TRUE"
	if d1.Masks["ssn"].Type != "MASK_SHOW_LAST_4" || !d1.Allowed[Select] || d1.RowFilters[0].Expr == "TRUE" {
		t.Error("changing a clone changed the original")
	}
	// Another view of the same snapshot gets its own decision.
	v2, _ := c.View(session.User{Name: "alice"})
	d3, _ := v2.Decide(tn)
	if d3 == d1 {
		t.Error("decision shared between views")
	}
}

func TestViewUserIsACopy(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	u := session.User{Name: "x", Roles: []string{"analyst"}, Attributes: map[string]string{"k": "v"}}
	v, err := c.View(u)
	if err != nil {
		t.Fatal(err)
	}
	u.Roles[0] = "admin"
	u.Attributes["k"] = "changed"
	got := v.User()
	if got.Roles[0] != "analyst" || got.Attributes["k"] != "v" {
		t.Errorf("view user changed with the caller's: %+v", got)
	}
	got.Roles[0] = "admin"
	if v.User().Roles[0] != "analyst" {
		t.Error("User() returned shared slices")
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true},
		{"*", "abc", true},
		{"a*", "abc", true},
		{"a*", "ba", false},
		{"*c", "abc", true},
		{"a*c", "ac", true},
		{"a*c", "abcbc", true},
		{"a*c", "abcb", false},
		{"audit_*", "audit_log", true},
		{"audit_?og", "audit_log", true},
		{"audit_?og", "audit_og", false},
		{"?", "é", true},
		{"?", "ab", false},
		{"*é*", "caféx", true},
		{"a**b", "ab", true},
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"*a*a*a*a*b", strings.Repeat("a", 40), false},
	} {
		if got := glob(tc.pat).match(tc.s); got != tc.want {
			t.Errorf("glob(%q).match(%q) = %v", tc.pat, tc.s, got)
		}
	}
}

func TestStaticSource(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	s, err := NewStaticSource(c).Snapshot()
	if err != nil || s != Snapshot(c) || s.Version() != 7 {
		t.Errorf("static source: %v, %v", s, err)
	}
	for _, src := range []Source{NewStaticSource(nil), NewStaticSource((*Compiled)(nil))} {
		if _, err := src.Snapshot(); !errors.Is(err, ErrNotLoaded) {
			t.Errorf("empty static source: %v", err)
		}
	}
	var fs FileSource
	if _, err := fs.Snapshot(); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("zero FileSource: %v", err)
	}
}

func TestCloneTagFields(t *testing.T) {
	d := &Decision{
		TagMasks:   map[string]Mask{"PII": {Type: "MASK_SHOW_FIRST_N", Args: []string{"2"}}},
		ColumnTags: map[string][]string{"email": {"PII"}},
	}
	c := d.Clone()
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("clone %+v", c)
	}
	c.TagMasks["PII"].Args[0] = "9"
	c.ColumnTags["email"][0] = "X"
	if d.TagMasks["PII"].Args[0] != "2" || d.ColumnTags["email"][0] != "PII" {
		t.Error("clone shares tag data")
	}
}
