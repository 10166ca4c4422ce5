package policy

import (
	"fmt"

	"github.com/sqe-project/sqe/session"
)

// View answers policy questions for one caller during one statement. A View
// is never shared between statements.
//
// Every capability is a method: a View that has no role hierarchy, no
// named columns or no revision says so with the zero answer. Decide,
// Fingerprint and User are a View's own; the rest have defaults in
// BaseView, which a View embeds to implement only what it has.
type View interface {
	// Decide returns the caller's Decision for the table. A View whose
	// decision on the table depends on its columns returns an error
	// wrapping ErrNeedsColumns; the rewriter then reads the table's
	// columns from its catalog and asks DecideColumnInfo.
	Decide(t TableName) (*Decision, error)
	// DecideColumnInfo returns the caller's Decision for the table given
	// all its columns, their types and tags (an Open Policy Agent
	// decision's input.table.columns, Ranger's column patterns). Views
	// that never need the columns keep BaseView's, which refuses.
	DecideColumnInfo(t TableName, columns []ColumnInfo) (*Decision, error)
	// Fingerprint identifies everything the View's decisions depend on
	// (snapshot version, principals, attributes): two Views with the same
	// fingerprint decide every table the same way.
	Fingerprint() string
	// User is the session user the View was built for.
	User() session.User
	// SnapshotVersion is the version of the snapshot the View was built
	// on; 0 when the View does not know it (the driver then records the
	// version of the source's current snapshot).
	SnapshotVersion() uint64
	// PolicyRevision names the revision of the policy the View decides
	// with (an Open Policy Agent bundle's revision), for audit records;
	// empty when the policy has none.
	PolicyRevision() string
	// HeldRoles returns every role the user holds: the granted roles and
	// every role they contain (current_available_roles()), sorted. Nil
	// when the View resolves no role hierarchy: the session's granted
	// roles (session.User.Roles) then stand for the held roles. A View
	// that resolves roles returns a non-nil slice, empty when the user
	// holds none. The slice must not be modified.
	HeldRoles() []string
	// ActiveRoles returns the roles active in the session: the primary
	// role, the active secondary roles and every role they contain,
	// sorted. Nil when the View resolves no role hierarchy (the session's
	// own lists then stand). The slice must not be modified.
	ActiveRoles() []string
	// NamedColumns returns the columns the rules of t's exact table entry
	// name, in rule order; nil when none. The rewriter checks them against
	// the catalog whenever a statement reads or writes the table, for
	// every caller, and fails closed (ErrPolicy) when one does not exist:
	// a rule on a misspelt column protects nobody. The slice is shared
	// and read-only.
	NamedColumns(t TableName) []ColumnRef
	// MaskConditions returns the when conditions of the masks of t's
	// exact table entry, in rule order; nil when none. Which columns a
	// condition reads is only known to the dialect's parser, so the
	// rewriter checks them as it checks NamedColumns. The slice is shared
	// and read-only.
	MaskConditions(t TableName) []MaskCondition
	// AllowedFunctions names the application functions the policy set
	// lets the application's SQL call besides the dialect's built-ins
	// (the native file's functions: allow: list); nil when none.
	AllowedFunctions() []string
}

// StatementTablesView is a View whose decisions may depend on every table
// a statement accesses, not only on the table decided (Apache Ranger's
// accessed-together conditions). Before the tables of a statement are
// decided, ForStatementTables is given all of them (every base table the
// statement reads or writes) and the View it returns decides them. A
// View that is never given the set decides as if it were unknown, which
// counts every such condition against the caller.
type StatementTablesView interface {
	View
	// ForStatementTables returns the View that decides the tables of a
	// statement that accesses exactly tables. It may return the View
	// itself when no decision depends on the set. The returned View's
	// Fingerprint covers the set when decisions depend on it.
	ForStatementTables(tables []TableName) View
}

// BaseView holds the defaults of the View methods a View may leave out:
// no role hierarchy, version unknown, no revision, no named columns, no
// mask conditions, no allowed functions, and no decisions by columns.
// Embed it in a View and implement Decide, Fingerprint and User:
//
//	type myView struct {
//		policy.BaseView
//		user session.User
//	}
//
// BaseView has no state, so embedding it costs nothing.
type BaseView struct{}

// DecideColumnInfo refuses: a View that embeds BaseView does not decide
// by columns, so its Decide never asks for them. The error wraps
// ErrAccessDenied.
func (BaseView) DecideColumnInfo(t TableName, _ []ColumnInfo) (*Decision, error) {
	return nil, fmt.Errorf("%w: %s: the policy does not decide with the table's columns", ErrAccessDenied, t)
}

// SnapshotVersion returns 0: the View does not know its snapshot's version.
func (BaseView) SnapshotVersion() uint64 { return 0 }

// PolicyRevision returns "": the policy names no revision.
func (BaseView) PolicyRevision() string { return "" }

// HeldRoles returns nil: the View resolves no role hierarchy.
func (BaseView) HeldRoles() []string { return nil }

// ActiveRoles returns nil: the View resolves no role hierarchy.
func (BaseView) ActiveRoles() []string { return nil }

// NamedColumns returns nil: the policy names no columns to check.
func (BaseView) NamedColumns(TableName) []ColumnRef { return nil }

// MaskConditions returns nil: the policy's masks have no when conditions
// to check.
func (BaseView) MaskConditions(TableName) []MaskCondition { return nil }

// AllowedFunctions returns nil: the policy set allows no application
// function by name.
func (BaseView) AllowedFunctions() []string { return nil }

type needsColumnsSentinel struct{}

func (needsColumnsSentinel) Error() string {
	return "sqe: access denied: the decision depends on the table's columns"
}

// Is makes ErrNeedsColumns match ErrAccessDenied.
func (needsColumnsSentinel) Is(target error) bool { return target == ErrAccessDenied }

// ErrNeedsColumns is wrapped by the error of a View's Decide when the
// caller's decision on the table depends on the table's columns; the
// rewriter then asks View.DecideColumnInfo with them. It matches
// ErrAccessDenied too, so a caller that cannot supply the columns fails
// closed.
var ErrNeedsColumns error = needsColumnsSentinel{}

// RoleView is View.
//
// Deprecated: every View has HeldRoles and ActiveRoles.
type RoleView = View

// VersionedView is View.
//
// Deprecated: every View has SnapshotVersion.
type VersionedView = View

// ColumnInfoDecider is View.
//
// Deprecated: every View has DecideColumnInfo.
type ColumnInfoDecider = View
