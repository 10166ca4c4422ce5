package testdb

import (
	"database/sql"
	"net/url"
	"testing"

	// Registers the "pgx" database/sql driver.
	_ "github.com/jackc/pgx/v5/stdlib"
)

// PostgresAdminDSN returns a superuser URL for the database postgres
// (SQE_POSTGRES_ADMIN_DSN, or SQE_POSTGRES_DSN pointed at postgres).
func PostgresAdminDSN(t testing.TB) string {
	t.Helper()
	if v := lookupEnv(EnvPostgresAdminDSN); v != "" {
		return v
	}
	return withPostgresDatabase(t, PostgresDSN(t), "postgres")
}

// withPostgresDatabase returns the pgx URL dsn with its database set to name.
func withPostgresDatabase(t testing.TB, dsn, name string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("testdb: PostgreSQL URL: %v", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Fatalf("testdb: PostgreSQL DSN must be a postgres:// URL, got scheme %q", u.Scheme)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// OpenPostgres opens dsn with pgx's database/sql driver, checks that it
// connects and closes the pool when the test ends.
func OpenPostgres(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	return open(t, "pgx", dsn)
}

// NewPostgresDatabase creates an empty PostgreSQL database with a unique name
// (sqe_t_<random>) and returns a URL for it, with the credentials and options
// of SQE_POSTGRES_DSN, and its name. The database is dropped (WITH (FORCE),
// ending any connection still open to it) when the test ends.
func NewPostgresDatabase(t testing.TB) (dsn, name string) {
	t.Helper()
	base := PostgresDSN(t)
	adminDSN := PostgresAdminDSN(t)
	name = UniqueName(databaseNamePrefix)
	if err := adminExec("pgx", adminDSN, setupTimeout, `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatalf("testdb: create PostgreSQL database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := adminExec("pgx", adminDSN, cleanupTimeout, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("testdb: drop PostgreSQL database %s: %v", name, err)
		}
	})
	return withPostgresDatabase(t, base, name), name
}
