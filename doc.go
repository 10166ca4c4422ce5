// Package sqe is a database/sql driver that wraps another driver and
// enforces data policy — table and column access, row filters, column
// masks — by rewriting each statement for the caller on the context.
//
// # Model
//
// A service opens sqe over the driver it already uses (Open, NewConnector,
// or sql.Open("sqe", dsn); see DriverName for the DSN) and puts the caller
// on the context it passes to QueryContext and ExecContext:
//
//	ctx = session.NewContext(ctx, session.User{Name: "sam", Roles: []string{"support"}})
//	rows, err := db.QueryContext(ctx, "SELECT id, ssn FROM customers")
//
// Every statement takes one path, whichever database/sql method sent it
// (QueryContext, ExecContext, PrepareContext, and the Prepare fallback
// database/sql takes when a driver answers driver.ErrSkip):
//
//  1. The caller is session.FromContext(ctx), else the connector's default
//     user (WithDefaultUser), else the statement fails with ErrNoSession
//     — unless it needs no user (a SELECT of literals and VERSION(), which
//     reads no table: it runs as AnonymousUser).
//  2. The policy source's current snapshot is pinned and the caller's
//     principals are resolved into a statement-local policy.View.
//  3. The statement is rewritten for that view by the dialect's rewriter
//     (package rewriter), through a bounded cache keyed by the SQL, the
//     view's fingerprint, the metadata version and the connection's
//     name-resolution and quoting state.
//  4. The rewritten SQL is executed with the caller's arguments untouched.
//     When the inner connection declines direct execution with arguments
//     (go-sql-driver/mysql without interpolateParams), the first such
//     statement takes database/sql's Prepare fallback, and later ones run
//     on statements the connection keeps prepared, keyed by the rewritten
//     SQL (see WithStatementCacheSize).
//
// A statement sqe cannot handle with certainty is refused and nothing is
// sent: errors wrap ErrUnsupported, ErrAccessDenied or ErrColumnDenied and
// name the table, column and policy, never a protected value. A statement
// that does not parse is ErrSyntax, with the position and token the parser
// stopped at (a literal shows as "a literal"); it also matches
// ErrUnsupported. A defect of the policy itself that a statement meets (a
// rule naming a column the table does not have, a mask the column's type
// cannot take) is ErrPolicy, naming the rule: the table fails closed for
// every caller until the policy or the table is fixed.
//
// Connection state opened by SQL text (BEGIN, SET, USE, a temporary
// table, a cursor WITH HOLD) never reaches another caller: database/sql
// is made to discard such a connection before handing it out again (see
// Stats.ConnectionsDiscarded). A connection whose only such state is
// temporary tables is handed back to the caller who created them (the
// same policy fingerprint: user, groups, roles, attributes and policy
// version), so that, as on the raw driver, a temporary table created by
// one call is there for the next; any other caller gets another
// connection.
//
// database/sql reuses a driver statement across callers on a pooled
// connection, so a prepared statement remembers the fingerprint it was
// prepared for and is prepared again when another caller executes it.
// sql.Conn.Raw never reaches the underlying connection unless the
// connector was built with WithRawConnAccess.
//
// # Metadata and connection state
//
// Tables under a policy that changes what a read sees need their column
// list. sqe reads it from information_schema through the statement's own
// connection (so it sees the connection's transaction and temporary
// tables), caches it per connector and drops the cache after DDL that goes
// through sqe. Per connection, sqe tracks what resolving names and quoting
// literals depends on: the current database and sql_mode (MySQL), the
// search path and standard_conforming_strings (PostgreSQL). WithCatalog
// replaces the metadata queries (for sqlmock, or a fixed schema).
//
// # Dialects
//
// The MySQL/MariaDB dialect is always linked and needs no cgo. The
// PostgreSQL dialect uses the real PostgreSQL parser through cgo and is
// linked only by programs that import
// github.com/sqe-project/sqe/rewriter/postgres.
package sqe
