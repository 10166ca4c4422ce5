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
	// ErrUnsupported: sqe will not run the statement (a statement kind,
	// function or form it has not decided is safe) or cannot prove it
	// rewrote it completely; nothing was sent to the database.
	ErrUnsupported = rewriter.ErrUnsupported
	// ErrSyntax: the statement does not parse in the connection's dialect;
	// nothing was run. On PostgreSQL the server is asked to prepare (parse,
	// never execute) the statement, and its own error comes back as a
	// *ServerError that errors.As finds as *pgconn.PgError (SQLSTATE 42601)
	// and that still matches ErrSyntax; on MySQL nothing is sent, since
	// MariaDB reads statements sqe's parser does not. The *rewriter.Error gives the
	// position and the token the parser stopped at (a literal is shown as
	// "a literal", never its value). A syntax error also matches
	// ErrUnsupported, so that checks for "sqe refused it" written before
	// ErrSyntax existed still hold: test ErrSyntax first to tell them apart.
	ErrSyntax = rewriter.ErrSyntax
	// ErrPolicyNotLoaded: the policy source has never loaded a policy set.
	ErrPolicyNotLoaded = policy.ErrNotLoaded
	// ErrPolicy: the statement met a defect of the policy itself (a rule
	// naming a column the table does not have, a mask its column's type
	// cannot take); the error names the rule and the table, and every
	// statement on the table fails closed until the policy or the table is
	// fixed.
	ErrPolicy = policy.ErrPolicy
	// ErrCheckViolation: a row the statement would write does not satisfy
	// the caller's row filter (its check), or sqe cannot prove that it
	// does; nothing was sent. It also matches ErrAccessDenied.
	ErrCheckViolation = policy.ErrCheckViolation
)
