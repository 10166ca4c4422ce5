package testdb_test

import (
	"database/sql"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

// Round trips straight to the servers: the baseline for benchmarks of
// statements that go through sqe.

func benchSelect(b *testing.B, db *sql.DB, q string) {
	var n int
	for b.Loop() {
		if err := db.QueryRow(q).Scan(&n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMySQLSelect1(b *testing.B) {
	benchSelect(b, testdb.OpenMySQL(b, testdb.MySQLDSN(b)), "SELECT 1")
}

func BenchmarkPostgresSelect1(b *testing.B) {
	benchSelect(b, testdb.OpenPostgres(b, testdb.PostgresDSN(b)), "SELECT 1")
}
