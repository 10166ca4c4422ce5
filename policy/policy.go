package policy

import (
	"errors"
	"strings"

	"github.com/sqe-project/sqe/session"
)

// Sentinel errors. Errors returned by sqe wrap one of them (use errors.Is).
var (
	// ErrAccessDenied: the caller may not perform the access on the table.
	ErrAccessDenied = errors.New("sqe: access denied")
	// ErrColumnDenied: the statement names a column that is restricted for the caller.
	ErrColumnDenied = errors.New("sqe: column access denied")
	// ErrNotLoaded: the policy source has never loaded a policy set (fail closed).
	ErrNotLoaded = errors.New("sqe: policy source has not loaded")
	// ErrPolicy: the statement met a defect of the policy itself — a rule
	// that names a column the table does not have, a mask its column's type
	// cannot take, an expression that does not parse. The error names the
	// rule; the table's statements fail closed until the policy or the
	// table is fixed (see View.NamedColumns).
	ErrPolicy = errors.New("sqe: policy error")
)

type checkSentinel struct{}

func (checkSentinel) Error() string { return "sqe: written row violates the row filter" }

// Is makes ErrCheckViolation match ErrAccessDenied.
func (checkSentinel) Is(target error) bool { return target == ErrAccessDenied }

// ErrCheckViolation: a row the statement would write does not satisfy the
// table's row filter for the caller (RowFilter.Check), or sqe cannot
// prove that it does; nothing was written. It matches ErrAccessDenied too.
var ErrCheckViolation error = checkSentinel{}

// Access is an access type a statement needs on a table.
type Access string

// Access types, the vocabulary of the Ranger hive service-def.
const (
	Select Access = "select"
	Update Access = "update"
	Create Access = "create"
	Drop   Access = "drop"
	Alter  Access = "alter"
	Index  Access = "index"
	Lock   Access = "lock"
	All    Access = "all"
)

// Accesses lists every access type except All, in a fixed order.
var Accesses = []Access{Select, Update, Create, Drop, Alter, Index, Lock}

// ParseAccess returns the Access named s (case-insensitive).
func ParseAccess(s string) (Access, bool) {
	a := Access(strings.ToLower(strings.TrimSpace(s)))
	switch a {
	case Select, Update, Create, Drop, Alter, Index, Lock, All:
		return a, true
	}
	return "", false
}

// TableName names a table (or view) as policies see it: Schema is the MySQL
// database or the PostgreSQL schema. Names are compared case-insensitively
// (the hive service-def's rule); Key gives the canonical form.
type TableName struct {
	Schema string
	Table  string
}

// Key returns the canonical, lower-cased "schema.table".
func (t TableName) Key() string {
	return strings.ToLower(t.Schema) + "." + strings.ToLower(t.Table)
}

func (t TableName) String() string { return t.Schema + "." + t.Table }

// Mask is a column mask. Type is a Ranger hive mask type (MASK,
// MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4, MASK_HASH, MASK_NULL, MASK_NONE,
// MASK_DATE_SHOW_YEAR, CUSTOM) or one of sqe's additions (MASK_SHOW_FIRST_N,
// MASK_SHOW_LAST_N, REDACT, REGEXP_REPLACE); see package udf for the
// arguments each takes. Expr is the CUSTOM expression, with {col} standing
// for the column.
//
// Values are the caller's values of the request expressions in Expr,
// which holds a marker for each (see RequestValue); nil when it has none.
//
// Hive marks Expr as Hive SQL as Ranger's policy author writes it (a
// Ranger CUSTOM mask): the dialect's parser reads it, a call of
// logged_in_user() is the caller's name as current_user() is, and a call
// of a Hive function with no MySQL or PostgreSQL meaning (reflect,
// java_method, in_file, the mask UDFs, ...) is refused with a policy
// error naming the function and the policy (see rewriter.HiveCall).
//
// When, if not empty, makes the mask conditional (Snowflake's conditional
// masking policies): a boolean SQL expression over the raw columns of the
// same row. The mask applies where the condition holds or is unknown
// (NULL), the raw value is seen where it is false:
//
//	CASE WHEN (when) IS FALSE THEN col ELSE mask(col) END
type Mask struct {
	Type   string
	Args   []string
	Expr   string
	When   string
	Policy string // the policy that set the mask, for errors and explain
	Values []RequestValue
	Hive   bool
}

// RowFilter is a boolean SQL expression over the table's raw columns.
//
// Check, when not empty, is the condition every row the caller writes
// (INSERT, the new row of an UPDATE) must satisfy, PostgreSQL's WITH
// CHECK: a boolean SQL expression over the written row's columns, usually
// Expr itself. Empty: written rows are not checked (Ranger's row filters,
// which govern reads, and a native filter with check: false).
//
// Values are the caller's values of the request expressions in Expr and
// Check, which hold a marker for each (see RequestValue; both texts
// number the same values); nil when they have none.
//
// Hive marks Expr and Check as Hive SQL as Ranger's policy author writes
// it (a Ranger row filter): the dialect's parser reads them, a call of
// logged_in_user() is the caller's name as current_user() is, and a call
// of a Hive function with no MySQL or PostgreSQL meaning (reflect,
// java_method, in_file, current_groups, ...) is refused with a policy
// error naming the function and the policy (see rewriter.HiveCall).
type RowFilter struct {
	Expr   string
	Policy string
	Check  string
	Values []RequestValue
	Hive   bool
}

// Decision is what one View may do with one table. A Decision returned by
// a View is read-only: it is cached by the View, and its maps and slices
// may be shared with other Decisions (the access maps of equal access
// sets, the masks' arguments). Use Clone for a copy that may be changed.
type Decision struct {
	Table TableName
	// Allowed holds the granted access types. A type that is absent is denied.
	Allowed map[Access]bool
	// DeniedBy names, per denied access type, the policy (or default) that denied it.
	DeniedBy map[Access]string
	// AllowedBy names, per allowed access type, the rule that granted it:
	// the first allow rule in rule order (native file; ReasonDefaultAllow
	// when the file's default granted it) or the Ranger policy that
	// allowed it ("ranger policy 12"). All is named when one rule granted
	// every type.
	AllowedBy map[Access]string
	// RowFilters are ANDed; the rows a statement may see or touch are those
	// every filter admits.
	RowFilters []RowFilter
	// Masks maps lower-cased column names to their mask.
	Masks map[string]Mask
	// Restricted maps lower-cased column names to the policy that restricts them.
	Restricted map[string]string
	// TagMasks binds tags (upper-cased) to the mask a column carrying the
	// tag gets, when the column has no mask of its own and is not
	// restricted. Which columns carry which tags comes from tag sources
	// (ColumnTags below, the database's column comments).
	TagMasks map[string]Mask
	// ColumnTags are tags the policy source itself assigns: lower-cased
	// column name to upper-cased tags; the key "*" holds the table's own
	// tags, which every column inherits.
	ColumnTags map[string][]string
	// Unaudited names the accesses the policy source decided not to audit
	// for this caller and table (Ranger's isAudited false: an audit
	// filter, an audit exclusion, policies with auditing off). sqe's
	// audit sink skips a statement that succeeds when its access to every
	// table it names is unaudited; refusals and failures are always
	// audited. Nil: every access is audited.
	Unaudited map[Access]bool
}

// Allows reports whether the access is granted.
func (d *Decision) Allows(a Access) bool { return d.Allowed[a] }

// Reason names the policy that denied a, or "default" when none is recorded.
func (d *Decision) Reason(a Access) string {
	if r := d.DeniedBy[a]; r != "" {
		return r
	}
	return "default"
}

// Passthrough reports whether the decision changes nothing a read sees: no
// filter, no mask and no restricted column.
func (d *Decision) Passthrough() bool {
	return len(d.RowFilters) == 0 && len(d.Masks) == 0 && len(d.Restricted) == 0 && len(d.TagMasks) == 0
}

// Source supplies policy snapshots. Snapshot returns the current one, or an
// error wrapping ErrNotLoaded when the source has never loaded (fail closed).
type Source interface {
	Snapshot() (Snapshot, error)
}

// Snapshot is an immutable, compiled policy set.
type Snapshot interface {
	// Version identifies the snapshot; it changes with every publication.
	Version() uint64
	// View resolves the user's principals into a statement-local View.
	View(u session.User) (View, error)
}
