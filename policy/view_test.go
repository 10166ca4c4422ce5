package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func fp(t *testing.T, s Snapshot, u session.User) string {
	t.Helper()
	v, err := s.View(u)
	if err != nil {
		t.Fatalf("View(%+v): %v", u, err)
	}
	f := v.Fingerprint()
	if v2, _ := s.View(u); v2.Fingerprint() != f {
		t.Fatal("fingerprint not deterministic")
	}
	return f
}

func TestFingerprintDistinguishesPrincipals(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	c8, err := Compile(mustParse(t, evalPolicy), 8)
	if err != nil {
		t.Fatal(err)
	}
	base := session.User{
		Name:       "x",
		Groups:     []string{"ops", "eu-team"},
		Roles:      []string{"analyst", "support"},
		Attributes: map[string]string{"tenant": "1", "region": "EU"},
	}
	baseFP := fp(t, c, base)
	variants := map[string]session.User{
		"name":                  {Name: "y", Groups: base.Groups, Roles: base.Roles, Attributes: base.Attributes},
		"empty name":            {Groups: base.Groups, Roles: base.Roles, Attributes: base.Attributes},
		"fewer groups":          {Name: "x", Groups: []string{"ops"}, Roles: base.Roles, Attributes: base.Attributes},
		"other group":           {Name: "x", Groups: []string{"ops", "eu-team2"}, Roles: base.Roles, Attributes: base.Attributes},
		"more roles":            {Name: "x", Groups: base.Groups, Roles: []string{"analyst", "support", "temp"}, Attributes: base.Attributes},
		"fewer roles":           {Name: "x", Groups: base.Groups, Roles: []string{"analyst"}, Attributes: base.Attributes},
		"primary role":          {Name: "x", Groups: base.Groups, Roles: base.Roles, PrimaryRole: "support", Attributes: base.Attributes},
		"other primary role":    {Name: "x", Groups: base.Groups, Roles: base.Roles, PrimaryRole: "analyst", Attributes: base.Attributes},
		"primary, secondary":    {Name: "x", Groups: base.Groups, Roles: base.Roles, PrimaryRole: "support", SecondaryRoles: []string{"analyst"}, Attributes: base.Attributes},
		"primary, all":          {Name: "x", Groups: base.Groups, Roles: base.Roles, PrimaryRole: "support", SecondaryRoles: []string{"ALL"}, Attributes: base.Attributes},
		"other primary, all":    {Name: "x", Groups: base.Groups, Roles: base.Roles, PrimaryRole: "analyst", SecondaryRoles: []string{"ALL"}, Attributes: base.Attributes},
		"no attributes":         {Name: "x", Groups: base.Groups, Roles: base.Roles},
		"attribute value":       {Name: "x", Groups: base.Groups, Roles: base.Roles, Attributes: map[string]string{"tenant": "2", "region": "EU"}},
		"attribute key":         {Name: "x", Groups: base.Groups, Roles: base.Roles, Attributes: map[string]string{"tenant": "1", "regio": "EU"}},
		"empty attribute value": {Name: "x", Groups: base.Groups, Roles: base.Roles, Attributes: map[string]string{"tenant": "1", "region": "EU", "z": ""}},
	}
	seen := map[string]string{baseFP: "base"}
	for name, u := range variants {
		f := fp(t, c, u)
		if prev, dup := seen[f]; dup {
			t.Errorf("%s and %s share fingerprint %q", name, prev, f)
		}
		seen[f] = name
	}
	if fp(t, c8, base) == baseFP {
		t.Error("snapshot version not in the fingerprint")
	}
}

func TestFingerprintNoSeparatorCollisions(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	pairs := [][2]session.User{
		{{Name: "a", Groups: []string{"b"}}, {Name: "ab"}},
		{{Name: "a;g1[1:b]"}, {Name: "a", Groups: []string{"b"}}},
		{{Groups: []string{"a,b"}}, {Groups: []string{"a", "b"}}},
		{{Groups: []string{"1:a"}}, {Groups: []string{"a"}}},
		{{Roles: []string{"a", "b"}}, {Roles: []string{"ab"}}},
		{{Attributes: map[string]string{"a=b": ""}}, {Attributes: map[string]string{"a": "b="}}},
		{{Attributes: map[string]string{"a": "b", "c": "d"}}, {Attributes: map[string]string{"a": "b]1:c=1:d"}}},
		{{Name: "x", Groups: []string{"g"}}, {Name: "x", Roles: []string{"g"}}},
		{{Name: "x", Roles: []string{"a"}, SecondaryRoles: []string{"a"}}, {Name: "x", Roles: []string{"a"}}},
	}
	for i, p := range pairs {
		if a, b := fp(t, c, p[0]), fp(t, c, p[1]); a == b {
			t.Errorf("pair %d collides: %q", i, a)
		}
	}
}

func TestFingerprintEquivalentUsers(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	pairs := [][2]session.User{
		// Group order and duplicates do not matter.
		{{Name: "x", Groups: []string{"b", "a", "a"}}, {Name: "x", Groups: []string{"a", "b"}}},
		// Roles count as their closure.
		{{Name: "x", Roles: []string{"admin"}}, {Name: "x", Roles: []string{"support", "admin", "analyst"}}},
		// A file-granted role is the same as a session-granted one.
		{{Name: "alice"}, {Name: "alice", Roles: []string{"admin"}}},
		// nil and empty are the same.
		{{Name: "x", Attributes: map[string]string{}}, {Name: "x"}},
	}
	for i, p := range pairs {
		if a, b := fp(t, c, p[0]), fp(t, c, p[1]); a != b {
			t.Errorf("pair %d: %q != %q", i, a, b)
		}
	}
}

func mustParse(t testing.TB, src string) *File {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFingerprintListsTheRoles: the held and active lists the fingerprint
// encodes are HeldRoles and ActiveRoles (including roles the snapshot does
// not know).
func TestFingerprintListsTheRoles(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	enc := func(tag string, l []string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s%d[", tag, len(l))
		for _, s := range l {
			fmt.Fprintf(&b, "%d:%s", len(s), s)
		}
		return b.String() + "]"
	}
	for _, u := range []session.User{
		{Name: "alice", Roles: []string{"zeta", "lead"}, Groups: []string{"b", "a"}},
		{Name: "x", Roles: []string{"admin", "zz", "aa"}, PrimaryRole: "zz", SecondaryRoles: []string{"support", "aa"}},
		{Name: "x", Roles: []string{"admin"}, PrimaryRole: "support", SecondaryRoles: []string{"ALL"}},
		{Name: "x", Groups: []string{"eu-team"}, PrimaryRole: "analyst"},
	} {
		v, err := c.View(u)
		if err != nil {
			t.Fatal(err)
		}
		want := enc("h", v.HeldRoles()) + enc("a", v.ActiveRoles())
		if !strings.Contains(v.Fingerprint(), want) {
			t.Errorf("%+v: fingerprint %q lacks %q", u, v.Fingerprint(), want)
		}
	}
}
