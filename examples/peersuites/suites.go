package peersuites

import (
	"fmt"
	"net/url"
	"os"

	"github.com/go-sql-driver/mysql"
)

// Servers the suites run against.
const (
	MySQL    = "mysql"    // MariaDB, through go-sql-driver/mysql
	Postgres = "postgres" // PostgreSQL, through pgx or lib/pq
)

// Suite is one library's test suite.
type Suite struct {
	Name string
	// Module and Version select the module zip (from the Go module proxy)
	// whose own tests are run.
	Module, Version string
	// Patch is the file in patches/ that makes the suite open its
	// databases through package peeropen.
	Patch string
	// Source, when set, is a directory holding the suite's source (a
	// repository checkout) to copy instead of the module zip, and
	// ModuleDir the module's directory inside it.
	Source, ModuleDir string
	// Package is the package whose tests run, relative to the module.
	Package string
	// Servers lists the servers the suite runs against.
	Servers []string
	// Env returns the variables that point the suite at the database dsn
	// on server (and away from the other servers it knows).
	Env func(server, dsn string) []string
	// Unavailable, when not empty, is why the suite cannot be fetched;
	// it is skipped with that reason.
	Unavailable string
}

// Suites are the suites the harness knows, in the order they run.
func Suites() []Suite {
	return []Suite{
		{
			Name: "sqlx", Module: "github.com/jmoiron/sqlx", Version: "v1.4.0",
			Patch: "sqlx.patch", Package: ".", Servers: []string{MySQL, Postgres},
			Env: func(server, dsn string) []string {
				env := []string{"SQLX_SQLITE_DSN=skip", "SQLX_MYSQL_DSN=skip", "SQLX_POSTGRES_DSN=skip"}
				if server == MySQL {
					env[1] = "SQLX_MYSQL_DSN=" + dsn
				} else {
					env[2] = "SQLX_POSTGRES_DSN=" + dsn
				}
				return env
			},
		},
		{
			Name: "pgx-stdlib", Module: "github.com/jackc/pgx/v5", Version: "v5.12.0",
			Patch: "pgx.patch", Package: "./stdlib", Servers: []string{Postgres},
			Env: func(_, dsn string) []string { return []string{"PGX_TEST_DATABASE=" + dsn} },
		},
		gorm(),
	}
}

// gorm is GORM's suite: the module gorm.io/gorm/tests, which the Go
// module proxy does not serve, from a checkout of the repository at
// GORMCommit named by SQE_PEER_GORM_SRC.
func gorm() Suite {
	s := Suite{
		Name: "gorm", Module: "gorm.io/gorm/tests", Version: GORMVersion,
		Patch: "gorm.patch", Source: os.Getenv("SQE_PEER_GORM_SRC"), ModuleDir: "tests", Package: ".",
		Servers: []string{MySQL, Postgres},
		Env: func(server, dsn string) []string {
			if server == MySQL {
				dsn += "&loc=Local&charset=utf8mb4"
			}
			return []string{"GORM_DIALECT=" + server, "GORM_DSN=" + dsn}
		},
	}
	if s.Source == "" {
		s.Unavailable = fmt.Sprintf("GORM's tests are the module gorm.io/gorm/tests, which the Go module proxy does not serve "+
			"(it answers 404 Not Found); set SQE_PEER_GORM_SRC to a checkout of github.com/go-gorm/gorm at %s (commit %s) "+
			"to run them", GORMVersion, GORMCommit)
	}
	return s
}

// The GORM version whose tests the harness pins.
const (
	GORMVersion = "v1.31.2"
	GORMCommit  = "1d6ce99528060be18a42be09aca8d39efcb47f28"
)

// DatabaseDSN returns the DSN of database db on the server whose
// administrative DSN (any database) is admin.
func DatabaseDSN(server, admin, db string) (string, error) {
	switch server {
	case MySQL:
		cfg, err := mysql.ParseDSN(admin)
		if err != nil {
			return "", err
		}
		cfg.DBName, cfg.ParseTime = db, true
		return cfg.FormatDSN(), nil
	case Postgres:
		u, err := url.Parse(admin)
		if err != nil {
			return "", err
		}
		u.Path = "/" + db
		return u.String(), nil
	}
	return "", fmt.Errorf("peersuites: unknown server %q", server)
}
