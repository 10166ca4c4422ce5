package sqe_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

// serverMasksPolicy masks three string columns with the masks that
// replace characters by class, under a row filter.
const serverMasksPolicy = `version: 1
default: deny
tables:
  %[1]s.people:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: eu, principals: [public], filter: "region = 'EU'"}
    masks:
      - {name: ssn, principals: [public], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: name, principals: [public], column: name, type: MASK}
      - {name: note, principals: [public], column: note, type: MASK_FIRST_N, args: ["3", "*", "*", "#", "-"]}
      - {name: amount, principals: [public], column: amount, type: MASK_SHOW_FIRST_4}
      - {name: born, principals: [public], column: born, type: MASK_DATE_SHOW_YEAR}
`

// serverMaskValues are the people rows: letters, digits and other
// characters of several scripts, supplementary-plane characters, and
// the hidden row's canary.
var serverMaskValues = []struct {
	id, region, name, ssn, note, born string
	amount                            int32
}{
	{"1", "EU", "Ådne Øster", "123-45-6789", "Ǆemal 𝔘nicode 42", "1984-07-21", 1234567},
	{"2", "EU", "Παῦλος 🙂", "٤٥٦-78-9012", "𐐀𐐨 x", "2000-02-29", -98765},
	{"3", "EU", "", "12", "ab", "0099-12-31", 0},
	{"4", "US", "Hidden Carol", "999-88-7777", "canary-serverMasks", "1977-05-25", 4242424},
}

// noRawValues fails when rows or err hold a raw value of the masked
// columns (those masks change) or any value of the hidden row.
func noRawValues(t *testing.T, what string, rows [][]string, err error) {
	t.Helper()
	var cells []string
	for _, row := range rows {
		cells = append(cells, row...)
	}
	if err != nil {
		cells = append(cells, err.Error())
	}
	for _, v := range serverMaskValues {
		raw := []string{v.name, v.ssn, v.note}
		if v.region != "EU" {
			raw = append(raw, "Hidden", "canary", "7777", "4242424", "1977")
		}
		for _, x := range raw {
			if len(x) < 5 {
				continue // kept whole by its mask
			}
			for _, c := range cells {
				if strings.Contains(c, x) {
					t.Fatalf("%s: a raw value %q in %q", what, x, c)
				}
			}
		}
	}
}

func installServerMasks(t *testing.T, e *env) {
	t.Helper()
	testdb.InstallServerMasks(t, e.raw, e.name)
}

func newServerMasksEnv(t *testing.T, b backend, opts ...sqe.Option) *env {
	t.Helper()
	e := newEnvWith(t, b, serverMasksPolicy, opts...)
	testdb.Exec(t, e.raw, "CREATE TABLE people (id INT PRIMARY KEY, region VARCHAR(8), name VARCHAR(40), ssn VARCHAR(20), note VARCHAR(40), amount INT, born DATE)")
	for _, v := range serverMaskValues {
		if _, err := e.raw.Exec(rebind(b, "INSERT INTO people VALUES (?, ?, ?, ?, ?, ?, ?)"), v.id, v.region, v.name, v.ssn, v.note, v.amount, v.born); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// rebind writes ? placeholders as PostgreSQL's $n.
func rebind(b backend, q string) string {
	if b.name != "postgres" {
		return q
	}
	var out strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			out.WriteString("$" + strconv.Itoa(n))
			continue
		}
		out.WriteRune(c)
	}
	return out.String()
}

// TestServerMasks: with WithServerMasks and the functions installed, the
// masks call them and every caller gets exactly the Go reference's
// values, in a plain read, a condition on a masked column, a join and an
// aggregate; the hidden row never comes back. Without the option the
// same statements give the same values by the inline SQL.
func TestServerMasks(t *testing.T) {
	alice := session.User{Name: "alice"}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newServerMasksEnv(t, b, sqe.WithServerMasks())
			installServerMasks(t, e)
			inline, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(e.policy), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { inline.Close() })

			var want [][]string
			for _, v := range serverMaskValues {
				if v.region != "EU" {
					continue
				}
				amount, err := udf.Apply("MASK_SHOW_FIRST_4", nil, "", v.amount)
				if err != nil {
					t.Fatal(err)
				}
				born, err := time.Parse(time.DateOnly, v.born)
				if err != nil {
					t.Fatal(err)
				}
				year, err := udf.Apply("MASK_DATE_SHOW_YEAR", nil, "", born)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, r(v.id, hive(t, "MASK", nil, v.name), hive(t, "MASK_SHOW_LAST_4", nil, v.ssn),
					hive(t, "MASK_FIRST_N", []string{"3", "*", "*", "#", "-"}, v.note), fmt.Sprint(amount),
					year.(time.Time).Format(time.RFC3339Nano)))
			}
			x, err := sqe.Explain(context.Background(), e.db, alice, "SELECT id, name, ssn, note, amount, born FROM people ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			fn, intFn := "sqe_mask.mask(", "sqe_mask.mask_int("
			if b.name == "mysql" {
				fn, intFn = "sqe_mask_text(", "sqe_mask_int("
			}
			if strings.Count(x.SQL, fn) != 3 || strings.Count(x.SQL, intFn) != 1 || b.name == "postgres" && strings.Count(x.SQL, "sqe_mask.mask_date(") != 1 {
				t.Fatalf("the rewrite does not call the functions once per mask: %s", x.SQL)
			}
			for _, q := range []string{
				"SELECT id, name, ssn, note, amount, born FROM people ORDER BY id",
				"SELECT p.id, p.name, p.ssn, p.note, p.amount, p.born FROM people p JOIN people q ON q.id = p.id ORDER BY p.id",
				"SELECT id, name, ssn, note, amount, born FROM people WHERE ssn LIKE '%9%' OR name = '' OR note LIKE '*%' OR amount > 0 OR born > '1900-01-01' ORDER BY id",
			} {
				got, _, err := query(as(alice), e.db, q)
				noRawValues(t, q, got, err)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				same, _, err := query(as(alice), inline, q)
				if err != nil {
					t.Fatalf("inline, %s: %v", q, err)
				}
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(same, want) {
					t.Errorf("%s:\nserver masks %q\ninline       %q\nwant         %q", q, got, same, want)
				}
			}
			// An aggregate reads the masked values (binary order on both
			// servers: utf8mb4_bin, and the C collation of the test database).
			maxName, minSSN := want[0][1], want[0][2]
			for _, w := range want[1:] {
				maxName, minSSN = max(maxName, w[1]), min(minSSN, w[2])
			}
			got, _, err := query(as(alice), e.db, "SELECT count(*), max(name), min(ssn) FROM people")
			if err != nil {
				t.Fatal(err)
			}
			if w := r("3", maxName, minSSN); !reflect.DeepEqual(got, [][]string{w}) {
				t.Errorf("aggregate over the masked values: %q, want %q", got, w)
			}
		})
	}
}

// TestServerMasksFailClosed: with WithServerMasks, a server without the
// functions, with functions of that name written in SQL, or whose
// catalog the connection's user cannot read to check them, fails every
// statement with an error that says what is missing, and never a value;
// an application calling the function itself gets nothing raw.
func TestServerMasksFailClosed(t *testing.T) {
	alice := session.User{Name: "alice"}
	const q = "SELECT id, name, ssn, note FROM people ORDER BY id"
	refused := func(t *testing.T, db *sql.DB, want string) {
		t.Helper()
		got, _, err := query(as(alice), db, q)
		noRawValues(t, q, got, err)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%q, %v; want an error naming %q", got, err, want)
		}
	}
	t.Run("postgres", func(t *testing.T) {
		b := backend{name: "postgres", driver: "pgx"}
		// Not installed in this database.
		e := newServerMasksEnv(t, b, sqe.WithServerMasks())
		refused(t, e.db, "sqe_mask.mask, sqe_mask.mask_int, sqe_mask.mask_date and sqe_mask.version (sqe_mask) are not installed")
		// Functions of those names in SQL, one that hands the value back.
		testdb.Exec(t, e.raw, "CREATE SCHEMA sqe_mask",
			"CREATE FUNCTION sqe_mask.mask(text, integer, integer, integer, integer, integer, integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1'",
			"CREATE FUNCTION sqe_mask.mask_int(bigint, integer, integer, integer, integer) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1'",
			"CREATE FUNCTION sqe_mask.mask_date(date, integer, integer, integer) RETURNS date LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1'",
			"CREATE FUNCTION sqe_mask.version() RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$SELECT '"+udf.ServerMaskVersion+"'$$")
		e.db.Close()
		db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(e.policy), sqe.WithoutAudit(), sqe.WithServerMasks())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		refused(t, db, "are not installed")
	})
	t.Run("mysql", func(t *testing.T) {
		b := backend{name: "mysql", driver: "mysql"}
		e := newServerMasksEnv(t, b)
		installServerMasks(t, e)
		// A user who may read the database but not mysql.func.
		cfg, err := mysql.ParseDSN(e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		user := testdb.UniqueName("smx")
		admin := testdb.OpenMySQL(t, testdb.MySQLAdminDSN(t))
		testdb.Exec(t, admin, "CREATE USER '"+user+"'@'127.0.0.1' IDENTIFIED BY 'pw-"+user+"'",
			"GRANT ALL ON `"+cfg.DBName+"`.* TO '"+user+"'@'127.0.0.1'")
		t.Cleanup(func() { testdb.Exec(t, admin, "DROP USER '"+user+"'@'127.0.0.1'") })
		cfg.User, cfg.Passwd = user, "pw-"+user
		db, err := sqe.Open(b.driver, cfg.FormatDSN(), sqe.WithPolicyFile(e.policy), sqe.WithoutAudit(), sqe.WithServerMasks())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		refused(t, db, "SELECT on mysql.func")
	})
	for _, b := range backends() {
		t.Run(b.name+"/called by the application", func(t *testing.T) {
			e := newServerMasksEnv(t, b, sqe.WithServerMasks())
			installServerMasks(t, e)
			call := "sqe_mask.mask(ssn, 0, 0, -1, -1, -1, -1)"
			if b.name == "mysql" {
				call = "sqe_mask_text(ssn, 0, 0, -1, -1, -1, -1)"
			}
			q := "SELECT " + call + " FROM people"
			got, _, err := query(as(alice), e.db, q)
			noRawValues(t, q, got, err)
			if err == nil {
				t.Fatalf("%s ran: %q", q, got)
			}
		})
	}
	t.Run("static catalog", func(t *testing.T) {
		_, err := sqe.Open("mysql", "u:p@tcp(127.0.0.1:1)/x", sqe.WithPolicy(policy.NewStaticSource(&policy.Compiled{})),
			sqe.WithDialect("mysql"), sqe.WithCatalog(&rewriter.StaticCatalog{Schema: "x"}), sqe.WithServerMasks())
		if err == nil || !strings.Contains(err.Error(), "WithServerMasks") {
			t.Fatalf("WithServerMasks with a static catalog: %v", err)
		}
	})
}
