// Package sqltest helps test code that runs through sqe: unit tests over
// sqlmock that see the SQL sqe sends, and golden files that record how
// each statement is rewritten for each user, so that a policy change shows
// up as a diff in review.
//
// # Mocks
//
// NewMock returns an sqe *sql.DB over a fresh sqlmock connection. The
// expectations are written against the statement sqe sends to the
// database — the application's statement rewritten for the user on the
// context — and matched exactly:
//
//	db, mock := sqltest.NewMock(t,
//		sqltest.PolicyYAML(policyYAML),
//		sqltest.Schema("CREATE TABLE shop.customers (id INT, region VARCHAR(8), ssn VARCHAR(11))"),
//	)
//	mock.ExpectQuery("select `id` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and `id` = ?").
//		WithArgs(7).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(7))
//	ctx := session.NewContext(context.Background(), session.User{Name: "eve", Roles: []string{"analyst"}})
//	err := db.QueryRowContext(ctx, "SELECT id FROM customers WHERE id = ?", 7).Scan(&id)
//
// sqlmock has no information_schema, so sqe takes table metadata from a
// static catalog: Schema (CREATE TABLE statements) or Catalog. A
// statement sqe refuses never reaches the mock, so a test of a refusal
// needs no expectation. The dialect is MySQL unless Dialect says
// otherwise (the PostgreSQL dialect must be linked by importing
// github.com/sqe-project/sqe/rewriter/postgres). When the test ends, the
// database is closed and a mock whose expectations were not all met fails
// the test.
//
// To find the SQL to expect, run the statement once against the mock and
// read the error sqlmock returns, use sqe.Explain, or run
// `sqe explain --policy FILE --schema DDL --user NAME "SQL"`.
//
// # Golden rewrites
//
// Golden records, for every statement and user, the SQL sqe would send
// and the policies that shaped it (or the error it refuses the statement
// with) in a text file, and compares later runs with it:
//
//	sqltest.Golden(t, db, []session.User{admin, analyst, support}, []string{
//		"SELECT * FROM customers WHERE id = ?",
//		"UPDATE customers SET email = ? WHERE id = ?",
//	}, "testdata/customers.golden")
//
// db is any database opened through sqe: a NewMock database, or one over
// the real server (then metadata comes from its information_schema). A
// file that differs fails the test with a diff. Run the test with -update
// (a flag this package registers), or with the environment variable
// SQE_UPDATE_GOLDEN=1, to write the file instead; commit it with the
// policy change that caused it, so that the review shows what each user
// now gets.
//
// Because the package registers the test flag -update, a test package that
// imports it must not define a flag of that name itself; use Updating to
// share it.
package sqltest
