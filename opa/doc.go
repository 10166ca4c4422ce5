// Package opa is an Open Policy Agent policy source for sqe: table
// access, row filters, masks and restricted columns decided by a Rego
// bundle, evaluated in process with OPA's Go library (the v1 rego API)
// and enforced on a Go service's MySQL or PostgreSQL statements as the
// native policy file and Ranger are.
//
// Package opa lives in sqe's main module; Go's module graph pruning keeps
// OPA out of the builds of programs that do not import it.
//
// # Sources
//
// New takes a bundle directory, a bundle tarball (.tar.gz, as "opa
// build" writes it), a single .rego file, or a bundle server's URL:
//
//	src, err := opa.New("/etc/sqe/bundle")                         // or bundle.tar.gz
//	src, err := opa.New("https://bundles.example.com/sqe.tar.gz", // as an OPA sidecar follows it
//		opa.WithBearerToken(token), opa.WithPersistDir("/var/lib/sqe/opa"))
//	db, err := sqe.Open("mysql", dsn, sqe.WithPolicy(src))
//
// A path is read and compiled before New returns (an error wraps
// ErrBundle); Reload reads it again. A URL is followed with OPA's bundle
// protocol: a GET of the bundle, then polls (WithPollInterval) with
// If-None-Match, a 304 costing nothing. A bundle that fails to download,
// read or compile keeps the last good revision in force and counts a
// reload failure (Stats); a new revision, older or newer, replaces it
// (what the server serves is the policy in force, as for OPA). The last
// good download is kept in WithPersistDir's directory and loaded at start
// when the server cannot be reached or serves a bad bundle; with neither,
// the Source fails closed (policy.ErrNotLoaded) until a download
// succeeds.
//
// # Input and decision
//
// For each table a statement touches and each access type, sqe evaluates
// the decision document (data.sqe.decision, see WithDecision) with the
// input
//
//	{
//	  "user":   {"name": "erin", "groups": ["emea"], "roles": ["eu_analyst"],
//	             "primary_role": "", "secondary_roles": [], "attributes": {"tenant": "7"}},
//	  "table":  {"schema": "shop", "name": "customers",
//	             "columns": [{"name": "ssn", "type": "varchar(11)", "tags": ["PII"]}, …]},
//	  "action": "select"
//	}
//
// where action is one of select, update (INSERT, UPDATE and DELETE),
// create, drop, alter, index and lock, and expects
//
//	{
//	  "allow":       true,
//	  "row_filters": ["region = 'EU'", {"name": "eu-only", "filter": "region = 'EU'"}],
//	  "masks":       {"ssn": {"type": "MASK_SHOW_LAST_4", "name": "ssn-last-4"},
//	                  "email": {"expr": "CONCAT('***', SUBSTR({col}, 4))"}},
//	  "restricted":  ["salary", {"name": "no-salary", "column": "salary"}],
//	  "tag_masks":   {"PII": {"type": "MASK_HASH"}},
//	  "policies":    ["staff-read"]
//	}
//
// Only allow is required. An undefined decision denies. A document of
// another shape, a field sqe does not know, a mask type it does not know
// or a mask or restriction on a column the table does not have is a
// policy error (policy.ErrPolicy) naming the rule (its name, else the
// decision's path), and the statement fails closed. So is an evaluation
// error; builtin errors are strict (a failing builtin fails the
// evaluation instead of making its rule undefined, which for a row
// filter rule would show every row). Row filters and
// CUSTOM masks are parsed for the connection's dialect when the decision
// is first used; one that does not parse is a policy error naming the
// rule, as in the native file.
//
// The access types allowed are those whose document allows; the row
// filters and restricted columns are those of every allowing document,
// ANDed and merged, so that no statement escapes a filter that one action
// carries; masks are those of the select document, completed by the
// others'. policies names the rules that granted an action, for errors
// and audit records; every audit record also names the bundle revision
// (audit.Record.PolicyRevision).
//
// # Evaluation
//
// A bundle is compiled once per revision into an immutable Snapshot. A
// decision depends only on the caller, the table (with its columns) and
// the revision, so a Snapshot memoizes it per principal fingerprint (every
// field of session.User), table and columns, bounded by
// WithDecisionCacheSize, and each View keeps its own: a statement by a
// caller seen before costs a lookup. A View pins its snapshot: a statement
// in flight keeps deciding with its revision when a new one lands.
//
// # Helper library
//
// Package sqe.lib (Library) is compiled with every bundle that does not
// define it: held and active roles over the role hierarchy in
// data.sqe.principals (with Snowflake's primary and secondary roles, as
// the native file), has_role, holds_role, in_group, attribute, table,
// table_in, tagged, typed, mask, mask_args, custom, named, filter and
// tag_masks. The bundle in example/demo reproduces the demo's YAML policy
// decision for decision.
package opa
