// Package postgres is sqe's PostgreSQL dialect, built on the server's own
// grammar (github.com/pganalyze/pg_query_go, which links the PostgreSQL
// parser through cgo). Importing it registers the dialect "postgres" with
// package rewriter:
//
//	import _ "github.com/sqe-project/sqe/rewriter/postgres"
//
// A program that only talks to MySQL does not import it and needs no cgo.
//
// # What reaches the server
//
// The statement sent is always the rewritten parse tree printed by the
// PostgreSQL deparser, never the application's text. Comments are dropped;
// a string literal holding a backslash is printed as E'…', so the output
// means the same whatever standard_conforming_strings is; placeholders
// ($1, $2, …) stay as they are and none is added. Because the parser reads
// '…' as a standard string, a statement containing a backslash is refused
// while standard_conforming_strings is off (pass values as arguments), and
// the driver refuses a connection whose client_encoding is not UTF8.
// Several statements in one string are each rewritten (all must succeed)
// and joined with "; "; a statement that changes the session state (SET
// search_path, SET standard_conforming_strings, RESET ALL, COMMIT,
// ROLLBACK) must be the last one, since the ones after it would be
// rewritten for a state the server no longer has. After rewriting, every
// relation in the tree is checked against the set the rewrite produced or
// checked, and the printed statement is parsed again to check that it
// names the same relations. A panic inside the rewrite is a refusal.
//
// # Names
//
// A qualified table name is taken as written (unquoted names are already
// lower-cased by the parser). An unqualified one resolves as the server
// would: in the session's temporary schema and pg_catalog unless the
// search path lists them, then in the Session's search path, the first
// schema whose catalog has the table winning; a table found nowhere is
// refused.
// A CTE in scope shadows an unqualified name (under WITH RECURSIVE a CTE
// sees itself); a write's target is never a CTE. Every base table is then
// written schema-qualified, so that the server reads exactly the table sqe
// decided about. pg_catalog and information_schema relations are tables
// like any other and get the default policy; note that some of them
// (pg_stats, pg_stat_activity) expose data values. A policy belongs to the
// relation it names: rows of a partition or an inheritance child read
// through the parent get the parent's policy, and a view's the view's.
//
// # Reads
//
// A table whose decision changes nothing is kept, qualified. Any other
// becomes (SELECT <mask(c) AS c …> FROM schema.t WHERE <filters>) AS t,
// aliased as the reference was (or by the table name), so the rest of the
// statement sees masked values only.
//
// The planner pulls such a derived table up and evaluates its filter next
// to the application's conditions, in the order of their estimated cost,
// and not reliably filter first (an equality with a constant is
// re-created after the other conditions). An application condition
// evaluated on a hidden row could tell, by failing or not (1 / (CASE WHEN
// name = 'x' THEN 0 END) = 1), what the row holds; so could a mask read in
// a condition. A row-filtered derived table is therefore fenced with
// OFFSET 0, which the planner neither pulls up nor pushes conditions into
// (fence.go), unless the statement is a plain SELECT whose conditions
// cannot fail on any value (comparisons, AND/OR/NOT, NULL and boolean
// tests, IN lists, BETWEEN, LIKE with a constant pattern, over columns,
// literals and placeholders; no subquery, CTE, window or HAVING) and read
// no masked column of the table (safety.go): a point select through a
// mapping-table filter is then answered from an index, while the
// application's conditions on a fenced table do not choose its index.
//
// schema.t.c references to such a table become t.c; two unaliased same-named tables of different schemas in one
// FROM are refused (use aliases), as is a column alias list on a table
// with restricted columns. Restricted columns are missing from the derived
// table, so * never shows them, and naming one is ErrColumnDenied before
// anything is sent: qualified by its table, or unqualified while any table
// in scope restricts that name. FOR UPDATE/SHARE needs update access on
// the tables it locks; TABLESAMPLE only works on tables without a read
// policy; SELECT … INTO is refused (use CREATE TABLE … AS).
//
// Policy expressions (row filters, masks) read raw columns and are not
// checked for restricted columns. They are placed in a scope of their own
// that sees neither the application's CTEs nor its tables: unqualified
// columns at their top level are qualified with the policy's table, and a
// reference that no table of the expression provides is refused (on the
// server it could resolve to a table of the application's statement). The
// tables they read (mapping tables) are rewritten under their own
// policies; an unqualified table name there resolves in pg_catalog and then
// in the schema of the policy's own table, never in the session's search
// path or temporary schema (which the application controls). A policy
// reaching its own table again, or nesting deeper than eight policies, is
// refused.
//
// # Context functions
//
// current_user, session_user, user, system_user (the user name) and
// current_role, invoker_role() (the primary role, NULL when none) are
// inlined as string literals, in the application's SQL and in policy
// expressions; in a view or CREATE TABLE AS they are therefore fixed at
// creation. current_database() and current_schema are left alone.
// (PostgreSQL's grammar has no current_user() or current_role() with
// parentheses: a policy written for PostgreSQL uses the keywords, or
// invoker_role() for the primary role. A native policy expression written
// with the parentheses does not parse, and the policy does not load; one
// that reaches a statement all the same, from another source, fails the
// statement closed with a policy error.)
//
// # Writes
//
// INSERT, UPDATE, DELETE and MERGE need update access on their target,
// which is kept (qualified). UPDATE and DELETE get the target's row filter
// in front of their WHERE, so they only touch rows the filter admits; when
// the filter is not a single comparison (or a conjunction of them), or the
// statement's own condition could fail on a value or reads a masked
// column (see Reads), that condition is also guarded by the filter (CASE
// WHEN filter THEN condition ELSE false END), so that it is never
// evaluated on a hidden row. Inserted rows
// are not checked against the filter (Ranger's and Hive's semantics:
// filters shape reads; there is no WITH CHECK), and a unique key that a
// hidden row holds makes an insert fail, which tells that such a row
// exists. MERGE ANDs the target's filter to its join condition, which the
// filter guards (a hidden row never matches), and to every WHEN MATCHED
// condition. A masked column of the target read in SET, WHERE,
// ON CONFLICT or RETURNING is replaced by its mask expression, so that no
// raw value can be copied or probed; an unqualified masked column inside a
// subquery of the write is refused (qualify it), and so is a whole-row
// reference to the target. RETURNING returns masked values, and RETURNING
// * (or target.*) is expanded to the visible columns. A restricted column
// named anywhere in a write, or an INSERT without a column list into a
// table with restricted columns, is ErrColumnDenied. INSERT … ON CONFLICT
// DO UPDATE into a row-filtered table is refused (it could update a hidden
// row). The sources of UPDATE … FROM, DELETE … USING and INSERT … SELECT
// are reads; data-modifying CTEs are writes. System catalogs are never
// written.
//
// # Schema changes
//
// CREATE TABLE and CREATE VIEW need create (CREATE OR REPLACE VIEW also
// alter), ALTER TABLE alter, DROP and TRUNCATE drop, CREATE INDEX index;
// INHERITS, PARTITION OF and ATTACH/DETACH PARTITION need alter on the
// other table. The query of CREATE TABLE AS, CREATE MATERIALIZED VIEW and
// CREATE VIEW is rewritten as a read, so a view stores the creator's
// policy. A change that could reveal or move values hidden by a read
// policy — ALTER TABLE, CREATE INDEX, renames — is refused on a table the
// caller reads under any policy, and a foreign key or LIKE needs a table
// read without one. Context functions in defaults, checks and index
// expressions are refused (the server evaluates them later, as its own
// user). Each schema change asks the driver to drop cached metadata. DROP
// INDEX, sequences, schemas and other object kinds are refused.
//
// # Session statements
//
// BEGIN/START TRANSACTION, SAVEPOINT, RELEASE, COMMIT, ROLLBACK (the last
// three ask the driver to read the session state again, since a
// transaction's end may undo a SET), SET/RESET/SHOW of ordinary variables,
// DISCARD PLANS/SEQUENCES/TEMP, DECLARE (its query is a read), FETCH,
// MOVE, CLOSE, NOTIFY and UNLISTEN pass. A cursor lives on the connection,
// which database/sql hands to one caller after another (and a transaction
// may serve several): DECLARE, FETCH, MOVE, CLOSE and WHERE CURRENT OF
// name the cursor after a digest of the caller's policy view, so no
// caller fetches rows read under another's policy. SET search_path, SET
// standard_conforming_strings and RESET ALL ask the driver to read the
// session state again. EXPLAIN passes for statements that read no table
// under a read policy (its row estimates count the hidden rows); EXPLAIN
// ANALYZE is refused (its row counts include rows a filter removed).
//
// # System catalogs
//
// The catalogs that hold values or other sessions' statements are refused
// in any schema (refusedCatalogs): column statistics (pg_statistic*,
// pg_stats*), the statistics views (pg_stat_*, pg_statio_*, among them
// pg_stat_activity and pg_stat_statements), the session's prepared
// statements and cursors, large objects, credentials and configuration
// files; so are the pg_stat_* functions. The column listings
// (information_schema.columns, column_privileges, key_column_usage and the
// other views naming table_schema, table_name, column_name, and
// pg_catalog.pg_attribute) get a row filter that removes the caller's
// restricted columns of every table the connection sees (listed through
// rewriter.TableLister; such a rewrite is not cached), and pg_class's
// reltuples, relpages and relallvisible read as NULL. Sizes
// (pg_relation_size and the like) are refused with the other pg_*
// functions (see Functions).
//
// # Functions
//
// The application's SQL may call only the pg_catalog functions that
// compute on their arguments (builtinFunctions, derived from pg_proc:
// string, numeric, date and time, JSON, XML, arrays, ranges, full-text
// search on values, geometric and network types, aggregates, window
// functions, set-returning functions over arguments such as
// generate_series, unnest and json_each), unqualified or qualified with
// pg_catalog; aggregate and window forms (FILTER, WITHIN GROUP, OVER),
// VARIADIC and COLLATE change nothing. Every other function is refused
// with an error naming it: every pg_* function but a few that measure or
// convert their argument (pg_typeof, pg_column_size, pg_size_pretty, …) —
// among them pg_prepared_statement() and pg_cursor(), which list another
// caller's rewritten statements on the shared connection, the sequence,
// lock, configuration and statistics functions; nextval, currval, setval,
// lastval (a sequence counts the rows a filter hides, and nextval writes
// with select access only); current_setting, set_config, current_query,
// setseed, the inet_client_* and inet_server_* functions,
// has_*_privilege, obj_description and the other catalog readers; and any
// function of another schema (myschema.lower(x) is not the built-in). A
// function of an extension that overloads a built-in's name is not told
// apart from it. A cast, a typed literal or a column definition list may
// only name a built-in base, range or multirange type (with arrays and
// type modifiers) or record (builtinTypes): a table's row type
// (null::customers, ROW(…)::customers) would name the table's columns,
// restricted ones included, and their types. Operators are functions: the
// operator names of pg_catalog pass (builtinOperators), OPERATOR(x.op) of
// another schema and other symbols are refused. Types in schema changes
// (column types, defaults) are not checked. The application allows its
// own functions, a refused built-in, its own types or operators by name
// (rewriter.Request.AllowedFunctions and AllowedTypes,
// sqe.WithAllowedFunctions and sqe.WithAllowedTypes); the functions of
// forbiddenFunctions (files, large objects, other servers, SQL given as
// text, raw pages) stay refused. An allowed function runs with the rights
// of the database user, outside sqe's sight, like a view: allow only
// functions that read what every caller may read. Policy expressions are
// sqe's own and are not checked.
//
// Refused: SET ROLE, RESET ROLE, SET SESSION AUTHORIZATION, SET
// client_encoding / SET NAMES (the server would read the statement's bytes
// differently), a search_path that lists schemas before pg_catalog (their
// functions would shadow the built-ins that masks and filters call), DISCARD ALL (it drops the driver's prepared statements),
// LISTEN (notifications carry payloads no policy filters), two-phase
// commit, SQL-level PREPARE/EXECUTE/DEALLOCATE, DO, CALL, COPY, LOCK,
// GRANT/REVOKE, role management, CREATE FUNCTION/PROCEDURE/RULE/TRIGGER,
// ALTER SYSTEM, and every statement type not listed above; and, anywhere
// in a statement, every function, type and operator off the lists (see
// Functions).
package postgres
