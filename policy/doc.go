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
// # Watching
//
// A FileSource opened WithWatch(true) watches its file's directory (with
// fsnotify) from a goroutine it owns, and reloads the file when an event
// creates, writes, renames or removes the file's name or the ..data
// symlink of a Kubernetes ConfigMap volume: so a file written in place,
// one renamed over (written elsewhere and renamed into place) and a
// ConfigMap's symlink swap are all seen. A burst of events reloads once,
// after WithWatchDebounce of quiet; content whose SHA-256 equals the
// current snapshot's keeps the snapshot (counted as unchanged), and
// content that already failed is not tried again. A failed reload keeps
// the last good snapshot like any reload, and is logged (WithLogger) with
// the file, line and field of its problems, never the policy's text.
// Every WithPollInterval the source also checks the file (the file it
// resolves to, size, modification time, content hash), which sees what the
// directory's events cannot (a symlink into another directory); when the
// directory cannot be watched the source logs it and relies on that check
// alone. Watching never fails NewFileSource. Close stops the goroutine and
// waits for it.
//
// # The native policy file
//
// The file is YAML. testdata/example.yaml is the annotated reference:
//
//	version: 1               # required; the only version is 1
//	default: deny            # required: allow | deny
//	roles:                   # role -> the roles it contains
//	  admin: {contains: [analyst, support]}
//	  eu_analyst: {contains: [analyst]}
//	groups:                  # group -> roles granted to its members
//	  eu-team: {roles: [eu_analyst]}
//	users:                   # user -> roles granted to the user
//	  alice: {roles: [admin]}
//	tables:
//	  shop.customers:        # schema.table; * and ? are wildcards in either part
//	    access:
//	      - {name: staff-read, principals: [role:analyst, group:ops], allow: [select]}
//	      - {name: no-contractors, principals: [group:contractors], deny: [all]}
//	    row_filters:
//	      - {name: eu-only, principals: [role:eu_analyst], filter: "region = 'EU'"}
//	    masks:
//	      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
//	      - {name: first-2, principals: [public], column: name, type: MASK_SHOW_FIRST_N, args: ["2"]}
//	      - {name: mail, principals: [public], column: email, type: CUSTOM, expr: "CONCAT('***', {col})"}
//	    restricted:
//	      - {name: no-salary, principals: [role:support], columns: [salary]}
//
// Top-level fields are version, default, roles, groups, users, tables, tags,
// tag_masks and functions ({allow: [name or schema.name, …]}: the
// application's own functions its SQL may call, see View.AllowedFunctions); all
// but version and default are optional. Every rule has principals
// (required, non-empty), an optional name (used in Decision.DeniedBy,
// Mask.Policy, RowFilter.Policy and Decision.Restricted; an unnamed rule is
// called e.g. "shop.customers/access[0]") and an optional description.
//
//   - access rules have exactly one of allow and deny: a non-empty list of
//     select, update, create, drop, alter, index, lock or all (all = every
//     access type); case-insensitive.
//   - row_filters have filter: a boolean SQL expression over the table's raw
//     columns, passed to the rewriter as written (it must not be empty).
//     This package parses no SQL: the driver checks every expression of a
//     policy set (Compiled.Expressions: filters, mapping filters compiled,
//     CUSTOM masks, masks' when conditions) with its dialect's parser when
//     it loads, through
//     WithValidator or SetValidator, so that one that does not parse fails
//     the load with file, line and field.
//   - masks have column, type (one of package udf's mask types: MASK,
//     MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4, MASK_HASH, MASK_NULL, MASK_NONE,
//     MASK_DATE_SHOW_YEAR, CUSTOM, MASK_SHOW_FIRST_N, MASK_SHOW_LAST_N, REDACT,
//     REGEXP_REPLACE, ...; case-insensitive), args (a list of strings, as the
//     type requires; see package udf), for CUSTOM only, expr with {col}
//     standing for the column, and optionally when, a condition on the row
//     (see Conditional masks). Masks are checked with udf.ValidateMask when
//     the file loads.
//   - restricted entries have columns: a non-empty list of column names.
//   - a row filter may have mapping instead of filter: a mapping
//     (entitlement) table, {table, column, key, match, match_column}, that
//     compiles to a semi-join, key IN (SELECT column FROM table WHERE
//     <match_column matches the session>) (see MappingFilter; match is
//     role, primary_role, user, group or attribute:NAME).
//
// Conditional masks. A mask (and a tag_masks binding) with when applies
// only where its condition holds, as Snowflake's conditional masking
// policies do: the column's value is
//
//	CASE WHEN (when) IS FALSE THEN column ELSE mask(column) END
//
// (Mask.When; udf.WhenSQL), so the mask applies where the condition is
// true or unknown (NULL): fail closed. The condition reads the row's raw
// columns, like a row filter, inside the read form, also columns masked
// or restricted for the caller; it may read only columns of the same
// table, unqualified, and functions, the context functions among them
// (resolved from the session as in row filters): a subquery, another
// table, an aggregate, a window, a variable or a placeholder is refused
// by the driver's validator when the file loads (Compiled.Expressions
// lists the condition with kind ExprMaskWhen). A column the condition
// reads that an exact entry's table lacks is a policy error for the table
// (View.MaskConditions); for a tag binding the tagged column is restricted.
// The first matching mask of a column still wins: where its condition is
// false the raw value is seen and no later mask is tried.
//
// tags maps schema.table.column (or schema.table: every column of the
// table, including columns added later) to a list of tags, upper-cased;
// keys name tables and columns exactly. tag_masks is a list of bindings
// {name, description, principals, tag, type, args, expr, when}: the mask, with
// the same types and checks as a column mask, of every column that
// carries the tag — from this file, from the database's column comments
// ("tags: PII, EMAIL") or from another TagSource — in every table.
//
// Tag masks. Per tag, the first binding in file order whose principals the
// caller matches (as for masks: the user, the groups, public, the active
// roles) applies. Per column, the column's own mask wins, a restricted
// column stays restricted, then the column's tags are tried in order
// (comment tags, then file tags, then the table's tags) and the first
// bound one applies; a binding that cannot be computed for the column's
// type restricts the column (fail closed). A Decision carries the
// caller's bindings in TagMasks and the file's tags of the table in
// ColumnTags; the rewriter applies them to the table's columns.
//
// Principals are user:NAME, group:NAME, role:NAME or public (everyone).
// Principal, role, group and user names are case-sensitive. Schema, table
// and column names are case-insensitive (they are lower-cased). A table key
// is schema.table with exactly one dot; a key that starts with * must be
// quoted in YAML ("*.audit_*"). Two keys that differ only in case are
// duplicates.
//
// The file is checked strictly: unknown fields, wrong types, unknown access
// or mask types, bad mask arguments, bad principals, empty lists or filters,
// duplicate keys, bad table keys, more than one YAML document and role
// cycles are errors. Every problem is reported with file, line and field
// path, for instance
//
//	policy.yaml:14: tables."shop.customers".masks[1].type: unknown mask type "MASK_FOO"
//
// The errors are *FileError values (joined when there are several) and wrap
// ErrInvalidFile. ParsePartial (which FileSource uses by default) is the
// exception for problems confined to one roles, groups or users entry:
// the entry is left out and its principal is unresolved (see Failure
// model), unless the file has more than 50 problems.
//
// # Semantics
//
// Roles. The roles a user holds are the closure, over contains, of the
// session's User.Roles, the file's users[name].roles and the roles of each of
// the user's groups in the file. Roles need not be declared: a role that has
// no roles entry contains only itself. The active roles are every held role
// when User.PrimaryRole is empty; otherwise the closure of the primary role,
// plus every held role when SecondaryRoles is [session.AllSecondaryRoles], or
// else the closure of each listed secondary role. A primary or secondary
// role the user does not hold makes View fail with an error wrapping
// ErrAccessDenied that names the role.
//
// Matching. A rule applies to a table when its table entry's key equals the
// table or, for wildcard keys, matches it; the exact entry and every matching
// wildcard entry all apply, the exact entry first, then wildcard entries in
// file order. Within that order, rules keep their file order. Rules that take
// something away — deny and restricted — match the user, the user's groups,
// public and every HELD role. Rules that grant or shape access — allow, row
// filters and masks — match the user, the groups, public and the ACTIVE roles
// only. So a deny on any held role cannot be escaped by switching roles,
// and a privilege of a role that is held but not active is not used.
//
// Access, per access type. A matching deny rule denies (DeniedBy names the
// first one). Otherwise, when some allow rule (for any principal) is on the
// table, access is granted exactly when a matching allow rule lists the
// type (DeniedBy: "no allow rule"). Otherwise the file's default applies
// (DeniedBy: "default: deny"). Deny-only tables therefore keep the default
// for everyone the deny does not match. Decision.Allowed[All] is set when
// every access type is allowed; DeniedBy[All] holds the reason of the first
// denied type.
//
// Row filters: every matching filter applies; Decision.RowFilters lists them
// in rule order and the rewriter ANDs them.
//
// Masks: per column, the first matching mask in rule order wins, so list
// exemptions (MASK_NONE for a privileged role) before broader masks.
//
// Restricted: the union of the columns of every matching entry (the value
// names the first entry that restricted the column). A restricted column is
// never also masked: restricted wins.
//
// Policy errors. What a policy names is checked against the table when a
// statement reads or writes it (package rewriter, PlanTable), and a defect
// fails closed with an error wrapping ErrPolicy that names the rule, the
// table and the column: a column that a mask, a restricted entry, a
// mapping filter's key or the tags section names on an exact table entry
// and that the table does not have fails every caller's statements on the
// table (View.NamedColumns; wildcard entries are not checked); a mask that its
// column's type cannot take (see package udf) fails the statements of the
// callers it applies to, on every dialect alike. DDL is not refused, so
// that the table can be fixed.
//
// # Evaluator
//
// Compile turns a File into per-principal indexes. Principals (public,
// every role, every user and group the policy set names) and resources
// (table entries: exact tables and wildcard patterns) are numbered. For
// each principal and each resource it has rules on, the snapshot holds one
// entry: the access types it allows and denies and its row filters, masks
// and restricted columns, in first-match order (file order, or Priority
// for sources that have one). The entries of all principals live in one
// open-addressing table keyed by (principal, resource), so a probe costs
// the same whatever the number of policies; the snapshot's large arrays
// hold no pointers (rule texts are spans of one string per table entry),
// so that the garbage collector does not scan them.
//
// A lookup resolves the table to its resources without looking at
// unrelated policies: the exact entry through a map, wildcard entries
// through an index by literal schema and by the literal prefix or suffix
// of the table pattern (a pattern without literal text, such as "*", is
// checked for every table, as it is related to every table).
//
// View resolves the user's principals once: the user, the session's
// groups, public, and the held roles — the closure, over contains, of the
// session's roles and the roles the file grants to the user and to each of
// the groups — and marks the active ones. It pins the indexes of the
// principals that have rules; Decide probes only those, for the table's
// resources, so its cost depends on the principals held and the rules on
// the table, not on the size of the policy set. A View caches its
// Decisions (WithDecisionCacheSize); a returned *Decision is read-only (its
// maps may be shared with other Decisions; Decision.Clone gives a private
// copy).
//
// Isolation. What a View changes — its cached Decisions, its merged index,
// its tag bindings — is its own. What never changes once built is shared
// through a bounded memo on the snapshot (WithMemoSize), keyed exactly:
// the principals resolved for a caller, with its role lists and
// fingerprint, reach only a View for an identical caller (the same name,
// groups, roles, primary and secondary roles and attributes, compared in
// full, not by hash); the read-only maps and row filters of a Decision are
// shared by Decisions of identical content (the same access bits and the
// same rules); and a View whose pinned principals and table equal an
// earlier one's gets that Decision's content without evaluating again.
// Every entry is a function of the snapshot and the exact key alone, so a
// View can get from the memo only what it would have computed itself
// (a Decision found through a link is returned shared, as the read-only
// contract allows). Views holding an unresolved principal do not take
// Decisions from the memo.
//
// Adaptive merge. A View that pins many principals (at least
// WithMergeMinPrincipals) probes each of them per resource. Once the probes
// it has made cost as much as merging its principals' indexes would (the
// total number of their entries), it builds one merged index, resource to
// rules, and probes that instead. A View whose principals have more
// entries than WithMergeBound (default 100,000) never merges and keeps
// probing, so the memory a View can use is bounded.
//
// View.Fingerprint encodes the snapshot version, the user name, the sorted
// groups, held and active roles, the primary and secondary roles (which
// current_role() and current_secondary_roles() report) and the sorted
// attributes, each length-prefixed: two Views with the same fingerprint
// decide every table, and resolve every context function, the same way.
//
// # Failure model
//
// Every failure fails closed, and only as wide as it must:
//
//   - A source that has never loaded makes every statement fail with an
//     error wrapping ErrNotLoaded (naming the last load error).
//     NewFileSource fails when the first load fails, unless
//     WithDeferredLoad is given.
//   - A reload that fails — the file does not parse, or a validator
//     (WithValidator, SetValidator) refuses the compiled set — keeps the
//     last good snapshot and is counted (Stats.ReloadFailures,
//     Stats.LastError).
//   - A View built on a snapshot that was superseded while it was built is
//     built again on the newer one by ViewWithRetry, up to WithViewRetries
//     times (backing off by WithRetryBackoff from the second retry on);
//     the statement fails (ErrSuperseded) only when no build completed. A
//     View built on a superseded *Compiled is consistent, so when the
//     retries run out the last one is used.
//   - A principal that cannot be resolved — a malformed roles, groups or
//     users entry read with ParsePartial (FileSource's default), a role on
//     a cycle, or a principal a source lists in File.Unresolved (say, a role
//     whose membership failed to download) — is marked unresolved in the
//     snapshot, and the load counts as partial. What is unknown about it is
//     which roles it contains or grants. So a user who holds it (directly,
//     through a group, or through a role) gets an *UnresolvedError (which
//     wraps ErrUnresolved and matches ErrAccessDenied, and names the
//     principal) for every table that has rules for a role the user does
//     not otherwise hold, and for a primary or secondary role the user does
//     not otherwise hold; every other table decides normally, and users who
//     do not hold it are not affected.
//
// # Statistics and limits
//
// Sources count what happens in policy in a Counters value, which their
// snapshots and Views share, and report it as Stats: snapshots published,
// unchanged and failed reloads, partial loads and unresolved principals,
// statements refused by reason (FailNotLoaded, FailRoleNotGranted,
// FailUnresolved, FailSuperseded), Views that could not be built,
// superseded retries and merges built. Rewrite-cache hits and misses are
// the driver's, which adds them to its own statistics.
//
// Every limit is an Option with a documented default: WithMergeBound
// (DefaultMergeBound), WithMergeMinPrincipals (DefaultMergeMinPrincipals),
// WithViewRetries (DefaultViewRetries), WithRetryBackoff
// (DefaultRetryBackoff), WithDecisionCacheSize (DefaultDecisionCacheSize),
// WithMemoSize (DefaultMemoSize), WithWatchDebounce (DefaultWatchDebounce)
// and WithPollInterval (DefaultPollInterval); WithPartialLoads,
// WithDeferredLoad, WithWatch, WithLogger and WithCounters choose
// behaviour.
package policy
