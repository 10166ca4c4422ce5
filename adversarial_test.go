package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// The adversarial suite attacks sqe with statements written to leak: every
// statement of the corpus runs as several users on two databases that
// differ only in what each user may not see (the rows a filter hides, the
// raw values behind a mask, restricted columns, denied tables). Whatever
// a user gets back — rows, row counts, column names, errors, and after a
// write the rows the user can read — must be the same on both: a
// difference is information that flowed from protected data to the user
// (a predicate used as an oracle, a count, an error). On top of that no
// protected value of the first database may appear anywhere in what the
// user gets, and a statement sqe refuses must never reach the server.

// advPolicy governs the adversarial fixture: customers is filtered for the
// analyst role, masked for support and restricted for both, and the user
// who holds both roles (advMixed) reads name (and accounts.owner) through
// a canary mask, and email through a conditional mask whose condition is
// such a canary: the
// value itself for every row the filter admits, an error (a BIGINT
// overflow) for the names of the first database's hidden rows, so that a
// mask evaluated on a hidden row shows as an error on one database only;
// cust_v (a view
// over customers) has the same policies under its own name, but its row
// filter is an IN list (a tenant list); plain_v (a
// view with no policy) falls to the default; notes is a table every staff
// role may read and write (the place to copy protected values to);
// secrets is the admin's only; the catalogs are open to everyone.
const advPolicy = `version: 1
default: deny
tables:
  %[1]s.customers: &customers
    access:
      - {name: read, principals: [role:admin, role:analyst, role:support], allow: [select]}
      - {name: write, principals: [role:admin, role:analyst, role:support], allow: [update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-when-canary, principals: ["user:adv-mia"], column: email, type: MASK_NULL, when: "(CASE WHEN name LIKE 'HIDDEN%%' THEN 9223372036854775807 ELSE 0 END) + 1 > 0"}
      - {name: email-null, principals: [role:support], column: email, type: MASK_NULL}
      - {name: name-canary, principals: ["user:adv-mia"], column: name, type: CUSTOM, expr: "CASE WHEN (CASE WHEN {col} LIKE 'HIDDEN%%' THEN 9223372036854775807 ELSE 0 END) + 1 > 0 THEN {col} END"}
    restricted:
      - {name: no-salary, principals: [role:analyst, role:support], columns: [salary]}
  %[1]s.cust_v:
    access:
      - {name: read, principals: [role:admin, role:analyst, role:support], allow: [select]}
      - {name: write, principals: [role:admin, role:analyst, role:support], allow: [update]}
    row_filters:
      - {name: eu-list, principals: [role:analyst], filter: "region IN ('EU', 'EEA')"}
    masks:
      - {name: ssn-last4, principals: [role:support], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-when-canary, principals: ["user:adv-mia"], column: email, type: MASK_NULL, when: "(CASE WHEN name LIKE 'HIDDEN%%' THEN 9223372036854775807 ELSE 0 END) + 1 > 0"}
      - {name: email-null, principals: [role:support], column: email, type: MASK_NULL}
      - {name: name-canary, principals: ["user:adv-mia"], column: name, type: CUSTOM, expr: "CASE WHEN (CASE WHEN {col} LIKE 'HIDDEN%%' THEN 9223372036854775807 ELSE 0 END) + 1 > 0 THEN {col} END"}
    restricted:
      - {name: no-salary, principals: [role:analyst, role:support], columns: [salary]}
  %[1]s.orders:
    access:
      - {name: read, principals: [public], allow: [select]}
      - {name: write, principals: [role:admin, role:analyst, role:support], allow: [update]}
  %[1]s.notes:
    access:
      - {name: staff, principals: [role:admin, role:analyst, role:support], allow: [select, update]}
  %[1]s.secrets:
    access:
      - {name: admin-only, principals: [role:admin], allow: [select, update]}
  %[1]s.accounts:
    access:
      - {name: read, principals: [role:admin, role:analyst, role:support], allow: [select, update]}
    row_filters:
      - {name: mapped-regions, principals: [role:analyst], filter: "region IN (SELECT m.region FROM region_map m WHERE m.role = 'analyst')"}
    masks:
      - {name: owner-canary, principals: ["user:adv-mia"], column: owner, type: CUSTOM, expr: "CASE WHEN (CASE WHEN {col} LIKE 'HIDDEN%%' THEN 9223372036854775807 ELSE 0 END) + 1 > 0 THEN {col} END"}
  %[1]s.region_map:
    access:
      - {name: read, principals: [public], allow: [select]}
  information_schema.*:
    access:
      - {name: catalog, principals: [public], allow: [select]}
  pg_catalog.*:
    access:
      - {name: catalog, principals: [public], allow: [select]}
`

var (
	advAdmin   = session.User{Name: "adv-ann", Roles: []string{"admin"}}
	advAnalyst = session.User{Name: "adv-eve", Roles: []string{"analyst"}}
	advSupport = session.User{Name: "adv-sam", Roles: []string{"support"}}
	advMixed   = session.User{Name: "adv-mia", Roles: []string{"analyst", "support"}}
	advNobody  = session.User{Name: "adv-nob"}
	// advUsers are the users whose protected data the suite varies.
	advUsers = []session.User{advAnalyst, advSupport, advMixed, advNobody}
)

// The seed of the first database. Every protected value is a canary.
var advSeed = []string{
	"DELETE FROM customers", "DELETE FROM orders", "DELETE FROM secrets",
	"INSERT INTO customers VALUES " +
		"(1, 'Ada-V1X', 'EU', '314-15-9265', 'ada.k7q@eu.test', 7301947), " +
		"(2, 'Bea-V2X', 'EU', '271-82-8182', 'bea.m3x@eu.test', 7302958), " +
		"(3, 'Dan-V3X', 'EU', '161-80-3398', 'dan.p2w@eu.test', 7303969), " +
		"(4, 'HIDDEN-ZQ4-NAME', 'US', '577-21-5664', 'hid4.zq@us.test', 7304970), " +
		"(5, 'HIDDEN-ZQ5-NAME', 'US', '141-42-1356', 'hid5.zq@us.test', 7305981)",
	"INSERT INTO orders VALUES (10, 1, 100), (11, 2, 200), (12, 4, 400), (13, 5, 500), (14, 3, 300)",
	"INSERT INTO secrets VALUES (1, 'SECRET-K9V-ALPHA'), (2, 'SECRET-K9V-BETA')",
	"CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(200))",
	"INSERT INTO notes VALUES (1, 'note one'), (2, 'note two')",
	"CREATE VIEW cust_v AS SELECT id, name, region, ssn, email, salary FROM customers",
	"CREATE VIEW plain_v AS SELECT id, name, ssn FROM customers",
	"ALTER TABLE customers ADD CONSTRAINT name_len CHECK (CHAR_LENGTH(name) < 30)",
	"CREATE INDEX customers_name ON customers (name)",
	// accounts is filtered through a mapping table: a filter the server
	// finds costlier than the application's own predicates.
	"CREATE TABLE region_map (role VARCHAR(20), region VARCHAR(8))",
	"INSERT INTO region_map VALUES ('analyst', 'EU')",
	"CREATE TABLE accounts (id INT PRIMARY KEY, owner VARCHAR(40), region VARCHAR(8), iban VARCHAR(34))",
	"INSERT INTO accounts VALUES (1, 'own-1', 'EU', 'DE00-1111'), (2, 'own-2', 'EU', 'DE00-2222'), " +
		"(3, 'HIDDEN-ACC-OWNER', 'US', 'US00-IBAN-CANARY'), (4, 'own-4', 'EU', 'DE00-4444')",
}

var advSeedNotNull = map[string]string{
	"mysql":    "ALTER TABLE customers MODIFY name VARCHAR(40) NOT NULL",
	"postgres": "ALTER TABLE customers ALTER COLUMN name SET NOT NULL",
}

// Changes that make the second database for a user: only what the user
// may not see differs.
var (
	advHiddenRows = []string{
		"DELETE FROM customers WHERE region <> 'EU'",
		"INSERT INTO customers VALUES " +
			"(4, 'OTHER-HID-4', 'APAC', '901-23-4567', 'o4.b@ap.test', 8804), " +
			"(5, 'OTHER-HID-5', 'APAC', '902-34-5678', 'o5.b@ap.test', 8805), " +
			"(6, 'OTHER-HID-6', 'US', '903-45-6789', 'o6.b@us.test', 8806)",
		"DELETE FROM accounts WHERE region <> 'EU'",
		"INSERT INTO accounts VALUES (3, 'OTHER-ACC', 'APAC', 'XX00-OTHER'), (5, 'OTHER-ACC-5', 'US', 'XX00-FIVE')",
	}
	advRawValues  = []string{"UPDATE customers SET ssn = CONCAT('888-77-', RIGHT(ssn, 4)), email = CONCAT('other', id, '@x.test')"}
	advSalaries   = []string{"UPDATE customers SET salary = salary + 1111"}
	advSecrets    = []string{"DELETE FROM secrets", "INSERT INTO secrets VALUES (1, 'SECRET-B-ONE'), (2, 'SECRET-B-TWO'), (3, 'SECRET-B-THREE')"}
	advEverything = []string{
		"DELETE FROM customers", "DELETE FROM accounts",
		"INSERT INTO customers VALUES (7, 'N-7', 'EU', '000-00-0007', 'n7@x.test', 1), (8, 'N-8', 'US', '000-00-0008', 'n8@x.test', 2)",
		"INSERT INTO accounts VALUES (9, 'N-9', 'EU', 'NN00-9')",
		"UPDATE notes SET body = CONCAT('other ', id)",
		"INSERT INTO notes VALUES (3, 'note three')",
	}
)

func advPerturbation(u session.User) []string {
	var out []string
	add := func(s []string) { out = append(out, s...) }
	switch u.Name {
	case advAnalyst.Name:
		add(advHiddenRows)
		add(advSalaries)
	case advSupport.Name:
		add(advRawValues)
		add(advSalaries)
	case advMixed.Name:
		add(advHiddenRows)
		add(advRawValues)
		add(advSalaries)
	case advNobody.Name:
		add(advEverything)
	}
	add(advSecrets)
	return out
}

// advCanaries are the protected values of the first database, per user.
var advCanaries = func() map[string][]string {
	hidden := []string{"HIDDEN-ZQ", "577-21-5664", "141-42-1356", "hid4.zq", "hid5.zq", "HIDDEN-ACC", "IBAN-CANARY"}
	salaries := []string{"7301947", "7302958", "7303969", "7304970", "7305981"}
	raw := []string{"314-15", "271-82", "161-80", "577-21", "141-42", "k7q", "m3x", "p2w", "hid4.zq", "hid5.zq"}
	secrets := []string{"SECRET-K9V"}
	cat := func(ls ...[]string) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l...)
		}
		return out
	}
	return map[string][]string{
		advAnalyst.Name: cat(hidden, salaries, secrets),
		advSupport.Name: cat(raw, salaries, secrets),
		advMixed.Name:   cat(hidden, raw, salaries, secrets),
		advNobody.Name: cat([]string{"Ada-V1X", "Bea-V2X", "Dan-V3X", "note one", "note two", "DE00-1111", "DE00-2222", "DE00-4444"},
			hidden, raw, salaries, secrets),
	}
}()

func init() {
	// assertNoCanary (integration_test.go) knows these users too.
	for u, c := range advCanaries {
		canaries[u] = c
	}
}

// advEnv is one fixture database for the suite.
type advEnv struct {
	*env
	dbName string // PostgreSQL database name (current_database())
}

func newAdvEnv(t *testing.T, b backend, perturb []string) *advEnv {
	t.Helper()
	return newAdvEnvWith(t, b, perturb, false)
}

// newAdvEnvWith is newAdvEnv, with the masks computed by the server's mask
// functions (WithServerMasks, installed in the database) when server is
// set.
func newAdvEnvWith(t *testing.T, b backend, perturb []string, server bool) *advEnv {
	t.Helper()
	var opts []sqe.Option
	if server {
		opts = append(opts, sqe.WithServerMasks())
	}
	e := newEnvWith(t, b, advPolicy, opts...)
	if server {
		installServerMasks(t, e)
	}
	testdb.Exec(t, e.raw, advSeed...)
	testdb.Exec(t, e.raw, advSeedNotNull[b.name])
	testdb.Exec(t, e.raw, perturb...)
	if b.name == "postgres" {
		testdb.Exec(t, e.raw, "ANALYZE")
	}
	// Every statement of the suite gets a connection of its own: nothing a
	// statement leaves in the session (variables, cursors) reaches the
	// next one unless a test wants it to.
	e.db.SetMaxIdleConns(0)
	ae := &advEnv{env: e}
	if err := e.raw.QueryRow(map[string]string{"mysql": "SELECT DATABASE()", "postgres": "SELECT current_database()"}[b.name]).Scan(&ae.dbName); err != nil {
		t.Fatal(err)
	}
	return ae
}

// advEnvs are the first database and, per user, the second one.
type advEnvs struct {
	a *advEnv
	b map[string]*advEnv
}

func newAdvEnvs(t *testing.T, b backend, server bool) *advEnvs {
	t.Helper()
	envs := &advEnvs{a: newAdvEnvWith(t, b, nil, server), b: map[string]*advEnv{}}
	for _, u := range advUsers {
		envs.b[u.Name] = newAdvEnvWith(t, b, advPerturbation(u), server)
	}
	return envs
}

// advCase is one statement of the corpus.
type advCase struct {
	sql string
	// expect: "" (nothing beyond the invariants), "ok" (succeeds for every
	// user with access to what it names: admin, analyst, support, mixed),
	// "refuse" (sqe refuses it for everyone, admin included), "deny" (sqe
	// refuses it for everyone but the admin), "logged" (a control: it runs
	// for the admin and its needle is in the server's log).
	expect string
	write  bool // run in a transaction that is rolled back, and look at what it changed
	args   []any
}

// advOutcome is everything a user gets from one statement.
type advOutcome struct {
	cols     []string
	rows     [][]string
	affected int64
	err      error
	observed [][]string // after a write: what the user reads of the tables
	refused  bool       // sqe refused it
	logged   bool       // the statement's needle reached the server
	keep     []string   // admin's view of what the user may not change, after a write
}

func (o advOutcome) cells() []string {
	var out []string
	out = append(out, o.cols...)
	for _, r := range o.rows {
		out = append(out, r...)
	}
	for _, r := range o.observed {
		out = append(out, r...)
	}
	if o.err != nil {
		out = append(out, errorText(o.err))
	}
	return out
}

// errorText is everything an error carries as text: its message and the
// text fields of the drivers' error structs in its chain (pgconn.PgError
// keeps DETAIL, HINT and WHERE out of Error()).
func errorText(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			continue
		}
		v = v.Elem()
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); v.Type().Field(i).IsExported() && f.Kind() == reflect.String && f.String() != "" {
				b.WriteString(" | " + v.Type().Field(i).Name + ": " + f.String())
			}
		}
	}
	return b.String()
}

// normalized is the outcome as text, with the names that differ between
// the two databases (schema, database, needle) replaced.
func (o advOutcome) normalized(e *advEnv, needle string, ordered bool) string {
	rows := append([][]string(nil), o.rows...)
	if !ordered {
		sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00") })
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cols=%q\nrows=%q\naffected=%d\nobserved=%q\nrefused=%v\n", o.cols, rows, o.affected, o.observed, o.refused)
	if o.err != nil {
		fmt.Fprintf(&b, "err=%s\n", errorText(o.err))
	}
	rep := strings.NewReplacer(e.schema, "{S}", e.dbName, "{D}", needle, "{N}")
	out := rep.Replace(b.String())
	// Column labels are the rewritten expression's text, which may hold a
	// truncated schema name or the digest that names the caller's
	// variables; neither depends on data.
	out = advSchemaName.ReplaceAllString(out, "{S}")
	return advDigest.ReplaceAllString(out, "sqe{H}_")
}

var (
	advSchemaName = regexp.MustCompile(`sqe_t_[0-9a-f]*`)
	advDigest     = regexp.MustCompile(`sqe[0-9a-f]{12}_`)
)

func isRefusal(err error) bool {
	return errors.Is(err, sqe.ErrUnsupported) || errors.Is(err, sqe.ErrAccessDenied) || errors.Is(err, sqe.ErrColumnDenied)
}

// advObserve is what a user reads after a write (in the write's transaction).
var advObserve = []string{
	"SELECT id, body FROM notes ORDER BY id",
	"SELECT id, name, region, ssn, email FROM customers ORDER BY id",
	"SELECT id, customer_id, total FROM orders ORDER BY id",
}

// advKeep is what a write by the user must leave as it was, read as the
// admin, each with how it is compared: the rows a filter hides from them
// (every one stays as it was; new rows may appear), restricted columns (a
// row that stays keeps its value), denied tables (exactly as they were).
func advKeep(u session.User) []advKept {
	keep := []advKept{
		{"SELECT id, salary FROM customers ORDER BY id", keepSurvivors},
		{"SELECT id, note FROM secrets ORDER BY id", keepExactly},
	}
	switch u.Name {
	case advAnalyst.Name, advMixed.Name:
		// The rows their filters hide stay as they are, and no write adds
		// one or moves one there (the filters check written rows).
		keep = append(keep, advKept{"SELECT id, name, region, ssn, email FROM customers WHERE region <> 'EU' OR region IS NULL ORDER BY id", keepExactly},
			advKept{"SELECT id, owner, region, iban FROM accounts WHERE region <> 'EU' OR region IS NULL ORDER BY id", keepExactly})
	case advNobody.Name:
		keep = append(keep, advKept{"SELECT id, name, region, ssn, email FROM customers ORDER BY id", keepExactly},
			advKept{"SELECT id, body FROM notes ORDER BY id", keepExactly},
			advKept{"SELECT id, owner, region, iban FROM accounts ORDER BY id", keepExactly})
	}
	return keep
}

type keepMode int

const (
	keepExactly   keepMode = iota // the same rows
	keepAll                       // every row before is still there, unchanged
	keepSurvivors                 // every row (by id) still there is unchanged
)

type advKept struct {
	query string
	mode  keepMode
}

// run runs one case as u and reports what u got.
func (e *advEnv) run(t *testing.T, u session.User, c advCase, needle string) advOutcome {
	t.Helper()
	q := strings.NewReplacer("{S}", e.schema, "{N}", needle).Replace(c.sql)
	ctx := as(u)
	mark := e.mark(t)
	conn, err := e.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var o advOutcome
	if c.write && !strings.Contains(strings.ToUpper(q), "RETURNING") {
		var res sql.Result
		res, o.err = tx.ExecContext(ctx, q, c.args...)
		if o.err == nil {
			o.affected, _ = res.RowsAffected()
		}
	} else {
		o.rows, o.cols, o.err = query(ctx, tx, q, c.args...)
	}
	o.refused = isRefusal(o.err)
	if strings.Contains(c.sql, "{N}") {
		o.logged = mark.Contains(needle)
	}
	if c.write && o.err == nil {
		for _, oq := range advObserve {
			rows, _, err := query(ctx, tx, oq)
			if err != nil {
				o.observed = append(o.observed, []string{"error: " + err.Error()})
				continue
			}
			o.observed = append(o.observed, flatten(rows))
		}
		for _, k := range advKeep(u) {
			rows, _, err := query(as(advAdmin), tx, k.query)
			if err != nil {
				t.Fatalf("%s: %v", k.query, err)
			}
			o.keep = append(o.keep, strings.Join(flatten(rows), ","))
		}
	}
	return o
}

func flatten(rows [][]string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, strings.Join(r, "|"))
	}
	return out
}

// keepBefore is the admin's view of what a user's writes must not change,
// before any write.
func (e *advEnv) keepBefore(t *testing.T, u session.User) []string {
	t.Helper()
	var out []string
	for _, k := range advKeep(u) {
		rows, _, err := query(as(advAdmin), e.db, k.query)
		if err != nil {
			t.Fatalf("%s: %v", k.query, err)
		}
		out = append(out, strings.Join(flatten(rows), ","))
	}
	return out
}

// kept compares what a write had to leave alone (id|… rows joined by ,).
func kept(mode keepMode, before, after string) bool {
	rowsOf := func(s string) map[string]string {
		m := map[string]string{}
		for _, r := range strings.Split(s, ",") {
			if r != "" {
				id, _, _ := strings.Cut(r, "|")
				m[id] = r
			}
		}
		return m
	}
	b, a := rowsOf(before), rowsOf(after)
	switch mode {
	case keepExactly:
		return before == after
	case keepAll:
		for id, r := range b {
			if a[id] != r {
				return false
			}
		}
	case keepSurvivors:
		for id, r := range a {
			if old, ok := b[id]; ok && old != r {
				return false
			}
		}
	}
	return true
}

// advCheckCanaries fails when a protected value of the first database is
// in the outcome. A canary the statement itself spells is skipped (the
// user typed it; a leak of it shows as a difference between the two
// databases instead).
func advCheckCanaries(t *testing.T, u session.User, q string, o advOutcome) {
	t.Helper()
	for _, c := range advCanaries[u.Name] {
		if strings.Contains(q, c) {
			continue
		}
		for _, cell := range o.cells() {
			if strings.Contains(cell, c) {
				t.Errorf("%s as %s: protected value %q in %q", q, u.Name, c, cell)
				return
			}
		}
	}
}

// The corpus runs twice per server: with the masks inline, and computed by
// the server's mask functions (WithServerMasks).
func TestAdversarialCorpus(t *testing.T) {
	for _, b := range backends() {
		for _, server := range []bool{false, true} {
			name := b.name
			if server {
				name += "/server masks"
			}
			t.Run(name, func(t *testing.T) {
				corpus := advCorpus(b.name)
				if len(corpus) < 150 {
					t.Fatalf("the %s corpus has %d statements, want at least 150", b.name, len(corpus))
				}
				envs := newAdvEnvs(t, b, server)
				keepA := map[string][]string{}
				for _, u := range advUsers {
					keepA[u.Name] = envs.a.keepBefore(t, u)
				}
				// Statements that only read run side by side (each in a
				// transaction of its own on a connection of its own, so one
				// cannot see another); a write, a lock or any other statement
				// runs alone, after the reads before it have finished.
				var (
					refused atomic.Int64
					running sync.RWMutex
					wg      sync.WaitGroup
					slots   = make(chan struct{}, advConcurrency)
				)
				for i, c := range corpus {
					name := fmt.Sprintf("%03d", i)
					run := func() {
						t.Run(name, func(t *testing.T) {
							if runAdvCase(t, envs, c, keepA) {
								refused.Add(1)
							}
						})
					}
					if !advReadOnly(c) {
						running.Lock()
						run()
						running.Unlock()
						continue
					}
					slots <- struct{}{}
					running.RLock()
					wg.Add(1)
					go func() {
						defer func() { running.RUnlock(); <-slots; wg.Done() }()
						run()
					}()
				}
				wg.Wait()
				t.Logf("%s: %d statements, %d refused for every user", name, len(corpus), refused.Load())
			})
		}
	}
}

// advConcurrency is how many read-only cases of the corpus run at once.
const advConcurrency = 4

// advReadOnly reports whether a case only reads, takes no lock and leaves
// nothing behind, so that it may run beside other such cases.
func advReadOnly(c advCase) bool {
	if c.write {
		return false
	}
	q := strings.ToUpper(strings.TrimSpace(c.sql))
	for _, w := range []string{"LOCK", "FOR UPDATE", "FOR SHARE", "FOR NO KEY", "FOR KEY", "SLEEP", "NEXTVAL", "SETVAL", "INTO"} {
		if strings.Contains(q, w) {
			return false
		}
	}
	first, _, _ := strings.Cut(strings.TrimLeft(q, "("), " ")
	switch first {
	case "SELECT", "WITH", "TABLE", "VALUES", "SHOW", "DESCRIBE", "EXPLAIN":
		return true
	}
	return false
}

// runAdvCase runs one case as every user on both databases and checks the
// invariants; it reports whether sqe refused the statement for everyone.
func runAdvCase(t *testing.T, envs *advEnvs, c advCase, keepA map[string][]string) bool {
	t.Helper()
	ordered := strings.Contains(strings.ToUpper(c.sql), "ORDER BY")
	needle := testdb.UniqueName("advn")
	admin := envs.a.run(t, advAdmin, c, needle)
	all := admin.refused
	switch c.expect {
	case "ok", "logged":
		if admin.err != nil {
			t.Errorf("%s as admin: %v", c.sql, admin.err)
		}
		if c.expect == "logged" && !admin.logged {
			t.Errorf("%s as admin: the needle is not in the server's log (the log check would prove nothing)", c.sql)
		}
	case "refuse":
		if !admin.refused {
			t.Errorf("%s as admin: want a refusal, got %v", c.sql, admin.err)
		}
	}
	if admin.refused && admin.logged {
		t.Errorf("%s as admin: refused, but the statement reached the server", c.sql)
	}
	for _, u := range advUsers {
		na, nb := testdb.UniqueName("advn"), testdb.UniqueName("advn")
		oa := envs.a.run(t, u, c, na)
		ob := envs.b[u.Name].run(t, u, c, nb)
		all = all && oa.refused
		advCheckCanaries(t, u, c.sql, oa)
		if (oa.refused && oa.logged) || (ob.refused && ob.logged) {
			t.Errorf("%s as %s: refused, but the statement reached the server", c.sql, u.Name)
		}
		switch c.expect {
		case "ok":
			if oa.err != nil && u.Name != advNobody.Name {
				t.Errorf("%s as %s: %v", c.sql, u.Name, oa.err)
			}
		case "refuse", "deny":
			if !oa.refused || !ob.refused {
				t.Errorf("%s as %s: want a refusal, got %v / %v", c.sql, u.Name, oa.err, ob.err)
			}
		}
		if sa, sb := oa.normalized(envs.a, na, ordered), ob.normalized(envs.b[u.Name], nb, ordered); sa != sb {
			t.Errorf("%s as %s: the result depends on data the user may not see:\n--- first database\n%s--- second database\n%s",
				c.sql, u.Name, sa, sb)
		}
		if c.write && oa.err == nil && !strings.HasPrefix(c.sql, "REPLACE") {
			// (REPLACE deletes the row and inserts another: a new row's
			// restricted columns take their defaults.)
			for i, before := range keepA[u.Name] {
				k := advKeep(u)[i]
				if !kept(k.mode, before, oa.keep[i]) {
					t.Errorf("%s as %s changed what they may not touch (%s):\nbefore %s\nafter  %s", c.sql, u.Name, k.query, before, oa.keep[i])
				}
			}
		}
	}
	if d := os.Getenv("SQE_ADV_DUMP"); d != "" && strings.Contains(c.sql, d) {
		t.Logf("%s\n  admin: %s", c.sql, admin.normalized(envs.a, needle, ordered))
		for _, u := range advUsers {
			o := envs.a.run(t, u, c, needle)
			t.Logf("  %s: %s", u.Name, o.normalized(envs.a, needle, ordered))
		}
	}
	return all
}

// TestAdversarialPreparedAcrossUsers: a statement prepared by one caller
// and run by another gives the second caller their own view, on the same
// connection, in and out of a transaction that spans both callers.
func TestAdversarialPreparedAcrossUsers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newAdvEnv(t, b, nil)
			e.db.SetMaxOpenConns(1)
			e.db.SetMaxIdleConns(1)
			q := "SELECT id, name, ssn, email FROM customers WHERE id >= ? ORDER BY id"
			if b.name == "postgres" {
				q = strings.ReplaceAll(q, "?", "$1")
			}
			want := map[string][][]string{}
			for _, u := range append([]session.User{advAdmin}, advUsers...) {
				rows, _, err := query(as(u), e.db, q, 1)
				if err != nil && u.Name != advNobody.Name {
					t.Fatal(err)
				}
				want[u.Name] = rows
			}
			order := []session.User{advAdmin, advSupport, advAnalyst, advAdmin, advMixed, advNobody, advSupport}
			for _, first := range []session.User{advAdmin, advSupport} {
				stmt, err := e.db.PrepareContext(as(first), q)
				if err != nil {
					t.Fatal(err)
				}
				for i, u := range order {
					rows, _, err := query(as(u), stmtQueryer{stmt}, "", 1)
					assertNoCanary(t, u, fmt.Sprintf("prepared by %s, step %d", first.Name, i), rows, err)
					if u.Name == advNobody.Name {
						if !errors.Is(err, sqe.ErrAccessDenied) {
							t.Fatalf("nobody through a prepared statement: %v", err)
						}
						continue
					}
					if err != nil || fmt.Sprint(rows) != fmt.Sprint(want[u.Name]) {
						t.Fatalf("prepared by %s, run by %s: %v %v, want %v", first.Name, u.Name, rows, err, want[u.Name])
					}
				}
				// The same statement inside one transaction that several
				// callers use in turn.
				tx, err := e.db.BeginTx(as(first), nil)
				if err != nil {
					t.Fatal(err)
				}
				txStmt := tx.StmtContext(as(first), stmt)
				for _, u := range order {
					rows, _, err := query(as(u), stmtQueryer{txStmt}, "", 1)
					assertNoCanary(t, u, "prepared, in a transaction", rows, err)
					if u.Name != advNobody.Name && (err != nil || fmt.Sprint(rows) != fmt.Sprint(want[u.Name])) {
						t.Fatalf("in a transaction, run by %s: %v %v", u.Name, rows, err)
					}
					if u.Name == advNobody.Name && err == nil {
						t.Fatal("nobody read in a transaction")
					}
				}
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
				stmt.Close()
			}
		})
	}
}

// TestAdversarialSessionStateAcrossUsers: what one caller leaves on a
// connection (user variables, cursors, the transaction's writes read
// back) gives another caller nothing the second may not see.
func TestAdversarialSessionStateAcrossUsers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newAdvEnv(t, b, nil)
			ctx := context.Background()
			conn, err := e.db.Conn(as(advAdmin))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			exec := func(u session.User, q string) error {
				_, err := conn.ExecContext(as(u), q)
				return err
			}
			if b.name == "mysql" {
				// The admin stores raw values in user variables.
				for _, q := range []string{
					"SET @v = (SELECT GROUP_CONCAT(ssn, salary ORDER BY id) FROM customers)",
					"SELECT @w := name FROM customers WHERE id = 4",
					"SELECT note INTO @x FROM secrets WHERE id = 1",
				} {
					if err := exec(advAdmin, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				var v, w, x sql.NullString
				if err := conn.QueryRowContext(as(advAdmin), "SELECT @v, @w, @x").Scan(&v, &w, &x); err != nil || !strings.Contains(x.String, "SECRET-K9V") {
					t.Fatalf("the admin reads their own variables: %v %v", x, err)
				}
				for _, u := range advUsers {
					rows, _, err := query(as(u), conn, "SELECT @v, @w, @x, @`v`")
					assertNoCanary(t, u, "another caller's user variables", rows, err)
					if err != nil || len(rows) != 1 || rows[0][0] != "NULL" || rows[0][2] != "NULL" {
						t.Fatalf("%s reads another caller's variables: %v %v", u.Name, rows, err)
					}
				}
				// A variable set by support holds the masked value.
				if err := exec(advSupport, "SET @s = (SELECT ssn FROM customers WHERE id = 1)"); err != nil {
					t.Fatal(err)
				}
				var s sql.NullString
				if err := conn.QueryRowContext(as(advSupport), "SELECT @s").Scan(&s); err != nil || s.String != "xxx-xx-9265" {
					t.Fatalf("support's own variable: %q %v", s.String, err)
				}
			} else {
				// A cursor declared by the admin (WITH HOLD survives the
				// transaction) is not another caller's to fetch from.
				if err := exec(advAdmin, "DECLARE adv_cur CURSOR WITH HOLD FOR SELECT ssn, salary FROM customers ORDER BY id"); err != nil {
					t.Fatal(err)
				}
				rows, _, err := query(as(advAdmin), conn, "FETCH 1 FROM adv_cur")
				if err != nil || len(rows) != 1 || rows[0][0] != "314-15-9265" {
					t.Fatalf("the admin fetches from their own cursor: %v %v", rows, err)
				}
				for _, u := range advUsers {
					rows, _, err := query(as(u), conn, "FETCH ALL FROM adv_cur")
					assertNoCanary(t, u, "another caller's cursor", rows, err)
					if err == nil {
						t.Fatalf("%s fetched from the admin's cursor: %v", u.Name, rows)
					}
					// A failed statement aborts nothing outside a transaction.
				}
				if err := exec(advAdmin, "CLOSE adv_cur"); err != nil {
					t.Fatal(err)
				}
				// Within one transaction used by several callers.
				tx, err := conn.BeginTx(as(advAdmin), nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(as(advAdmin), "DECLARE adv_cur2 CURSOR FOR SELECT name FROM customers WHERE id = 4"); err != nil {
					t.Fatal(err)
				}
				rows, _, err = query(as(advAnalyst), tx, "FETCH ALL FROM adv_cur2")
				assertNoCanary(t, advAnalyst, "another caller's cursor in a transaction", rows, err)
				if err == nil {
					t.Fatalf("the analyst fetched from the admin's cursor: %v", rows)
				}
				_ = tx.Rollback()
			}
			// A transaction begun by the admin and used by the analyst: the
			// analyst's statements get the analyst's view, also of rows the
			// admin wrote in it.
			tx, err := conn.BeginTx(as(advAdmin), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(as(advAdmin), "UPDATE customers SET name = 'ADMIN-WROTE-HIDDEN' WHERE id = 5"); err != nil {
				t.Fatal(err)
			}
			for _, u := range []session.User{advAnalyst, advSupport, advMixed} {
				rows, _, err := query(as(u), tx, "SELECT c.id, c.name, c.ssn, c.email FROM customers c ORDER BY c.id")
				assertNoCanary(t, u, "a transaction spanning callers", rows, err)
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range rows {
					if row[1] == "ADMIN-WROTE-HIDDEN" && (u.Name == advAnalyst.Name || u.Name == advMixed.Name) {
						t.Fatalf("%s sees a hidden row in the admin's transaction", u.Name)
					}
				}
			}
			_ = tx.Rollback()
			_ = ctx
		})
	}
}

// stmtQueryer lets query() run a prepared statement.
type stmtQueryer struct{ s *sql.Stmt }

func (q stmtQueryer) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return q.s.QueryContext(ctx, args...)
}

// advCheapPolicy filters ledger with a single equality (a simple filter)
// and masks amount for the analyst with an expression of the cost of one
// operator that fails on the hidden rows' values (an integer overflow).
const advCheapPolicy = `version: 1
default: deny
tables:
  %[1]s.ledger:
    access:
      - {name: read, principals: [role:analyst], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: amount-cheap, principals: ["user:adv-lea"], column: amount, type: CUSTOM, expr: "{col} * 30000"}
  %[1]s.ledger_ref:
    access:
      - {name: read, principals: [role:analyst], allow: [select]}
`

// TestAdversarialCheapConditions: PostgreSQL re-creates a filter's
// equality with a constant from its equivalence class after the other
// conditions on the table, so a condition of the same cost (one operator:
// a mask such as {col} * 30000 read in the application's WHERE, or the
// application's own id * 429496730 IS NOT NULL) runs before it on every
// row. Under a filter a merged read would evaluate it on the hidden rows
// and fail on their values; the read must not depend on them.
func TestAdversarialCheapConditions(t *testing.T) {
	b := backend{name: "postgres", driver: "pgx"}
	e := newEnv(t, b, advCheapPolicy)
	testdb.Exec(t, e.raw,
		"CREATE TABLE ledger (id INT PRIMARY KEY, region VARCHAR(8), amount INT)",
		"CREATE TABLE ledger_ref (id INT PRIMARY KEY, amount INT)",
		// The hidden rows' values overflow in both expressions.
		"INSERT INTO ledger VALUES (1, 'EU', 10), (2, 'EU', 20), (3, 'EU', 30), (5, 'US', 100000), (6, 'US', 200000)",
		"INSERT INTO ledger_ref VALUES (1, 300000), (2, 600000), (3, 900000)",
		"ANALYZE ledger", "ANALYZE ledger_ref")
	masked := session.User{Name: "adv-lea", Roles: []string{"analyst"}}
	plain := session.User{Name: "adv-leo", Roles: []string{"analyst"}}
	for _, tc := range []struct {
		u    session.User
		q    string
		want string
	}{
		{masked, "SELECT id FROM ledger WHERE amount IS NOT NULL ORDER BY id", "1,2,3"},
		{masked, "SELECT id FROM ledger WHERE amount > 0 ORDER BY id", "1,2,3"},
		{masked, "SELECT id, amount FROM ledger ORDER BY amount", "1|300000,2|600000,3|900000"},
		{masked, "SELECT l.id FROM ledger l JOIN ledger_ref r ON r.amount = l.amount ORDER BY 1", "1,2,3"},
		{masked, "SELECT id FROM ledger WHERE id = 2", "2"},
		{masked, "SELECT id, amount FROM ledger WHERE id = 2", "2|600000"},
		{plain, "SELECT id FROM ledger WHERE id * 429496730 IS NOT NULL ORDER BY id", "1,2,3"},
		{plain, "SELECT id FROM ledger WHERE amount * 30000 IS NOT NULL ORDER BY id", "1,2,3"},
		{plain, "SELECT id, amount FROM ledger WHERE id = 2", "2|20"},
	} {
		rows, _, err := query(as(tc.u), e.db, tc.q)
		if err != nil {
			t.Errorf("%s as %s: %v", tc.q, tc.u.Name, err)
			continue
		}
		if got := strings.Join(flatten(rows), ","); got != tc.want {
			t.Errorf("%s as %s: %s, want %s", tc.q, tc.u.Name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		u session.User
		q string
	}{
		{masked, "UPDATE ledger SET region = 'EU' WHERE amount IS NOT NULL"},
		{plain, "UPDATE ledger SET region = 'EU' WHERE id * 429496730 IS NOT NULL"},
		{plain, "DELETE FROM ledger WHERE amount * 30000 IS NOT NULL"},
	} {
		tx, err := e.db.BeginTx(as(tc.u), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tx.ExecContext(as(tc.u), tc.q)
		if err != nil && !errors.Is(err, sqe.ErrAccessDenied) {
			t.Errorf("%s as %s: %v", tc.q, tc.u.Name, err)
		} else if err == nil {
			if n, _ := res.RowsAffected(); n != 3 {
				t.Errorf("%s as %s: %d rows, want 3", tc.q, tc.u.Name, n)
			}
		}
		_ = tx.Rollback()
	}
}

// TestAdversarialMergedReads: through a mapping-table filter, a statement
// whose conditions cannot fail and read no masked column is sent merged
// (no OFFSET 0 fence) and returns what the filter, applied by hand,
// returns; one whose conditions can fail, or read a mask, is fenced.
func TestAdversarialMergedReads(t *testing.T) {
	b := backend{name: "postgres", driver: "pgx"}
	e := newAdvEnv(t, b, nil)
	const mapped = "(SELECT * FROM accounts WHERE region IN (SELECT m.region FROM region_map m WHERE m.role = 'analyst')) a"
	for _, tc := range []struct {
		u      session.User
		q, ref string
		fenced bool
		args   []any
	}{
		{advAnalyst, "SELECT id, owner, iban FROM accounts WHERE id = 2", "SELECT id, owner, iban FROM " + mapped + " WHERE id = 2", false, nil},
		{advAnalyst, "SELECT id, owner FROM accounts WHERE id = 3", "SELECT id, owner FROM " + mapped + " WHERE id = 3", false, nil},
		{advAnalyst, "SELECT id FROM accounts WHERE id IN (1, 3, 4) OR owner LIKE 'HID%' ORDER BY id", "SELECT id FROM " + mapped + " WHERE id IN (1, 3, 4) OR owner LIKE 'HID%' ORDER BY id", false, nil},
		{advAnalyst, "SELECT a.id, o.total FROM accounts a JOIN orders o ON o.customer_id = a.id ORDER BY 1, 2", "SELECT a.id, o.total FROM " + mapped + " JOIN orders o ON o.customer_id = a.id ORDER BY 1, 2", false, nil},
		{advAnalyst, "SELECT id FROM accounts WHERE id = $1", "SELECT id FROM " + mapped + " WHERE id = $1", false, []any{2}},
		{advMixed, "SELECT id, owner FROM accounts WHERE id >= 2 ORDER BY id", "SELECT id, owner FROM " + mapped + " WHERE id >= 2 ORDER BY id", false, nil},
		{advAnalyst, "SELECT id FROM accounts WHERE id * 429496730 IS NOT NULL ORDER BY id", "SELECT id FROM " + mapped + " ORDER BY id", true, nil},
		{advMixed, "SELECT id FROM accounts WHERE owner > '' ORDER BY id", "SELECT id FROM " + mapped + " ORDER BY id", true, nil},
		{advMixed, "SELECT id, owner FROM accounts ORDER BY 2", "SELECT id, owner FROM " + mapped + " ORDER BY 2", true, nil},
		// The mask on the nullable side of an outer join would be computed
		// below the semi-join the mapping filter becomes.
		{advMixed, "SELECT o.id, a.owner FROM orders o LEFT JOIN accounts a ON a.id = o.customer_id ORDER BY o.id", "SELECT o.id, a.owner FROM orders o LEFT JOIN " + mapped + " ON a.id = o.customer_id ORDER BY o.id", true, nil},
		{advAnalyst, "SELECT o.id, a.owner FROM orders o LEFT JOIN accounts a ON a.id = o.customer_id ORDER BY o.id", "SELECT o.id, a.owner FROM orders o LEFT JOIN " + mapped + " ON a.id = o.customer_id ORDER BY o.id", false, nil},
	} {
		got, _, err := query(as(tc.u), e.db, tc.q, tc.args...)
		if err != nil {
			t.Errorf("%s as %s: %v", tc.q, tc.u.Name, err)
			continue
		}
		want, _, err := query(context.Background(), e.raw, tc.ref, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s as %s: %v, want %v", tc.q, tc.u.Name, got, want)
		}
		ex, err := sqe.Explain(as(advAdmin), e.db, tc.u, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if fenced := strings.Contains(ex.SQL, "OFFSET 0"); fenced != tc.fenced {
			t.Errorf("%s as %s: fenced %v, want %v:\n%s", tc.q, tc.u.Name, fenced, tc.fenced, ex.SQL)
		}
	}
}
