package sqe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

const listingOrderPolicy = fixturePolicy + `  %[1]s.user_migrate_columns:
    access:
      - {name: all, principals: [public], allow: [all]}
  information_schema.*:
    access:
      - {name: listings, principals: [public], allow: [select]}
  pg_catalog.*:
    access:
      - {name: catalogs, principals: [public], allow: [select]}
`

// A table's column listing read through sqe, under a policy that restricts
// a column of another table, comes back in the order the server gives the
// application's statement on the raw driver, for statements without ORDER
// BY (GORM reads a table's column order from information_schema.columns
// that way); the restricted column stays hidden, also from a statement
// whose conditions could fail on its row.
func TestColumnListingKeepsTheServersOrder(t *testing.T) {
	e := newEnv(t, backend{name: "postgres", driver: "pgx"}, listingOrderPolicy)
	// Added one by one, as GORM's AutoMigrate does: pg_attribute's rows
	// are then not in the table's column order.
	if _, err := e.raw.Exec("CREATE TABLE user_migrate_columns (id bigserial PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 35; i++ {
		if _, err := e.raw.Exec(fmt.Sprintf("ALTER TABLE user_migrate_columns ADD COLUMN f%d text", i)); err != nil {
			t.Fatal(err)
		}
	}
	var db string
	if err := e.raw.QueryRow("SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	gorm := "SELECT c.column_name, c.is_nullable = 'YES', c.udt_name, c.character_maximum_length, c.numeric_precision, " +
		"c.numeric_precision_radix, c.numeric_scale, c.datetime_precision, 8 * typlen, c.column_default, pd.description, c.identity_increment " +
		"FROM information_schema.columns AS c JOIN pg_type AS pgt ON c.udt_name = pgt.typname " +
		"LEFT JOIN pg_catalog.pg_description as pd ON pd.objsubid = c.ordinal_position AND pd.objoid = " +
		"(SELECT oid FROM pg_catalog.pg_class WHERE relname = c.table_name AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = c.table_schema)) " +
		"where table_catalog = $1 AND table_schema = $2 AND table_name = $3"
	cases := []struct {
		sql  string
		args []any
	}{
		{gorm, []any{db, "public", "user_migrate_columns"}},
		{"SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = 'public' " +
			"AND table_name = $1 AND (SELECT count(*) FROM pg_catalog.pg_namespace) > 0", []any{"user_migrate_columns"}},
	}
	names := func(rows [][]string) string {
		var n []string
		for _, r := range rows {
			n = append(n, r[0])
		}
		return strings.Join(n, ",")
	}
	for _, c := range cases {
		raw, _, err := query(context.Background(), e.raw, c.sql, c.args...)
		if err != nil || len(raw) != 36 {
			t.Fatalf("raw: %d rows, %v", len(raw), err)
		}
		for _, u := range []session.User{admin, analyst, support} {
			got, _, err := query(as(u), e.db, c.sql, c.args...)
			if err != nil {
				t.Fatalf("%s: %v", u.Name, err)
			}
			if names(got) != names(raw) {
				t.Fatalf("%s: through sqe\n%s\nraw\n%s", u.Name, names(got), names(raw))
			}
		}
	}
	// The restricted column of the other table stays hidden, with the
	// listing's conditions copied and a condition that fails on its row.
	probes := []struct {
		sql  string
		args []any
	}{
		{gorm, []any{db, "public", "customers"}},
		{"SELECT column_name FROM information_schema.columns c WHERE c.table_schema = 'public' AND c.table_name = $1 " +
			"AND 1 / (CASE WHEN c.column_name = 'salary' THEN 0 ELSE 1 END) = 1", []any{"customers"}},
		{"SELECT column_name FROM information_schema.columns WHERE table_name = 'customers' AND column_name = 'salary' " +
			"AND 1 / (CASE WHEN data_type = 'integer' THEN 0 ELSE 1 END) = 1", nil},
	}
	for _, p := range probes {
		for _, u := range []session.User{analyst, support} {
			got, _, err := query(as(u), e.db, p.sql, p.args...)
			if err != nil {
				t.Fatalf("%s as %s: %v", p.sql, u.Name, err)
			}
			if list := names(got); strings.Contains(list, "salary") || (p.args != nil && !strings.Contains(list, "ssn")) {
				t.Fatalf("%s as %s: %s", p.sql, u.Name, list)
			}
		}
	}
}
