// Package testdb gives tests access to the real MariaDB and PostgreSQL servers
// that scripts/test.sh starts for each run.
//
// The script exports the connection strings and statement-log paths in the
// environment:
//
//	SQE_MYSQL_DSN            go-sql-driver/mysql DSN of database sqe_test
//	SQE_MYSQL_ADMIN_DSN      the same user (full privileges), no default database
//	SQE_MYSQL_GENERAL_LOG    MariaDB general_log file (every statement received)
//	SQE_POSTGRES_DSN         pgx URL of database sqe_test (role sqe, superuser)
//	SQE_POSTGRES_ADMIN_DSN   the same role, database postgres
//	SQE_POSTGRES_LOG         PostgreSQL server log (log_statement = all)
//
// A test that needs a server and does not find its variable fails with a
// message telling to run ./scripts/test.sh. For local work without servers,
// SQE_ALLOW_NO_DB=1 turns that failure into a skip; CI never sets it.
//
// Most tests want a database of their own, so that they can run in parallel
// with other tests and packages against the same servers:
//
//	dsn, _ := testdb.NewPostgresDatabase(t) // dropped when the test ends
//	db := testdb.OpenPostgres(t, dsn)       // closed when the test ends
//	testdb.Exec(t, db, "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1)")
//
// To check that a statement never reached a server, mark the log first and
// look at what was appended after the mark:
//
//	mark := testdb.LogMark(t, testdb.PostgresLog(t))
//	_, err := sqeDB.Exec("SELECT secret FROM t /* " + needle + " */")
//	// ... err is the refusal ...
//	if mark.Contains(needle) {
//		t.Fatal("refused statement reached the server")
//	}
//
// Both servers write a statement to their log before they execute it and
// before they answer, so once a call has returned, anything it sent is already
// in the log: a negative check needs no waiting. The logs are shared by every
// test and package in the run, so needles must be unique (UniqueName).
package testdb
