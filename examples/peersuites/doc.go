// Package peersuites runs the data-access libraries' own test suites —
// sqlx, pgx's database/sql driver, GORM — with their databases opened
// through sqe, on the real MariaDB and PostgreSQL servers, and compares
// each test's outcome with the same suite on the raw driver.
//
// # Model
//
// A Suite names a published Go module version and a patch kept in
// patches/. Prepare copies the module out of the module cache (go mod
// download), applies the patch — which changes only the place where the
// suite opens its databases, so that it calls package peeropen — points
// the copy's go.mod at this repository, and compiles the suite's test
// binary once. A new upstream version is tried by changing the version:
// the patch touches a few lines and applies or fails loudly.
//
// Each suite then runs, per server, in three modes on a database of its
// own (dropped and created again before each mode):
//
//   - raw: the inner driver, without sqe (the baseline);
//   - allow-all: through sqe with a policy that allows everything, where
//     sqe must be invisible;
//   - policy: through sqe with a policy that filters, masks and restricts
//     a table the suite does not use (created before the run), where sqe
//     must be invisible to the suite too. After the run the harness reads
//     that table through sqe and checks that the policy was enforced, so a
//     policy that silently did not load cannot pass.
//
// The tests run in one process under go tool test2json; when the process
// dies before every test has an outcome (a test that panics — as a
// suite's helper does when it asserts the driver's connection type through
// sql.Conn.Raw — or times out), the test that was running failed and the
// rest run again in a new process, so that one crash fails one test. A Report holds every outcome; a test
// that passes raw but not through sqe is a regression, listed with the
// first lines of its output, and refused statements are counted by their
// error (peeropen writes them from sqe's audit records).
package peersuites
