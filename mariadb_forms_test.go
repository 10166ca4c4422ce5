package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// MariaDB's INSERT/REPLACE/DELETE … RETURNING (GORM writes it on 10.5 and
// later) returns what the caller may read of the written rows: masked
// columns masked under their own names, restricted columns never, and
// only rows the caller's row filter admits (a DELETE touches no other).
// On MySQL, which has no RETURNING, the statement stays a syntax error.
func TestMariaDBReturning(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		var version string
		if err := e.raw.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(version), "mariadb") {
			_, _, err := query(as(admin), e.db, "DELETE FROM customers WHERE id = 1 RETURNING id")
			if !errors.Is(err, sqe.ErrSyntax) {
				t.Fatalf("MySQL %s: %v, want a syntax error", version, err)
			}
			continue
		}
		// inTx runs fn in a transaction that is rolled back, on sqe as u.
		inTx := func(u session.User, fn func(tx *sql.Tx)) {
			t.Helper()
			tx, err := e.db.BeginTx(as(u), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			fn(tx)
		}
		t.Run("insert returns masked values", func(t *testing.T) {
			inTx(support, func(tx *sql.Tx) {
				got, cols, err := query(as(support), tx,
					"INSERT INTO customers (id, name, region, ssn, email) VALUES (?, ?, ?, ?, ?) RETURNING id, ssn, email, UPPER(ssn), name",
					7, "Dee", "EU", "123-45-6789", "dee@eu.test")
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(cols, []string{"id", "ssn", "email", "UPPER(ssn)", "name"}) {
					t.Errorf("columns %v", cols)
				}
				// What the caller reads of the row afterwards.
				want, _, err := query(as(support), tx, "SELECT id, ssn, email, UPPER(ssn), name FROM customers WHERE id = 7")
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 1 || strings.Contains(fmt.Sprint(got), "123-45") || strings.Contains(fmt.Sprint(got), "dee@") {
					t.Fatalf("RETURNING gave %v; a SELECT gives %v", got, want)
				}
			})
		})
		t.Run("delete returns only admitted rows", func(t *testing.T) {
			inTx(analyst, func(tx *sql.Tx) {
				got, cols, err := query(as(analyst), tx, "DELETE FROM customers ORDER BY id RETURNING *")
				assertNoCanary(t, analyst, "DELETE … RETURNING *", got, err)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(cols, []string{"id", "name", "region", "ssn", "email"}) {
					t.Errorf("columns %v (salary is restricted)", cols)
				}
				if fmt.Sprint(got) != "[[1 Ada EU 111-22-9999 ada@eu.test] [2 Bea EU 999-00-1111 bea@eu.test]]" {
					t.Errorf("returned %v", got)
				}
				left, _, err := query(as(admin), tx, "SELECT id FROM customers")
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(left) != "[[3]]" {
					t.Errorf("left %v: the hidden row must stay", left)
				}
			})
			inTx(support, func(tx *sql.Tx) {
				got, _, err := query(as(support), tx, "DELETE FROM customers WHERE ssn LIKE '%9' OR email IS NULL RETURNING id, ssn, CONCAT(ssn, COALESCE(email, '-'))")
				assertNoCanary(t, support, "DELETE … RETURNING masked", got, err)
				if err != nil {
					t.Fatal(err)
				}
				// ssn is read masked in the condition too: 'xxx-xx-9999' ends
				// in 9, the others do not; email is NULL for everyone.
				if len(got) != 3 {
					t.Errorf("returned %v", got)
				}
			})
		})
		t.Run("refusals reach no server", func(t *testing.T) {
			for _, c := range []struct {
				u    session.User
				q    string
				want error
			}{
				{support, "DELETE FROM customers WHERE name = '%s' RETURNING salary", sqe.ErrColumnDenied},
				{analyst, "INSERT INTO customers (id, name, region) VALUES (8, '%s', 'EU') RETURNING id + salary", sqe.ErrColumnDenied},
				{analyst, "DELETE FROM customers WHERE name = '%s' RETURNING (SELECT note FROM secrets)", sqe.ErrAccessDenied},
				{support, "DELETE FROM customers WHERE name = '%s' RETURNING id FROM secrets", sqe.ErrSyntax},
			} {
				inTx(c.u, func(tx *sql.Tx) {
					needle := testdb.UniqueName("retn")
					mark := e.mark(t)
					_, _, err := query(as(c.u), tx, fmt.Sprintf(c.q, needle))
					if !errors.Is(err, c.want) {
						t.Fatalf("%s as %s: %v, want %v", c.q, c.u.Name, err, c.want)
					}
					if mark.Contains(needle) {
						t.Errorf("%s as %s: refused, but it reached the server", c.q, c.u.Name)
					}
					n, _, err := query(as(admin), tx, "SELECT COUNT(*) FROM customers")
					if err != nil || fmt.Sprint(n) != "[[3]]" {
						t.Fatalf("after a refusal: %v %v", n, err)
					}
				})
			}
		})
		t.Run("prepared, as an ORM runs it", func(t *testing.T) {
			inTx(admin, func(tx *sql.Tx) {
				stmt, err := tx.PrepareContext(as(admin), "INSERT INTO customers (id, name, salary) VALUES (?, ?, ?) RETURNING id, salary")
				if err != nil {
					t.Fatal(err)
				}
				defer stmt.Close()
				for i := range 3 {
					var id, total int
					if err := stmt.QueryRowContext(as(admin), 20+i, "n", 10*i).Scan(&id, &total); err != nil {
						t.Fatal(err)
					}
					if id != 20+i || total != 10*i {
						t.Fatalf("returned %d, %d", id, total)
					}
				}
			})
		})
		t.Run("a statement prepared by one caller returns the next caller's view", func(t *testing.T) {
			// One connection, one prepared DELETE … RETURNING, run by the
			// admin and then by support and the analyst.
			tx, err := e.db.BeginTx(as(admin), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			stmt, err := tx.PrepareContext(as(admin), "DELETE FROM customers WHERE id = ? RETURNING id, ssn, email")
			if err != nil {
				t.Fatal(err)
			}
			defer stmt.Close()
			for _, c := range []struct {
				u    session.User
				id   int
				want string
			}{
				{admin, 1, "[[1 111-22-9999 ada@eu.test]]"},
				{support, 2, "[[2 xxx-xx-1111 NULL]]"},
				{analyst, 3, "[]"}, // hidden by the analyst's filter: not deleted, not returned
				{support, 3, "[[3 xxx-xx-5555 NULL]]"},
			} {
				got, _, err := query(as(c.u), stmtQueryer{stmt}, "", c.id)
				assertNoCanary(t, c.u, "prepared DELETE … RETURNING", got, err)
				if err != nil || fmt.Sprint(got) != c.want {
					t.Fatalf("as %s, id %d: %v %v, want %s", c.u.Name, c.id, got, err, c.want)
				}
			}
		})
		t.Run("the admin sees what the server returns", func(t *testing.T) {
			for _, q := range []string{
				"DELETE FROM customers WHERE id > 1 RETURNING *",
				"REPLACE INTO customers (id, name, salary) VALUES (1, 'x', 5) RETURNING *, salary * 2",
				"INSERT INTO customers (id, name, ssn, salary) SELECT id + 50, name, ssn, salary FROM customers RETURNING customers.id, ssn",
			} {
				var want, got [][]string
				var wantCols, gotCols []string
				for _, via := range []*sql.DB{e.raw, e.db} {
					tx, err := via.BeginTx(as(admin), nil)
					if err != nil {
						t.Fatal(err)
					}
					rows, cols, err := query(as(admin), tx, q)
					_ = tx.Rollback()
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					if via == e.raw {
						want, wantCols = rows, cols
					} else {
						got, gotCols = rows, cols
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) || !slices.Equal(gotCols, wantCols) {
					t.Errorf("%s: sqe %v %v, the server %v %v", q, gotCols, got, wantCols, want)
				}
			}
		})
	}
}

// SET @x := … (the := form GORM writes) is SET @x = …: the value it
// stores is read through the caller's policy.
func TestSetWithColonEquals(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		ctx := as(support)
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SET @v := (SELECT ssn FROM customers WHERE id = 1), @w := ?", "w"); err != nil {
			t.Fatal(err)
		}
		got, _, err := query(ctx, conn, "SELECT @v, @w")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != "[[xxx-xx-9999 w]]" {
			t.Fatalf("SELECT @v, @w after SET := gives %v, want the masked ssn and w", got)
		}
	}
}

const modifiersPolicy = `version: 1
default: deny
tables:
  %[1]s.made:
    access:
      - {name: maker, principals: [role:maker], allow: [select, update, create, alter, drop]}
  %[1]s.kept:
    access:
      - {name: maker, principals: [role:maker], allow: [select, create]}
  %[1]s.customers:
    access:
      - {name: maker, principals: [role:maker], allow: [select, update, alter]}
    row_filters:
      - {name: eu-only, principals: [role:maker], filter: "region = 'EU'"}
`

// MariaDB's CREATE OR REPLACE TABLE needs drop access as well as create
// (it drops the table first); ALTER ONLINE TABLE is ALTER TABLE; ALTER
// IGNORE TABLE (which deletes the rows a new unique key would reject) is
// refused on a table under a row filter. Refused statements reach no
// server.
func TestMariaDBSchemaChangeModifiers(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, modifiersPolicy)
		maker := session.User{Name: "max", Roles: []string{"maker"}}
		ctx := as(maker)
		for _, q := range []string{
			"CREATE TABLE made (id INT PRIMARY KEY, v INT)",
			"CREATE OR REPLACE TABLE made (id INT PRIMARY KEY, w INT)",
			"ALTER ONLINE TABLE made ADD COLUMN note VARCHAR(10)",
			"ALTER IGNORE TABLE made ADD UNIQUE (w)",
			"CREATE TABLE kept (id INT)",
		} {
			if _, err := e.db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		cols, _, err := query(ctx, e.raw, "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'made'")
		if err != nil || fmt.Sprint(cols) != "[[id,w,note]]" {
			t.Fatalf("made's columns after the changes: %v %v", cols, err)
		}
		assertRefusedUnsent(t, e, ctx, "modn", []refusal{
			{"CREATE OR REPLACE TABLE kept (id INT, %s INT)", sqe.ErrAccessDenied},
			{"ALTER IGNORE TABLE customers ADD COLUMN %s INT", sqe.ErrUnsupported},
			{"ALTER ONLINE TABLE kept ADD COLUMN %s INT", sqe.ErrAccessDenied},
		})
	}
}

const sequencesPolicy = `version: 1
default: deny
tables:
  %[1]s.seq:
    access:
      - {name: maker, principals: [role:maker], allow: [create, alter, drop]}
  %[1]s.fixed:
    access:
      - {name: maker, principals: [role:maker], allow: [create]}
  %[1]s.twin:
    access:
      - {name: maker, principals: [role:maker], allow: [create, drop]}
`

// MariaDB's sequences are tables of their database to the policy: CREATE
// SEQUENCE needs create, ALTER SEQUENCE alter, DROP SEQUENCE drop; options
// other than the numeric ones are refused. Refused statements reach no
// server, and what sqe creates is what the server creates from the
// statement as written.
func TestMariaDBSequences(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, sequencesPolicy)
		var version string
		if err := e.raw.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
			t.Fatal(err)
		}
		maker := session.User{Name: "max", Roles: []string{"maker"}}
		ctx := as(maker)
		if !strings.Contains(strings.ToLower(version), "mariadb") {
			if _, err := e.db.ExecContext(ctx, "CREATE SEQUENCE seq"); err == nil {
				t.Fatalf("MySQL %s: CREATE SEQUENCE ran", version)
			}
			continue
		}
		for _, q := range []string{
			"CREATE SEQUENCE seq START WITH 5 INCREMENT BY 2",
			"ALTER SEQUENCE seq RESTART WITH 40",
			"CREATE SEQUENCE fixed",
		} {
			if _, err := e.db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		var next int
		if err := e.raw.QueryRow("SELECT NEXT VALUE FOR seq").Scan(&next); err != nil || next != 40 {
			t.Fatalf("after ALTER SEQUENCE … RESTART WITH 40 the server gives %d %v", next, err)
		}
		// The sequence functions stay refused through sqe.
		if _, _, err := query(ctx, e.db, "SELECT NEXT VALUE FOR seq"); !errors.Is(err, sqe.ErrAccessDenied) && !errors.Is(err, sqe.ErrUnsupported) {
			t.Errorf("NEXT VALUE FOR through sqe: %v", err)
		}
		assertRefusedUnsent(t, e, ctx, "seqn", []refusal{
			{"CREATE SEQUENCE %s", sqe.ErrAccessDenied},
			{"ALTER SEQUENCE IF EXISTS %s RESTART", sqe.ErrAccessDenied},
			{"DROP SEQUENCE IF EXISTS fixed, %s", sqe.ErrAccessDenied},
			{"CREATE OR REPLACE SEQUENCE fixed START WITH 1 COMMENT = '%s'", sqe.ErrAccessDenied},
			{"CREATE SEQUENCE twin ENGINE = %s", sqe.ErrUnsupported},
			{"CREATE SEQUENCE twin COMMENT = '%s'", sqe.ErrUnsupported},
			{"CREATE SEQUENCE twin START WITH 1 NO CYCLE /* %s */", sqe.ErrUnsupported},
		})
		// The same statement, written by the application to the server
		// directly and through sqe, creates the same sequence.
		for _, q := range []string{
			"CREATE SEQUENCE %s",
			"CREATE SEQUENCE %s START WITH -3 MINVALUE = -10 NOMAXVALUE INCREMENT BY -1 CACHE 5 CYCLE",
			"CREATE SEQUENCE IF NOT EXISTS %s INCREMENT 3 NO MINVALUE MAXVALUE 100 NOCACHE NOCYCLE",
		} {
			if _, err := e.raw.Exec(fmt.Sprintf(q, "raw_twin")); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if _, err := e.db.ExecContext(ctx, fmt.Sprintf(q, "twin")); err != nil {
				t.Fatalf("%s through sqe: %v", q, err)
			}
			var n1, n2, want, got string
			if err := e.raw.QueryRow("SHOW CREATE SEQUENCE raw_twin").Scan(&n1, &want); err != nil {
				t.Fatal(err)
			}
			if err := e.raw.QueryRow("SHOW CREATE SEQUENCE twin").Scan(&n2, &got); err != nil {
				t.Fatal(err)
			}
			if strings.ReplaceAll(want, "raw_twin", "twin") != got {
				t.Errorf("%s: through sqe %s, directly %s", q, got, want)
			}
			if _, err := e.raw.Exec("DROP SEQUENCE raw_twin"); err != nil {
				t.Fatal(err)
			}
			if _, err := e.db.ExecContext(ctx, "DROP SEQUENCE twin"); err != nil {
				t.Fatalf("DROP SEQUENCE through sqe: %v", err)
			}
		}
		if _, err := e.db.ExecContext(ctx, "DROP SEQUENCE IF EXISTS seq"); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := e.raw.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'SEQUENCE'").Scan(&left); err != nil || left != 1 {
			t.Errorf("sequences left: %d %v, want fixed only", left, err)
		}
	}
}

// The priority words of writes (INSERT LOW_PRIORITY|DELAYED|HIGH_PRIORITY,
// UPDATE LOW_PRIORITY, DELETE LOW_PRIORITY QUICK) change when the server
// writes, not which rows: a filtered caller still writes only the rows
// the filter admits, and IGNORE (errors become warnings) turns no write
// check into a silent write, since sqe refuses such a row before the
// statement is sent. The admin gets what the server gives for the
// statement as written.
func TestMariaDBWriteModifiers(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, writeCheckPolicy)
		snapshot := func(q interface {
			QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		}) string {
			t.Helper()
			rows, _, err := query(as(admin), q, "SELECT * FROM customers ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(rows)
		}
		before := snapshot(e.raw)
		t.Run("a filtered caller writes only admitted rows", func(t *testing.T) {
			for _, q := range []string{
				"UPDATE LOW_PRIORITY IGNORE customers SET name = CONCAT(name, '!')",
				"DELETE LOW_PRIORITY QUICK IGNORE FROM customers",
				"DELETE QUICK FROM customers WHERE region = 'US' OR id > 0",
			} {
				tx, err := e.db.BeginTx(as(analyst), nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(as(analyst), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				rows, _, err := query(as(admin), tx, "SELECT name FROM customers WHERE region <> 'EU' OR region IS NULL ORDER BY id")
				_ = tx.Rollback()
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) == 0 || strings.Contains(fmt.Sprint(rows), "!") {
					t.Errorf("%s: the rows the filter hides are now %v", q, rows)
				}
			}
		})
		t.Run("IGNORE turns no refused row into a silent write", func(t *testing.T) {
			for _, c := range []struct {
				q    string
				args []any
			}{
				{"INSERT LOW_PRIORITY IGNORE INTO customers (id, name, region) VALUES (?, ?, 'US')", []any{61, "%s"}},
				{"INSERT HIGH_PRIORITY IGNORE INTO customers (id, name, region) VALUES (62, '%s', 'APAC')", nil},
				{"UPDATE LOW_PRIORITY IGNORE customers SET region = 'US', name = '%s' WHERE id = 1", nil},
				{"INSERT DELAYED IGNORE INTO customers (id, name, region) VALUES (63, '%s', 'US')", nil},
			} {
				needle := testdb.UniqueName("wmod")
				q, args := c.q, slices.Clone(c.args)
				if args == nil {
					q = fmt.Sprintf(q, needle)
				} else {
					args[1] = needle
				}
				mark := e.mark(t)
				_, err := e.db.ExecContext(as(analyst), q, args...)
				if !errors.Is(err, sqe.ErrCheckViolation) {
					t.Errorf("%s: %v, want a write check violation", c.q, err)
				}
				if mark.Contains(needle) {
					t.Errorf("%s: refused, but it reached the server", c.q)
				}
			}
			if got := snapshot(e.raw); got != before {
				t.Fatalf("after the refusals the table is %s, was %s", got, before)
			}
		})
		t.Run("the admin gets what the server gives", func(t *testing.T) {
			for _, q := range []string{
				"INSERT LOW_PRIORITY INTO customers (id, name, region) VALUES (40, 'lp', 'EU')",
				"INSERT HIGH_PRIORITY IGNORE INTO customers (id, name, region) VALUES (1, 'dup', 'EU'), (41, 'hp', 'US')",
				"INSERT DELAYED INTO customers (id, name, region) VALUES (42, 'dl', 'EU')",
				"REPLACE LOW_PRIORITY INTO customers (id, name, region) VALUES (1, 'rp', 'EU')",
				"UPDATE LOW_PRIORITY IGNORE customers SET id = 2 WHERE id = 1",
				"UPDATE LOW_PRIORITY customers SET name = 'u' ORDER BY id DESC LIMIT 1",
				"DELETE LOW_PRIORITY QUICK IGNORE FROM customers ORDER BY id LIMIT 1",
				"DELETE QUICK FROM customers WHERE id = 2",
				"DELETE LOW_PRIORITY FROM customers WHERE region = 'US'",
			} {
				var outcome [2]string
				for i, via := range []*sql.DB{e.raw, e.db} {
					tx, err := via.BeginTx(as(admin), nil)
					if err != nil {
						t.Fatal(err)
					}
					res, err := tx.ExecContext(as(admin), q)
					var n int64
					if err == nil {
						n, _ = res.RowsAffected()
					}
					outcome[i] = fmt.Sprint(n, " ", err, " ", snapshot(tx))
					_ = tx.Rollback()
				}
				if outcome[0] != outcome[1] {
					t.Errorf("%s: through sqe %s, directly %s", q, outcome[1], outcome[0])
				}
			}
			if got := snapshot(e.raw); got != before {
				t.Fatalf("after the rolled-back writes the table is %s, was %s", got, before)
			}
		})
	}
}

// MariaDB's IF [NOT] EXISTS clauses of ALTER TABLE need the access of the
// plain ALTER TABLE, and do on the server what they do when sent to it
// directly; refused ones reach no server.
func TestMariaDBAlterTableIfExists(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, modifiersPolicy)
		maker := session.User{Name: "max", Roles: []string{"maker"}}
		ctx := as(maker)
		if _, err := e.db.ExecContext(ctx, "CREATE TABLE made (id INT PRIMARY KEY, v INT)"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.raw.Exec("CREATE TABLE twin (id INT PRIMARY KEY, v INT)"); err != nil {
			t.Fatal(err)
		}
		showCreate := func(name string) string {
			var n, def string
			if err := e.raw.QueryRow("SHOW CREATE TABLE "+name).Scan(&n, &def); err != nil {
				t.Fatal(err)
			}
			return strings.ReplaceAll(def, "`"+name+"`", "`T`")
		}
		for _, q := range []string{
			"ALTER TABLE %s ADD COLUMN IF NOT EXISTS note VARCHAR(10) DEFAULT 'n'",
			"ALTER TABLE %s ADD COLUMN IF NOT EXISTS note INT, ADD IF NOT EXISTS w INT AFTER id",
			"ALTER TABLE %s ADD INDEX IF NOT EXISTS k (v), ADD UNIQUE IF NOT EXISTS u (w)",
			"ALTER TABLE %s ADD INDEX IF NOT EXISTS k (w)",
			"ALTER TABLE %s MODIFY IF EXISTS v BIGINT, MODIFY COLUMN IF EXISTS gone INT",
			"ALTER TABLE %s CHANGE IF EXISTS w w2 INT, CHANGE COLUMN IF EXISTS gone x INT",
			"ALTER TABLE %s DROP INDEX IF EXISTS k, DROP KEY IF EXISTS k",
			"ALTER TABLE %s DROP FOREIGN KEY IF EXISTS fk, DROP CONSTRAINT IF EXISTS c",
			"ALTER TABLE %s DROP COLUMN IF EXISTS note, DROP IF EXISTS note",
		} {
			_, rawErr := e.raw.Exec(fmt.Sprintf(q, "twin"))
			_, err := e.db.ExecContext(ctx, fmt.Sprintf(q, "made"))
			if fmt.Sprint(err) != fmt.Sprint(rawErr) {
				t.Fatalf("%s: through sqe %v, directly %v", q, err, rawErr)
			}
			if got, want := showCreate("made"), showCreate("twin"); got != want {
				t.Fatalf("%s: through sqe\n%s\ndirectly\n%s", q, got, want)
			}
		}
		if def := showCreate("made"); !strings.Contains(def, "`w2` int") || !strings.Contains(def, "UNIQUE KEY `u`") || strings.Contains(def, "`note`") || !strings.Contains(def, "`v` bigint") {
			t.Fatalf("after the changes: %s", def)
		}
		assertRefusedUnsent(t, e, ctx, "altn", []refusal{
			{"ALTER TABLE kept ADD COLUMN IF NOT EXISTS %s INT", sqe.ErrAccessDenied},
			{"ALTER TABLE customers ADD COLUMN IF NOT EXISTS %s VARCHAR(20) AS (ssn)", sqe.ErrUnsupported},
			{"ALTER TABLE customers CHANGE COLUMN IF EXISTS ssn %s VARCHAR(20)", sqe.ErrUnsupported},
			{"ALTER TABLE made ADD COLUMN IF EXISTS %s INT", sqe.ErrUnsupported},
		})
	}
}

// CHECK TABLE reports table health (whose messages count rows over every
// row) and CHECKSUM TABLE is a function of every row and raw value, so
// both need a table the caller reads under no row filter, mask or
// restricted column, and are refused otherwise, naming the policy,
// without reaching the server. What sqe
// runs gives what the server gives for the statement as written.
func TestMariaDBTableChecks(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		for _, c := range []struct {
			u session.User
			q string
		}{
			{admin, "CHECK TABLE customers, orders"},
			{admin, "CHECK TABLE customers EXTENDED"},
			{admin, "CHECKSUM TABLE customers"},
			{admin, "CHECKSUM TABLE customers, orders EXTENDED"},
			{analyst, "CHECK TABLE orders QUICK"},
			{analyst, "CHECKSUM TABLE orders"},
			{support, "CHECKSUM TABLE orders QUICK"},
		} {
			want, wantCols, err := query(as(admin), e.raw, c.q)
			if err != nil {
				t.Fatalf("%s directly: %v", c.q, err)
			}
			got, cols, err := query(as(c.u), e.db, c.q)
			if err != nil {
				t.Fatalf("%s as %s: %v", c.q, c.u.Name, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || !slices.Equal(cols, wantCols) || len(got) == 0 {
				t.Errorf("%s as %s: %v %v, directly %v %v", c.q, c.u.Name, cols, got, wantCols, want)
			}
		}
		for _, c := range []struct {
			u      session.User
			q      string
			want   error
			policy string
		}{
			{analyst, "CHECKSUM TABLE customers, %s", sqe.ErrUnsupported, "eu-only"},
			{support, "CHECKSUM TABLE customers EXTENDED, %s", sqe.ErrSyntax, ""},
			{support, "CHECKSUM TABLE orders, customers, %s", sqe.ErrUnsupported, "email-null"},
			{nobody, "CHECK TABLE secrets, %s", sqe.ErrAccessDenied, ""},
			{analyst, "CHECK TABLE customers, %s", sqe.ErrUnsupported, "eu-only"},
			{analyst, "CHECKSUM TABLE secrets, %s", sqe.ErrAccessDenied, ""},
		} {
			needle := testdb.UniqueName("chkn")
			mark := e.mark(t)
			_, _, err := query(as(c.u), e.db, fmt.Sprintf(c.q, needle))
			if !errors.Is(err, c.want) || c.policy != "" && !strings.Contains(err.Error(), c.policy) {
				t.Errorf("%s as %s: %v, want %v naming %q", c.q, c.u.Name, err, c.want, c.policy)
			}
			assertNoCanary(t, c.u, c.q, nil, err)
			if mark.Contains(needle) {
				t.Errorf("%s as %s: refused, but it reached the server", c.q, c.u.Name)
			}
		}
	}
}

// GET DIAGNOSTICS reports the previous statement on the connection: on
// the server directly, a caller reads the row count of the statement the
// connection ran before, which may be another caller's. Through sqe
// every form is refused and reaches no server.
func TestGetDiagnosticsRefused(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		ctx := as(admin)
		raw, err := e.raw.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		// What the statement gives on the server: the previous
		// statement's rows, here an update of rows the analyst may not see.
		if _, err := raw.ExecContext(ctx, "UPDATE customers SET salary = salary + 1 WHERE region = 'US'"); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.ExecContext(ctx, "GET DIAGNOSTICS @r = ROW_COUNT"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := raw.QueryRowContext(ctx, "SELECT @r").Scan(&n); err != nil || n != 1 {
			t.Fatalf("the server's ROW_COUNT item: %d %v", n, err)
		}
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "UPDATE customers SET salary = salary - 1 WHERE region = 'US'"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"GET DIAGNOSTICS @%s = ROW_COUNT",
			"GET CURRENT DIAGNOSTICS @n = NUMBER, @%s = ROW_COUNT",
			"GET DIAGNOSTICS CONDITION 1 @%s = MESSAGE_TEXT",
		} {
			needle := testdb.UniqueName("diag")
			mark := e.mark(t)
			_, err := conn.ExecContext(as(analyst), fmt.Sprintf(q, needle))
			if !errors.Is(err, sqe.ErrUnsupported) {
				t.Errorf("%s: %v, want a refusal", q, err)
			}
			if mark.Contains(needle) {
				t.Errorf("%s: refused, but it reached the server", q)
			}
		}
	}
}

// MariaDB's SET STATEMENT … FOR: the statement after FOR gets what it
// gets alone, through both the direct and the prepared path (a filtered
// and masked read, a filtered write); a variable outside the allow-list
// is refused and reaches no server.
func TestMariaDBStatementSet(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		for _, u := range []session.User{analyst, support} {
			ctx := as(u)
			for _, args := range [][]any{nil, {0}} {
				q := "SELECT id, name, ssn, email FROM customers WHERE id > 0 ORDER BY id"
				if args != nil {
					q = "SELECT id, name, ssn, email FROM customers WHERE id > ? ORDER BY id"
				}
				want, _, err := query(ctx, e.db, q, args...)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := query(ctx, e.db, "SET STATEMENT max_statement_time = 5, lock_wait_timeout = 10 FOR "+q, args...)
				if err != nil {
					t.Fatalf("as %s: %v", u.Name, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
					t.Errorf("as %s: SET STATEMENT … FOR gives %v, the statement alone %v", u.Name, got, want)
				}
				assertNoCanary(t, u, "SET STATEMENT", got, nil)
			}
		}
		// A write after FOR keeps the caller's row filter: the analyst
		// renames EU rows only.
		needle := testdb.UniqueName("stset")
		res, err := e.db.ExecContext(as(analyst), "SET STATEMENT innodb_lock_wait_timeout = 5 FOR UPDATE customers SET name = ? WHERE id > 0", needle)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.RowsAffected()
		var eu, renamed int
		if err := e.raw.QueryRow("SELECT COUNT(*), SUM(name = ?) FROM customers WHERE region = 'EU'", needle).Scan(&eu, &renamed); err != nil {
			t.Fatal(err)
		}
		var others int
		if err := e.raw.QueryRow("SELECT COUNT(*) FROM customers WHERE region <> 'EU' AND name = ?", needle).Scan(&others); err != nil {
			t.Fatal(err)
		}
		if n != int64(eu) || renamed != eu || others != 0 {
			t.Errorf("the analyst's UPDATE after FOR changed %d rows (%d of %d EU rows, %d others)", n, renamed, eu, others)
		}
		mark := e.mark(t)
		refused := testdb.UniqueName("stsetno")
		_, err = e.db.QueryContext(as(support), "SET STATEMENT sql_mode = 'ANSI_QUOTES' FOR SELECT '"+refused+"' FROM customers")
		if !errors.Is(err, sqe.ErrUnsupported) || !strings.Contains(err.Error(), "sql_mode") {
			t.Errorf("SET STATEMENT sql_mode: %v, want a refusal naming the variable", err)
		}
		if mark.Contains(refused) {
			t.Error("the refused SET STATEMENT reached the server")
		}
	}
}

// MariaDB's FOR UPDATE WAIT n: the locking read gets the rows it gets
// without WAIT n, and the server applies the timeout: a row another
// transaction holds makes it fail with the server's lock wait timeout.
func TestMariaDBLockWait(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		ctx := as(analyst)
		tx, err := e.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := query(ctx, tx, "SELECT id, name FROM customers WHERE id > ? ORDER BY id FOR UPDATE", 0)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := query(ctx, tx, "SELECT id, name FROM customers WHERE id > ? ORDER BY id FOR UPDATE WAIT 5", 0)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
			t.Errorf("FOR UPDATE WAIT 5 gives %v, FOR UPDATE %v", got, want)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		holder, err := e.raw.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if _, err := holder.Exec("SELECT id FROM customers WHERE id = 1 FOR UPDATE"); err != nil {
			t.Fatal(err)
		}
		tx, err = e.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		_, _, err = query(ctx, tx, "SELECT id FROM customers WHERE id = 1 FOR UPDATE WAIT 1")
		var myErr *mysql.MySQLError
		if !errors.As(err, &myErr) || myErr.Number != 1205 {
			t.Errorf("a locked row under FOR UPDATE WAIT 1: %v, want the server's lock wait timeout (1205)", err)
		}
	}
}

// INTERSECT with placeholders in both operands and an ORDER BY and LIMIT
// of the whole operation, through the prepared path: the rows are the
// intersection of what each operand gives the caller alone, sorted and
// cut as asked.
func TestMariaDBSetOperationOrderAndPlaceholders(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		for _, u := range []session.User{admin, analyst} {
			ctx := as(u)
			left, _, err := query(ctx, e.db, "SELECT id FROM customers WHERE id > ?", 0)
			if err != nil {
				t.Fatal(err)
			}
			right, _, err := query(ctx, e.db, "SELECT customer_id FROM orders WHERE total > ?", 0)
			if err != nil {
				t.Fatal(err)
			}
			inRight := map[string]bool{}
			for _, r := range right {
				inRight[r[0]] = true
			}
			var want []string
			for _, r := range left {
				if inRight[r[0]] && !slices.Contains(want, r[0]) {
					want = append(want, r[0])
				}
			}
			slices.SortFunc(want, func(a, b string) int { return strings.Compare(b, a) })
			if len(want) > 2 {
				want = want[:2]
			}
			got, _, err := query(ctx, e.db, "SELECT id FROM customers WHERE id > ? INTERSECT SELECT customer_id FROM orders WHERE total > ? ORDER BY 1 DESC LIMIT ?", 0, 0, 2)
			if err != nil {
				t.Fatalf("as %s: %v", u.Name, err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r[0])
			}
			if fmt.Sprint(ids) != fmt.Sprint(want) || len(want) == 0 {
				t.Errorf("as %s: INTERSECT … ORDER BY 1 DESC LIMIT 2 gives %v, want %v", u.Name, ids, want)
			}
		}
	}
}

// MariaDB's OFFSET … ROWS FETCH … ROWS ONLY gives the rows LIMIT … OFFSET
// gives the same caller, and WITH TIES every row that ties with the last.
func TestMariaDBFetch(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		for _, u := range []session.User{admin, analyst, support} {
			ctx := as(u)
			want, _, err := query(ctx, e.db, "SELECT id, ssn, email FROM customers ORDER BY id LIMIT 2 OFFSET 1")
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := query(ctx, e.db, "SELECT id, ssn, email FROM customers ORDER BY id OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY")
			if err != nil {
				t.Fatalf("as %s: %v", u.Name, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
				t.Errorf("as %s: OFFSET/FETCH gives %v, LIMIT/OFFSET %v", u.Name, got, want)
			}
			all, _, err := query(ctx, e.db, "SELECT region, id FROM customers ORDER BY region, id")
			if err != nil {
				t.Fatal(err)
			}
			var ties []string
			for _, r := range all {
				if r[0] == all[0][0] {
					ties = append(ties, r[1])
				}
			}
			got, _, err = query(ctx, e.db, "SELECT id FROM customers ORDER BY region FETCH FIRST 1 ROWS WITH TIES")
			if err != nil {
				t.Fatalf("as %s: %v", u.Name, err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r[0])
			}
			slices.Sort(ids)
			slices.Sort(ties)
			if fmt.Sprint(ids) != fmt.Sprint(ties) {
				t.Errorf("as %s: FETCH FIRST 1 ROWS WITH TIES gives %v, the rows of the first region are %v", u.Name, ids, ties)
			}
		}
	}
}

// refusal is a statement sqe refuses, with %s where a needle goes, and
// the error it refuses it with.
type refusal struct {
	q    string
	want error
}

// assertRefusedUnsent runs each refusal through sqe as ctx's caller, a
// fresh needle in it, and checks the error and that the needle never
// reached the server's log.
func assertRefusedUnsent(t *testing.T, e *env, ctx context.Context, prefix string, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		needle := testdb.UniqueName(prefix)
		mark := e.mark(t)
		_, err := e.db.ExecContext(ctx, fmt.Sprintf(c.q, needle))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.q, err, c.want)
		}
		if mark.Contains(needle) {
			t.Errorf("%s: refused, but it reached the server", c.q)
		}
	}
}
