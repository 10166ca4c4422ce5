// Package rewriter turns one application statement into the statement the
// database runs for one caller.
//
// A Dialect (rewriter/mysql, rewriter/postgres) parses the statement with
// its database's real grammar, finds every base-table reference — in FROM,
// JOIN, subqueries, CTE bodies, set-operation branches, derived tables and
// the sources of writes — and asks the caller's policy.View for that
// table's Decision. PlanTable applies the dialect-neutral part: the access
// check, the catalog lookup and the policy's read form of the table,
//
//	(SELECT <mask(c) AS c for each visible column> FROM schema.t WHERE <row filters>) AS t
//
// as Hive's TableMask builds it. The row filters read raw values; the rest
// of the statement only sees the derived table, so a predicate, a join, a
// GROUP BY or a function over a masked column sees the masked value and is
// no oracle. A table whose decision changes nothing is kept as it is, but
// schema-qualified, so that the server resolves exactly the table sqe
// decided about.
//
// The algorithm is written once, here; a dialect is an adapter over its
// parser's syntax tree (docs/rewriter.md has the whole model). The core
// (Statement, over the dialect's table-reference node) plans every table
// reference, keeps the policy-depth stack, the reads a locking clause
// needs, the restricted-column listing and the write checks, merges the
// statements of a multi-statement string (RewriteEach), turns a panic into
// a refusal (Guarded), and proves the output: every table reference of the
// rewritten tree is one the rewrite sanctioned (Verify), and the printed
// text parses back to the same statement kind and tables (VerifyPrinted).
// It makes the read form's decisions (readform.go): whether a row-filtered
// derived table is fenced (MySQL LIMIT 18446744073709551615, PostgreSQL
// OFFSET 0) so that the server tests no condition and computes no mask on
// a row the filter hides, and whether a write's own condition is guarded
// (CASE WHEN filter THEN … ELSE false END). The dialect answers syntax
// questions only: where table references are, can an expression fail on
// a row's values, which columns a condition reads, is a filter a plain
// conjunction of comparisons, and it builds the nodes the core decided on.
// A single-table MySQL SELECT that needs no fence is flattened (masks
// inlined where the statement reads the columns, the filter first in the
// WHERE).
//
// Writes keep their target and get the row filter ANDed first into their
// WHERE, the application's condition guarded unless the core finds it
// cannot fail; a masked column of the target read anywhere in the write is
// replaced by its mask expression. The rows a write puts in the table are
// checked against the filters' checks (policy.RowFilter.Check,
// PostgreSQL's WITH CHECK): the dialect records the written values in
// Result.WriteChecks (writecheck.go), and the driver decides them with the
// statement's arguments before sending it.
//
// Fail closed: a statement the dialect cannot parse, a statement form it
// does not handle, a reference it cannot resolve with certainty, and any
// table reference in the output that the rewrite did not itself produce or
// check is an Error wrapping ErrUnsupported, and nothing is sent; a
// statement that does not parse is an Error of kind ErrSyntax (which
// matches ErrUnsupported too) with the position and token the parser
// stopped at. Errors name tables, columns and policies, never data values.
//
// Functions are an allow-list (functions.go): the application's SQL may
// call only the dialect's built-ins that compute on their arguments, and
// the functions the application allowed by name (Request.AllowedFunctions);
// any other function is an Error naming it.
//
// Policy expressions (row filters, CUSTOM masks, masks' when conditions)
// are parsed as single expressions (Syntax.CanonicalExpr) before they are
// placed, so their text cannot reach outside its place; the tables they
// read are rewritten under their own policies, and they never see the
// application's CTEs. A mask's when condition (policy.Mask.When) makes
// the mask's expression CASE WHEN (cond) IS FALSE THEN raw ELSE mask END
// over the row's raw columns (MaskExpr), placed wherever the mask is, so
// the fence and guard rules treat it as the mask it is; it may read only
// its own row (ConditionSyntax), and a column it reads that the table
// lacks is a policy error.
// A row filter or CUSTOM mask written in Hive SQL (a Ranger policy's:
// policy.RowFilter.Hive, policy.Mask.Hive) is translated on the
// dialect's tree first (hive.go, HiveSyntax): logged_in_user() becomes
// current_user(), which is then inlined like every context function,
// and a call of a Hive-only function is a policy error naming it.
//
// Everything that differs between databases belongs to the Dialect, which
// is also a Server (server.go): it reads a connection's session state
// (ReadSession) into a Session, a comparable value of its own type that
// comes back in Request.Session and is part of the rewrite cache's key; it
// reads a table's columns and the list of tables with its own queries
// (through a Query on the statement's connection); and it says whether
// the server's errors may stand for its own. Dialect packages register
// themselves (Register) when imported; Find and ForDriver pick one by
// name or by database/sql driver.
package rewriter
