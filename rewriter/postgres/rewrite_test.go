package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/session"
)

// simpleDecisions use short masks so that expected outputs stay readable:
// customers is filtered, masked and has a restricted column; region_map is
// a mapping table with a filter on the caller's role; audit is denied.
func simpleDecisions() map[string]*policy.Decision {
	return map[string]*policy.Decision{
		"shop.customers": {
			Allowed:    dialecttest.AllAccess(),
			RowFilters: []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}},
			Masks: map[string]policy.Mask{
				"ssn":   {Type: "CUSTOM", Expr: "right({col}, 4)", Policy: "ssn-last4"},
				"email": {Type: "MASK_NULL", Policy: "email-null"},
			},
			Restricted: map[string]string{"salary": "no-salary"},
		},
		"shop.region_map": {
			Allowed:    dialecttest.AllAccess(),
			RowFilters: []policy.RowFilter{{Expr: "role = current_role", Policy: "own-role"}},
		},
		"shop.audit": {
			Allowed:  dialecttest.AccessExcept(policy.Select, policy.Update),
			DeniedBy: map[policy.Access]string{policy.Select: "no-audit", policy.Update: "no-audit-writes"},
		},
	}
}

// derivedC is the read form of shop.customers under simpleDecisions: the
// masks are computed only where the filter holds.
const derivedC = `(SELECT shop.customers.id AS id, shop.customers.name AS name, shop.customers.region AS region, ` +
	`CASE WHEN shop.customers.region = 'EU' THEN "right"(shop.customers.ssn, 4) END AS ssn, ` +
	`NULL::varchar(60) AS email FROM shop.customers WHERE shop.customers.region = 'EU')`

// derivedCUnguarded is derivedC with its masks computed on every row, as
// for a filter that is not simple.
const derivedCUnguarded = `(SELECT shop.customers.id AS id, shop.customers.name AS name, shop.customers.region AS region, ` +
	`"right"(shop.customers.ssn, 4) AS ssn, NULL::varchar(60) AS email FROM shop.customers WHERE shop.customers.region = 'EU')`

// derivedCFenced is derivedC fenced (see needsFence).
var derivedCFenced = derivedC[:len(derivedC)-1] + " OFFSET 0)"

// derivedM is the read form of shop.region_map for the test user.
const derivedM = `(SELECT shop.region_map.role AS role, shop.region_map.region AS region FROM shop.region_map WHERE shop.region_map.role = 'support')`

func TestGolden(t *testing.T) {
	cases := []struct{ name, sql, want string }{
		{"plain", "SELECT * FROM customers",
			"SELECT * FROM {C} customers"},
		{"passthrough qualified", "SELECT id FROM orders",
			"SELECT id FROM shop.orders"},
		{"alias kept", "SELECT c.name FROM customers AS c WHERE c.ssn = '1234' ORDER BY c.email",
			"SELECT c.name FROM {C} c WHERE c.ssn = '1234' ORDER BY c.email"},
		{"schema-qualified column", "SELECT shop.customers.name FROM shop.customers",
			"SELECT customers.name FROM {C} customers"},
		{"inner join", "SELECT c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id",
			"SELECT c.name, o.total FROM shop.orders o JOIN {C} c ON c.id = o.customer_id"},
		{"left join using", "SELECT * FROM orders LEFT JOIN customers USING (id)",
			"SELECT * FROM shop.orders LEFT JOIN {C} customers USING (id)"},
		{"full join", "SELECT * FROM orders o FULL JOIN customers c ON o.customer_id = c.id",
			"SELECT * FROM shop.orders o FULL JOIN {C} c ON o.customer_id = c.id"},
		{"cross and natural", "SELECT * FROM customers CROSS JOIN orders NATURAL JOIN items",
			"SELECT * FROM {C} customers CROSS JOIN shop.orders NATURAL JOIN public.items"},
		{"lateral", "SELECT * FROM orders o, LATERAL (SELECT name FROM customers c WHERE c.id = o.customer_id) l",
			"SELECT * FROM shop.orders o, LATERAL (SELECT name FROM {CF} c WHERE c.id = o.customer_id) l"},
		{"scalar subquery", "SELECT (SELECT max(ssn) FROM customers) FROM orders",
			"SELECT (SELECT max(ssn) FROM {CF} customers) FROM shop.orders"},
		{"in subquery", "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers)",
			"SELECT * FROM shop.orders WHERE customer_id IN (SELECT id FROM {CF} customers)"},
		{"exists correlated", "SELECT 1 FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
			"SELECT 1 FROM shop.orders o WHERE EXISTS (SELECT 1 FROM {CF} c WHERE c.id = o.customer_id)"},
		{"cte", "WITH x AS (SELECT * FROM customers) SELECT * FROM x",
			"WITH x AS (SELECT * FROM {CF} customers) SELECT * FROM x"},
		{"cte shadows table", "WITH customers AS (SELECT 1 AS id) SELECT * FROM customers",
			"WITH customers AS (SELECT 1 AS id) SELECT * FROM customers"},
		{"cte body reads the table it shadows", "WITH customers AS (SELECT id FROM customers) SELECT * FROM customers",
			"WITH customers AS (SELECT id FROM {CF} customers) SELECT * FROM customers"},
		{"recursive cte sees itself", "WITH RECURSIVE customers(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM customers WHERE id < 3) SELECT * FROM customers",
			"WITH RECURSIVE customers(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM customers WHERE id < 3) SELECT * FROM customers"},
		{"qualified name is never a cte", "WITH customers AS (SELECT 1 AS id) SELECT * FROM shop.customers",
			"WITH customers AS (SELECT 1 AS id) SELECT * FROM {CF} customers"},
		{"union", "SELECT name FROM customers UNION SELECT label FROM items",
			"SELECT name FROM {CF} customers UNION SELECT label FROM public.items"},
		{"derived table", "SELECT * FROM (SELECT ssn FROM customers) d",
			"SELECT * FROM (SELECT ssn FROM {CF} customers) d"},
		{"mapping table in filter", "SELECT * FROM region_map",
			"SELECT * FROM {M} region_map"},
		{"placeholders", "SELECT name FROM customers WHERE id = $1 AND name LIKE $2",
			"SELECT name FROM {C} customers WHERE id = $1 AND CASE WHEN customers.region = 'EU' THEN name LIKE $2 ELSE false END"},
		{"placeholders guarded in a join", "SELECT name FROM customers JOIN orders ON orders.customer_id = customers.id WHERE customers.id = $1 AND name LIKE $2",
			"SELECT name FROM {C} customers JOIN shop.orders ON orders.customer_id = customers.id WHERE customers.id = $1 AND CASE WHEN customers.region = 'EU' THEN name LIKE $2 ELSE false END"},
		{"a join's conjunct guarded by the filters it reads", "SELECT a.id FROM customers a JOIN customers b ON a.id < b.id JOIN orders o ON o.customer_id = a.id WHERE a.name LIKE $1 AND length(b.name) = o.total AND o.total / 2 > 1",
			"SELECT a.id FROM {C} a JOIN {C} b ON a.id < b.id JOIN shop.orders o ON o.customer_id = a.id WHERE CASE WHEN a.region = 'EU' THEN a.name LIKE $1 ELSE false END AND CASE WHEN b.region = 'EU' THEN length(b.name) = o.total ELSE false END AND (o.total / 2) > 1"},
		{"an outer join keeps the fence", "SELECT name FROM customers LEFT JOIN orders ON orders.customer_id = customers.id WHERE name LIKE $1",
			"SELECT name FROM {CF} customers LEFT JOIN shop.orders ON orders.customer_id = customers.id WHERE name LIKE $1"},
		{"pg_catalog implicitly first", "SELECT relname FROM pg_class",
			"SELECT relname FROM pg_catalog.pg_class"},
		{"comments dropped", "SELECT 1 /* hint */ -- tail",
			"SELECT 1"},
		{"values", "VALUES (1, 'a')",
			"VALUES (1, 'a')"},
		{"update", "UPDATE customers SET name = ssn WHERE email = 'x' OR id = 2",
			`UPDATE shop.customers SET name = "right"(customers.ssn, 4) WHERE customers.region = 'EU' AND CASE WHEN customers.region = 'EU' THEN NULL::varchar(60) = 'x' OR id = 2 ELSE false END`},
		{"update alias", "UPDATE customers c SET name = upper(c.ssn)",
			`UPDATE shop.customers c SET name = upper("right"(c.ssn, 4)) WHERE c.region = 'EU'`},
		{"update from", "UPDATE orders o SET total = 0 FROM customers c WHERE c.id = o.customer_id AND c.ssn = '1'",
			"UPDATE shop.orders o SET total = 0 FROM {CF} c WHERE c.id = o.customer_id AND c.ssn = '1'"},
		{"delete", "DELETE FROM customers WHERE ssn = '1234'",
			`DELETE FROM shop.customers WHERE customers.region = 'EU' AND CASE WHEN customers.region = 'EU' THEN "right"(customers.ssn, 4) = '1234' ELSE false END`},
		{"delete without where", "DELETE FROM customers",
			"DELETE FROM shop.customers WHERE customers.region = 'EU'"},
		{"delete using", "DELETE FROM orders o USING customers c WHERE c.id = o.customer_id",
			"DELETE FROM shop.orders o USING {CF} c WHERE c.id = o.customer_id"},
		{"insert values", "INSERT INTO customers (id, name) VALUES ($1, $2)",
			"INSERT INTO shop.customers (id, name) VALUES ($1, $2)"},
		{"insert select", "INSERT INTO orders (id, customer_id, total) SELECT id, id, 0 FROM customers",
			"INSERT INTO shop.orders (id, customer_id, total) SELECT id, id, 0 FROM {CF} customers"},
		{"insert returning masked", "INSERT INTO customers (id, ssn) VALUES (1, '123-45-6789') RETURNING id, ssn",
			`INSERT INTO shop.customers (id, ssn) VALUES (1, '123-45-6789') RETURNING id, "right"(customers.ssn, 4) AS ssn`},
		{"returning star", "DELETE FROM customers c WHERE id = 1 RETURNING *",
			`DELETE FROM shop.customers c WHERE c.region = 'EU' AND id = 1 RETURNING c.id, c.name, c.region, "right"(c.ssn, 4) AS ssn, NULL::varchar(60) AS email`},
		{"returning target star", "UPDATE customers c SET name = 'x' RETURNING c.*",
			`UPDATE shop.customers c SET name = 'x' WHERE c.region = 'EU' RETURNING c.id, c.name, c.region, "right"(c.ssn, 4) AS ssn, NULL::varchar(60) AS email`},
		{"masked column qualified in write subquery", "UPDATE customers c SET name = 'x' WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND c.ssn = 'x')",
			`UPDATE shop.customers c SET name = 'x' WHERE c.region = 'EU' AND CASE WHEN c.region = 'EU' THEN EXISTS (SELECT 1 FROM shop.orders o WHERE o.customer_id = c.id AND "right"(c.ssn, 4) = 'x') ELSE false END`},
		{"data-modifying cte", "WITH d AS (DELETE FROM customers WHERE id = 1 RETURNING ssn) SELECT * FROM d",
			`WITH d AS (DELETE FROM shop.customers WHERE customers.region = 'EU' AND id = 1 RETURNING "right"(customers.ssn, 4) AS ssn) SELECT * FROM d`},
		{"create table as", "CREATE TABLE copy AS SELECT * FROM customers",
			"CREATE TABLE shop.copy AS SELECT * FROM {CF} customers"},
		{"create view", "CREATE VIEW v AS SELECT name FROM customers",
			"CREATE VIEW shop.v AS SELECT name FROM {CF} customers"},
		{"declare cursor", "DECLARE cur CURSOR FOR SELECT ssn FROM customers",
			"DECLARE sqe6122abab967d_cur CURSOR FOR SELECT ssn FROM {CF} customers"},
		{"explain", "EXPLAIN SELECT * FROM orders",
			"EXPLAIN SELECT * FROM shop.orders"},
		{"context functions", "SELECT current_user, session_user, current_role, invoker_role()",
			`SELECT E'al''ice\\' AS "current_user", E'al''ice\\' AS "session_user", 'support' AS "current_role", 'support' AS invoker_role`},
		{"multiple statements", "SELECT 1; SELECT id FROM orders",
			"SELECT 1; SELECT id FROM shop.orders"},
	}
	dec := simpleDecisions()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := rewriteSQL(t, c.sql, dec)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.NewReplacer("{CF}", derivedCFenced, "{C}", derivedC, "{M}", derivedM).Replace(c.want)
			if out != want {
				t.Fatalf("\n got: %s\nwant: %s", out, want)
			}
		})
	}
}

// assertDerived checks from the printed output that every reference to
// shop.customers is the only FROM entry of a derived table (or a write
// target), that the row filter is there and that the restricted column is
// gone.
func assertDerived(t *testing.T, out string) {
	t.Helper()
	tree := mustParse(t, out)
	bases := map[*pg.RangeVar]bool{}
	n := 0
	for _, raw := range tree.Stmts {
		_ = walk(raw, func(m protoMessage, _ *pg.Node) (bool, error) {
			switch e := m.(type) {
			case *pg.RangeSubselect:
				if sel := e.Subquery.GetSelectStmt(); sel != nil && len(sel.FromClause) == 1 {
					if rv := sel.FromClause[0].GetRangeVar(); rv != nil {
						bases[rv] = true
					}
				}
			case *pg.InsertStmt:
				bases[e.Relation] = true
			case *pg.UpdateStmt:
				bases[e.Relation] = true
			case *pg.DeleteStmt:
				bases[e.Relation] = true
			}
			return true, nil
		})
		for _, rv := range rangeVars(raw) {
			if rv.Relname != "customers" {
				continue
			}
			if rv.Schemaname == "" {
				continue // a CTE of that name
			}
			n++
			if !bases[rv] {
				t.Fatalf("a reference to customers is not a derived table:\n%s", dialecttest.Short(out))
			}
		}
	}
	if n == 0 {
		t.Fatalf("no reference to customers:\n%s", dialecttest.Short(out))
	}
	if !strings.Contains(out, "region = 'EU'") {
		t.Fatalf("row filter missing:\n%s", dialecttest.Short(out))
	}
	if strings.Contains(out, "salary") {
		t.Fatalf("restricted column in output:\n%s", dialecttest.Short(out))
	}
}

func TestReadsEverywhereUseTheDerivedTable(t *testing.T) {
	cases := []string{
		"SELECT * FROM customers",
		"SELECT * FROM shop.customers c",
		"SELECT * FROM ONLY customers",
		"TABLE customers",
		"SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM orders o LEFT JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM orders o RIGHT JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM orders o FULL JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM orders CROSS JOIN customers",
		"SELECT * FROM orders NATURAL JOIN customers",
		"SELECT * FROM orders JOIN customers USING (id)",
		"SELECT * FROM (orders JOIN customers USING (id)) AS j",
		"SELECT * FROM orders o, LATERAL (SELECT * FROM customers c WHERE c.id = o.customer_id) l",
		"SELECT * FROM orders o JOIN LATERAL (SELECT * FROM customers c WHERE c.id = o.customer_id) l ON true",
		"SELECT (SELECT name FROM customers c WHERE c.id = o.customer_id) FROM orders o",
		"SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers)",
		"SELECT * FROM orders WHERE customer_id = ANY (SELECT id FROM customers)",
		"SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
		"SELECT * FROM orders o WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
		"SELECT customer_id, count(*) FROM orders GROUP BY customer_id HAVING count(*) > (SELECT count(*) FROM customers)",
		"SELECT * FROM orders ORDER BY (SELECT max(name) FROM customers)",
		"SELECT * FROM orders o JOIN items i ON i.id = (SELECT max(id) FROM customers)",
		"SELECT ARRAY(SELECT ssn FROM customers)",
		"SELECT CASE WHEN EXISTS (SELECT 1 FROM customers) THEN 1 END",
		"SELECT coalesce((SELECT name FROM customers LIMIT 1), 'none')",
		"SELECT sum(total) OVER (PARTITION BY (SELECT 1 FROM customers LIMIT 1)) FROM orders",
		"SELECT * FROM generate_series(1, (SELECT count(*) FROM customers)::int) g",
		"SELECT * FROM orders WHERE total > ALL (SELECT id FROM customers) LIMIT (SELECT count(*) FROM customers)",
		"WITH x AS (SELECT * FROM customers) SELECT * FROM x",
		"WITH x AS (SELECT * FROM orders), y AS (SELECT * FROM customers JOIN x USING (id)) SELECT * FROM y",
		"WITH x AS MATERIALIZED (SELECT * FROM customers) SELECT * FROM x",
		"WITH customers AS (SELECT * FROM customers) SELECT * FROM customers",
		"WITH RECURSIVE r(id) AS (SELECT id FROM customers UNION ALL SELECT r.id FROM r JOIN customers c ON c.id = r.id + 1) SELECT * FROM r",
		"SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT * FROM x) d",
		"SELECT name FROM customers UNION SELECT label FROM items",
		"SELECT name FROM customers UNION ALL SELECT name FROM customers",
		"SELECT name FROM items INTERSECT SELECT name FROM customers",
		"SELECT label FROM items EXCEPT SELECT name FROM customers",
		"(SELECT name FROM customers UNION SELECT label FROM items) INTERSECT (SELECT name FROM customers EXCEPT SELECT 'x') ORDER BY 1",
		"SELECT * FROM (SELECT * FROM (SELECT ssn FROM customers) a) b",
		"SELECT * FROM (VALUES (1)) v(x) WHERE x IN (SELECT id FROM customers)",
		"VALUES ((SELECT count(*) FROM customers))",
		"SELECT * FROM customers c WHERE c.ssn LIKE '%1' ORDER BY c.email",
		"SELECT * FROM customers FOR UPDATE",
		"SELECT * FROM customers c FOR SHARE OF c",
		"INSERT INTO orders SELECT id, id, 0 FROM customers",
		"INSERT INTO orders (id) VALUES ((SELECT max(id) FROM customers))",
		"WITH x AS (SELECT id FROM customers) INSERT INTO orders (id) SELECT id FROM x",
		"UPDATE orders o SET total = 0 FROM customers c WHERE c.id = o.customer_id",
		"UPDATE orders SET total = (SELECT count(*) FROM customers)",
		"UPDATE orders SET (total, customer_id) = (SELECT count(*), max(id) FROM customers)",
		"DELETE FROM orders o USING customers c WHERE c.id = o.customer_id",
		"DELETE FROM orders WHERE customer_id IN (SELECT id FROM customers) RETURNING (SELECT 1 FROM customers LIMIT 1)",
		"CREATE TABLE copy AS SELECT * FROM customers",
		"CREATE MATERIALIZED VIEW mv AS SELECT * FROM customers",
		"CREATE VIEW v AS SELECT * FROM customers",
		"DECLARE c CURSOR FOR SELECT * FROM customers",
		"SELECT * FROM customers; SELECT * FROM orders JOIN customers USING (id)",
		"SELECT * FROM json_to_recordset((SELECT json_agg(c) FROM customers c)) AS x(id int)",
		"SELECT * FROM XMLTABLE('/r' PASSING (SELECT xmlelement(name r, name) FROM customers LIMIT 1) COLUMNS a text PATH 'a') x",
	}
	dec := simpleDecisions()
	for _, sql := range cases {
		t.Run(sql, func(t *testing.T) {
			out, err := rewriteSQL(t, sql, dec)
			if err != nil {
				t.Fatal(err)
			}
			assertDerived(t, out)
		})
	}
}

func TestRealMaskParses(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, sql := range []string{
		"SELECT * FROM customers",
		"UPDATE customers SET name = ssn WHERE ssn LIKE '%1' RETURNING *",
		"INSERT INTO customers (id) VALUES (1) RETURNING ssn",
	} {
		out := mustRewrite(t, sql, dec)
		contains(t, out, "regexp_replace")
		lacks(t, out, "salary")
	}
}

func TestMaskedColumnReadsTheMaskedValue(t *testing.T) {
	// The outer query only sees the derived table: a predicate or an
	// ORDER BY on a masked column refers to the masked value.
	out := mustRewrite(t, "SELECT name FROM customers WHERE ssn = '123-45-6789' ORDER BY email", simpleDecisions())
	// (Read in a condition, a mask is computed only where the filter
	// holds, so the table needs no fence.)
	want := "SELECT name FROM " + derivedC + " customers WHERE ssn = '123-45-6789' ORDER BY email"
	if out != want {
		t.Fatalf("\n got: %s\nwant: %s", out, want)
	}
}

func TestStarHidesRestrictedColumns(t *testing.T) {
	out := mustRewrite(t, "SELECT * FROM customers", simpleDecisions())
	lacks(t, out, "salary")
	out = mustRewrite(t, "SELECT c.* FROM customers c", simpleDecisions())
	lacks(t, out, "salary")
}

func wantKind(t *testing.T, err error, kind error) *rewriter.Error {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want %v", err, kind)
	}
	var re *rewriter.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *rewriter.Error", err)
	}
	return re
}

func TestRestrictedColumnDenied(t *testing.T) {
	cases := []string{
		"SELECT salary FROM customers",
		"SELECT c.salary FROM customers c",
		"SELECT shop.customers.salary FROM customers",
		"SELECT name FROM customers WHERE salary > 10",
		"SELECT name FROM customers ORDER BY salary",
		"SELECT count(*) FROM customers GROUP BY salary",
		"SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.salary > o.total)",
		"SELECT (SELECT max(c.salary)) FROM customers c",
		"SELECT * FROM orders JOIN customers USING (salary)",
		"SELECT * FROM orders o JOIN customers c ON c.salary = o.total",
		"SELECT sum(id) OVER (PARTITION BY salary) FROM customers",
		"WITH x AS (SELECT salary FROM customers) SELECT 1",
		"UPDATE customers SET salary = 1",
		"UPDATE customers SET name = 'x' WHERE salary > 1",
		"UPDATE customers SET name = 'x' RETURNING salary",
		"UPDATE orders o SET total = c.salary FROM customers c",
		"DELETE FROM customers WHERE salary = 1",
		"INSERT INTO customers (id, salary) VALUES (1, 2)",
		"INSERT INTO customers VALUES (1, 'a', 'EU', 'x', 'y', 3)",
		"INSERT INTO customers SELECT * FROM customers",
		"INSERT INTO customers (id) VALUES (1) RETURNING salary",
	}
	for _, sql := range cases {
		t.Run(sql, func(t *testing.T) {
			_, err := rewriteSQL(t, sql, simpleDecisions())
			re := wantKind(t, err, policy.ErrColumnDenied)
			if re.Table != "shop.customers" || re.Column != "salary" || re.Policy != "no-salary" {
				t.Fatalf("error names %q %q %q", re.Table, re.Column, re.Policy)
			}
		})
	}
}

func TestDeniedTable(t *testing.T) {
	for sql, pol := range map[string]string{
		"SELECT * FROM audit": "no-audit",
		"SELECT * FROM orders WHERE id IN (SELECT id FROM audit)": "no-audit",
		"WITH a AS (SELECT * FROM audit) SELECT 1":                "no-audit",
		"UPDATE audit SET note = 'x'":                             "no-audit-writes",
		"INSERT INTO audit (id) VALUES (1)":                       "no-audit-writes",
		"DELETE FROM audit":                                       "no-audit-writes",
		"SELECT * FROM orders FOR UPDATE":                         "", // allowed: orders is open
	} {
		t.Run(sql, func(t *testing.T) {
			_, err := rewriteSQL(t, sql, simpleDecisions())
			if pol == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			re := wantKind(t, err, policy.ErrAccessDenied)
			if re.Table != "shop.audit" || re.Policy != pol {
				t.Fatalf("error names %q %q", re.Table, re.Policy)
			}
		})
	}
}

func TestLockingNeedsUpdate(t *testing.T) {
	dec := simpleDecisions()
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AccessExcept(policy.Update), DeniedBy: map[policy.Access]string{policy.Update: "read-only"}}
	if _, err := rewriteSQL(t, "SELECT * FROM orders", dec); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"SELECT * FROM orders FOR UPDATE",
		"SELECT * FROM orders o FOR SHARE OF o",
		"SELECT * FROM (SELECT * FROM orders) x FOR UPDATE",
	} {
		_, err := rewriteSQL(t, sql, dec)
		re := wantKind(t, err, policy.ErrAccessDenied)
		if re.Policy != "read-only" {
			t.Fatalf("%s: policy %q", sql, re.Policy)
		}
	}
}

func TestWriteRefusals(t *testing.T) {
	cases := []string{
		// whole-row references to a masked target would read raw values
		"DELETE FROM customers WHERE customers::text LIKE '%1%'",
		"DELETE FROM customers c WHERE (c).ssn = '1'",
		"DELETE FROM customers c WHERE ssn(c) = '1'",
		"UPDATE customers c SET name = 'x' RETURNING row_to_json(c)",
		"UPDATE customers c SET name = 'x' WHERE (c.*)::text <> ''",
		// an unqualified masked name in a subquery may be the target's
		"UPDATE customers c SET name = 'x' WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND ssn = 'x')",
		// ON CONFLICT DO UPDATE on a filtered table
		"INSERT INTO customers (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET name = 'x'",
		// RETURNING * with other sources
		"UPDATE customers c SET name = 'x' FROM orders o WHERE o.customer_id = c.id RETURNING *",
		// system catalogs
		"UPDATE pg_catalog.pg_class SET relname = 'x'",
		"INSERT INTO information_schema.sql_features VALUES (1)",
		"UPDATE customers SET name = 'x' WHERE CURRENT OF cur",
	}
	for _, sql := range cases {
		t.Run(sql, func(t *testing.T) {
			_, err := rewriteSQL(t, sql, simpleDecisions())
			wantKind(t, err, rewriter.ErrUnsupported)
		})
	}
}

func TestOnConflictWithoutFilterMasks(t *testing.T) {
	dec := simpleDecisions()
	c := *dec["shop.customers"]
	c.RowFilters = nil
	dec["shop.customers"] = &c
	out := mustRewrite(t, "INSERT INTO customers AS c (id, name) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET name = c.ssn || excluded.name WHERE c.email IS NOT NULL RETURNING *", dec)
	want := `INSERT INTO shop.customers AS c (id, name) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET name = "right"(c.ssn, 4) || excluded.name ` +
		`WHERE NULL::varchar(60) IS NOT NULL RETURNING c.id, c.name, c.region, "right"(c.ssn, 4) AS ssn, NULL::varchar(60) AS email`
	if out != want {
		t.Fatalf("\n got: %s\nwant: %s", out, want)
	}
	_, err := rewriteSQL(t, "INSERT INTO customers (id) VALUES (1) ON CONFLICT (salary) DO NOTHING", dec)
	wantKind(t, err, policy.ErrColumnDenied)
	_, err = rewriteSQL(t, "INSERT INTO customers (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET salary = 1", dec)
	wantKind(t, err, policy.ErrColumnDenied)
}

func TestFilterWithOrKeepsPrecedence(t *testing.T) {
	dec := simpleDecisions()
	c := *dec["shop.customers"]
	c.RowFilters = []policy.RowFilter{{Expr: "region = 'EU' OR region = 'UK'", Policy: "europe"}, {Expr: "id > 0", Policy: "positive"}}
	dec["shop.customers"] = &c
	out := mustRewrite(t, "DELETE FROM customers WHERE id = 1 OR id = 2", dec)
	// A filter with OR is not simple: it also guards the statement's condition.
	want := "DELETE FROM shop.customers WHERE ((customers.region = 'EU' OR customers.region = 'UK') AND customers.id > 0) AND " +
		"CASE WHEN (customers.region = 'EU' OR customers.region = 'UK') AND customers.id > 0 THEN id = 1 OR id = 2 ELSE false END"
	if out != want {
		t.Fatalf("\n got: %s\nwant: %s", out, want)
	}
}

func TestPlaceholdersPreserved(t *testing.T) {
	out := mustRewrite(t, "UPDATE customers SET name = $1 WHERE id = $2 AND ssn = $3 RETURNING $4::int", simpleDecisions())
	for _, p := range []string{"$1", "$2", "$3", "$4"} {
		if strings.Count(out, p) != 1 {
			t.Fatalf("placeholder %s not preserved once:\n%s", p, out)
		}
	}
	if strings.Contains(out, "$5") {
		t.Fatalf("a placeholder was added:\n%s", out)
	}
}

// constants lists the string constants of a statement in walk order.
func constants(t *testing.T, sql string) []string {
	t.Helper()
	var out []string
	_ = walk(mustParse(t, sql), func(m protoMessage, _ *pg.Node) (bool, error) {
		if c, ok := m.(*pg.A_Const); ok {
			if s := c.GetSval(); s != nil {
				out = append(out, s.Sval)
			}
		}
		return true, nil
	})
	return out
}

func TestContextFunctionsRoundTrip(t *testing.T) {
	names := []string{`o'brien`, `back\slash`, `both\'\\''`, `"dq"`, `E'x'`, `$$dollar$$`, "uni\u00e9\u4e16", `--dash`, `/*c*/`}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			for _, nonStandard := range []bool{false, true} {
				req := request("SELECT current_user, current_role WHERE current_user = 'x'", simpleDecisions())
				req.User = session.User{Name: name, PrimaryRole: name + "-role"}
				req.Session = NewSession(testCatalog().Path, nonStandard)
				res, err := rewriteReq(t, req)
				if err != nil {
					t.Fatal(err)
				}
				got := constants(t, res.SQL)
				want := []string{name, name + "-role", name, "x"}
				if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
					t.Fatalf("constants %q, want %q\n%s", got, want, res.SQL)
				}
				if strings.Contains(name, `\`) && !strings.Contains(res.SQL, "E'") {
					t.Fatalf("a backslash constant is not an escape string:\n%s", res.SQL)
				}
			}
		})
	}
	req := request("SELECT current_role, invoker_role()", nil)
	req.User = session.User{Name: "bob"}
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != `SELECT NULL AS "current_role", NULL AS invoker_role` {
		t.Fatalf("no primary role: %s", res.SQL)
	}
	req = request("SELECT current_user", nil)
	req.User = session.User{Name: "nul\x00byte"}
	_, err = rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
	// current_database() and current_schema stay.
	out := mustRewrite(t, "SELECT current_database(), current_schema, current_schema()", nil)
	if out != `SELECT current_database(), current_schema, "current_schema"()` {
		t.Fatal(out)
	}
}

func TestContextFunctionsInPolicies(t *testing.T) {
	dec := simpleDecisions()
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{
		Expr:   "EXISTS (SELECT 1 FROM region_map m WHERE m.role = current_role AND m.region = 'EU') OR current_user = 'admin'",
		Policy: "mapped",
	}}}
	req := request("SELECT total FROM orders", dec)
	req.User = session.User{Name: `ad'min`, PrimaryRole: `sup\port`}
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	want := `SELECT total FROM (SELECT shop.orders.id AS id, shop.orders.customer_id AS customer_id, shop.orders.total AS total FROM shop.orders ` +
		`WHERE EXISTS (SELECT 1 FROM (SELECT shop.region_map.role AS role, shop.region_map.region AS region FROM shop.region_map WHERE shop.region_map.role = E'sup\\port') m ` +
		`WHERE m.role = E'sup\\port' AND m.region = 'EU') OR 'ad''min' = 'admin') orders`
	if res.SQL != want {
		t.Fatalf("\n got: %s\nwant: %s", res.SQL, want)
	}
	if got := tableKeys(res.Tables); got != "shop.orders shop.region_map" {
		t.Fatalf("tables %s", got)
	}
}

func tableKeys(ts []policy.TableName) string {
	keys := make([]string, len(ts))
	for i, t := range ts {
		keys[i] = t.Key()
	}
	return strings.Join(keys, " ")
}

func TestPolicyExpressionsAreIsolated(t *testing.T) {
	dec := simpleDecisions()
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{
		Expr: "customer_id IN (SELECT m.region::int FROM region_map m)", Policy: "mapped",
	}}}
	// The application's CTE named like the mapping table is not what the
	// policy reads (fenced: a statement with a CTE is not mergeable).
	out := mustRewrite(t, "WITH region_map AS (SELECT 'support' AS role, 'x' AS region) SELECT * FROM orders", dec)
	contains(t, out, derivedM[:len(derivedM)-1]+" OFFSET 0) m")

	// Nor is a table of the session's temporary schema or search path: a
	// policy's unqualified names resolve in its own table's schema.
	req := request("SELECT * FROM shop.orders", dec)
	cat := testCatalog()
	cat.Tables["pg_temp.region_map"] = cat.Tables["shop.region_map"]
	cat.Tables["public.region_map"] = cat.Tables["shop.region_map"]
	req.Catalog = cat
	req.Session = NewSession([]string{"public", "shop"}, false)
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, res.SQL, derivedM+" m")
	lacks(t, res.SQL, "pg_temp", "public.region_map")

	// A filter naming a column its table lacks would resolve to a column
	// of the application's query on the server.
	for _, expr := range []string{
		"no_such_column = 1",
		"EXISTS (SELECT 1 FROM region_map m WHERE m.role = o.total)",
		"EXISTS (SELECT 1 FROM region_map m WHERE nothing_here = 1)",
	} {
		dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: expr, Policy: "bad"}}}
		_, err := rewriteSQL(t, "SELECT * FROM (SELECT 1 AS no_such_column, 2 AS nothing_here) o, orders", dec)
		wantKind(t, err, rewriter.ErrUnsupported)
	}

	// A policy reaching its own table again, directly or through another.
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "id IN (SELECT id FROM orders)", Policy: "self"}}}
	_, err = rewriteSQL(t, "SELECT * FROM orders", dec)
	wantKind(t, err, rewriter.ErrUnsupported)
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "id IN (SELECT id FROM public.items)", Policy: "a"}}}
	dec["public.items"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "id IN (SELECT id FROM shop.orders)", Policy: "b"}}}
	_, err = rewriteSQL(t, "SELECT * FROM orders", dec)
	wantKind(t, err, rewriter.ErrUnsupported)

	// Text that is not one expression never reaches the statement; it is
	// a defect of the policy, and the error says so and names the rule.
	for _, expr := range []string{"1) OR (1=1", "true; DROP TABLE x", "1 FROM customers", "*", "x AS y"} {
		dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: expr, Policy: "bad"}}}
		_, err := rewriteSQL(t, "SELECT * FROM orders", dec)
		wantKind(t, err, policy.ErrPolicy)
		if !strings.Contains(err.Error(), "policy error") || !strings.Contains(err.Error(), `"bad"`) {
			t.Fatalf("%s: %v", expr, err)
		}
	}
}

func TestPolicyDepthLimit(t *testing.T) {
	dec := map[string]*policy.Decision{}
	cat := testCatalog()
	for i := 0; i <= rewriter.MaxPolicyDepth+1; i++ {
		name := "t" + string(rune('a'+i))
		cat.Tables["shop."+name] = []rewriter.Column{{Name: "id", DataType: "integer", ColumnType: "integer"}}
		next := "t" + string(rune('a'+i+1))
		dec["shop."+name] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "id IN (SELECT id FROM " + next + ")", Policy: name}}}
	}
	req := request("SELECT * FROM ta", dec)
	req.Catalog = cat
	_, err := rewriteReq(t, req)
	re := wantKind(t, err, rewriter.ErrUnsupported)
	if !strings.Contains(re.Detail, "deep") {
		t.Fatalf("error %v", err)
	}
}

func TestUnparseable(t *testing.T) {
	for _, sql := range []string{"SELEC 1", "SELECT * FROM", "SELECT 'unterminated", "", " ; ", "SELECT 1\x00; DROP TABLE x", "SELECT current_user()"} {
		_, err := rewriteSQL(t, sql, nil)
		wantKind(t, err, rewriter.ErrUnsupported)
	}
}

func TestNonStandardStringsRefuseBackslashes(t *testing.T) {
	req := request(`SELECT 'a\' OR 1=1 --'`, nil)
	req.Session = NewSession(testCatalog().Path, true)
	_, err := rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
	req.Session = NewSession(testCatalog().Path, false)
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != `SELECT E'a\\' OR 1 = 1` {
		t.Fatalf("standard strings: %s", res.SQL)
	}
	req = request(`SELECT 'plain'`, nil)
	req.Session = NewSession(testCatalog().Path, true)
	if _, err := rewriteReq(t, req); err != nil {
		t.Fatal(err)
	}
}

func TestRefusedStatements(t *testing.T) {
	cases := []string{
		"SET ROLE admin", "SET LOCAL ROLE admin", "RESET ROLE", "SET SESSION AUTHORIZATION bob", "RESET SESSION AUTHORIZATION",
		"SET NAMES 'SJIS'", "SET client_encoding = 'BIG5'", "SET search_path = public, pg_catalog", "SET session_replication_role = replica",
		"DISCARD ALL", "LISTEN ch", "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'", "ROLLBACK PREPARED 'x'",
		"PREPARE p AS SELECT 1", "EXECUTE p", "DEALLOCATE p", "DEALLOCATE ALL",
		"DO $$ BEGIN END $$", "CALL p()", "COPY orders TO STDOUT", "COPY orders FROM '/tmp/x'", "COPY (SELECT 1) TO STDOUT",
		"LOCK orders", "GRANT SELECT ON orders TO bob", "REVOKE SELECT ON orders FROM bob", "GRANT admin TO bob",
		"CREATE ROLE bob", "CREATE USER bob", "ALTER ROLE bob SUPERUSER", "ALTER USER bob SET search_path = x", "DROP ROLE bob",
		"CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", "CREATE PROCEDURE p() AS 'select 1' LANGUAGE sql",
		"CREATE RULE r AS ON SELECT TO orders DO INSTEAD SELECT 1", "CREATE TRIGGER t BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION f()",
		"ALTER SYSTEM SET work_mem = '1MB'", "CREATE EXTENSION dblink", "LOAD 'plugin'", "VACUUM (VERBOSE) orders", "ANALYZE VERBOSE orders", "VACUUM",
		"CLUSTER orders", "REINDEX SCHEMA shop", "REINDEX (VERBOSE) TABLE orders", "CHECKPOINT", "CREATE SCHEMA s", "CREATE POLICY p ON orders USING (true)",
		"CREATE SEQUENCE s OWNED BY orders.id", "DROP INDEX i", "DROP SEQUENCE s", "DROP SCHEMA shop", "DROP FUNCTION f", "ALTER INDEX i RENAME TO j", "ALTER SEQUENCE s RENAME TO t",
		"ALTER TABLE orders SET SCHEMA public", "COMMENT ON SCHEMA public IS 'x'", "COMMENT ON COLUMN customers.ssn IS 'x'", "COMMENT ON FUNCTION f() IS 'x'", "REFRESH MATERIALIZED VIEW mv",
		"CREATE FOREIGN TABLE f (id int) SERVER s",
		"EXPLAIN ANALYZE SELECT 1", "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM orders", "EXPLAIN CREATE TABLE x AS SELECT 1",
		"SELECT * INTO newt FROM orders", "CREATE TABLE x AS EXECUTE p", "SET CONSTRAINTS ALL DEFERRED",
		"SELECT pg_read_file('/etc/passwd')", "SELECT pg_catalog.pg_read_binary_file('x')", "SELECT * FROM pg_ls_dir('.')",
		"SELECT pg_stat_file('x')", "SELECT lo_import('/etc/passwd')", "SELECT lo_export(1, '/tmp/x')", "SELECT lo_get(1)",
		"SELECT * FROM dblink('host=x', 'select 1') AS t(a int)", "SELECT dblink_exec('x')", "SELECT set_config('role', 'admin', false)",
		"SELECT pg_terminate_backend(1)", "SELECT query_to_xml('select * from customers', true, false, '')",
		"SELECT table_to_xml('customers', true, false, '')", "SELECT * FROM ts_stat('select ssn::tsvector from customers')",
		"SELECT * FROM pg_logical_slot_get_changes('s', NULL, NULL)", "SELECT get_raw_page('customers', 0)",
		"SELECT * FROM orders WHERE id = (SELECT length(pg_read_file('x')))",
		"INSERT INTO orders (id) VALUES (length(pg_read_file('x')))",
		"CREATE TABLE t (id int DEFAULT current_user)", "CREATE TABLE t (id text DEFAULT pg_read_file('x'))",
		"ALTER TABLE orders ALTER COLUMN total SET DEFAULT length(current_user)",
		"UPDATE pg_settings SET setting = 'x' WHERE name = 'role'",
	}
	for _, sql := range cases {
		t.Run(sql, func(t *testing.T) {
			_, err := rewriteSQL(t, sql, simpleDecisions())
			wantKind(t, err, rewriter.ErrUnsupported)
		})
	}
}

func TestForbiddenFunctionInPolicy(t *testing.T) {
	dec := simpleDecisions()
	dec["shop.orders"] = &policy.Decision{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "pg_read_file('x') IS NOT NULL", Policy: "bad"}}}
	_, err := rewriteSQL(t, "SELECT * FROM orders", dec)
	wantKind(t, err, rewriter.ErrUnsupported)
}

func TestSessionStatements(t *testing.T) {
	cases := []struct {
		sql     string
		kind    rewriter.Kind
		refresh bool
	}{
		{"BEGIN", rewriter.KindSession, false},
		{"START TRANSACTION ISOLATION LEVEL SERIALIZABLE", rewriter.KindSession, false},
		{"SAVEPOINT a", rewriter.KindSession, false},
		{"RELEASE SAVEPOINT a", rewriter.KindSession, false},
		{"ROLLBACK TO SAVEPOINT a", rewriter.KindSession, true},
		{"COMMIT", rewriter.KindSession, true},
		{"ROLLBACK", rewriter.KindSession, true},
		{"SET search_path = shop, public", rewriter.KindSession, true},
		{"SET LOCAL search_path TO shop", rewriter.KindSession, true},
		{"RESET search_path", rewriter.KindSession, true},
		{"SET standard_conforming_strings = off", rewriter.KindSession, true},
		{"RESET ALL", rewriter.KindSession, true},
		{"SET statement_timeout = 1000", rewriter.KindSession, false},
		{"SET TIME ZONE 'UTC'", rewriter.KindSession, false},
		{"SET TRANSACTION READ ONLY", rewriter.KindSession, false},
		{"RESET client_encoding", rewriter.KindSession, false},
		{"SHOW search_path", rewriter.KindSession, false},
		{"SHOW ALL", rewriter.KindSession, false},
		{"DISCARD PLANS", rewriter.KindSession, false},
		{"DISCARD TEMP", rewriter.KindSession, false},
		{"NOTIFY ch, 'payload'", rewriter.KindSession, false},
		{"UNLISTEN *", rewriter.KindSession, false},
		{"CLOSE cur", rewriter.KindSession, false},
		{"MOVE NEXT FROM cur", rewriter.KindSession, false},
		{"FETCH 10 FROM cur", rewriter.KindSelect, false},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			res, err := rewriteReq(t, request(c.sql, nil))
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != c.kind || res.Effect.RefreshSession != c.refresh || res.Effect.InvalidateCatalog {
				t.Fatalf("kind %s effect %+v", res.Kind, res.Effect)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	for sql, kind := range map[string]rewriter.Kind{
		"SELECT 1":                           rewriter.KindSelect,
		"INSERT INTO orders (id) VALUES (1)": rewriter.KindInsert,
		"UPDATE orders SET total = 1":        rewriter.KindUpdate,
		"DELETE FROM orders":                 rewriter.KindDelete,
		"EXPLAIN SELECT 1":                   rewriter.KindOther,
		"SELECT 1; SELECT 2":                 rewriter.KindSelect,
		"SELECT 1; DELETE FROM orders":       rewriter.KindOther,
	} {
		res, err := rewriteReq(t, request(sql, nil))
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if res.Kind != kind {
			t.Fatalf("%s: kind %s, want %s", sql, res.Kind, kind)
		}
	}
}

func TestDDL(t *testing.T) {
	cases := []struct {
		sql, want string
		tables    string
	}{
		{"CREATE TABLE t (id int PRIMARY KEY, owner int REFERENCES orders (id) CHECK (owner > 0), note text DEFAULT 'x')",
			"CREATE TABLE shop.t (id int PRIMARY KEY, owner int REFERENCES shop.orders (id) CHECK (owner > 0), note text DEFAULT 'x')", "shop.t shop.orders"},
		{"CREATE TABLE IF NOT EXISTS public.t (LIKE orders INCLUDING ALL)", "CREATE TABLE IF NOT EXISTS public.t (LIKE shop.orders INCLUDING ALL)", "public.t shop.orders"},
		{"CREATE TEMP TABLE tt (id int)", "CREATE TEMPORARY TABLE tt (id int)", "pg_temp.tt"},
		{"CREATE TABLE p1 PARTITION OF orders FOR VALUES IN (1)", "CREATE TABLE shop.p1 PARTITION OF shop.orders FOR VALUES IN (1)", "shop.p1 shop.orders"},
		{"CREATE TABLE copy AS SELECT id FROM orders", "CREATE TABLE shop.copy AS SELECT id FROM shop.orders", "shop.copy shop.orders"},
		{"CREATE OR REPLACE VIEW v AS SELECT id FROM items", "CREATE OR REPLACE VIEW shop.v AS SELECT id FROM public.items", "shop.v public.items"},
		{"CREATE UNIQUE INDEX CONCURRENTLY i ON orders (total) WHERE total > 0", "CREATE UNIQUE INDEX CONCURRENTLY i ON shop.orders USING btree (total) WHERE total > 0", "shop.orders"},
		{"ALTER TABLE orders ADD COLUMN note text, DROP COLUMN total", "ALTER TABLE shop.orders ADD COLUMN note text, DROP total", "shop.orders"},
		{"ALTER TABLE items ADD CONSTRAINT fk FOREIGN KEY (id) REFERENCES orders (id)", "ALTER TABLE public.items ADD CONSTRAINT fk FOREIGN KEY (id) REFERENCES shop.orders (id)", "public.items shop.orders"},
		{"ALTER TABLE orders RENAME TO orders2", "ALTER TABLE shop.orders RENAME TO orders2", "shop.orders shop.orders2"},
		{"ALTER TABLE orders RENAME COLUMN total TO amount", "ALTER TABLE shop.orders RENAME COLUMN total TO amount", "shop.orders"},
		{"DROP TABLE orders, public.items CASCADE", "DROP TABLE shop.orders, public.items CASCADE", "shop.orders public.items"},
		{"DROP TABLE IF EXISTS nosuch", "DROP TABLE IF EXISTS shop.nosuch", "shop.nosuch"},
		{"DROP VIEW IF EXISTS v", "DROP VIEW IF EXISTS shop.v", "shop.v"},
		{"TRUNCATE orders, items", "TRUNCATE shop.orders, public.items", "shop.orders public.items"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			res, err := rewriteReq(t, request(c.sql, simpleDecisions()))
			if err != nil {
				t.Fatal(err)
			}
			if res.SQL != c.want {
				t.Fatalf("\n got: %s\nwant: %s", res.SQL, c.want)
			}
			if res.Kind != rewriter.KindDDL || !res.Effect.InvalidateCatalog {
				t.Fatalf("kind %s effect %+v", res.Kind, res.Effect)
			}
			if got := tableKeys(res.Tables); got != c.tables {
				t.Fatalf("tables %q, want %q", got, c.tables)
			}
		})
	}
}

func TestDDLAccess(t *testing.T) {
	deny := func(a policy.Access) map[string]*policy.Decision {
		d := simpleDecisions()
		for _, k := range []string{"shop.orders", "shop.t", "shop.v", "shop.orders2"} {
			d[k] = &policy.Decision{Allowed: dialecttest.AccessExcept(a), DeniedBy: map[policy.Access]string{a: "no-" + string(a)}}
		}
		return d
	}
	cases := []struct {
		sql    string
		access policy.Access
	}{
		{"CREATE TABLE t (id int)", policy.Create},
		{"CREATE TABLE t AS SELECT 1", policy.Create},
		{"CREATE VIEW v AS SELECT 1", policy.Create},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", policy.Alter},
		{"ALTER TABLE orders ADD COLUMN x int", policy.Alter},
		{"ALTER TABLE orders RENAME TO orders2", policy.Create},
		{"DROP TABLE orders", policy.Drop},
		{"TRUNCATE orders", policy.Drop},
		{"CREATE INDEX ON orders (total)", policy.Index},
		{"CREATE TABLE p PARTITION OF orders FOR VALUES IN (1)", policy.Alter},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			_, err := rewriteSQL(t, c.sql, deny(c.access))
			re := wantKind(t, err, policy.ErrAccessDenied)
			if re.Policy != "no-"+string(c.access) {
				t.Fatalf("policy %q", re.Policy)
			}
		})
	}
	// Changes that could reveal or move values a read policy hides.
	for _, sql := range []string{
		"ALTER TABLE customers ADD COLUMN copy text GENERATED ALWAYS AS (ssn) STORED",
		"ALTER TABLE customers ADD CONSTRAINT c CHECK (salary < 100)",
		"CREATE UNIQUE INDEX ON customers (ssn)",
		"ALTER TABLE customers RENAME COLUMN ssn TO x",
		"ALTER TABLE customers RENAME TO c2",
		"ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (customer_id) REFERENCES customers (id)",
		"CREATE TABLE t (LIKE customers)",
		"DROP TABLE pg_catalog.pg_class",
		"CREATE TABLE information_schema.x (id int)",
	} {
		t.Run(sql, func(t *testing.T) {
			_, err := rewriteSQL(t, sql, simpleDecisions())
			wantKind(t, err, rewriter.ErrUnsupported)
		})
	}
}

func TestSearchPath(t *testing.T) {
	req := request("SELECT * FROM orders", nil)
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT * FROM shop.orders" {
		t.Fatal(res.SQL)
	}
	req.Session = NewSession([]string{"public", "shop"}, false)
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT * FROM public.orders" {
		t.Fatal(res.SQL)
	}
	// The session's temporary schema comes first unless the path names it.
	req = request("SELECT * FROM orders", nil)
	cat := testCatalog()
	cat.Tables["pg_temp.orders"] = cat.Tables["shop.orders"]
	req.Catalog = cat
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT * FROM pg_temp.orders" {
		t.Fatal(res.SQL)
	}
	req.Session = NewSession([]string{"shop", "pg_temp"}, false)
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT * FROM shop.orders" {
		t.Fatal(res.SQL)
	}
	// A table outside the path is not found, and the error names it.
	req = request("SELECT * FROM customers", nil)
	req.Session = NewSession([]string{"public"}, false)
	_, err = rewriteReq(t, req)
	re := wantKind(t, err, rewriter.ErrUnsupported)
	if re.Table != "customers" {
		t.Fatalf("error names %q", re.Table)
	}
	// pg_catalog listed late in the path is searched late.
	req = request("SELECT * FROM pg_class", nil)
	req.Session = NewSession([]string{"shop", "pg_catalog"}, false)
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "SELECT * FROM pg_catalog.pg_class" {
		t.Fatal(res.SQL)
	}
	// Quoted names keep their case (the static catalog matches names
	// case-insensitively, as policies do).
	req = request(`SELECT * FROM "Orders"`, nil)
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != `SELECT * FROM shop."Orders"` {
		t.Fatal(res.SQL)
	}
	// No catalog: unqualified names cannot be resolved.
	req = request("SELECT * FROM orders", nil)
	req.Catalog = nil
	_, err = rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
	req = request("SELECT * FROM shop.orders", nil)
	req.Catalog = nil
	if _, err := rewriteReq(t, req); err != nil {
		t.Fatal(err)
	}
	// Database-qualified names are refused.
	_, err = rewriteSQL(t, "SELECT * FROM db.shop.orders", nil)
	wantKind(t, err, rewriter.ErrUnsupported)
}

func TestSchemaQualifiedColumns(t *testing.T) {
	dec := simpleDecisions()
	out := mustRewrite(t, "SELECT shop.customers.name, shop.customers.* FROM customers WHERE shop.customers.id = 1", dec)
	if want := "SELECT customers.name, customers.* FROM " + derivedC + " customers WHERE customers.id = 1"; out != want {
		t.Fatalf("\n got: %s\nwant: %s", out, want)
	}
	// A passthrough table keeps its qualified column references.
	out = mustRewrite(t, "SELECT shop.orders.id FROM orders", dec)
	if out != "SELECT shop.orders.id FROM shop.orders" {
		t.Fatal(out)
	}
	for _, sql := range []string{
		"SELECT * FROM shop.customers, other.customers",
		"SELECT * FROM customers WHERE EXISTS (SELECT 1 FROM other.customers WHERE shop.customers.id = 1)",
		"SELECT shop.customers.id FROM shop.customers c",
		"SELECT db.shop.customers.id FROM customers",
	} {
		t.Run(sql, func(t *testing.T) {
			out, err := rewriteSQL(t, sql, dec)
			if err == nil && !strings.Contains(out, "shop.customers.id FROM") {
				// schema.table.column of an aliased table is left for the
				// server to reject.
				t.Fatalf("accepted: %s", dialecttest.Short(out))
			}
			if err != nil {
				wantKind(t, err, rewriter.ErrUnsupported)
			}
		})
	}
	// Aliases make same-named tables fine.
	mustRewrite(t, "SELECT a.id, b.id FROM shop.customers a, other.customers b", dec)
}

func TestTablesample(t *testing.T) {
	out := mustRewrite(t, "SELECT * FROM orders TABLESAMPLE SYSTEM (10)", simpleDecisions())
	if out != "SELECT * FROM shop.orders TABLESAMPLE system(10)" {
		t.Fatal(out)
	}
	_, err := rewriteSQL(t, "SELECT * FROM customers TABLESAMPLE SYSTEM (10)", simpleDecisions())
	wantKind(t, err, rewriter.ErrUnsupported)
	_, err = rewriteSQL(t, "SELECT * FROM customers c (a, b)", simpleDecisions())
	wantKind(t, err, rewriter.ErrUnsupported)
}

func TestResultTables(t *testing.T) {
	res, err := rewriteReq(t, request("SELECT * FROM orders JOIN customers USING (id) WHERE id IN (SELECT id FROM orders); UPDATE items SET label = 'x'", simpleDecisions()))
	if err != nil {
		t.Fatal(err)
	}
	if got := tableKeys(res.Tables); got != "shop.orders shop.customers public.items" {
		t.Fatal(got)
	}
}

func TestCanonicalExpr(t *testing.T) {
	good := map[string]string{
		"region = 'EU'":          "region = 'EU'",
		"a AND (b OR c) -- note": "a AND (b OR c)",
		"x IN (SELECT 1)":        "x IN (SELECT 1)",
		`'back\slash'`:           `E'back\\slash'`,
		"  lower( name )  ":      "lower(name)",
		"$$dollar$$":             "'dollar'",
		"CASE WHEN a THEN 1 END": "CASE WHEN a THEN 1 END",
		"current_user = 'x'":     "current_user = 'x'",
	}
	for in, want := range good {
		got, err := Syntax.CanonicalExpr(in)
		if err != nil || got != want {
			t.Fatalf("CanonicalExpr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1, 2", "1 FROM t", "1 WHERE true", "1; SELECT 2", "1) OR (1", "*", "t.*", "a AS b",
		"1 GROUP BY 1", "1 ORDER BY 1", "1 LIMIT 1", "1 UNION SELECT 2", "DISTINCT 1", "1 FOR UPDATE", "1 INTO x", "x\x00y", "1 FETCH FIRST 1 ROW ONLY"} {
		if got, err := Syntax.CanonicalExpr(in); err == nil {
			t.Fatalf("CanonicalExpr(%q) = %q, want an error", in, got)
		}
	}
	if Syntax.QuoteIdent(`we"ird`) != `"we""ird"` || Syntax.QuoteIdent("Mixed") != `"Mixed"` {
		t.Fatal("QuoteIdent")
	}
	if Syntax.UDF() != "postgres" {
		t.Fatal("UDF")
	}
}

func TestRegistered(t *testing.T) {
	d, ok := rewriter.Lookup("postgres")
	if !ok || d.Name() != "postgres" {
		t.Fatal("dialect not registered")
	}
}

func TestVerifyRefusesUnsanctionedTables(t *testing.T) {
	tree, err := pg.Parse("SELECT * FROM shop.orders WHERE id IN (SELECT id FROM shop.customers)")
	if err != nil {
		t.Fatal(err)
	}
	r := newRewrite(context.Background(), request("", nil), nil)
	rvs := rangeVars(tree.Stmts[0].Stmt)
	r.Sanction(rvs[0])
	if _, err := r.verify(tree.Stmts[0].Stmt); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("verify = %v", err)
	}
	r.Sanction(rvs[1])
	want, err := r.verify(tree.Stmts[0].Stmt)
	if err != nil {
		t.Fatal(err)
	}
	// The printed text must name the same relations as the tree.
	if err := verifyPrinted(want, "SELECT * FROM shop.orders WHERE id IN (SELECT id FROM shop.customers)"); err != nil {
		t.Fatal(err)
	}
	if err := verifyPrinted(want, "SELECT * FROM shop.orders WHERE id IN (SELECT id FROM customers)"); err == nil {
		t.Fatal("a changed relation was accepted")
	}
	if err := verifyPrinted(want, "SELECT 1; SELECT 2"); err == nil {
		t.Fatal("two statements were accepted")
	}
}

func TestCatalogErrorsFailClosed(t *testing.T) {
	req := request("SELECT * FROM orders", nil)
	req.Catalog = failingCatalog{}
	_, err := rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
	req = request("SELECT * FROM shop.customers", simpleDecisions())
	req.Catalog = failingCatalog{}
	_, err = rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
}

type failingCatalog struct{}

func (failingCatalog) Columns(context.Context, policy.TableName) ([]rewriter.Column, bool, error) {
	return nil, false, errors.New("boom")
}
func (failingCatalog) Version() uint64 { return 1 }

func TestCatalogFromDDL(t *testing.T) {
	cat, err := Dialect{}.CatalogFromDDL(`
		CREATE TABLE public.a (id serial PRIMARY KEY, name varchar(40), code char, price numeric(10,2), tags text[], at timestamptz);
		SET search_path = shop, public;
		CREATE TABLE b (n int8, ok bool);
		CREATE INDEX ON b (n);`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cat.Path, ",") != "shop,public" {
		t.Fatalf("path %v", cat.Path)
	}
	got := func(key string) string {
		var parts []string
		for _, c := range cat.Tables[key] {
			parts = append(parts, c.Name+":"+c.DataType+":"+c.ColumnType)
		}
		return strings.Join(parts, " ")
	}
	if g := got("public.a"); g != "id:integer:integer name:character varying:character varying(40) code:character:character(1) "+
		"price:numeric:numeric(10,2) tags:ARRAY:text[] at:timestamp with time zone:timestamp with time zone" {
		t.Fatal(g)
	}
	if g := got("shop.b"); g != "n:bigint:bigint ok:boolean:boolean" {
		t.Fatal(g)
	}
	if _, err := (Dialect{}).CatalogFromDDL("CREATE TABLE ("); err == nil {
		t.Fatal("a broken script was accepted")
	}
	var _ rewriter.DDLCataloger = Dialect{}
}

// TestCommentOnIsQualified: COMMENT ON TABLE/COLUMN of a table the caller
// reads without policy is sent with the table's schema, and asks for the
// metadata to be read again (comments carry tags).
func TestCommentOnIsQualified(t *testing.T) {
	for sql, want := range map[string]string{
		"COMMENT ON COLUMN orders.total IS 'tags: PII'": "COMMENT ON COLUMN shop.orders.total IS 'tags: PII'",
		"COMMENT ON TABLE orders IS 'x'":                "COMMENT ON TABLE shop.orders IS 'x'",
	} {
		res, err := rewriteReq(t, request(sql, simpleDecisions()))
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if res.SQL != want || !res.Effect.InvalidateCatalog {
			t.Fatalf("%s: got %q (invalidate %v), want %q", sql, res.SQL, res.Effect.InvalidateCatalog, want)
		}
	}
}

// The driver keeps its prepared statements across transaction control
// only: the parser, not the first word, decides what is.
func TestTransactionControlIsClassified(t *testing.T) {
	dialecttest.TransactionControl(t, testDialect, map[string]bool{
		"BEGIN": true, "  begin work": true, "START TRANSACTION": true, "commit": true, "END": true, "ROLLBACK": true,
		"ROLLBACK TO SAVEPOINT a": true, "SAVEPOINT a": true, "RELEASE SAVEPOINT a": true,
		"/* x */ BEGIN": true, "BEGIN; COMMIT": true,
		"SET search_path = public": false, "SELECT 1": false, "SAVEPOINT a; SET search_path = public": false,
		"BEGIN; SELECT 1": false,
	})
}
