package policy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// TestViewUserRoundTrip: User returns the user the View was built for,
// lists and attributes alike (nil and empty kept apart), whether they fit
// in the View or not, and the View's copy does not follow the caller's.
func TestViewUserRoundTrip(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	many := map[string]string{}
	for i := 0; i < 9; i++ {
		many[fmt.Sprintf("k%d", 8-i)] = fmt.Sprint(i)
	}
	for i, u := range []session.User{
		{Name: "x"},
		{Name: "x", Attributes: map[string]string{}},
		{Name: "x", Attributes: map[string]string{"tenant": "7"}},
		{Name: "x", Groups: []string{"ops"}, Roles: []string{"analyst"}, Attributes: map[string]string{"b": "2", "a": "1"}},
		{Name: "x", Groups: []string{"g2", "g1"}, Roles: []string{"analyst", "support"}, SecondaryRoles: []string{}, Attributes: many},
		{Name: "alice", Groups: []string{}, Roles: []string{}, PrimaryRole: "support", SecondaryRoles: []string{"analyst"}, Attributes: many},
	} {
		v, err := c.View(u)
		if err != nil {
			t.Fatal(err)
		}
		want := u.Clone()
		if got := v.User(); !reflect.DeepEqual(got, want) {
			t.Errorf("user %d: View.User() = %#v, want %#v", i, got, want)
		}
		fp := v.Fingerprint()
		for k := range u.Attributes {
			u.Attributes[k] = "changed"
		}
		if len(u.Roles) > 0 {
			u.Roles[0] = "admin"
		}
		if got := v.User(); !reflect.DeepEqual(got, want) {
			t.Errorf("user %d: the View's user changed with the caller's: %#v", i, got)
		}
		if v2, _ := c.View(want); v2.Fingerprint() != fp {
			t.Errorf("user %d: fingerprint %q, then %q", i, fp, v2.Fingerprint())
		}
	}
}
