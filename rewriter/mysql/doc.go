// Package mysql is sqe's MySQL and MariaDB dialect, built on the vitess
// SQL parser (vitess.io/vitess/go/vt/sqlparser). Importing it registers the
// dialect "mysql" with package rewriter; the sqe driver always links it.
//
// The dialect is an adapter between vitess's syntax tree and the rewrite
// core of package rewriter (docs/rewriter.md): it parses the statement,
// finds every base-table reference with the scope it is seen in, answers
// the core's syntax questions (can this condition fail on a row's values,
// which columns does it read), and places what the core decides: the
// policy's read form of a table (a derived table, fenced with LIMIT
// 18446744073709551615 when a condition could fail on a hidden row), the
// filter and guard of a write, the masks of a write's target. It then
// prints the tree, never the application's text (comments, hints and
// executable comments are refused or dropped), checks that every table of
// the printed statement is one it produced or checked (large select-list
// entries, the masks, are checked once each and spliced into that check's
// skeleton: splice.go; a mask the policy rewrite can only qualify is
// rewritten once and shared: frozen.go; a read form it cannot change at
// all stands in that skeleton as one placeholder table, its print checked
// once: readform.go; a long IN list of plain literals is put in by its
// text), and names the result columns as the server would have named the
// application's. A tree of the usual query nodes with no comment,
// placeholder or escaped string goes through vitess's fast printer
// (format.go).
//
// It also owns what differs on a MySQL server (rewriter.Server): reading
// the connection's session state (current database, sql_mode, character
// sets, MariaDB's regex flags; Session), the column query and the table
// listing, the session variables a statement may set or read, and the
// allow-list of built-in functions. Statements, variables and functions
// not on its lists are refused, naming what was refused.
//
// docs/dialect-mysql.md is the normative text: what reaches the server,
// reads, writes, metadata (SHOW, information_schema), other statements and
// functions.
package mysql
