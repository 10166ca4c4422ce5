// Package opa is an Open Policy Agent policy source for sqe: table
// access, row filters, masks and restricted columns decided by a Rego
// bundle, evaluated in process with OPA's Go library (the v1 rego API)
// and enforced on a Go service's MySQL or PostgreSQL statements as the
// native policy file and Ranger are.
//
// New takes a bundle directory, a bundle tarball, a single .rego file or a
// bundle server's URL (followed with OPA's bundle protocol, the last good
// download kept with WithPersistDir); a bundle that fails to download,
// read or compile keeps the last good revision, and a source that never
// loaded fails every statement closed (policy.ErrNotLoaded).
//
//	src, err := opa.New("https://bundles.example.com/sqe.tar.gz",
//		opa.WithBearerToken(token), opa.WithPersistDir("/var/lib/sqe/opa"))
//	db, err := sqe.Open("mysql", dsn, sqe.WithPolicy(src))
//
// For each table a statement touches and each access type, sqe evaluates
// the decision document (data.sqe.decision, WithDecision) with the caller,
// the table and its columns (types, tags) and the action as input, and
// reads allow, row_filters, masks, restricted, tag_masks and policies
// from it. An undefined decision denies; a document sqe cannot read, an
// evaluation error (builtin errors are strict) or a rule on a column the
// table lacks is a policy error naming the rule, and the statement fails
// closed. Each revision compiles into an immutable Snapshot that memoizes
// decisions per caller, table and columns; a View pins its snapshot. The
// helper library sqe.lib (Library) gives roles over the hierarchy,
// groups, attributes and mask builders.
//
// docs/opa.md is the normative text: the input, the decision document and
// how access types merge, the helper library, bundles, snapshots and
// caching, audit and decision logs, and the demo's policy as a bundle.
package opa
