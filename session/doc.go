// Package session carries the caller's identity on a context.Context.
//
// A User is who a statement runs as: a name, the groups an identity provider
// asserted, the roles granted to the user, the primary role that is active
// for the session and the secondary roles that are active beside it, plus
// free-form attributes that policies may read (tenant, region, …).
//
// The model follows Snowflake's: privileges (ALLOW) come only from active
// roles — the primary role, the active secondary roles and every role they
// contain — while a DENY from any role the user holds applies regardless of
// which roles are active. When PrimaryRole is empty every granted role is
// active, which is what a user of a plain role list expects.
//
// NewContext puts a User on a context; FromContext takes it off. sqe never
// falls back to "no policy": a statement whose context carries no User and
// whose connector has no default user fails with ErrNoSession.
package session
