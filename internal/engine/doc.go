// Package engine is sqe's policy engine: everything between the
// database/sql wrappers of package sqe and the dialects' rewriters.
//
// The wrappers hold one Engine per connector and one ConnState per
// underlying connection, and call, for every logical statement:
//
//  1. Plan: the caller on the context (session.FromContext, else the
//     default user, else AnonymousUser for a statement that needs none)
//     is resolved, with the connection's USE ROLE state, into a
//     statement-local policy.View on the source's current snapshot; the
//     connection's session state (current database, search path, quoting
//     mode) is read once; and the statement is rewritten for the view
//     through the shared rewrite cache (and the connection's last few
//     rewrites), keyed by the SQL, the view's fingerprint, the tag and
//     metadata versions and the session state. USE ROLE and USE SECONDARY
//     ROLES are planned here and never sent. A refusal returns its error
//     with a Plan marked Refused, for auditing it.
//  2. Finish, once, when the statement ran or was refused: metrics, one
//     audit record (redacted of values), and, on success, the statement's
//     effect on the ConnState (session state to read again, a transaction
//     or other state held by SQL text, metadata to read again after DDL).
//
// Fingerprint tells whether a statement prepared for one caller may run
// for another; Discarded reports a connection closed because it held
// state; Explain shows a plan with the policies behind it; Stats reads
// the counters.
//
// Table metadata is read through the statement's own connection (so it
// sees its transaction and temporary tables) and cached per engine. On a
// connection the engine itself sends only the dialect's queries of
// metadata and session state; the wrappers send Plan.SQL.
package engine
