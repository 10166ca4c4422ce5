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
// compiles a new one off the hot path and swaps one pointer, so a statement
// sees one consistent policy set from start to end. A source that has never
// loaded fails with ErrNotLoaded.
//
// FileSource serves a native policy file (Reload re-reads it; a failed
// reload keeps the last good snapshot); NewStaticSource serves a fixed
// Snapshot.
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
// Top-level fields are version, default, roles, groups, users and tables;
// roles, groups, users and tables are optional. Every rule has principals
// (required, non-empty), an optional name (used in Decision.DeniedBy,
// Mask.Policy, RowFilter.Policy and Decision.Restricted; an unnamed rule is
// called e.g. "shop.customers/access[0]") and an optional description.
//
//   - access rules have exactly one of allow and deny: a non-empty list of
//     select, update, create, drop, alter, index, lock or all (all = every
//     access type); case-insensitive.
//   - row_filters have filter: a boolean SQL expression over the table's raw
//     columns, passed to the rewriter as written (it must not be empty).
//   - masks have column, type (one of package udf's mask types: MASK,
//     MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4, MASK_HASH, MASK_NULL, MASK_NONE,
//     MASK_DATE_SHOW_YEAR, CUSTOM, MASK_SHOW_FIRST_N, MASK_SHOW_LAST_N, REDACT,
//     REGEXP_REPLACE, ...; case-insensitive), args (a list of strings, as the
//     type requires; see package udf) and, for CUSTOM only, expr with {col}
//     standing for the column. Masks are checked with udf.ValidateMask when
//     the file loads.
//   - restricted entries have columns: a non-empty list of column names.
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
// ErrInvalidFile.
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
// # Evaluator
//
// Compile turns a File into per-principal indexes: for each principal
// (user:x, group:x, role:x, public) a map from table to its rules, plus a
// short list for wildcard entries. View resolves the role closure once and
// pins the indexes of the principals the user has, so Decide probes only
// those; its cost depends on the principals held and the rules on the table,
// not on the size of the policy set. A View caches its Decisions; a returned
// *Decision is shared and must not be modified (Decision.Clone gives a
// private copy).
//
// View.Fingerprint encodes the snapshot version, the user name, the sorted
// groups, held and active roles, the primary and secondary roles (which
// current_role() and current_secondary_roles() report) and the sorted
// attributes, each length-prefixed: two Views with the same fingerprint
// decide every table, and resolve every context function, the same way.
package policy
