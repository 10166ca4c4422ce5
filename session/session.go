package session

import (
	"context"
	"errors"
	"slices"
)

// ErrNoSession is returned for a statement whose context carries no User
// when the connector has no default user either.
var ErrNoSession = errors.New("sqe: no session user on the context")

// AllSecondaryRoles, as the only element of User.SecondaryRoles, activates
// every granted role as a secondary role (Snowflake's USE SECONDARY ROLES ALL).
const AllSecondaryRoles = "ALL"

// User is the identity a statement runs as.
type User struct {
	// Name is the user name policies match with user: principals and that
	// current_user() returns.
	Name string
	// Groups are the groups the caller belongs to (group: principals).
	Groups []string
	// Roles are the roles granted to the user directly. Roles granted to the
	// user's groups and roles contained in other roles are added by the
	// policy source's role hierarchy.
	Roles []string
	// PrimaryRole is the session's active role (current_role()). Empty means
	// every granted role is active.
	PrimaryRole string
	// SecondaryRoles are active beside the primary role: nil or empty for
	// none, []string{AllSecondaryRoles} for all granted roles, or a list.
	SecondaryRoles []string
	// Attributes are free-form claims that policies may read.
	Attributes map[string]string
}

// Clone returns a deep copy of u, so that a caller cannot change a User that
// a statement is using.
func (u User) Clone() User {
	c := User{
		Name:           u.Name,
		Groups:         slices.Clone(u.Groups),
		Roles:          slices.Clone(u.Roles),
		PrimaryRole:    u.PrimaryRole,
		SecondaryRoles: slices.Clone(u.SecondaryRoles),
	}
	if u.Attributes != nil {
		c.Attributes = make(map[string]string, len(u.Attributes))
		for k, v := range u.Attributes {
			c.Attributes[k] = v
		}
	}
	return c
}

// AllSecondary reports whether every granted role is active as a secondary role.
func (u User) AllSecondary() bool {
	return len(u.SecondaryRoles) == 1 && u.SecondaryRoles[0] == AllSecondaryRoles
}

type contextKey struct{}

// NewContext returns a copy of ctx that carries u. The User is copied, so
// later changes to the caller's slices and maps do not reach statements that
// already run with it.
func NewContext(ctx context.Context, u User) context.Context {
	c := u.Clone()
	return context.WithValue(ctx, contextKey{}, &c)
}

// Peek returns the User that ctx carries without copying it: the pointer
// is shared by everything that holds ctx, so read through it and never
// write. FromContext returns a copy of it.
func Peek(ctx context.Context) (*User, bool) {
	if ctx == nil {
		return nil, false
	}
	u, ok := ctx.Value(contextKey{}).(*User)
	return u, ok && u != nil
}

// FromContext returns the User that ctx carries.
func FromContext(ctx context.Context) (User, bool) {
	if ctx == nil {
		return User{}, false
	}
	u, ok := ctx.Value(contextKey{}).(*User)
	if !ok || u == nil {
		return User{}, false
	}
	return u.Clone(), true
}
