package sqe_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

const relationsPolicy = `version: 1
default: deny
tables:
  %[1]s.orders:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
  %[1]s.customers:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
    row_filters:
      - {name: eu-only, principals: [role:maint], filter: "region = 'EU'"}
  %[1]s.secrets:
    access:
      - {name: read, principals: [role:maint], allow: [select]}
  %[1]s.counted:
    access:
      - {name: read, principals: [role:maint], allow: [select, update]}
  %[1]s.counted_id_seq:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
  %[1]s.made:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
  %[1]s.seq_ok:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
  %[1]s.seq_ro:
    access:
      - {name: read, principals: [role:maint], allow: [select]}
`

var maint = session.User{Name: "mo", Roles: []string{"maint"}}

// refused runs each statement as u and fails unless sqe refuses it.
func refused(t *testing.T, e *env, u session.User, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := e.db.ExecContext(as(u), q); !errors.Is(err, sqe.ErrUnsupported) && !errors.Is(err, sqe.ErrAccessDenied) {
			t.Errorf("%s: %v, want a refusal", q, err)
		}
	}
}

// passes runs each statement as u and fails unless it runs.
func passes(t *testing.T, e *env, u session.User, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := e.db.ExecContext(as(u), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// exists reports whether the server has a relation of that name.
func exists(t *testing.T, e *env, name string) bool {
	t.Helper()
	var found bool
	if err := e.raw.QueryRow("SELECT to_regclass($1) IS NOT NULL", name).Scan(&found); err != nil {
		t.Fatal(err)
	}
	return found
}

// REINDEX of a table, or of an index of a table, that the caller may
// index and reads under no policy runs on the server; VERBOSE, a whole
// schema or database, a table under a row filter and a table without
// index access are refused.
func TestReindexOnPostgres(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		e := newEnv(t, b, relationsPolicy)
		passes(t, e, maint, "REINDEX TABLE orders", "REINDEX INDEX orders_pkey", "REINDEX INDEX public.orders_pkey",
			"REINDEX (CONCURRENTLY) TABLE orders", "REINDEX TABLE public.orders")
		refused(t, e, maint,
			"REINDEX TABLE customers", "REINDEX INDEX customers_pkey", // row filter
			"REINDEX TABLE secrets", "REINDEX INDEX secrets_pkey", // no index access
			"REINDEX (VERBOSE) TABLE orders", "REINDEX (TABLESPACE pg_default) TABLE orders",
			"REINDEX SCHEMA public", "REINDEX SYSTEM", "REINDEX DATABASE sqe_test",
			"REINDEX INDEX orders", "REINDEX INDEX no_such_index", "REINDEX TABLE pg_catalog.pg_class", "REINDEX INDEX pg_class_oid_index")
		refused(t, e, nobody, "REINDEX TABLE orders", "REINDEX INDEX orders_pkey")
	}
}

// DROP INDEX and ALTER INDEX … RENAME need index access on the index's
// table; CASCADE (which drops what depends on the index) is refused, and
// IF EXISTS of an index that does not exist passes.
func TestDropIndexOnPostgres(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		e := newEnv(t, b, relationsPolicy)
		testdb.Exec(t, e.raw, "CREATE INDEX ix_orders_total ON orders (total)", "CREATE INDEX ix_secrets_note ON secrets (note)",
			"CREATE INDEX ix_customers_region ON customers (region)", "CREATE INDEX ix_orders_customer ON orders (customer_id)")
		refused(t, e, maint, "DROP INDEX ix_secrets_note", "DROP INDEX ix_orders_total CASCADE", "DROP INDEX orders",
			"DROP INDEX ix_orders_total, ix_secrets_note", "DROP INDEX pg_catalog.pg_class_oid_index")
		refused(t, e, nobody, "DROP INDEX ix_orders_total")
		if !exists(t, e, "ix_orders_total") || !exists(t, e, "ix_secrets_note") {
			t.Fatal("a refused DROP INDEX dropped an index")
		}
		refused(t, e, maint, "ALTER INDEX ix_secrets_note RENAME TO ix_x", "ALTER INDEX orders RENAME TO ix_x",
			"ALTER INDEX no_such_index RENAME TO ix_x", "ALTER INDEX pg_catalog.pg_class_oid_index RENAME TO ix_x")
		refused(t, e, nobody, "ALTER INDEX ix_orders_total RENAME TO ix_x")
		if !exists(t, e, "ix_secrets_note") || exists(t, e, "ix_x") {
			t.Fatal("a refused ALTER INDEX renamed an index")
		}
		passes(t, e, maint, "ALTER INDEX ix_orders_total RENAME TO ix_orders_total2", "ALTER INDEX IF EXISTS no_such_index RENAME TO ix_y",
			"ALTER INDEX public.ix_orders_total2 RENAME TO ix_orders_total")
		passes(t, e, maint, "DROP INDEX ix_orders_total", "DROP INDEX public.ix_customers_region",
			"DROP INDEX IF EXISTS no_such_index", "DROP INDEX CONCURRENTLY ix_orders_customer")
		if exists(t, e, "ix_orders_total") || exists(t, e, "ix_customers_region") || exists(t, e, "ix_orders_customer") {
			t.Fatal("DROP INDEX left the index")
		}
	}
}

// Sequences are named in the policy as tables of their schema: CREATE,
// ALTER and DROP SEQUENCE need create, alter and drop access on that
// name, and ALTER of a sequence a table owns (a serial column) needs
// alter access on the table too. OWNED BY and CASCADE are refused, and so
// are nextval, currval and setval (they count the rows a table's filter
// hides; an application allows one by name).
func TestSequencesOnPostgres(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		e := newEnv(t, b, relationsPolicy)
		testdb.Exec(t, e.raw, "CREATE TABLE counted (id serial PRIMARY KEY, note text)", "CREATE SEQUENCE seq_ro")
		passes(t, e, maint, "CREATE SEQUENCE seq_ok START 5 INCREMENT 2", "ALTER SEQUENCE seq_ok RESTART WITH 7",
			"ALTER SEQUENCE public.seq_ok MAXVALUE 1000")
		if !exists(t, e, "seq_ok") {
			t.Fatal("CREATE SEQUENCE made no sequence")
		}
		refused(t, e, maint,
			"CREATE SEQUENCE seq_ro2", "ALTER SEQUENCE seq_ro RESTART", "DROP SEQUENCE seq_ro",
			"ALTER SEQUENCE counted_id_seq RESTART WITH 1", // the table is the caller's to read only
			"CREATE SEQUENCE seq_owned OWNED BY orders.id", "ALTER SEQUENCE seq_ok OWNED BY orders.id",
			"DROP SEQUENCE seq_ok CASCADE", "ALTER SEQUENCE orders_pkey RESTART", "DROP SEQUENCE orders",
			"SELECT nextval('seq_ok')", "SELECT currval('seq_ok')", "SELECT setval('seq_ok', 1)",
			"SELECT nextval('counted_id_seq')")
		refused(t, e, nobody, "CREATE SEQUENCE seq_ok2", "DROP SEQUENCE seq_ok")
		passes(t, e, maint, "DROP SEQUENCE seq_ok", "DROP SEQUENCE IF EXISTS seq_ok")
		if exists(t, e, "seq_ok") || !exists(t, e, "seq_ro") {
			t.Fatal("DROP SEQUENCE dropped the wrong sequence")
		}
	}
}

// A three-part name db.schema.table naming the connected database reads
// as schema.table, under the table's policy; another database's name is
// refused with the server's own error (SQLSTATE 0A000).
func TestThreePartNamesOnPostgres(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		e := newEnv(t, b, relationsPolicy)
		var db string
		if err := e.raw.QueryRow("SELECT current_database()").Scan(&db); err != nil {
			t.Fatal(err)
		}
		ctx := as(maint)
		q := fmt.Sprintf("SELECT %[1]s.public.customers.name FROM %[1]s.public.customers ORDER BY id", db)
		got, _, err := query(ctx, e.db, q)
		if err != nil || fmt.Sprint(got) != "[[Ada] [Bea]]" {
			t.Fatalf("%s: %v %v, want the EU rows only", q, got, err)
		}
		passes(t, e, maint,
			fmt.Sprintf("INSERT INTO %s.public.orders VALUES (13, 1, 400)", db),
			fmt.Sprintf("UPDATE %s.public.customers SET name = 'X' WHERE region = 'US'", db),
			fmt.Sprintf("CREATE TABLE %s.public.made (id int)", db),
			fmt.Sprintf("COMMENT ON TABLE %s.public.made IS 'made'", db),
			fmt.Sprintf("DROP TABLE %s.public.made", db))
		got, _, err = query(as(admin), e.raw, "SELECT name FROM customers WHERE region = 'US'")
		if err != nil || fmt.Sprint(got) != "[[Cy-US-CANARY]]" {
			t.Fatalf("an UPDATE through a three-part name reached a filtered row: %v %v", got, err)
		}
		for _, q := range []string{
			"SELECT count(*) FROM postgres.public.orders",
			"SELECT * FROM " + strings.ToUpper(db) + "x.public.secrets",
			"SELECT postgres.public.orders.id FROM orders",
		} {
			_, _, err := query(ctx, e.db, q)
			if !errors.Is(err, sqe.ErrUnsupported) || serverCode(err) != "0A000" {
				t.Errorf("%s: %v (%s), want the server's cross-database refusal", q, err, serverCode(err))
			}
		}
		refused(t, e, maint, "DROP TABLE postgres.public.orders", fmt.Sprintf("SELECT * FROM %s.public.secrets_x", db))
		refused(t, e, nobody, fmt.Sprintf("SELECT * FROM %s.public.orders", db))
	}
}
