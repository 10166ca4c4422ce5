package policy

import (
	"testing"

	"github.com/sqe-project/sqe/session"
)

const allowedByPolicy = `version: 1
default: deny
tables:
  shop.customers:
    access:
      - {name: analysts-read, principals: [role:analyst], allow: [select]}
      - {name: everyone-reads, principals: [public], allow: [select]}
      - {name: writers, principals: [role:writer], allow: [update, select]}
      - {name: no-writes-for-interns, principals: [role:intern], deny: [update]}
      - {name: admins, principals: [role:admin], allow: [all]}
  shop.orders:
    access:
      - {name: orders-read, principals: [public], allow: [select]}
  shop.audit:
    access:
      - {name: admins-only, principals: [role:admin], allow: [all]}
`

func TestDecisionNamesTheRuleThatAllowed(t *testing.T) {
	c := mustCompile(t, allowedByPolicy)
	cases := []struct {
		user  session.User
		table string
		want  map[Access]string
	}{
		// The first allow rule in rule order names the grant.
		{session.User{Name: "a", Roles: []string{"analyst"}}, "shop.customers", map[Access]string{Select: "analysts-read"}},
		{session.User{Name: "p"}, "shop.customers", map[Access]string{Select: "everyone-reads"}},
		{session.User{Name: "w", Roles: []string{"writer"}}, "shop.customers", map[Access]string{Select: "everyone-reads", Update: "writers"}},
		// A deny takes update away; select still names its rule.
		{session.User{Name: "i", Roles: []string{"writer", "intern"}}, "shop.customers", map[Access]string{Select: "everyone-reads"}},
		{session.User{Name: "o"}, "shop.orders", map[Access]string{Select: "orders-read"}},
		// Nothing allowed, nothing named.
		{session.User{Name: "n"}, "shop.secrets", map[Access]string{}},
	}
	for _, c2 := range cases {
		d := decide(t, c, c2.user, c2.table)
		if len(d.AllowedBy) != len(c2.want) {
			t.Errorf("%s on %s: AllowedBy %v, want %v", c2.user.Name, c2.table, d.AllowedBy, c2.want)
			continue
		}
		for a, name := range c2.want {
			if d.AllowedBy[a] != name || !d.Allows(a) {
				t.Errorf("%s on %s: AllowedBy %v, want %v", c2.user.Name, c2.table, d.AllowedBy, c2.want)
			}
		}
	}
	d := decide(t, c, session.User{Name: "root", Roles: []string{"admin"}}, "shop.customers")
	// All is named only when one rule granted every type.
	if _, ok := d.AllowedBy[All]; ok || d.AllowedBy[Drop] != "admins" || d.AllowedBy[Select] != "everyone-reads" || !d.Allows(All) {
		t.Errorf("admin: %v", d.AllowedBy)
	}
	if d := decide(t, c, session.User{Name: "root", Roles: []string{"admin"}}, "shop.audit"); d.AllowedBy[All] != "admins-only" {
		t.Errorf("admin on audit: %v", d.AllowedBy)
	}

	open := mustCompile(t, "version: 1\ndefault: allow\n")
	if d := decide(t, open, session.User{Name: "x"}, "shop.any"); d.AllowedBy[Select] != ReasonDefaultAllow || d.AllowedBy[All] != ReasonDefaultAllow {
		t.Errorf("default allow: %v", d.AllowedBy)
	}
}
