package rewriter

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// Session-context functions, resolved from the session and inlined as
// literals (Snowflake's vocabulary, plus each dialect's own spellings of
// the current user, which the dialects map onto these names):
//
//	current_user()             the session user's name
//	current_role()             the primary role, NULL when none is set
//	invoker_role()             the same as current_role(): a statement runs as its caller
//	current_available_roles()  JSON array of every role the user holds, sorted
//	current_secondary_roles()  JSON object {"roles":"r1,r2","value":""} ("value":"ALL" under ALL)
//	is_role_in_session(r)      r is the primary role, an active secondary role, or contained in one
//	is_group_in_session(g)     g is one of the session's groups (sqe's addition)
//	session_attribute('k')     the session attribute k, NULL when unset (sqe's addition)
//
// is_role_in_session and is_group_in_session with a constant argument
// become TRUE or FALSE; with any other argument, arg IN (<the session's
// roles or groups>) (FALSE when there are none). session_attribute takes a
// constant name only.
//
// The database's own functions that name no person — current_database(),
// current_schema(), database(), version(), now() — are left alone.

// ContextFunctions maps every function name the dialects resolve (lower
// case, without parentheses) to the canonical name above.
var ContextFunctions = map[string]string{
	"current_user": "current_user", "user": "current_user", "session_user": "current_user", "system_user": "current_user",
	"current_role": "current_role", "invoker_role": "current_role",
	"current_available_roles": "current_available_roles",
	"current_secondary_roles": "current_secondary_roles",
}

// ContextValue is the value of a zero-argument context function: a string,
// or NULL when null is true.
func ContextValue(req *Request, canonical string) (value string, null bool) {
	u := req.User
	switch canonical {
	case "current_user":
		return u.Name, false
	case "current_role":
		if u.PrimaryRole == "" {
			return "", true
		}
		return u.PrimaryRole, false
	case "current_available_roles":
		b, _ := json.Marshal(heldRoles(req))
		return string(b), false
	case "current_secondary_roles":
		v := struct {
			Roles string `json:"roles"`
			Value string `json:"value"`
		}{}
		if u.AllSecondary() {
			v.Value = session.AllSecondaryRoles
			v.Roles = strings.Join(withoutRole(heldRoles(req), u.PrimaryRole), ",")
		} else {
			v.Roles = strings.Join(u.SecondaryRoles, ",")
		}
		b, _ := json.Marshal(v)
		return string(b), false
	}
	return "", true
}

// RolesInSession returns the roles is_role_in_session is true for: the
// active roles of the caller's view, sorted.
func RolesInSession(req *Request) []string {
	if req.View != nil {
		if active := req.View.ActiveRoles(); active != nil {
			return active
		}
	}
	// A view without a role hierarchy: the session's own lists.
	u := req.User
	var roles []string
	switch {
	case u.PrimaryRole == "":
		roles = append(roles, u.Roles...)
	case u.AllSecondary():
		roles = append(append(roles, u.PrimaryRole), u.Roles...)
	default:
		roles = append(append(roles, u.PrimaryRole), u.SecondaryRoles...)
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// GroupsInSession returns the groups is_group_in_session is true for: the
// session's groups, sorted and unique.
func GroupsInSession(req *Request) []string {
	groups := slices.Clone(req.User.Groups)
	slices.Sort(groups)
	return slices.Compact(groups)
}

// InSessionValues returns the values the membership function name
// (is_role_in_session or is_group_in_session) tests against; ok is false
// for any other name.
func InSessionValues(req *Request, name string) (values []string, ok bool) {
	switch name {
	case "is_role_in_session":
		return RolesInSession(req), true
	case "is_group_in_session":
		return GroupsInSession(req), true
	}
	return nil, false
}

// SessionAttribute is session_attribute(name): the attribute's value, or
// NULL (null true) when the session does not carry it.
func SessionAttribute(req *Request, name string) (value string, null bool) {
	v, ok := req.User.Attributes[name]
	return v, !ok
}

func heldRoles(req *Request) []string { return HeldRoles(req.View, req.User) }

// HeldRoles returns every role u holds according to view v (the granted
// roles and those they contain), or u's granted roles when v resolves no
// role hierarchy (View.HeldRoles is nil); sorted.
func HeldRoles(v policy.View, u session.User) []string {
	if v != nil {
		if held := v.HeldRoles(); held != nil {
			return held
		}
	}
	roles := slices.Clone(u.Roles)
	slices.Sort(roles)
	return slices.Compact(roles)
}

func withoutRole(roles []string, r string) []string {
	out := make([]string, 0, len(roles))
	for _, x := range roles {
		if x != r {
			out = append(out, x)
		}
	}
	return out
}
