// Package audit describes what sqe enforced, one Record per logical
// statement, and delivers records to sinks without slowing statements.
//
// A Record names the caller (user, primary role, groups), the statement's
// kind, every table it touched with the rule that granted the access and
// the policies, masks and row filters applied to it, whether it was
// allowed, the error if any (values removed), its duration, the policy
// snapshot version and a fingerprint of the SQL text; a refused statement
// has all of these that sqe knew when it refused. It never
// carries argument values or the SQL itself: the fingerprint lets an
// operator correlate records with the application's statements without the
// log becoming a copy of the data.
//
// The driver hands records to an Async dispatcher, which queues them in a
// bounded buffer and writes them from its own goroutine: a full buffer
// drops the record (and counts the drop) rather than block the statement.
//
// Sinks: NewSlogSink writes through a log/slog.Logger (allowed statements
// at Debug, refused and failed ones at Warn); NewRangerSink writes Apache
// Ranger's audit JSON event format, one JSON object per line and per table,
// with the access type, the deciding Ranger policy's id and the SQL
// fingerprint, so records can go where Ranger audits from Hive, Spark and
// Trino already go.
package audit
