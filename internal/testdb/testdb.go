package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"
)

// Environment variables set by scripts/test.sh.
const (
	EnvMySQLDSN         = "SQE_MYSQL_DSN"
	EnvMySQLAdminDSN    = "SQE_MYSQL_ADMIN_DSN"
	EnvMySQLGeneralLog  = "SQE_MYSQL_GENERAL_LOG"
	EnvPostgresDSN      = "SQE_POSTGRES_DSN"
	EnvPostgresAdminDSN = "SQE_POSTGRES_ADMIN_DSN"
	EnvPostgresLog      = "SQE_POSTGRES_LOG"
	EnvAllowNoDB        = "SQE_ALLOW_NO_DB"
)

const (
	databaseNamePrefix = "sqe_t_"
	setupTimeout       = 60 * time.Second
	cleanupTimeout     = 60 * time.Second
)

func lookupEnv(name string) string { return os.Getenv(name) }

// env returns the value of the variable name, or ends the test: with Fatal,
// or with Skip when SQE_ALLOW_NO_DB=1.
func env(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	msg := name + " is not set: run ./scripts/test.sh"
	if os.Getenv(EnvAllowNoDB) == "1" {
		t.Skip(msg + " (skipped: " + EnvAllowNoDB + "=1)")
	} else {
		t.Fatal(msg)
	}
	return ""
}

// MySQLDSN returns the DSN of the MariaDB test database (SQE_MYSQL_DSN).
func MySQLDSN(t testing.TB) string {
	t.Helper()
	return env(t, EnvMySQLDSN)
}

// PostgresDSN returns the URL of the PostgreSQL test database (SQE_POSTGRES_DSN).
func PostgresDSN(t testing.TB) string {
	t.Helper()
	return env(t, EnvPostgresDSN)
}

// MySQLGeneralLog returns the path of the MariaDB general log
// (SQE_MYSQL_GENERAL_LOG).
func MySQLGeneralLog(t testing.TB) string {
	t.Helper()
	return env(t, EnvMySQLGeneralLog)
}

// PostgresLog returns the path of the PostgreSQL server log, which has every
// statement (SQE_POSTGRES_LOG).
func PostgresLog(t testing.TB) string {
	t.Helper()
	return env(t, EnvPostgresLog)
}

// UniqueName returns prefix followed by 16 random lowercase hex digits: a
// valid unquoted SQL identifier when prefix is one, and a needle that no other
// test writes to the statement logs.
func UniqueName(prefix string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("testdb: crypto/rand: " + err.Error())
	}
	return prefix + hex.EncodeToString(b[:])
}

// Exec runs each statement in order on db and fails the test at the first
// error.
func Exec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("testdb.Exec %q: %v", s, err)
		}
	}
}

// open opens a pool for driverName and checks that it connects. The pool is
// closed when the test ends.
func open(t testing.TB, driverName, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatalf("testdb: open %s: %v", driverName, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("testdb: connect %s: %v", driverName, err)
	}
	return db
}

// adminExec runs stmts on a short-lived connection pool, for CREATE/DROP
// DATABASE. It returns the first error.
func adminExec(driverName, dsn string, timeout time.Duration, stmts ...string) error {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
