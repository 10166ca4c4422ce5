package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Roles in the session, Snowflake style. On a *sql.Conn or a transaction,
//
//	USE ROLE analyst
//	USE SECONDARY ROLES ALL | NONE | r1, r2
//
// change the primary and secondary roles of the caller's following
// statements on that connection. They are sqe statements: checked against
// the roles the caller holds, never sent to the database, and forgotten
// when database/sql hands the connection to its next user (or when a
// different user's statement arrives on it), so a pooled connection never
// carries one caller's role to the next.

var (
	useRoleRE      = regexp.MustCompile(`(?is)^\s*use\s+role\s+(.+?)\s*;?\s*$`)
	useSecondaryRE = regexp.MustCompile(`(?is)^\s*use\s+secondary\s+roles?\s+(.+?)\s*;?\s*$`)
)

// roleStatement is a parsed USE ROLE / USE SECONDARY ROLES.
type roleStatement struct {
	primary   string   // USE ROLE
	secondary []string // USE SECONDARY ROLES; nil with none=true for NONE
	isPrimary bool
	none      bool
}

// IsRoleStatement reports whether query is USE ROLE or USE SECONDARY
// ROLES (well formed or not): a statement the engine answers itself, which
// is never sent to the database and cannot be prepared.
func IsRoleStatement(query string) bool {
	_, ok, _ := parseRoleStatement(query)
	return ok
}

// startsWithUse reports whether query, after leading white space (the
// characters the expressions below allow there), starts with USE and one
// more character: the only statements parseRoleStatement may match. It
// looks at bytes (no cut set to build): every statement passes here.
func startsWithUse(query string) bool {
	i := 0
	for i < len(query) && (query[i] == ' ' || query[i] == '\t' || query[i] == '\n' || query[i] == '\f' || query[i] == '\r') {
		i++
	}
	rest := query[i:]
	return len(rest) >= 4 && strings.EqualFold(rest[:3], "use")
}

// parseRoleStatement recognises the two statements; ok is false for any
// other SQL. A role name may be bare, "double-quoted" or `backquoted`.
func parseRoleStatement(query string) (st roleStatement, ok bool, err error) {
	// Every statement passes here: only one that starts with USE (after
	// the white space the expressions allow) is worth matching.
	if !startsWithUse(query) {
		return st, false, nil
	}
	if m := useRoleRE.FindStringSubmatch(query); m != nil {
		name, err := roleName(m[1])
		if err != nil {
			return st, true, err
		}
		return roleStatement{primary: name, isPrimary: true}, true, nil
	}
	if m := useSecondaryRE.FindStringSubmatch(query); m != nil {
		arg := strings.TrimSpace(m[1])
		switch strings.ToUpper(arg) {
		case "ALL":
			return roleStatement{secondary: []string{session.AllSecondaryRoles}}, true, nil
		case "NONE":
			return roleStatement{none: true}, true, nil
		}
		for _, part := range strings.Split(arg, ",") {
			name, err := roleName(part)
			if err != nil {
				return st, true, err
			}
			st.secondary = append(st.secondary, name)
		}
		return st, true, nil
	}
	return st, false, nil
}

var bareRole = regexp.MustCompile(`^[\p{L}\p{N}_$.-]+$`)

func roleName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		q := string(s[0])
		inner := s[1 : len(s)-1]
		if strings.Contains(strings.ReplaceAll(inner, q+q, ""), q) {
			return "", rewriter.Unsupported("malformed role name in USE ROLE")
		}
		return strings.ReplaceAll(inner, q+q, q), nil
	}
	if !bareRole.MatchString(s) {
		return "", rewriter.Unsupported("malformed role name in USE ROLE (quote it with double quotes)")
	}
	return s, nil
}

// roleOverride is a connection's USE ROLE state, for one user.
type roleOverride struct {
	user         string
	primary      string
	primarySet   bool
	secondary    []string
	secondarySet bool
}

// apply returns u with the override's roles, when the override is u's.
func (o *roleOverride) apply(u session.User) session.User {
	if o == nil || o.user != u.Name {
		return u
	}
	if o.primarySet {
		u.PrimaryRole = o.primary
	}
	if o.secondarySet {
		u.SecondaryRoles = slices.Clone(o.secondary)
	}
	return u
}

// checkRoles verifies that the roles st activates are held by the caller
// of view v.
func checkRoles(v policy.View, u session.User, st roleStatement) error {
	held := rewriter.HeldRoles(v, u)
	want := st.secondary
	if st.isPrimary {
		want = []string{st.primary}
	}
	for _, r := range want {
		if r == session.AllSecondaryRoles && !st.isPrimary {
			continue
		}
		if !slices.Contains(held, r) {
			return &rewriter.Error{Kind: policy.ErrAccessDenied, Detail: fmt.Sprintf("role %q is not granted to user %q", r, u.Name)}
		}
	}
	return nil
}

// planRoleStatement plans a USE ROLE / USE SECONDARY ROLES: nothing is
// sent; Finish applies it to the connection.
func (e *Engine) planRoleStatement(ctx context.Context, cs *ConnState, query string, st roleStatement, snapVersion *uint64) (*Plan, error) {
	u, err := e.user(ctx)
	if err != nil {
		return nil, err
	}
	u = cs.roles.apply(u)
	v, err := e.viewFor(u)
	if err != nil {
		return nil, err
	}
	*snapVersion = v.SnapshotVersion()
	if err := checkRoles(v, u, st); err != nil {
		e.stats.failClosed("access_denied")
		return nil, err
	}
	return &Plan{Query: query, Fingerprint: v.Fingerprint(), local: &st,
		Result: &rewriter.Result{Kind: rewriter.KindSession}, who: u,
		version: *snapVersion, sqlFingerprint: audit.Fingerprint(query)}, nil
}

// applyRoleStatement records a successful role statement on the connection.
func (cs *ConnState) applyRoleStatement(user string, st *roleStatement) {
	if cs.roles == nil || cs.roles.user != user {
		cs.roles = &roleOverride{user: user}
	}
	if st.isPrimary {
		cs.roles.primary, cs.roles.primarySet = st.primary, true
		return
	}
	cs.roles.secondary, cs.roles.secondarySet = st.secondary, true
	if st.none {
		cs.roles.secondary = nil
	}
}
