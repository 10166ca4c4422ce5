// Package policy is sqe's policy model and evaluator: the Decision a caller
// gets for a table (access types, row filters, column masks, restricted
// columns), the Source / Snapshot / View contract the rewriter uses, and
// sqe's native policy file.
//
// # Sources, snapshots and views
//
// A Source hands out immutable Snapshots. A statement pins one Snapshot and
// resolves the caller's principals into a View, which it then asks for one
// Decision per table. A snapshot is never changed in place: a reload
// compiles a new one off the statement path and swaps one pointer, so a
// statement sees one consistent policy set from start to end, and
// statements never wait for a reload. The snapshot version is part of
// View.Fingerprint, and so of the rewrite-cache key.
//
// FileSource serves a native policy file (Reload re-reads it; a failed
// reload keeps the last good snapshot; with WithWatch it follows the file
// on disk by itself, see Watching); MemorySource serves policy sets
// published in code as *File values; NewStaticSource serves a fixed
// Snapshot. ViewWithRetry is the statement path's way from a Source to a
// View (see Failure model).
//
// # A View of one's own
//
// View is the one contract between a policy and the rewriter: every
// capability (roles, column-aware decisions, the columns a policy names,
// the snapshot version, the revision, functions allowed by name) is a
// method. BaseView holds the defaults; a View of one's own embeds it and
// implements Decide, Fingerprint and User (see the example of BaseView).
// A decision that depends on the table's columns is asked for with an
// error wrapping ErrNeedsColumns, and answered by DecideColumnInfo.
//
// A View written for the older three-method View (Decide, Fingerprint,
// User) no longer compiles as a View; embedding BaseView is the whole
// migration:
//
//	type myView struct {
//		policy.BaseView // new: the defaults of the other methods
//		user session.User
//	}
//
// # The rest of the model
//
// The native policy file (FileSource, Parse, Compile) is YAML: roles,
// groups, users, and per table access rules, row filters (with write
// checks), masks (conditional, by tag) and restricted columns, checked
// strictly with file, line and field in every error (docs/policy.md is
// the reference). Rules that take away match every held role, rules that
// grant only the active ones; the exact table entry comes before wildcard
// entries, and the first matching mask wins. Compile indexes the rules per
// principal and resource, so Decide costs the same whatever the size of
// the policy set; a View caches its Decisions and shares what never
// changes through a bounded memo on the snapshot. Every failure fails
// closed and only as wide as it must (an unresolved principal affects the
// tables it could matter for, a failed reload keeps the last good
// snapshot). A FileSource opened WithWatch follows its file on disk.
//
// docs/policy-engine.md holds the normative text: the semantics of every
// rule kind, the evaluator, the failure model, watching, the statistics
// and every limit with its option and default.
package policy
