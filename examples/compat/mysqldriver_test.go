package compat_test

import (
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/examples/internal/testenv"
	"github.com/sqe-project/sqe/session"
)

// openMySQL opens the shop through sqe with go-sql-driver/mysql's
// client-side options: interpolateParams (the driver writes the arguments
// into the SQL sqe rewrote, instead of preparing), multiStatements
// (several statements in one string) and parseTime (DATE and DATETIME as
// time.Time).
func openMySQL(t *testing.T, policy string, setup ...string) (*testenv.Env, *sql.DB) {
	t.Helper()
	e := testenv.New(t, "mysql", policy, append(testenv.Shop("mysql"), setup...)...)
	cfg, err := mysql.ParseDSN(e.DSN)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	delete(cfg.Params, "multiStatements")
	delete(cfg.Params, "parseTime")
	cfg.InterpolateParams, cfg.MultiStatements, cfg.ParseTime = true, true, true
	base, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sqe.NewConnector(base, sqe.WithPolicyFile(e.Policy), sqe.WithoutAudit())
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { _ = db.Close() })
	return e, db
}

func TestMySQLDriverOptions(t *testing.T) {
	e, db := openMySQL(t, testenv.Policy)
	for _, c := range []struct {
		u     session.User
		ids   []int
		ssn   string
		birth string
	}{
		{testenv.Admin, []int{1, 2, 3}, "111-22-9999", "1985-03-14"},
		{testenv.Analyst, []int{1, 2}, "111-22-9999", "1985-03-14"},
		{testenv.Support, []int{1, 2, 3}, "xxx-xx-9999", "1985-01-01"},
	} {
		ctx := testenv.As(c.u)
		// interpolateParams: the arguments, a quote and a backslash among
		// them, are written into the rewritten statement by the driver.
		rows, err := db.QueryContext(ctx, "SELECT id, ssn, birth_date, created_at FROM customers WHERE name <> ? AND id >= ? ORDER BY id", `x'\`, 1)
		if err != nil {
			t.Fatalf("as %s: %v", c.u.Name, err)
		}
		var ids []int
		var first struct {
			ssn     string
			birth   time.Time
			created time.Time
		}
		for rows.Next() {
			var id int
			var ssn string
			var birth, created time.Time // parseTime
			if err := rows.Scan(&id, &ssn, &birth, &created); err != nil {
				t.Fatalf("scan as %s: %v", c.u.Name, err)
			}
			testenv.NoCanary(t, c.u, "interpolated query", ssn, birth)
			if id == 1 {
				first.ssn, first.birth, first.created = ssn, birth, created
			}
			ids = append(ids, id)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids, c.ids) || first.ssn != c.ssn || first.birth.Format(time.DateOnly) != c.birth ||
			first.created.Nanosecond() != 678901000 {
			t.Fatalf("as %s: ids %v, customer 1 %+v", c.u.Name, ids, first)
		}
		// A value is data, never SQL, also when the driver interpolates it.
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers WHERE name = ?", "x' OR '1'='1").Scan(&n); err != nil || n != 0 {
			t.Fatalf("quote in an argument as %s: %d %v", c.u.Name, n, err)
		}
		// A time.Time argument, interpolated.
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers WHERE created_at < ?", time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC)).Scan(&n); err != nil || n != 2 {
			t.Fatalf("time argument as %s: %d %v", c.u.Name, n, err)
		}
	}

	// multiStatements: every statement of the string is rewritten, the
	// second result set carries the caller's masks too.
	rows, err := db.QueryContext(testenv.As(testenv.Support), "SELECT id FROM orders WHERE id = ?; SELECT ssn FROM customers WHERE id = ?", 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	var sets [][]string
	for {
		var set []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			set = append(set, v)
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"10"}, {"xxx-xx-5555"}}; !reflect.DeepEqual(sets, want) {
		t.Fatalf("two result sets as support: %v, want %v", sets, want)
	}
	// One refused statement refuses the whole string, and nothing of it
	// reaches the server.
	mark := e.Mark(t)
	_, err = db.ExecContext(testenv.As(testenv.Analyst), "UPDATE orders SET total = 0 WHERE id = 10; SELECT note FROM secrets")
	if !errors.Is(err, sqe.ErrAccessDenied) {
		t.Fatalf("multi-statement with a denied table: %v", err)
	}
	if mark.Contains("total = 0") || mark.Contains("`total` = 0") {
		t.Fatal("a refused multi-statement string reached the server")
	}
	// Writes in a multi-statement string keep the filter (RowsAffected is
	// that of the last statement).
	res, err := db.ExecContext(testenv.As(testenv.Analyst), "UPDATE customers SET name = 'a' WHERE id > 0; UPDATE customers SET name = 'b' WHERE id > 0")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("multi-statement UPDATE affected %d rows", n)
	}
	if got := e.Strings(t, "SELECT name FROM customers ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"b"}, {"b"}, {"Cy-US-CANARY"}}) {
		t.Fatalf("after the multi-statement UPDATE: %v", got)
	}
	// A statement that changes how the server reads the next ones (here
	// sql_mode) must come last in a multi-statement string: sqe quotes the
	// whole string for the state it started in.
	mark = e.Mark(t)
	_, err = db.QueryContext(testenv.As(testenv.Support), `SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'x\' UNION SELECT ssn FROM customers -- '`)
	if !errors.Is(err, sqe.ErrUnsupported) {
		t.Fatalf("sql_mode switch before another statement: %v", err)
	}
	if mark.Contains("NO_BACKSLASH_ESCAPES") {
		t.Fatal("a refused multi-statement string reached the server")
	}
	// On a connection in NO_BACKSLASH_ESCAPES, which sqe notices, a
	// backslash in the SQL text is refused; an argument is not.
	conn, err := db.Conn(testenv.As(testenv.Support))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(testenv.As(testenv.Support), "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.QueryContext(testenv.As(testenv.Support), `SELECT id FROM customers WHERE name = 'a\'`); !errors.Is(err, sqe.ErrUnsupported) {
		t.Fatalf("backslash under NO_BACKSLASH_ESCAPES: %v", err)
	}
	var id int
	if err := conn.QueryRowContext(testenv.As(testenv.Support), "SELECT id FROM customers WHERE name <> ? ORDER BY id LIMIT 1", `a\`).Scan(&id); err != nil || id != 1 {
		t.Fatalf("interpolated backslash under NO_BACKSLASH_ESCAPES: %d %v", id, err)
	}
}

// TestMySQLDriverInsert: batch inserts and LAST_INSERT_ID through the
// interpolating driver.
func TestMySQLDriverInsert(t *testing.T) {
	e, db := openMySQL(t, testenv.Policy+`  {{schema}}.notes:
    access:
      - {name: staff-rw, principals: [role:analyst, role:support], allow: [select, update]}
`, "CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, customer_id INT, body VARCHAR(40))")
	res, err := db.ExecContext(testenv.As(testenv.Analyst), "INSERT INTO notes (customer_id, body) VALUES (?, ?), (?, ?)", 1, "a", 2, "b")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := res.LastInsertId(); err != nil || id != 1 {
		t.Fatalf("LastInsertId: %d %v", id, err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("RowsAffected: %d", n)
	}
	if got := e.Strings(t, "SELECT id, customer_id, body FROM notes ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"1", "1", "a"}, {"2", "2", "b"}}) {
		t.Fatalf("notes: %v", got)
	}
}
