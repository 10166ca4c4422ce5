// Package mysql is sqe's MySQL and MariaDB dialect, built on the vitess
// SQL parser (vitess.io/vitess/go/vt/sqlparser). Importing it registers the
// dialect "mysql" with package rewriter; the sqe driver always links it.
//
// The statement that reaches the server is always the rewritten tree
// formatted again, never the application's text: comments (and with them
// optimizer hints and any executable comment the parser did not read as
// SQL) are dropped, identifiers are quoted with backticks, string literals
// are escaped for the connection's sql_mode, and positional placeholders
// keep their order (a rewrite that would reorder them is refused).
//
// Because the parser reads backslashes as escapes and double quotes as
// strings, a statement containing a backslash under NO_BACKSLASH_ESCAPES,
// or a double quote under ANSI_QUOTES, is refused: pass values as
// arguments.
//
// Handled: SELECT and UNION (with CTEs, joins, subqueries, derived tables,
// JSON_TABLE), INSERT … VALUES / SELECT / ON DUPLICATE KEY UPDATE,
// REPLACE, single-table UPDATE and DELETE, EXPLAIN of those, SET, USE,
// transaction statements, a few SHOW statements that reveal no table data,
// and DDL checked against create/alter/drop. Unqualified names resolve in
// the connection's current database. Refused: CALL, PREPARE/EXECUTE,
// LOCK TABLES, LOAD DATA, SELECT … INTO OUTFILE/DUMPFILE, DO, HANDLER,
// GRANT/REVOKE, SET ROLE, LOAD_FILE, multi-table UPDATE/DELETE, REPLACE and
// ON DUPLICATE KEY UPDATE on row-filtered tables, and anything else.
package mysql
