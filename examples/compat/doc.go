// Package compat holds sqe's integration suites for the libraries Go
// services use over database/sql: GORM (gorm.io/driver/mysql and
// gorm.io/driver/postgres opened over an sqe *sql.DB), sqlx, pgx's stdlib
// driver and go-sql-driver/mysql with its client-side options. Each suite
// runs against the real MariaDB and PostgreSQL servers that
// scripts/test.sh starts and checks that what every user gets carries that
// user's row filters, masks and restrictions.
//
// The package has no non-test code; it lives in the examples module so that
// the core module does not depend on any ORM.
package compat
