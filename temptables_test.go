package sqe_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// A temporary table created by one pooled call is there for the same
// caller's next call, as on the raw driver (database/sql hands the same
// idle connection back), and never reaches another caller: the connection
// is closed before anyone else gets it, and as soon as it holds more than
// temporary tables.
func TestTemporaryTableStaysWithItsCaller(t *testing.T) {
	annMore := session.User{Name: "ann", Roles: []string{"admin", "analyst"}}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, "version: 1\ndefault: allow # %[1]s\n")
			e.db.SetMaxOpenConns(1) // every call takes the one connection, if it is kept
			canary := testdb.UniqueName("TEMP-CANARY")
			create := "CREATE TEMPORARY TABLE tmp_keep (v VARCHAR(60))"
			setting := "SET time_zone = '+01:00'"
			if b.name == "postgres" {
				setting = "SET application_name = 'sqe_x'"
			}
			read := func(ctx context.Context) (string, error) {
				var v string
				err := e.db.QueryRowContext(ctx, "SELECT v FROM tmp_keep").Scan(&v)
				return v, err
			}
			exec := func(ctx context.Context, q string) {
				t.Helper()
				if _, err := e.db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}

			// The creator's next calls find the table: the INSERT, the
			// SELECT, and a DROP.
			exec(as(admin), create)
			exec(as(admin), "INSERT INTO tmp_keep VALUES ('"+canary+"')")
			if v, err := read(as(admin)); err != nil || v != canary {
				t.Fatalf("the creator's next call: %q %v", v, err)
			}
			exec(as(admin), "DROP TABLE tmp_keep")
			exec(as(admin), create)
			exec(as(admin), "INSERT INTO tmp_keep VALUES ('"+canary+"')")

			// Another caller — another user, or the same name with other
			// roles — gets a new connection: no table, no value.
			for _, u := range []session.User{analyst, annMore} {
				if v, err := read(as(u)); err == nil || err == sql.ErrNoRows || v == canary {
					t.Fatalf("%s %v read the creator's temporary table: %q %v", u.Name, u.Roles, v, err)
				}
				if v, err := read(as(admin)); err == nil || err == sql.ErrNoRows || v == canary {
					t.Fatalf("the table survived another caller's call: %q %v", v, err)
				}
				exec(as(admin), create)
				exec(as(admin), "INSERT INTO tmp_keep VALUES ('"+canary+"')")
			}

			// A caller without a user gets nothing either.
			if _, err := e.db.QueryContext(context.Background(), "SELECT v FROM tmp_keep"); err == nil {
				t.Fatal("a context without a user read the temporary table")
			}
			if v, err := read(as(admin)); err == nil || err == sql.ErrNoRows {
				t.Fatalf("the table survived a call without a user: %q %v", v, err)
			}

			// More state than temporary tables (a session setting, a
			// transaction begun by text): the connection is not kept even
			// for its creator.
			exec(as(admin), create)
			exec(as(admin), "INSERT INTO tmp_keep VALUES ('"+canary+"')")
			exec(as(admin), setting)
			if v, err := read(as(admin)); err == nil || err == sql.ErrNoRows {
				t.Fatalf("a connection with a session setting was kept: %q %v", v, err)
			}
			exec(as(admin), create)
			exec(as(admin), "INSERT INTO tmp_keep VALUES ('"+canary+"')")
			conn, err := e.db.Conn(as(admin))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(as(admin), "BEGIN"); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if v, err := read(as(admin)); err == nil || err == sql.ErrNoRows {
				t.Fatalf("a connection with an open transaction was kept: %q %v", v, err)
			}
		})
	}
}

const shadowPolicy = `version: 1
default: deny
tables:
  %[1]s.customers:
    access:
      - {name: maker, principals: [role:maker], allow: [select, update, create, drop]}
    row_filters:
      - {name: eu-only, principals: [role:maker], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:maker], column: ssn, type: MASK_SHOW_LAST_4}
`

// A MariaDB temporary table that shadows a policed base table is read
// under the base table's policy with the base table's columns: a
// statement over columns the two do not share fails, one over shared
// columns gets the filter and the mask; and the other connections keep
// reading the base table with its own columns (nothing of the temporary
// table reaches the metadata they share).
func TestTemporaryTableShadowingAPolicedTableOnMariaDB(t *testing.T) {
	maker := session.User{Name: "mk", Roles: []string{"maker"}}
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, shadowPolicy)
		ctx := as(maker)
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, q := range []string{"CREATE TEMPORARY TABLE customers (id INT, region VARCHAR(8), ssn VARCHAR(11), note VARCHAR(20))",
			"INSERT INTO customers (id, region, ssn, note) VALUES (7, 'EU', '777-77-7777', 'temp')"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for _, q := range []string{"SELECT id, region, ssn FROM customers ORDER BY id", "SELECT * FROM customers", "SELECT note FROM customers", "SELECT COUNT(*) FROM customers"} {
			rows, err := conn.QueryContext(ctx, q)
			var got [][]string
			if err == nil {
				for rows.Next() {
					cols, _ := rows.Columns()
					vals := make([]sql.NullString, len(cols))
					ptrs := make([]any, len(vals))
					for i := range vals {
						ptrs[i] = &vals[i]
					}
					if err := rows.Scan(ptrs...); err != nil {
						t.Fatal(err)
					}
					var row []string
					for _, v := range vals {
						row = append(row, v.String)
					}
					got = append(got, row)
				}
				err = rows.Err()
				rows.Close()
			}
			for _, row := range got {
				for _, cell := range row {
					if cell == "US" || cell == "777-77-7777" || cell == "Cy-US-CANARY" {
						t.Fatalf("%s on the shadowing connection: %v, outside the base table's policy", q, got)
					}
				}
			}
			t.Logf("%s: %v %v", q, got, err)
		}
		// Another connection reads the base table, with its columns.
		got, _, err := query(ctx, e.db, "SELECT id, name, ssn FROM customers ORDER BY id")
		if err != nil || len(got) != 2 || got[0][1] != "Ada" || got[1][2] != "xxx-xx-1111" {
			t.Fatalf("another connection: %v %v", got, err)
		}
	}
}

// tempSchemaPolicy lets every caller use temporary tables of any name.
const tempSchemaPolicy = fixturePolicy + `  pg_temp.*:
    access:
      - {name: own-temporary, principals: [public], allow: [all]}
`

// A table created in pg_temp without the TEMPORARY keyword is a temporary
// table too: the connection that holds it never reaches another caller.
func TestTemporaryTableByItsSchemaStaysWithItsCaller(t *testing.T) {
	e := newEnv(t, backend{name: "postgres", driver: "pgx"}, tempSchemaPolicy)
	e.db.SetMaxOpenConns(1)
	for _, create := range []string{"CREATE TABLE pg_temp.tmp_q (v text)", "CREATE VIEW pg_temp.tmp_q AS SELECT 'TEMP-SCHEMA-CANARY'::text AS v"} {
		if _, err := e.db.ExecContext(as(admin), create); err != nil {
			t.Fatalf("%s: %v", create, err)
		}
		if strings.HasPrefix(create, "CREATE TABLE") {
			if _, err := e.db.ExecContext(as(admin), "INSERT INTO pg_temp.tmp_q VALUES ('TEMP-SCHEMA-CANARY')"); err != nil {
				t.Fatal(err)
			}
		}
		var v string
		err := e.db.QueryRowContext(as(analyst), "SELECT v FROM pg_temp.tmp_q").Scan(&v)
		if err == nil || v != "" {
			t.Fatalf("%s: another caller read %q %v", create, v, err)
		}
	}
}
