// Package postgres is sqe's PostgreSQL dialect, built on the server's own
// grammar (github.com/pganalyze/pg_query_go, which links the PostgreSQL
// parser through cgo). Importing it registers the dialect "postgres" with
// package rewriter:
//
//	import _ "github.com/sqe-project/sqe/rewriter/postgres"
//
// A program that only talks to MySQL does not import it and needs no cgo.
//
// The dialect is an adapter between PostgreSQL's parse tree and the
// rewrite core of package rewriter (docs/rewriter.md): it parses the
// statement, resolves every relation on the connection's search path (and
// pg_temp, as the earlier statements of a string leave it), answers the core's syntax questions (can this condition fail
// on a row's values, which columns does it read, which types meet), and
// places what the core decides: the policy's read form of a table (a
// subquery, fenced with OFFSET 0 when a condition could fail on a hidden
// row), the filter and guard of a write, the masks of a write's target. It
// prints the tree with the PostgreSQL deparser, never the application's
// text, and checks that every relation of the printed statement is one it
// produced or checked (the read forms' mask expressions, and the whole
// select of a read form that reads its table only, are printed and
// checked once each and spliced into that check's skeleton: splice.go).
// A read form is parsed once, and the masks the policy rewrite can only
// qualify are rewritten once and shared by every statement that places
// the form (readform.go).
//
// It also owns what differs on a PostgreSQL server (rewriter.Server):
// reading the connection's session state (search path,
// standard_conforming_strings, client_encoding; Session), the column query
// and the table listing, the settings a statement may change, the forms of
// schema change it passes, the system catalogs a caller may read, and the
// allow-list of built-in functions and types. What is not on its lists is
// refused, naming what was refused.
//
// docs/dialect-postgres.md is the normative text: what reaches the server,
// names, reads, context functions, writes, schema changes, session
// statements, system catalogs and functions.
package postgres
