package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// The shape suite checks that each statement shape returns, through sqe,
// exactly what the same statement returns on the raw server over a
// reference database written by hand: for each user, the tables hold the
// rows and the values that user may see (the masked SSN spelled out as
// 'xxx-xx-9265', NULL for the masked e-mail, no hidden row, no restricted
// column). The reference is independent of sqe's output: nothing in it is
// computed by sqe, udf or the policy package.

// refCustomers are the reference rows of customers (and cust_v) per user.
var refCustomers = map[string][]string{
	advAnalyst.Name: {
		"(1, 'Ada-V1X', 'EU', '314-15-9265', 'ada.k7q@eu.test')",
		"(2, 'Bea-V2X', 'EU', '271-82-8182', 'bea.m3x@eu.test')",
		"(3, 'Dan-V3X', 'EU', '161-80-3398', 'dan.p2w@eu.test')",
	},
	advSupport.Name: {
		"(1, 'Ada-V1X', 'EU', 'xxx-xx-9265', NULL)",
		"(2, 'Bea-V2X', 'EU', 'xxx-xx-8182', NULL)",
		"(3, 'Dan-V3X', 'EU', 'xxx-xx-3398', NULL)",
		"(4, 'HIDDEN-ZQ4-NAME', 'US', 'xxx-xx-5664', NULL)",
		"(5, 'HIDDEN-ZQ5-NAME', 'US', 'xxx-xx-1356', NULL)",
	},
	advMixed.Name: {
		"(1, 'Ada-V1X', 'EU', 'xxx-xx-9265', NULL)",
		"(2, 'Bea-V2X', 'EU', 'xxx-xx-8182', NULL)",
		"(3, 'Dan-V3X', 'EU', 'xxx-xx-3398', NULL)",
	},
}

// refAccounts are the reference rows of accounts per user (the analyst
// role's mapping-table filter).
var refAccounts = map[string][]string{
	advAnalyst.Name: {"(1, 'own-1', 'EU', 'DE00-1111')", "(2, 'own-2', 'EU', 'DE00-2222')", "(4, 'own-4', 'EU', 'DE00-4444')"},
	advSupport.Name: {"(1, 'own-1', 'EU', 'DE00-1111')", "(2, 'own-2', 'EU', 'DE00-2222')",
		"(3, 'HIDDEN-ACC-OWNER', 'US', 'US00-IBAN-CANARY')", "(4, 'own-4', 'EU', 'DE00-4444')"},
	advMixed.Name: {"(1, 'own-1', 'EU', 'DE00-1111')", "(2, 'own-2', 'EU', 'DE00-2222')", "(4, 'own-4', 'EU', 'DE00-4444')"},
}

func refSchema(u string) []string {
	rows := strings.Join(refCustomers[u], ", ")
	return []string{
		"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60))",
		"INSERT INTO customers VALUES " + rows,
		"CREATE VIEW cust_v AS SELECT id, name, region, ssn, email FROM customers",
		"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)",
		"INSERT INTO orders VALUES (10, 1, 100), (11, 2, 200), (12, 4, 400), (13, 5, 500), (14, 3, 300)",
		"CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(200))",
		"INSERT INTO notes VALUES (1, 'note one'), (2, 'note two')",
		"CREATE TABLE region_map (role VARCHAR(20), region VARCHAR(8))",
		"INSERT INTO region_map VALUES ('analyst', 'EU')",
		"CREATE TABLE accounts (id INT PRIMARY KEY, owner VARCHAR(40), region VARCHAR(8), iban VARCHAR(34))",
		"INSERT INTO accounts VALUES " + strings.Join(refAccounts[u], ", "),
	}
}

// refDB is one user's reference database, opened raw.
type refDB struct {
	db     *sql.DB
	schema string
}

func newRefDB(t *testing.T, b backend, u string) *refDB {
	t.Helper()
	r := &refDB{}
	switch b.name {
	case "mysql":
		dsn, name := testdb.NewMySQLDatabase(t)
		r.db, r.schema = testdb.OpenMySQL(t, dsn), name
	case "postgres":
		dsn, _ := testdb.NewPostgresDatabase(t)
		r.db, r.schema = testdb.OpenPostgres(t, dsn), "public"
	}
	testdb.Exec(t, r.db, refSchema(u)...)
	return r
}

// advShape is one statement shape.
type advShape struct {
	name  string
	sql   string
	only  string // "mysql" or "postgres": the shape exists in one dialect
	write bool
}

// shapeOutcome is what a statement gives back, and after a write what the
// user then reads of the tables.
type shapeOutcome struct {
	rows     [][]string
	affected int64
	err      error
	after    [][]string
}

var shapeObserve = []string{
	"SELECT id, name, region, ssn, email FROM customers ORDER BY id",
	"SELECT id, customer_id, total FROM orders ORDER BY id",
	"SELECT id, body FROM notes ORDER BY id",
	"SELECT id, owner, region, iban FROM accounts ORDER BY id",
}

func runShape(ctx context.Context, db *sql.DB, q string, write bool) shapeOutcome {
	var o shapeOutcome
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return shapeOutcome{err: err}
	}
	defer tx.Rollback()
	if write && !strings.Contains(strings.ToUpper(q), "RETURNING") {
		var res sql.Result
		if res, o.err = tx.ExecContext(ctx, q); o.err == nil {
			o.affected, _ = res.RowsAffected()
		}
	} else {
		o.rows, _, o.err = query(ctx, tx, q)
	}
	if write && o.err == nil {
		for _, oq := range shapeObserve {
			rows, _, err := query(ctx, tx, oq)
			if err != nil {
				o.after = append(o.after, []string{"error: " + err.Error()})
				continue
			}
			o.after = append(o.after, flatten(rows))
		}
	}
	return o
}

func (o shapeOutcome) String(ordered bool) string {
	rows := append([][]string(nil), o.rows...)
	if !ordered {
		sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00") })
	}
	s := fmt.Sprintf("rows=%q affected=%d after=%q", rows, o.affected, o.after)
	if o.err != nil {
		s += " err=" + o.err.Error()
	}
	return s
}

func TestShapesMatchHandWrittenReference(t *testing.T) {
	for _, b := range backends() {
		for _, server := range []bool{false, true} {
			name := b.name
			if server {
				name += "/server masks" // the masks by the server's functions
			}
			t.Run(name, func(t *testing.T) {
				e := newAdvEnvWith(t, b, nil, server)
				users := []session.User{advAdmin, advAnalyst, advSupport, advMixed}
				refs := map[string]*refDB{advAdmin.Name: {db: e.raw, schema: e.schema}}
				for _, u := range users[1:] {
					refs[u.Name] = newRefDB(t, b, u.Name)
				}
				n := 0
				for _, s := range advShapes {
					if s.only != "" && s.only != b.name {
						continue
					}
					n++
					t.Run(s.name, func(t *testing.T) {
						ordered := strings.Contains(strings.ToUpper(s.sql), "ORDER BY")
						for _, u := range users {
							ref := refs[u.Name]
							got := runShape(as(u), e.db, strings.ReplaceAll(s.sql, "{S}", e.schema), s.write)
							want := runShape(context.Background(), ref.db, strings.ReplaceAll(s.sql, "{S}", ref.schema), s.write)
							if got.err != nil || want.err != nil {
								t.Errorf("%s as %s: sqe: %v, reference: %v", s.sql, u.Name, got.err, want.err)
								continue
							}
							if g, w := got.String(ordered), want.String(ordered); g != w {
								t.Errorf("%s as %s:\n  sqe       %s\n  reference %s", s.sql, u.Name, g, w)
							}
							if !spellsCanary(u, s.sql) { // (a value the statement spells is the user's own)
								assertNoCanary(t, u, s.sql, append(got.rows, got.after...), nil)
							}
						}
					})
				}
				t.Logf("%s: %d shapes", b.name, n)
			})
		}
	}
}

// advShapes are the statement shapes of the issue.
var advShapes = []advShape{
	// Joins.
	{name: "inner join", sql: "SELECT o.id, c.name, c.ssn FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id"},
	{name: "left join", sql: "SELECT o.id, c.ssn, c.email FROM orders o LEFT JOIN customers c ON c.id = o.customer_id ORDER BY o.id"},
	{name: "right join", sql: "SELECT o.id, c.ssn FROM customers c RIGHT JOIN orders o ON c.id = o.customer_id ORDER BY o.id"},
	{name: "full join", only: "postgres", sql: "SELECT o.id, c.id, c.ssn FROM customers c FULL JOIN orders o ON o.customer_id = c.id ORDER BY o.id, c.id"},
	{name: "cross join", sql: "SELECT c.id, n.id FROM customers c CROSS JOIN notes n ORDER BY c.id, n.id"},
	{name: "natural join", sql: "SELECT id, name, body FROM customers NATURAL JOIN notes ORDER BY id"},
	{name: "join using", sql: "SELECT id, ssn, body FROM customers JOIN notes USING (id) ORDER BY id"},
	{name: "lateral", only: "postgres", sql: "SELECT o.id, l.ssn FROM orders o, LATERAL (SELECT c.ssn FROM customers c WHERE c.id = o.customer_id) l ORDER BY o.id"},
	{name: "left join lateral", only: "postgres", sql: "SELECT o.id, l.n FROM orders o LEFT JOIN LATERAL (SELECT count(*) AS n FROM customers c WHERE c.id <= o.customer_id) l ON true ORDER BY o.id"},
	{name: "self join", sql: "SELECT a.id, b.id FROM customers a JOIN customers b ON SUBSTR(a.ssn, 1, 3) = SUBSTR(b.ssn, 1, 3) AND a.id < b.id ORDER BY 1, 2"},
	{name: "join on masked value", sql: "SELECT c.id, v.id FROM customers c JOIN cust_v v ON v.ssn = c.ssn ORDER BY c.id"},
	{name: "three-way join", sql: "SELECT o.id, c.name, a.owner FROM orders o JOIN customers c ON c.id = o.customer_id LEFT JOIN accounts a ON a.id = c.id ORDER BY o.id"},

	// Subqueries anywhere.
	{name: "scalar subquery in select list", sql: "SELECT id, (SELECT COUNT(*) FROM customers) FROM orders ORDER BY id"},
	{name: "correlated subquery in select list", sql: "SELECT o.id, (SELECT c.ssn FROM customers c WHERE c.id = o.customer_id) FROM orders o ORDER BY o.id"},
	{name: "IN subquery", sql: "SELECT id FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE ssn LIKE '%5%') ORDER BY id"},
	{name: "NOT IN subquery", sql: "SELECT id FROM orders WHERE customer_id NOT IN (SELECT id FROM customers) ORDER BY id"},
	{name: "EXISTS", sql: "SELECT id FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.email IS NULL) ORDER BY id"},
	{name: "subquery in HAVING", sql: "SELECT customer_id, SUM(total) FROM orders GROUP BY customer_id HAVING customer_id IN (SELECT id FROM customers) ORDER BY 1"},
	{name: "subquery in ORDER BY", sql: "SELECT id FROM orders o ORDER BY (SELECT c.ssn FROM customers c WHERE c.id = o.customer_id), id"},
	{name: "subquery in JOIN ON", sql: "SELECT o.id, c.id FROM orders o JOIN customers c ON c.id = o.customer_id AND c.id IN (SELECT id FROM accounts) ORDER BY o.id"},
	{name: "subquery over a mapping-filtered table", sql: "SELECT id FROM customers WHERE id IN (SELECT id FROM accounts WHERE region = 'EU') ORDER BY id"},

	// Derived tables and CTEs.
	{name: "derived table", sql: "SELECT d.id, d.ssn FROM (SELECT id, ssn FROM customers WHERE id > 1) d ORDER BY d.id"},
	{name: "nested derived tables", sql: "SELECT * FROM (SELECT * FROM (SELECT id, ssn, email FROM customers) x) y ORDER BY id"},
	{name: "CTE", sql: "WITH x AS (SELECT id, ssn FROM customers) SELECT * FROM x ORDER BY id"},
	{name: "several CTEs", sql: "WITH x AS (SELECT id, ssn FROM customers), y AS (SELECT id FROM x WHERE ssn LIKE '%1%') SELECT * FROM y ORDER BY id"},
	{name: "CTE referenced twice", sql: "WITH x AS (SELECT id, ssn FROM customers) SELECT a.id, b.ssn FROM x a JOIN x b ON b.id = a.id ORDER BY a.id"},
	{name: "CTE shadowing a table", sql: "WITH customers AS (SELECT id, ssn FROM customers WHERE id < 5) SELECT * FROM customers ORDER BY id"},
	{name: "recursive CTE", sql: "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 6) SELECT r.n, c.ssn FROM r LEFT JOIN customers c ON c.id = r.n ORDER BY r.n"},
	{name: "recursive CTE over the table", sql: "WITH RECURSIVE r AS (SELECT id, ssn FROM customers WHERE id = 1 UNION ALL SELECT c.id, c.ssn FROM customers c JOIN r ON c.id = r.id + 1) SELECT * FROM r ORDER BY id"},

	// Set operations.
	{name: "UNION with a visible table", sql: "SELECT ssn FROM customers UNION SELECT body FROM notes ORDER BY 1"},
	{name: "UNION ALL", sql: "SELECT id, ssn FROM customers UNION ALL SELECT id, email FROM customers ORDER BY 1, 2"},
	{name: "UNION in a derived table", sql: "SELECT COUNT(*) FROM (SELECT id FROM customers UNION SELECT customer_id FROM orders) u"},
	{name: "INTERSECT", sql: "SELECT id FROM customers INTERSECT SELECT customer_id FROM orders ORDER BY 1"},
	{name: "EXCEPT", sql: "SELECT id FROM customers EXCEPT SELECT id FROM notes ORDER BY 1"},
	{name: "set operations at depth", only: "postgres", sql: "(SELECT id FROM customers EXCEPT SELECT id FROM customers WHERE ssn LIKE '%3%') UNION (SELECT id FROM notes INTERSECT SELECT id FROM customers) ORDER BY 1"},

	// Windows, grouping, DISTINCT on masked columns.
	{name: "window over a masked column", sql: "SELECT id, ROW_NUMBER() OVER (ORDER BY ssn) FROM customers ORDER BY id"},
	{name: "window partitioned", sql: "SELECT id, RANK() OVER (PARTITION BY region ORDER BY email, id) FROM customers ORDER BY id"},
	{name: "window aggregate", sql: "SELECT id, COUNT(*) OVER (), SUM(id) OVER (ORDER BY id) FROM customers ORDER BY id"},
	{name: "GROUP BY masked column", sql: "SELECT ssn, COUNT(*) FROM customers GROUP BY ssn ORDER BY ssn"},
	{name: "GROUP BY expression over masked column", sql: "SELECT SUBSTR(ssn, 1, 3), COUNT(*) FROM customers GROUP BY SUBSTR(ssn, 1, 3) ORDER BY 1"},
	{name: "HAVING on masked column", sql: "SELECT region, COUNT(*) FROM customers GROUP BY region HAVING MAX(ssn) LIKE '%5%' ORDER BY region"},
	{name: "DISTINCT on masked column", sql: "SELECT DISTINCT SUBSTR(ssn, 1, 4) FROM customers ORDER BY 1"},
	{name: "DISTINCT ON", only: "postgres", sql: "SELECT DISTINCT ON (region) region, id, ssn FROM customers ORDER BY region, id"},
	{name: "aggregates", sql: "SELECT COUNT(*), COUNT(email), MIN(ssn), MAX(name) FROM customers"},

	// Predicates, functions.
	{name: "WHERE on masked column", sql: "SELECT id FROM customers WHERE ssn LIKE 'xxx%' OR ssn = '314-15-9265' ORDER BY id"},
	{name: "WHERE on masked NULL", sql: "SELECT id FROM customers WHERE email IS NULL ORDER BY id"},
	{name: "string functions", sql: "SELECT id, UPPER(ssn), LENGTH(ssn), REPLACE(ssn, '-', ''), CONCAT(name, '/', COALESCE(email, '-')) FROM customers ORDER BY id"},
	{name: "CASE over masked column", sql: "SELECT id, CASE WHEN ssn LIKE 'xxx%' THEN 'masked' ELSE 'raw' END FROM customers ORDER BY id"},
	{name: "JSON (MySQL)", only: "mysql", sql: "SELECT id, JSON_OBJECT('ssn', ssn, 'email', email) FROM customers ORDER BY id"},
	{name: "JSON extract (MySQL)", only: "mysql", sql: "SELECT id, JSON_UNQUOTE(JSON_EXTRACT(JSON_OBJECT('s', ssn), '$.s')) FROM customers ORDER BY id"},
	{name: "GROUP_CONCAT", only: "mysql", sql: "SELECT GROUP_CONCAT(ssn ORDER BY id SEPARATOR '|') FROM customers"},
	{name: "JSON (PostgreSQL)", only: "postgres", sql: "SELECT id, json_build_object('ssn', ssn, 'email', email)::text FROM customers ORDER BY id"},
	{name: "row_to_json", only: "postgres", sql: "SELECT row_to_json(c)::text FROM (SELECT id, ssn, email FROM customers) c ORDER BY 1"},
	{name: "string_agg", only: "postgres", sql: "SELECT string_agg(ssn, '|' ORDER BY id) FROM customers"},
	{name: "VALUES list", only: "postgres", sql: "SELECT v.x, c.ssn FROM (VALUES (1, 'a'), (4, 'b'), (9, 'c')) v(id, x) LEFT JOIN customers c ON c.id = v.id ORDER BY v.x"},
	{name: "VALUES in a derived table", sql: "SELECT v.x, c.id FROM (SELECT 'xxx-xx-9265' AS x UNION ALL SELECT '314-15-9265') v LEFT JOIN customers c ON c.ssn = v.x ORDER BY v.x"},
	{name: "placeholder-free LIMIT OFFSET", sql: "SELECT id, ssn FROM customers ORDER BY ssn LIMIT 2 OFFSET 1"},

	// Locking reads, TABLE, names.
	{name: "FOR UPDATE", sql: "SELECT id, ssn FROM customers WHERE id < 3 ORDER BY id FOR UPDATE"},
	{name: "FOR UPDATE of a mapping-filtered table", sql: "SELECT id, owner FROM accounts ORDER BY id FOR UPDATE"},
	{name: "FOR SHARE", only: "postgres", sql: "SELECT id, ssn FROM customers ORDER BY id FOR SHARE"},
	{name: "LOCK IN SHARE MODE", only: "mysql", sql: "SELECT id, ssn FROM customers ORDER BY id LOCK IN SHARE MODE"},
	{name: "TABLE", only: "postgres", sql: "TABLE cust_v"},
	{name: "schema-qualified", sql: "SELECT c.id, c.ssn FROM {S}.customers c ORDER BY c.id"},
	{name: "schema-qualified column", sql: "SELECT {S}.customers.id, {S}.customers.ssn FROM {S}.customers ORDER BY 1"},
	{name: "quoted names (MySQL)", only: "mysql", sql: "SELECT `c`.`ssn` FROM `{S}`.`customers` AS `c` ORDER BY `c`.`id`"},
	{name: "quoted names (PostgreSQL)", only: "postgres", sql: `SELECT "c"."ssn" FROM "{S}"."customers" AS "c" ORDER BY "c"."id"`},
	{name: "case folding (MySQL columns)", only: "mysql", sql: "SELECT ID, SSN, Email FROM customers ORDER BY Id"},
	{name: "case folding (PostgreSQL)", only: "postgres", sql: "SELECT ID, SSN, Email FROM CUSTOMERS ORDER BY Id"},
	{name: "view", sql: "SELECT id, name, ssn, email FROM cust_v ORDER BY id"},
	{name: "view joined to its table", sql: "SELECT v.id, c.ssn FROM cust_v v JOIN customers c ON c.id = v.id ORDER BY 1"},

	// Writes.
	{name: "INSERT VALUES", write: true, sql: "INSERT INTO notes (id, body) VALUES (7, 'seven')"},
	{name: "INSERT VALUES into the policed table", write: true, sql: "INSERT INTO customers (id, name, region) VALUES (9, 'new', 'EU')"},
	{name: "INSERT SELECT into a visible table", write: true, sql: "INSERT INTO notes (id, body) SELECT id + 100, CONCAT(ssn, '/', COALESCE(email, '-')) FROM customers"},
	{name: "INSERT SELECT with a subquery", write: true, sql: "INSERT INTO notes (id, body) VALUES (200, (SELECT MAX(ssn) FROM customers))"},
	{name: "UPDATE copying a masked column", write: true, sql: "UPDATE customers SET name = ssn WHERE id < 3"},
	{name: "UPDATE with a masked predicate", write: true, sql: "UPDATE customers SET name = 'hit' WHERE ssn LIKE 'xxx%' OR ssn LIKE '3%'"},
	{name: "UPDATE every admitted row", write: true, sql: "UPDATE customers SET region = region"},
	{name: "UPDATE of a mapping-filtered table", write: true, sql: "UPDATE accounts SET owner = CONCAT(owner, '!') WHERE id > 1"},
	{name: "UPDATE from a subquery", write: true, sql: "UPDATE notes SET body = (SELECT ssn FROM customers WHERE id = 1) WHERE id = 1"},
	{name: "DELETE", write: true, sql: "DELETE FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > 250)"},
	{name: "DELETE of a mapping-filtered table", write: true, sql: "DELETE FROM accounts WHERE owner LIKE 'own%'"},
	{name: "view UPDATE", write: true, sql: "UPDATE cust_v SET name = ssn WHERE id = 2"},
	{name: "ON DUPLICATE KEY UPDATE", only: "mysql", write: true, sql: "INSERT INTO notes (id, body) SELECT id, ssn FROM customers ON DUPLICATE KEY UPDATE body = VALUES(body)"},
	{name: "REPLACE", only: "mysql", write: true, sql: "REPLACE INTO notes (id, body) SELECT id, ssn FROM customers"},
	{name: "multi-table UPDATE", only: "mysql", write: true, sql: "UPDATE notes n JOIN customers c ON c.id = n.id SET n.body = c.ssn"},
	{name: "multi-table UPDATE of two targets", only: "mysql", write: true, sql: "UPDATE customers c JOIN orders o ON o.customer_id = c.id SET c.name = c.ssn, o.total = o.total + 1 WHERE o.total > 150"},
	{name: "multi-table UPDATE of a filtered target", only: "mysql", write: true, sql: "UPDATE accounts a JOIN orders o ON o.customer_id = a.id SET a.owner = 'joined'"},
	{name: "multi-table DELETE", only: "mysql", write: true, sql: "DELETE o FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.ssn LIKE '%1%'"},
	{name: "multi-table DELETE of two targets", only: "mysql", write: true, sql: "DELETE n, c FROM notes n JOIN customers c ON c.id = n.id"},
	{name: "ON CONFLICT DO UPDATE", only: "postgres", write: true, sql: "INSERT INTO notes (id, body) SELECT id, ssn FROM customers ON CONFLICT (id) DO UPDATE SET body = excluded.body"},
	{name: "ON CONFLICT DO NOTHING", only: "postgres", write: true, sql: "INSERT INTO notes (id, body) SELECT id, email FROM customers ON CONFLICT DO NOTHING"},
	{name: "UPDATE FROM", only: "postgres", write: true, sql: "UPDATE notes n SET body = c.ssn FROM customers c WHERE c.id = n.id"},
	{name: "UPDATE FROM into the filtered table", only: "postgres", write: true, sql: "UPDATE accounts a SET owner = o.total::text FROM orders o WHERE o.customer_id = a.id"},
	{name: "DELETE USING", only: "postgres", write: true, sql: "DELETE FROM orders o USING customers c WHERE c.id = o.customer_id AND c.ssn LIKE '%8%'"},
	{name: "MERGE", only: "postgres", write: true, sql: "MERGE INTO notes n USING customers c ON n.id = c.id WHEN MATCHED THEN UPDATE SET body = c.ssn WHEN NOT MATCHED THEN INSERT (id, body) VALUES (c.id, COALESCE(c.email, c.ssn))"},
	{name: "MERGE into the filtered table", only: "postgres", write: true, sql: "MERGE INTO accounts a USING orders o ON a.id = o.customer_id WHEN MATCHED THEN UPDATE SET owner = 'merged'"},
	{name: "MERGE deleting", only: "postgres", write: true, sql: "MERGE INTO customers c USING (SELECT 1 AS id UNION ALL SELECT 4) s ON c.id = s.id WHEN MATCHED THEN DELETE"},
	{name: "RETURNING", only: "postgres", write: true, sql: "UPDATE customers SET name = 'r' WHERE id > 1 RETURNING id, name, ssn, email"},
	{name: "RETURNING *", only: "postgres", write: true, sql: "DELETE FROM customers WHERE id IN (3, 4) RETURNING *"},
	{name: "INSERT RETURNING", only: "postgres", write: true, sql: "INSERT INTO notes (id, body) SELECT id + 10, ssn FROM customers RETURNING id, body"},
	{name: "data-modifying CTE", only: "postgres", write: true, sql: "WITH u AS (UPDATE customers SET name = 'w' RETURNING id, ssn) SELECT * FROM u ORDER BY id"},
}

// TestShapesNameResolution: unqualified names resolve where the server
// resolves them (USE db, search_path), and where sqe cannot tell which
// table a name is, it refuses.
func TestShapesNameResolution(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newAdvEnv(t, b, nil)
			ctx := as(advSupport)
			conn, err := e.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			switch b.name {
			case "mysql":
				// Another database with a customers table of its own: after
				// USE it, the unqualified name is that table, under that
				// table's policy (none: default deny).
				other, otherName := testdb.NewMySQLDatabase(t)
				testdb.Exec(t, testdb.OpenMySQL(t, other), "CREATE TABLE customers (id INT, ssn VARCHAR(11))", "INSERT INTO customers VALUES (1, 'OTHER-DB')")
				if _, err := conn.ExecContext(ctx, "USE "+otherName); err != nil {
					t.Fatal(err)
				}
				if _, _, err := query(ctx, conn, "SELECT ssn FROM customers"); !errors.Is(err, sqe.ErrAccessDenied) || !strings.Contains(err.Error(), otherName) {
					t.Fatalf("after USE, customers is the other database's table: %v", err)
				}
				rows, _, err := query(ctx, conn, "SELECT ssn FROM "+e.schema+".customers WHERE id = 1")
				if err != nil || len(rows) != 1 || rows[0][0] != "xxx-xx-9265" {
					t.Fatalf("qualified after USE: %v %v", rows, err)
				}
				if _, err := conn.ExecContext(ctx, "USE "+e.schema); err != nil {
					t.Fatal(err)
				}
				rows, _, err = query(ctx, conn, "SELECT ssn FROM customers WHERE id = 1")
				if err != nil || len(rows) != 1 || rows[0][0] != "xxx-xx-9265" {
					t.Fatalf("back in the fixture's database: %v %v", rows, err)
				}
				// Without a current database an unqualified name names nothing.
				cfg := strings.Replace(e.dsn, "/"+e.schema+"?", "/?", 1)
				nodb, err := sqe.Open("mysql", cfg, sqe.WithPolicyFile(e.policy))
				if err != nil {
					t.Fatal(err)
				}
				defer nodb.Close()
				if _, _, err := query(ctx, nodb, "SELECT ssn FROM customers"); !errors.Is(err, sqe.ErrUnsupported) {
					t.Fatalf("no current database: %v", err)
				}
			case "postgres":
				// A schema earlier in the search path with a table of the
				// same name: the server reads that one, and so does sqe.
				testdb.Exec(t, e.raw, "CREATE SCHEMA shadow", "CREATE TABLE shadow.customers (id INT, ssn VARCHAR(11))",
					"INSERT INTO shadow.customers VALUES (1, 'SHADOW-ROW')")
				if _, err := conn.ExecContext(ctx, "SET search_path = shadow, public"); err != nil {
					t.Fatal(err)
				}
				if _, _, err := query(ctx, conn, "SELECT ssn FROM customers"); !errors.Is(err, sqe.ErrAccessDenied) || !strings.Contains(err.Error(), "shadow.customers") {
					t.Fatalf("search_path: customers is shadow.customers: %v", err)
				}
				rows, _, err := query(ctx, conn, "SELECT ssn FROM public.customers WHERE id = 1")
				if err != nil || len(rows) != 1 || rows[0][0] != "xxx-xx-9265" {
					t.Fatalf("qualified: %v %v", rows, err)
				}
				if _, err := conn.ExecContext(ctx, "SET search_path = public"); err != nil {
					t.Fatal(err)
				}
				rows, _, err = query(ctx, conn, "SELECT ssn FROM customers WHERE id = 1")
				if err != nil || len(rows) != 1 || rows[0][0] != "xxx-xx-9265" {
					t.Fatalf("search_path public: %v %v", rows, err)
				}
				// A name in no schema of the path is refused before the
				// server could pick one.
				mark := e.mark(t)
				needle := testdb.UniqueName("advn")
				if _, _, err := query(ctx, conn, "SELECT '"+needle+"' FROM nosuch_table"); !errors.Is(err, sqe.ErrUnsupported) {
					t.Fatalf("unknown table: %v", err)
				}
				if mark.Executed(needle) {
					t.Fatal("a statement naming an unknown table was run by the server")
				}
			}
		})
	}
}

func spellsCanary(u session.User, q string) bool {
	for _, c := range canaries[u.Name] {
		if strings.Contains(q, c) {
			return true
		}
	}
	return false
}
