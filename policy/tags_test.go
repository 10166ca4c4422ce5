package policy

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

const tagPolicy = `
version: 1
default: allow
roles:
  lead: {contains: [support]}
tags:
  shop.customers: [confidential]
  shop.customers.email: [PII, Email]
  shop.customers.ssn: [PII]
tag_masks:
  - {name: email-first2, principals: [role:support], tag: EMAIL, type: MASK_SHOW_FIRST_N, args: ["2"]}
  - {name: pii-hash, principals: [role:support, group:ops], tag: PII, type: MASK_HASH}
  - {name: pii-null, principals: [public], tag: PII, type: MASK_NULL}
  - {name: conf-redact, principals: [user:carol], tag: CONFIDENTIAL, type: REDACT, args: ["***"]}
`

func TestTagMasksFromFile(t *testing.T) {
	c := mustCompile(t, tagPolicy)
	cases := []struct {
		name string
		u    session.User
		want map[string]string // tag -> binding
	}{
		{"public only", session.User{Name: "x"}, map[string]string{"PII": "pii-null"}},
		{"role, first binding per tag in file order", session.User{Name: "x", Roles: []string{"support"}},
			map[string]string{"EMAIL": "email-first2", "PII": "pii-hash"}},
		{"contained role", session.User{Name: "x", Roles: []string{"lead"}},
			map[string]string{"EMAIL": "email-first2", "PII": "pii-hash"}},
		{"group", session.User{Name: "x", Groups: []string{"ops"}}, map[string]string{"PII": "pii-hash"}},
		{"user", session.User{Name: "carol"}, map[string]string{"PII": "pii-null", "CONFIDENTIAL": "conf-redact"}},
		{"inactive secondary role binds nothing", session.User{Name: "x", Roles: []string{"support", "other"},
			PrimaryRole: "other", SecondaryRoles: []string{}}, map[string]string{"PII": "pii-null"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(t, c, tc.u, "shop.customers")
			got := map[string]string{}
			for tag, m := range d.TagMasks {
				got[tag] = m.Policy
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("tag masks %v, want %v", got, tc.want)
			}
			if want := map[string][]string{"*": {"CONFIDENTIAL"}, "email": {"PII", "EMAIL"}, "ssn": {"PII"}}; !reflect.DeepEqual(d.ColumnTags, want) {
				t.Fatalf("column tags %v, want %v", d.ColumnTags, want)
			}
			if d.Passthrough() {
				t.Fatal("a decision with tag masks is not a passthrough")
			}
			// Any other table: the same bindings (the database's column
			// comments may tag its columns), no file tags.
			o := decide(t, c, tc.u, "shop.orders")
			if len(o.TagMasks) != len(tc.want) || o.ColumnTags != nil {
				t.Fatalf("other table: tag masks %v, column tags %v", o.TagMasks, o.ColumnTags)
			}
		})
	}
	m := decide(t, c, session.User{Name: "x", Roles: []string{"support"}}, "shop.customers").TagMasks["EMAIL"]
	if m.Type != "MASK_SHOW_FIRST_N" || !reflect.DeepEqual(m.Args, []string{"2"}) {
		t.Fatalf("binding mask %+v", m)
	}
	tags, err := c.TableTags(context.Background(), TableName{Schema: "Shop", Table: "Customers"})
	if err != nil || !reflect.DeepEqual(tags["email"], []string{"PII", "EMAIL"}) {
		t.Fatalf("TableTags: %v %v", tags, err)
	}
	var _ TagSource = c
}

// TestTagMaskUnresolvedFailsClosed: a caller holding an unresolved
// principal might hold the role a tag binding names; the decision is
// refused rather than made without the mask.
func TestTagMaskUnresolvedFailsClosed(t *testing.T) {
	f, err := ParsePartial("p.yaml", []byte(`
version: 1
default: allow
groups:
  broken: {roles: 7}
tag_masks:
  - {name: pii-hash, principals: [role:support], tag: PII, type: MASK_HASH}
`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.View(session.User{Name: "x", Groups: []string{"broken"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Decide(TableName{Schema: "s", Table: "t"})
	var ue *UnresolvedError
	if !errors.As(err, &ue) || ue.Table.Table != "t" || !strings.Contains(err.Error(), "tag mask") {
		t.Fatalf("want an UnresolvedError naming the table and the tag mask, got %v", err)
	}
	if n := c.Counters().Stats().FailClosed[FailUnresolved]; n == 0 {
		t.Fatal("fail-closed counter not incremented")
	}
	// A caller without the unresolved principal is decided normally.
	if d := decide(t, c, session.User{Name: "y"}, "s.t"); d.TagMasks != nil {
		t.Fatalf("tag masks for a caller without the role: %v", d.TagMasks)
	}
}

func TestTagAndMappingParseErrors(t *testing.T) {
	head := "version: 1\ndefault: allow\n"
	cases := []struct{ name, src, want string }{
		{"wildcard tag key", head + "tags:\n  \"shop.*\": [PII]\n", `p.yaml:4: tags."shop.*": tag key "shop.*": tags name exact tables and columns (no wildcards)`},
		{"bad tag key", head + "tags:\n  shop: [PII]\n", `p.yaml:4: tags.shop: tag key "shop": want schema.table or schema.table.column`},
		{"empty tags", head + "tags:\n  shop.t.c: []\n", `p.yaml:4: tags."shop.t.c": want a non-empty list of tags`},
		{"bad tag", head + "tags:\n  shop.t.c: [\"A B\"]\n", `p.yaml:4: tags."shop.t.c"[0]: tag "A B" contains white space, a comma, a semicolon or a colon`},
		{"binding without tag", head + "tag_masks:\n  - {principals: [public], type: MASK}\n", `p.yaml:4: tag_masks[0].tag: required`},
		{"binding bad type", head + "tag_masks:\n  - {principals: [public], tag: PII, type: MASK_FOO}\n", `p.yaml:4: tag_masks[0].type: unknown mask type "MASK_FOO"`},
		{"mapping and filter", head + "tables:\n  s.t:\n    row_filters:\n      - {principals: [public], filter: \"1=1\", mapping: {}}\n",
			`p.yaml:6: tables."s.t".row_filters[0].mapping: a row filter has filter or mapping, not both`},
		{"mapping missing field", head + "tables:\n  s.t:\n    row_filters:\n      - {principals: [public], mapping: {table: s.m, column: k, key: k, match: role}}\n",
			`p.yaml:6: tables."s.t".row_filters[0].mapping.match_column: required`},
		{"mapping bad match", head + "tables:\n  s.t:\n    row_filters:\n      - {principals: [public], mapping: {table: s.m, column: k, key: k, match: tenant, match_column: r}}\n",
			`p.yaml:6: tables."s.t".row_filters[0].mapping.match: bad match "tenant": want role, primary_role, user, group or attribute:NAME`},
		{"mapping bad identifier", head + "tables:\n  s.t:\n    row_filters:\n      - {principals: [public], mapping: {table: s.m, column: \"k; drop\", key: k, match: role, match_column: r}}\n",
			`p.yaml:6: tables."s.t".row_filters[0].mapping.column: "k; drop" is not a plain lower-case SQL identifier`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidFile) {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestMappingFilterCompiles(t *testing.T) {
	c := mustCompile(t, `
version: 1
default: allow
tables:
  shop.customers:
    row_filters:
      - name: by-region
        principals: [public]
        mapping: {table: Shop.Region_Map, column: region, key: region, match: role, match_column: role_name}
      - name: by-tenant
        principals: [public]
        mapping: {table: shop.tenants, column: id, key: tenant_id, match: "attribute:tenant", match_column: id}
`)
	d := decide(t, c, session.User{Name: "x"}, "shop.customers")
	want := []string{
		"region IN (SELECT sqe_map.region FROM shop.region_map sqe_map WHERE is_role_in_session(sqe_map.role_name))",
		"tenant_id IN (SELECT sqe_map.id FROM shop.tenants sqe_map WHERE sqe_map.id = session_attribute('tenant'))",
	}
	if len(d.RowFilters) != 2 || d.RowFilters[0].Expr != want[0] || d.RowFilters[1].Expr != want[1] || d.RowFilters[0].Policy != "by-region" {
		t.Fatalf("filters %+v", d.RowFilters)
	}
	// A File built in code with only the mapping compiles the same.
	f := &File{Name: "code", Version: FileVersion, DefaultAllow: true, Tables: []FileTable{{Schema: "shop", Table: "customers",
		RowFilters: []FilterRule{{Name: "m", Principals: []Principal{{Kind: PrincipalPublic}}, Mapping: &MappingFilter{
			Table: TableName{Schema: "shop", Table: "region_map"}, Column: "region", Key: "region", Match: "role", MatchColumn: "role_name"}}}}}}
	cc, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(t, cc, session.User{Name: "x"}, "shop.customers"); len(d.RowFilters) != 1 || d.RowFilters[0].Expr != want[0] {
		t.Fatalf("code-built mapping: %+v", d.RowFilters)
	}
	f.Tables[0].RowFilters[0].Mapping.Match = "nobody"
	if _, err := Compile(f, 2); err == nil || !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("bad code-built mapping compiled: %v", err)
	}
}
