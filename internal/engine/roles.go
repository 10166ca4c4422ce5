package engine

import (
	"context"
	"fmt"
	"slices"

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

// IsRoleStatement reports whether query is USE ROLE or USE SECONDARY
// ROLES (well formed or not), as the dialect's scanner reads it: a
// statement the engine answers itself, which is never sent to the
// database and cannot be prepared.
func (e *Engine) IsRoleStatement(query string) bool {
	_, ok, _ := e.parseRoleStatement(query)
	return ok
}

// parseRoleStatement reads query as a role statement (see
// rewriter.ParseRoleStatement).
func (e *Engine) parseRoleStatement(query string) (st roleStatement, ok bool, err error) {
	rs, ok, err := rewriter.ParseRoleStatement(e.dialect, query)
	return roleStatement(rs), ok, err
}

// roleStatement is a parsed USE ROLE / USE SECONDARY ROLES.
type roleStatement rewriter.RoleStatement

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
	want := st.Secondary
	if st.IsPrimary {
		want = []string{st.Primary}
	}
	for _, r := range want {
		if r == session.AllSecondaryRoles && !st.IsPrimary {
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
	if st.IsPrimary {
		cs.roles.primary, cs.roles.primarySet = st.Primary, true
		return
	}
	cs.roles.secondary, cs.roles.secondarySet = st.Secondary, true
	if st.None {
		cs.roles.secondary = nil
	}
}
