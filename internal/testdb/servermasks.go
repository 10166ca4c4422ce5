package testdb

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// ServerMaskStatements are the statements of udf/native's install script
// for the server ("mysql" or "postgres"): each ends with ";" at the end of
// a line, and lines starting with "--" are comments. scripts/test.sh
// builds the library and makes both servers load it from its throwaway
// directory; the install scripts declare the functions.
func ServerMaskStatements(t testing.TB, server string) []string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testdb: cannot locate the repository")
	}
	name := "install-postgres.sql"
	if server == "mysql" {
		name = "install-mariadb.sql"
	}
	file := filepath.Join(filepath.Dir(self), "..", "..", "udf", "native", name)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			stmts = append(stmts, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" || len(stmts) == 0 {
		t.Fatalf("%s: a statement without its ending ';'", file)
	}
	return stmts
}

// InstallServerMasks declares sqe's mask functions on db (PostgreSQL: in
// its database; MariaDB: on the server, once).
func InstallServerMasks(t testing.TB, db *sql.DB, server string) {
	t.Helper()
	Exec(t, db, ServerMaskStatements(t, server)...)
}
