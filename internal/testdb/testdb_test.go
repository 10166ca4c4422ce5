package testdb_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe/internal/testdb"
)

func queryString(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	var s string
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestMySQLServerSettings(t *testing.T) {
	t.Parallel()
	db := testdb.OpenMySQL(t, testdb.MySQLDSN(t))
	for q, want := range map[string]string{
		"SELECT @@general_log":      "1",
		"SELECT @@log_output":       "FILE",
		"SELECT @@general_log_file": testdb.MySQLGeneralLog(t),
		"SELECT @@local_infile":     "0",
		"SELECT @@bind_address":     "127.0.0.1",
		"SELECT DATABASE()":         "sqe_test",
	} {
		if got := queryString(t, db, q); got != want {
			t.Errorf("%s = %q, want %q", q, got, want)
		}
	}
	grants := queryString(t, db, "SHOW GRANTS FOR CURRENT_USER()")
	if !strings.Contains(grants, "ALL PRIVILEGES ON *.*") || !strings.Contains(grants, "WITH GRANT OPTION") {
		t.Errorf("grants = %q", grants)
	}
}

func TestPostgresServerSettings(t *testing.T) {
	t.Parallel()
	db := testdb.OpenPostgres(t, testdb.PostgresDSN(t))
	for q, want := range map[string]string{
		"SHOW log_statement":        "all",
		"SHOW listen_addresses":     "127.0.0.1",
		"SHOW logging_collector":    "off",
		"SELECT current_database()": "sqe_test",
		"SELECT current_user":       "sqe",
	} {
		if got := queryString(t, db, q); got != want {
			t.Errorf("%s = %q, want %q", q, got, want)
		}
	}
	if got := queryString(t, db, "SHOW shared_preload_libraries"); !strings.Contains(got, "pg_stat_statements") {
		t.Errorf("shared_preload_libraries = %q, want pg_stat_statements", got)
	}
	// pg_stat_statements is usable (it refuses queries when not preloaded).
	dsn, _ := testdb.NewPostgresDatabase(t)
	pdb := testdb.OpenPostgres(t, dsn)
	testdb.Exec(t, pdb, "CREATE EXTENSION pg_stat_statements")
	if n := queryString(t, pdb, "SELECT count(*)::text FROM pg_stat_statements"); n == "" {
		t.Error("pg_stat_statements returned nothing")
	}
}

func TestNewMySQLDatabase(t *testing.T) {
	t.Parallel()
	admin := testdb.OpenMySQL(t, testdb.MySQLAdminDSN(t))
	var name string
	t.Run("use", func(t *testing.T) {
		var dsn string
		dsn, name = testdb.NewMySQLDatabase(t)
		if !strings.HasPrefix(name, "sqe_t_") {
			t.Errorf("name = %q", name)
		}
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.DBName != name || !cfg.ParseTime || cfg.MultiStatements {
			t.Errorf("DSN %q: db %q parseTime %v multiStatements %v", dsn, cfg.DBName, cfg.ParseTime, cfg.MultiStatements)
		}
		db := testdb.OpenMySQL(t, dsn)
		testdb.Exec(t, db,
			"CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		)
		if got := queryString(t, db, "SELECT DATABASE()"); got != name {
			t.Errorf("DATABASE() = %q, want %q", got, name)
		}
		if got := queryString(t, db, "SELECT CAST(COUNT(*) AS CHAR) FROM t"); got != "2" {
			t.Errorf("count = %s, want 2", got)
		}
		var now time.Time // parseTime=true
		if err := db.QueryRow("SELECT NOW()").Scan(&now); err != nil {
			t.Errorf("scan NOW() into time.Time: %v", err)
		}
	})
	if n := queryString(t, admin, "SELECT CAST(COUNT(*) AS CHAR) FROM information_schema.schemata WHERE schema_name = ?", name); n != "0" {
		t.Errorf("database %s still exists after the test", name)
	}
}

func TestNewPostgresDatabase(t *testing.T) {
	t.Parallel()
	admin := testdb.OpenPostgres(t, testdb.PostgresAdminDSN(t))
	var name string
	var leftOpen *sql.DB
	t.Run("use", func(t *testing.T) {
		var dsn string
		dsn, name = testdb.NewPostgresDatabase(t)
		if !strings.HasPrefix(name, "sqe_t_") || !strings.Contains(dsn, "/"+name+"?sslmode=disable") {
			t.Errorf("dsn %q name %q", dsn, name)
		}
		db := testdb.OpenPostgres(t, dsn)
		testdb.Exec(t, db,
			"CREATE TABLE t (id int PRIMARY KEY, s text)",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		)
		if got := queryString(t, db, "SELECT current_database()"); got != name {
			t.Errorf("current_database() = %q, want %q", got, name)
		}
		if got := queryString(t, db, "SELECT count(*)::text FROM t"); got != "2" {
			t.Errorf("count = %s, want 2", got)
		}
		// A connection still open at the end must not block the drop.
		var err error
		if leftOpen, err = sql.Open("pgx", dsn); err != nil {
			t.Fatal(err)
		}
		if err := leftOpen.Ping(); err != nil {
			t.Fatal(err)
		}
	})
	if leftOpen != nil {
		defer leftOpen.Close()
	}
	if n := queryString(t, admin, "SELECT count(*)::text FROM pg_database WHERE datname = $1", name); n != "0" {
		t.Errorf("database %s still exists after the test", name)
	}
}

func TestMySQLLogMark(t *testing.T) {
	t.Parallel()
	path := testdb.MySQLGeneralLog(t)
	db := testdb.OpenMySQL(t, testdb.MySQLDSN(t))
	mark := testdb.LogMark(t, path)
	sent, failed, never := testdb.UniqueName("sent_"), testdb.UniqueName("failed_"), testdb.UniqueName("never_")

	if got := queryString(t, db, "SELECT '"+sent+"'"); got != sent {
		t.Fatalf("got %q", got)
	}
	if _, err := db.Exec("SELEC '" + failed + "'"); err == nil {
		t.Fatal("syntax error accepted")
	}
	// No waiting: the general log is written before the server answers.
	if !mark.Contains(sent) {
		t.Errorf("general log has no %s after the mark; appended:\n%s", sent, mark.Text())
	}
	if !mark.Contains(failed) {
		t.Errorf("general log has no statement that failed on the server (%s)", failed)
	}
	if mark.Contains(never) {
		t.Errorf("general log has %s, never sent", never)
	}
	if !testdb.LogContains(t, path, sent) || testdb.LogContains(t, path, never) {
		t.Error("LogContains is wrong")
	}
	if testdb.LogMark(t, path).Contains(sent) {
		t.Error("a new mark sees an earlier statement")
	}
}

func TestPostgresLogMark(t *testing.T) {
	t.Parallel()
	path := testdb.PostgresLog(t)
	db := testdb.OpenPostgres(t, testdb.PostgresDSN(t))
	mark := testdb.LogMark(t, path)
	sent, withArg, failed, never := testdb.UniqueName("sent_"), testdb.UniqueName("arg_"),
		testdb.UniqueName("failed_"), testdb.UniqueName("never_")

	if got := queryString(t, db, "SELECT '"+sent+"'"); got != sent {
		t.Fatalf("got %q", got)
	}
	if got := queryString(t, db, "SELECT $1::text AS "+withArg, "x"); got != "x" {
		t.Fatalf("got %q", got)
	}
	if _, err := db.Exec("SELEC '" + failed + "'"); err == nil {
		t.Fatal("syntax error accepted")
	}
	// No waiting: the statement is logged before the server answers.
	for _, n := range []string{sent, withArg, failed} {
		if !mark.Contains(n) {
			t.Errorf("server log has no %s after the mark; appended:\n%s", n, mark.Text())
		}
	}
	if mark.Contains(never) {
		t.Errorf("server log has %s, never sent", never)
	}
	if !testdb.LogContains(t, path, sent) || testdb.LogContains(t, path, never) {
		t.Error("LogContains is wrong")
	}
	if testdb.LogMark(t, path).Contains(sent) {
		t.Error("a new mark sees an earlier statement")
	}
	if !mark.WaitFor(sent, time.Second) {
		t.Error("WaitFor misses a logged statement")
	}
}
