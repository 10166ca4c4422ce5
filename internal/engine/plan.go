package engine

import (
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Plan is one statement, rewritten for one caller. The exported fields
// are what the driver wrappers read; the rest is what Finish needs to
// audit the statement and apply its effect.
//
// A Plan is read-only once the engine returned it: the engine hands the
// same Plan to every later run of the statement on the connection for
// the same caller (see connRewrite.plan), and a caller that needs another
// (a refusal after planning) changes a copy.
type Plan struct {
	Query       string // as the application sent it
	SQL         string // as it is sent to the database
	Fingerprint string // of the caller's policy view
	// Result is the rewrite (nil for a plan that carries no rewrite).
	Result *rewriter.Result
	// Refused marks the plan of a statement that was refused: it carries
	// only what auditing the refusal needs, and nothing is run with it.
	Refused bool

	// local is set for a statement sqe answers itself (USE ROLE …):
	// nothing is sent to the database.
	local *roleStatement
	// For auditing: the caller, the snapshot version, the tables with the
	// policy applied to each, and the SQL's fingerprint.
	who            session.User
	version        uint64
	tables         []audit.Table
	sqlFingerprint string
	revision       string
	// unaudited: the policy source does not audit the statement's
	// accesses; it is audited only if it fails.
	unaudited bool
}
