// Package mysql is sqe's MySQL and MariaDB dialect, built on the vitess
// SQL parser (vitess.io/vitess/go/vt/sqlparser). Importing it registers the
// dialect "mysql" with package rewriter; the sqe driver always links it.
//
// # What reaches the server
//
// The statement that reaches the server is always the rewritten tree
// formatted again, never the application's text: comments and optimizer
// hints are dropped, identifiers are quoted with backticks, string literals
// are escaped for the connection's sql_mode, and positional placeholders
// keep their order (a rewrite that would reorder them is refused).
// Executable comments (/*! … */, /*!NNNNN … */, MariaDB's /*M! … */) are
// refused, since the server would run code that a parser assuming another
// version drops or reads differently; so is an optimizer hint holding a
// semicolon. Several statements in one string are each rewritten (all must
// succeed); a statement that changes the session state (USE, SET sql_mode,
// SET NAMES, …) must be the last one, since the ones after it would be
// rewritten for a state the server no longer has.
//
// The server names an unaliased select-list expression after its text as
// written (SELECT UPPER( name ) gives "UPPER( name )"); the printed text
// differs, and over a masked column it is the mask expression. Each such
// entry of the top-level select list (the first SELECT of a UNION) gets
// the application's own text as its alias, so Rows.Columns is what the
// raw driver would give (names.go).
//
// Because the parser reads backslashes as escapes and double quotes as
// strings, a statement containing a backslash under NO_BACKSLASH_ESCAPES,
// or a double quote under ANSI_QUOTES, is refused: pass values as
// arguments. sqe's literals are written for character sets in which a
// backslash byte is always a backslash: SET NAMES, SET CHARACTER SET and
// the character_set_client / _connection / _results and
// collation_connection variables are accepted only to utf8mb4, utf8mb3,
// utf8, ascii or latin1 (in gbk, sjis, big5, cp932 a multibyte character
// can swallow the backslash that escapes a quote), and the driver refuses a
// connection whose character_set_client or character_set_connection is
// another (safeCharsets).
//
// # Reads
//
// Every base-table reference is read through its policy (package
// rewriter). Merged into the outer query, or with index condition pushdown
// or a semi-join, the server evaluates the application's conditions on
// rows a row filter rejects, and a condition that fails on one value
// (EXP(CASE WHEN name = 'x' THEN 1000 END) > 0) would tell what those rows
// hold. So the derived table of a row-filtered table is fenced with LIMIT
// 18446744073709551615, which the server neither merges nor pushes outer
// conditions into (it is materialized for each statement), unless the
// statement cannot fail on a row: outside its select lists it holds only
// comparisons, IN lists, BETWEEN, LIKE and NULL tests of columns, literals
// and placeholders, no subquery, HAVING or window (canFailOnARow), and no
// condition reads a masked column of the table (merged, a condition on a
// masked column evaluates the mask expression, which may fail, on the
// hidden rows too). Conditions are everything outside the select list —
// ON, USING, NATURAL, WHERE, GROUP BY, ORDER BY, also through a select-list
// position or alias — and a column counts as masked when any table's
// column of that name is (qualifiers are not told apart); a mask read only
// in the select list is computed only for the rows the filter admitted.
// A single-table SELECT of a table with masks or restricted columns and no
// row filter, or with a row filter that needs no fence, is flattened
// (masks inlined where the statement reads the columns, the filter ANDed
// in front of the WHERE). Unqualified names resolve in the connection's
// current database (refused when there is none); a CTE shadows a table of
// its name.
//
// FOR UPDATE, FOR SHARE and LOCK IN SHARE MODE need update access on the
// tables the query reads. SELECT … INTO @var stores masked, filtered
// values. EXPLAIN is refused when the statement reads a table under a read
// policy (its row estimates count the hidden rows). MATCH … AGAINST over a
// masked column is refused (it needs the raw column's index).
//
// User variables live on the connection, which database/sql hands to one
// caller after another: each caller's @v is renamed after a digest of its
// policy view (@sqe<digest>_v), so no caller reads what another stored; a
// policy reload (a new view) starts with fresh variables. Policy
// expressions may not read user variables (the application sets them).
// @@warning_count, @@error_count, FOUND_ROWS() and ROW_COUNT() report the
// previous statement, which may have read hidden rows or been another
// caller's, and are refused. System variables are set and read by
// allow-list (settableVariables, readableVariables in session.go).
//
// # Writes
//
// INSERT … VALUES / SELECT / SET, REPLACE, INSERT … ON DUPLICATE KEY
// UPDATE, single- and multi-table UPDATE and DELETE need update access on
// their targets. A target stays the base table (schema-qualified); its row
// filter is put in front of the WHERE, and the statement's own condition
// is guarded by it (WHERE filter AND CASE WHEN filter THEN condition ELSE
// FALSE END), so no expression of the application is evaluated on a hidden
// row; the application's condition then does not choose the index. In a
// multi-table write the tables a SET assigns to (UPDATE) or the DELETE
// lists are targets, each with its filter in the WHERE and guarding the
// join conditions around it; every other table is read through its policy.
// A masked column of a target read anywhere in the write (SET, WHERE, ON,
// ORDER BY, ON DUPLICATE KEY UPDATE) is replaced by its mask expression;
// VALUES(col) is the inserted value and is left alone. A restricted column
// named anywhere, or an INSERT without a column list into a table with
// restricted columns, is ErrColumnDenied. REPLACE and ON DUPLICATE KEY
// UPDATE into a row-filtered table are refused (they could replace or
// update a hidden row). Inserted rows are not checked against the row
// filter (Ranger's and Hive's semantics: filters shape reads); a unique key
// that a hidden row holds makes an insert fail, which tells that such a
// row exists.
//
// # Metadata
//
// SHOW COLUMNS / SHOW FULL COLUMNS (with LIKE or WHERE) and DESCRIBE need
// select access on the table and become the equivalent query of
// information_schema.COLUMNS without the caller's restricted columns. SHOW
// CREATE TABLE / VIEW passes for a table the caller may read whose policy
// neither filters rows (the text names the next AUTO_INCREMENT value) nor
// restricts columns. SHOW TABLES, SHOW DATABASES, SHOW VARIABLES, SHOW
// STATUS, SHOW CHARACTER SET, SHOW COLLATION and SHOW ENGINES pass; SHOW
// WARNINGS / ERRORS (they echo values, also of hidden rows), SHOW INDEX,
// SHOW TABLE STATUS, SHOW PROCESSLIST and the others are refused.
//
// The mysql, performance_schema and sys schemas are refused (statement
// texts of other sessions, column statistics with stored values,
// credentials), and so is every information_schema table not listed in
// infoSchemaTables (PROCESSLIST, OPTIMIZER_TRACE, INNODB_*, per-table
// statistics). The column listings COLUMNS, STATISTICS, KEY_COLUMN_USAGE
// and COLUMN_PRIVILEGES get a row filter that removes the caller's
// restricted (schema, table, column) triples of every table the connection
// sees (listed through rewriter.TableLister; such a rewrite is not cached),
// and the statistics that count rows (TABLES.TABLE_ROWS, AUTO_INCREMENT,
// DATA_LENGTH, …, STATISTICS.CARDINALITY) read as NULL.
//
// # Other statements
//
// SET of ordinary session variables, USE, transaction statements and DDL
// checked against create/alter/drop pass. SET GLOBAL / PERSIST, CALL,
// PREPARE / EXECUTE / DEALLOCATE, LOCK / UNLOCK TABLES, LOAD DATA, SELECT
// … INTO OUTFILE / DUMPFILE, DO, HANDLER, GRANT / REVOKE, SET ROLE, SET
// DEFAULT ROLE, SET PASSWORD, KILL, FLUSH, ANALYZE / OPTIMIZE TABLE, XA,
// LOAD_FILE, sys_exec and sys_eval are refused. The parser does not read
// INTERSECT, EXCEPT, LATERAL, TABLE t, RETURNING (MariaDB), EXECUTE
// IMMEDIATE or PROCEDURE ANALYSE, so those are refused as statements that
// do not parse.
//
// # Functions
//
// The application's SQL may call only the built-in functions that compute
// on their arguments: builtinFunctions (functions.go, derived from
// MariaDB's information_schema.SQL_FUNCTIONS and help topics) for calls
// the parser keeps as plain function calls, and the node types safeExpr
// lists for the built-ins the parser gives a node type of their own (CAST,
// CONVERT, SUBSTRING, TRIM, EXTRACT, the JSON, regular-expression,
// geometry, aggregate and window functions, …). Every other function is
// refused with an error naming it, and so is a node type sqe does not
// know: GET_LOCK, RELEASE_LOCK and the other lock functions (a lock
// outlives the statement on a shared connection), LAST_INSERT_ID (the
// connection's last insert may be another caller's; the driver's result
// has the caller's own), CONNECTION_ID, SLEEP and BENCHMARK, UUID_SHORT,
// the sequence functions (NEXTVAL, SETVAL, LASTVAL), the replication,
// GTID, WSREP and performance-schema functions, and any stored function
// (db.fn(), or an unqualified name that is not a built-in).
// A name must be a built-in of the server, or the server would call a
// stored function of that name in the current database: the list holds
// MariaDB 10.11's built-ins (the tests check every name against the real
// server), so MySQL 8's own functions (ANY_VALUE, REGEXP_LIKE, GROUPING,
// STATEMENT_DIGEST, FORMAT_BYTES, …) and later MariaDB versions' are
// refused until allowed by name; a node type's printed name is checked
// the same way. DATABASE(), SCHEMA() and VERSION() pass; USER(), CURRENT_USER(),
// SESSION_USER(), SYSTEM_USER() and CURRENT_ROLE() are context functions,
// inlined as the caller's values. The application allows its own
// functions, or a refused built-in, by name
// (rewriter.Request.AllowedFunctions, sqe.WithAllowedFunctions), except
// LOAD_FILE, sys_exec, sys_eval, FOUND_ROWS and ROW_COUNT, which stay
// refused. An allowed function runs with the rights of the database user,
// outside sqe's sight, like a view: allow only functions that read what
// every caller may read. Policy expressions are sqe's own and are not
// checked.
package mysql
