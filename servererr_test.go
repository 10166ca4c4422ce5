package sqe_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
)

// serverCode returns the server's error code carried by err: the SQLSTATE
// of a *pgconn.PgError, the number of a *mysql.MySQLError ("" when err
// carries neither).
func serverCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return strconv.Itoa(int(me.Number))
	}
	return ""
}

// Errors keep the server's type and code where sqe refuses for a reason
// the server gives too — a statement that does not parse, a table that
// does not exist — and the statement is never run; a policy refusal stays
// sqe's own error.
func TestServerErrorTypes(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			needle := testdb.UniqueName("sqe_srverr")
			// MySQL: a statement sqe cannot parse stays sqe's (MariaDB's
			// grammar is wider than sqe's parser, and such a statement never
			// reaches the server); an unknown table is the server's error.
			syntax, unknown := "42601", "42P01"
			if b.name == "mysql" {
				syntax, unknown = "", "1146"
			}
			mark := e.mark(t)

			// Raw and through sqe, the same code.
			bad := "SELEC " + needle + " FROM customers"
			_, rawErr := e.raw.QueryContext(as(admin), "SELEC "+testdb.UniqueName("sqe_raw")+" FROM customers")
			_, err := e.db.QueryContext(as(admin), bad)
			if serverCode(rawErr) == "" || serverCode(err) != syntax {
				t.Fatalf("syntax error: raw %v (%s), sqe %v (%s), want code %q", rawErr, serverCode(rawErr), err, serverCode(err), syntax)
			}
			if !errors.Is(err, sqe.ErrSyntax) || !errors.Is(err, sqe.ErrUnsupported) {
				t.Fatalf("syntax error %v no longer matches ErrSyntax", err)
			}
			var se *sqe.ServerError
			if isServer := errors.As(err, &se) && err.Error() == se.Server.Error(); isServer != (syntax != "") {
				t.Fatalf("syntax error %v: the server's error = %v", err, isServer)
			}
			// Exec and Prepare take the same path.
			if _, err := e.db.ExecContext(as(admin), bad); serverCode(err) != syntax || !errors.Is(err, sqe.ErrSyntax) {
				t.Fatalf("exec of a syntax error: %v", err)
			}
			if _, err := e.db.PrepareContext(as(admin), bad); serverCode(err) != syntax || !errors.Is(err, sqe.ErrSyntax) {
				t.Fatalf("prepare of a syntax error: %v", err)
			}

			if mark.Executed(needle) {
				t.Fatalf("a statement that does not parse was run:\n%s", mark.Text())
			}

			// An unknown table, where the policy would allow it (under
			// default: deny sqe refuses it before anything else, as it
			// refuses any table without a rule).
			open := newEnv(t, b, "version: 1\ndefault: allow # %[1]s\n")
			q := "SELECT * FROM no_such_" + needle
			_, rawErr = open.raw.QueryContext(as(admin), q)
			_, err = open.db.QueryContext(as(admin), q)
			if serverCode(rawErr) != unknown || serverCode(err) != unknown {
				t.Fatalf("unknown table: raw %v (%s), sqe %v (%s), want %s", rawErr, serverCode(rawErr), err, serverCode(err), unknown)
			}

			// The server refusing for another reason confirms nothing: a
			// string of statements where a later one names a table an
			// earlier one creates (not a temporary one, which sqe knows
			// in the later statements) is refused by a prepare for being
			// several statements; sqe's own error stands.
			if b.name == "postgres" {
				multi := "CREATE TABLE " + needle + " (v int); INSERT INTO " + needle + " VALUES (1)"
				_, err := open.db.ExecContext(as(admin), multi)
				if !errors.Is(err, sqe.ErrUnsupported) || errors.As(err, &se) || serverCode(err) != "" {
					t.Fatalf("%s: %v, want sqe's own error", multi, err)
				}
			}

			// Policy refusals stay sqe's: no server error, no round trip.
			mark = e.mark(t)
			for _, c := range []struct {
				user string
				sql  string
				want error
			}{
				{"eve", "SELECT * FROM secrets WHERE note = '" + needle + "'", sqe.ErrAccessDenied},
				{"eve", "SELECT salary FROM customers WHERE name = '" + needle + "'", sqe.ErrColumnDenied},
				{"ann", "SELECT LOAD_FILE('/etc/" + needle + "')", sqe.ErrUnsupported},
			} {
				if b.name == "postgres" && strings.Contains(c.sql, "LOAD_FILE") {
					c.sql = "SELECT pg_read_file('/etc/" + needle + "')"
				}
				_, err := e.db.QueryContext(as(analyst), c.sql)
				if c.user == "ann" {
					_, err = e.db.QueryContext(as(admin), c.sql)
				}
				if !errors.Is(err, c.want) || serverCode(err) != "" || errors.As(err, &se) {
					t.Errorf("%s: %v, want sqe's %v and no server error", c.sql, err, c.want)
				}
			}
			if mark.Executed(needle) {
				t.Fatalf("a refused statement was run:\n%s", mark.Text())
			}
		})
	}
}

// MariaDB reads statements sqe's MySQL parser does not: such a statement
// is sqe's syntax error and never reaches the server, not even to be
// prepared.
func TestMariaDBOnlySyntaxNeverReachesTheServer(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue // PostgreSQL: sqe parses with the server's own parser
		}
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			testdb.Exec(t, e.raw, "CREATE TABLE returning_t (id INT PRIMARY KEY, label VARCHAR(40))")
			needle := testdb.UniqueName("sqe_ret")
			mark := e.mark(t)
			// MariaDB forms the MySQL grammar sqe parses with does not have
			// (testdata/mariadb_forms.txt in rewriter/mysql lists them).
			for _, q := range []string{
				"INSERT LOW_PRIORITY INTO returning_t (id, label) VALUES (1, '" + needle + "') RETURNING id",
				"SELECT id FROM customers WHERE name <> '" + needle + "' LIMIT ROWS EXAMINED 100",
				"VALUES (1, '" + needle + "'), (2, 'b')",
				"WITH x AS (SELECT name FROM customers) SELECT name FROM x EXCEPT SELECT '" + needle + "'",
			} {
				_, err := e.db.ExecContext(as(admin), q)
				var se *sqe.ServerError
				if !errors.Is(err, sqe.ErrSyntax) || errors.As(err, &se) || serverCode(err) != "" {
					t.Fatalf("%s: %v, want sqe's syntax error", q, err)
				}
			}
			var n int
			if err := e.raw.QueryRow("SELECT (SELECT COUNT(*) FROM returning_t) + (SELECT COUNT(*) FROM customers)").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 3 {
				t.Fatalf("%d rows after the refused statements, want the 3 customers and no insert", n)
			}
			if mark.Contains(needle) {
				t.Fatalf("a statement sqe could not parse reached the server:\n%s", mark.Text())
			}
		})
	}
}
