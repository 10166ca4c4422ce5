package testdb

import (
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// MySQLAdminDSN returns a DSN with full privileges and no default database
// (SQE_MYSQL_ADMIN_DSN, or SQE_MYSQL_DSN without its database).
func MySQLAdminDSN(t testing.TB) string {
	t.Helper()
	if v := lookupEnv(EnvMySQLAdminDSN); v != "" {
		return v
	}
	cfg, err := mysql.ParseDSN(MySQLDSN(t))
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvMySQLDSN, err)
	}
	cfg.DBName = ""
	return cfg.FormatDSN()
}

// OpenMySQL opens dsn with go-sql-driver/mysql, checks that it connects and
// closes the pool when the test ends.
func OpenMySQL(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	return open(t, "mysql", dsn)
}

// NewMySQLDatabase creates an empty MariaDB database with a unique name
// (sqe_t_<random>) and returns a DSN for it, with the credentials and options
// of SQE_MYSQL_DSN, and its name. The database is dropped when the test ends;
// close the connections to it before then (OpenMySQL does).
func NewMySQLDatabase(t testing.TB) (dsn, name string) {
	t.Helper()
	cfg, err := mysql.ParseDSN(MySQLDSN(t))
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvMySQLDSN, err)
	}
	admin, err := mysql.ParseDSN(MySQLAdminDSN(t))
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvMySQLAdminDSN, err)
	}
	admin.DBName = ""
	if admin.Params == nil {
		admin.Params = map[string]string{}
	}
	// Do not let a forgotten open transaction hang the DROP for long.
	admin.Params["lock_wait_timeout"] = "30"
	adminDSN := admin.FormatDSN()

	name = UniqueName(databaseNamePrefix)
	if err := adminExec("mysql", adminDSN, setupTimeout,
		"CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatalf("testdb: create MariaDB database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := adminExec("mysql", adminDSN, cleanupTimeout, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("testdb: drop MariaDB database %s: %v", name, err)
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN(), name
}
