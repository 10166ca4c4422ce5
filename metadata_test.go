package sqe_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// TestMetadataHidesRestrictedColumns: the column listings that go through
// sqe (information_schema, pg_attribute, SHOW COLUMNS, DESCRIBE) list no
// column a caller's policy restricts, the statistics that count rows read
// as NULL, and the catalogs that hold values are refused.
func TestMetadataHidesRestrictedColumns(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newAdvEnv(t, b, nil)
			listings := map[string][]string{
				"mysql": {
					"SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{S}' AND TABLE_NAME = 'customers' ORDER BY ORDINAL_POSITION",
					"SELECT COLUMN_NAME FROM information_schema.columns c WHERE c.table_schema = '{S}' AND c.table_name = 'cust_v' ORDER BY c.ordinal_position",
					"DESCRIBE customers",
					"SHOW COLUMNS FROM customers",
					"SHOW FULL COLUMNS FROM {S}.cust_v",
				},
				"postgres": {
					"SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'customers' ORDER BY ordinal_position",
					"SELECT column_name FROM information_schema.columns WHERE table_name = 'cust_v' ORDER BY ordinal_position",
					"SELECT attname FROM pg_attribute WHERE attrelid = 'public.customers'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
					"SELECT a.attname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid WHERE c.relname = 'cust_v' AND a.attnum > 0 ORDER BY a.attnum",
					"SELECT column_name FROM information_schema.column_privileges WHERE table_name = 'customers' AND privilege_type = 'SELECT' ORDER BY column_name",
				},
			}[b.name]
			for _, q := range listings {
				q = strings.ReplaceAll(q, "{S}", e.schema)
				for _, u := range []session.User{advAdmin, advAnalyst, advSupport, advMixed} {
					rows, _, err := query(as(u), e.db, q)
					if err != nil {
						t.Fatalf("%s as %s: %v", q, u.Name, err)
					}
					names := strings.ToLower(strings.Join(flatten(rows), ","))
					if !strings.Contains(names, "ssn") {
						t.Fatalf("%s as %s lists no ssn: %s", q, u.Name, names)
					}
					if hasSalary := strings.Contains(names, "salary"); hasSalary != (u.Name == advAdmin.Name) {
						t.Fatalf("%s as %s: salary listed = %v (%s)", q, u.Name, hasSalary, names)
					}
				}
			}
			// Row statistics read as NULL for everyone.
			stats := map[string]string{
				"mysql":    "SELECT TABLE_ROWS, AUTO_INCREMENT, DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{S}' AND TABLE_NAME = 'customers'",
				"postgres": "SELECT reltuples, relpages FROM pg_class WHERE relname = 'customers'",
			}[b.name]
			for _, u := range []session.User{advAdmin, advAnalyst} {
				rows, _, err := query(as(u), e.db, strings.ReplaceAll(stats, "{S}", e.schema))
				if err != nil || len(rows) != 1 {
					t.Fatalf("%s: %v %v", stats, rows, err)
				}
				for _, v := range rows[0] {
					if v != "NULL" {
						t.Fatalf("%s as %s: a row statistic reads %s", stats, u.Name, v)
					}
				}
			}
			// Catalogs that hold values or other sessions' statements are refused.
			refused := map[string][]string{
				"mysql":    {"SELECT * FROM mysql.column_stats", "SELECT INFO FROM information_schema.PROCESSLIST", "SHOW WARNINGS"},
				"postgres": {"SELECT * FROM pg_stats", "SELECT n_live_tup FROM pg_stat_user_tables", "SELECT query FROM pg_stat_activity"},
			}[b.name]
			for _, q := range refused {
				if _, _, err := query(as(advAdmin), e.db, q); !errors.Is(err, sqe.ErrUnsupported) {
					t.Fatalf("%s: %v", q, err)
				}
			}
			// SHOW INDEX and SHOW CREATE TABLE pass only for a table
			// whose rows and columns the caller's policy leaves alone
			// (SHOW INDEX names columns and counts rows).
			if b.name == "mysql" {
				if _, _, err := query(as(advAdmin), e.db, "SHOW INDEX FROM customers"); err != nil {
					t.Fatalf("SHOW INDEX as the admin: %v", err)
				}
				if rows, _, err := query(as(advAnalyst), e.db, "SHOW KEYS FROM orders"); err != nil || len(rows) == 0 {
					t.Fatalf("SHOW KEYS FROM orders (no policy for the analyst): %v %v", rows, err)
				}
				for _, u := range []session.User{advAnalyst, advSupport} {
					if _, _, err := query(as(u), e.db, "SHOW INDEX FROM customers"); !errors.Is(err, sqe.ErrUnsupported) {
						t.Fatalf("SHOW INDEX as %s: %v", u.Name, err)
					}
				}
				if _, _, err := query(as(advAdmin), e.db, "SHOW CREATE TABLE customers"); err != nil {
					t.Fatal(err)
				}
				for _, u := range []session.User{advAnalyst, advSupport} {
					if _, _, err := query(as(u), e.db, "SHOW CREATE TABLE customers"); !errors.Is(err, sqe.ErrUnsupported) {
						t.Fatalf("SHOW CREATE TABLE as %s: %v", u.Name, err)
					}
				}
				if rows, _, err := query(as(advSupport), e.db, "SHOW CREATE TABLE orders"); err != nil || len(rows) != 1 {
					t.Fatalf("SHOW CREATE TABLE orders: %v %v", rows, err)
				}
			}
		})
	}
}

// TestCharsetsThatSwallowBackslashes: a connection is never moved to a
// character set in which a multibyte character can end in a backslash, and
// a connection that is in one is refused before anything is rewritten.
func TestCharsetsThatSwallowBackslashes(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			e := newAdvEnv(t, b, nil)
			ctx := as(advSupport)
			conn, err := e.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, q := range []string{"SET NAMES gbk", "SET NAMES 'sjis'", "SET CHARACTER SET big5", "SET character_set_client = gbk",
				"SET @@session.character_set_connection = 'cp932'", "SET collation_connection = gbk_bin"} {
				if _, err := conn.ExecContext(ctx, q); !errors.Is(err, sqe.ErrUnsupported) {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, q := range []string{"SET NAMES utf8mb4", "SET NAMES latin1", "SET CHARACTER SET utf8mb4"} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			// A connection whose character set was chosen outside sqe (here:
			// the DSN) is refused at its first statement.
			gbk, err := sqe.Open("mysql", e.dsn+"&charset=gbk", sqe.WithPolicyFile(e.policy))
			if err != nil {
				t.Fatal(err)
			}
			defer gbk.Close()
			needle := testdb.UniqueName("advn")
			mark := e.mark(t)
			if _, _, err := query(ctx, gbk, "SELECT '"+needle+"'"); !errors.Is(err, sqe.ErrUnsupported) || !strings.Contains(err.Error(), "gbk") {
				t.Fatalf("a gbk connection: %v", err)
			}
			if mark.Contains(needle) {
				t.Fatal("a statement on a gbk connection reached the server")
			}
		})
	}
}
