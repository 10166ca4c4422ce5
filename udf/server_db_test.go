package udf

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

// installServerMasks runs native/install-<server>.sql on conn: the mask
// functions scripts/test.sh builds and makes loadable by both servers.
func installServerMasks(t *testing.T, conn *sql.Conn, d Dialect) {
	t.Helper()
	for _, stmt := range testdb.ServerMaskStatements(t, string(d)) {
		mustExec(t, conn, stmt)
	}
	if err := ServerMaskCheck(d, connQuery(conn)); err != nil {
		t.Fatal(err)
	}
}

// connQuery is ServerMaskCheck's query over conn.
func connQuery(conn *sql.Conn) func(string) (string, error) {
	return func(q string) (string, error) {
		var s sql.NullString
		err := conn.QueryRowContext(context.Background(), q).Scan(&s)
		return s.String, err
	}
}
