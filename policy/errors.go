package policy

import (
	"errors"
	"strconv"
	"strings"
)

// ErrSuperseded is wrapped by the error of a Snapshot's View when the
// snapshot was superseded by a newer publication before the View could be
// built (a source that releases what superseded snapshots load lazily).
// ViewWithRetry then retries on the newer snapshot. The snapshots this
// package compiles never refuse a View this way: a View built on a
// superseded *Compiled is consistent, only not the newest.
var ErrSuperseded = errors.New("sqe: policy snapshot superseded")

type unresolvedSentinel struct{}

func (unresolvedSentinel) Error() string { return "sqe: access denied: unresolved principal" }

// Is makes ErrUnresolved match ErrAccessDenied.
func (unresolvedSentinel) Is(target error) bool { return target == ErrAccessDenied }

// ErrUnresolved is wrapped by the errors of decisions (and Views) that
// depend on a principal the snapshot could not resolve. It matches
// ErrAccessDenied too: errors.Is(err, ErrAccessDenied) holds for every
// error that wraps ErrUnresolved.
var ErrUnresolved error = unresolvedSentinel{}

// Unresolved is a principal whose definition a source could not resolve:
// a malformed roles, groups or users entry of a policy file read with
// ParsePartial, or, for sources that download role memberships, a role
// whose membership failed to download. A snapshot keeps the set; a View
// that holds one of them fails closed on every decision that could depend
// on what is unknown about it.
type Unresolved struct {
	Principal Principal
	// Reason says why, e.g. the FileError of the malformed entry.
	Reason string
}

// UnresolvedError is the error of a decision (or View) that depends on an
// unresolved principal the user holds. It wraps ErrUnresolved, and so
// matches ErrAccessDenied.
type UnresolvedError struct {
	// Table is the table whose decision was refused; zero when the View
	// itself could not be built.
	Table     TableName
	User      string
	Principal Principal
	Reason    string
	// Detail says what depends on the principal.
	Detail string
}

func (e *UnresolvedError) Error() string {
	var b strings.Builder
	b.WriteString("sqe: access denied: ")
	if e.Table != (TableName{}) {
		b.WriteString("table ")
		b.WriteString(e.Table.String())
		b.WriteString(": ")
	}
	b.WriteString("user ")
	b.WriteString(strconv.Quote(e.User))
	b.WriteString(" holds unresolved principal ")
	b.WriteString(e.Principal.String())
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteString(")")
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	return b.String()
}

// Unwrap returns ErrUnresolved.
func (e *UnresolvedError) Unwrap() error { return ErrUnresolved }
