package sqe

import (
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Sentinel errors. Every error sqe returns for a policy decision wraps one
// of them; test with errors.Is. The concrete error (*rewriter.Error) names
// the table, column and policy involved, never a protected value.
var (
	// ErrNoSession: the context carries no session.User and the connector
	// has no default user.
	ErrNoSession = session.ErrNoSession
	// ErrAccessDenied: the caller may not perform the statement's access on a table.
	ErrAccessDenied = policy.ErrAccessDenied
	// ErrColumnDenied: the statement names a column restricted for the caller.
	ErrColumnDenied = policy.ErrColumnDenied
	// ErrUnsupported: sqe cannot parse the statement or prove it rewrote it
	// completely; nothing was sent to the database.
	ErrUnsupported = rewriter.ErrUnsupported
	// ErrPolicyNotLoaded: the policy source has never loaded a policy set.
	ErrPolicyNotLoaded = policy.ErrNotLoaded
	// ErrPolicy: the statement met a defect of the policy itself (a rule
	// naming a column the table does not have, a mask its column's type
	// cannot take); the error names the rule and the table, and every
	// statement on the table fails closed until the policy or the table is
	// fixed.
	ErrPolicy = policy.ErrPolicy
)
