package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// customersDecision and short are the shared helpers under the names
// the MariaDB form tests use.
var (
	customersDecision = dialecttest.CustomersDecision
	short             = dialecttest.Short
)

func testCatalog() *rewriter.StaticCatalog {
	return &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
		"shop.customers": {
			{Name: "id", DataType: "int", ColumnType: "int(11)"},
			{Name: "name", DataType: "varchar", ColumnType: "varchar(40)"},
			{Name: "region", DataType: "varchar", ColumnType: "varchar(8)"},
			{Name: "ssn", DataType: "varchar", ColumnType: "varchar(11)"},
			{Name: "email", DataType: "varchar", ColumnType: "varchar(60)"},
			{Name: "salary", DataType: "int", ColumnType: "int(11)"},
		},
		"shop.orders": {
			{Name: "id", DataType: "int", ColumnType: "int(11)"},
			{Name: "customer_id", DataType: "int", ColumnType: "int(11)"},
			{Name: "total", DataType: "int", ColumnType: "int(11)"},
		},
		"shop.region_map": {
			{Name: "role", DataType: "varchar", ColumnType: "varchar(20)"},
			{Name: "region", DataType: "varchar", ColumnType: "varchar(8)"},
		},
	}}
}

func request(sql string, decisions map[string]*policy.Decision) *rewriter.Request {
	cat := testCatalog()
	return dialecttest.Request(sql, decisions, cat, Session{Database: cat.Schema})
}

// testDialect drives the cases both dialects share.
var testDialect = dialecttest.Dialect{
	Rewriter: Dialect{},
	Syntax:   Syntax,
	Request:  request,
	Rewrite:  dialecttest.Plain(Dialect{}),
	// MySQL's function names have no case.
	FoldedNames: true,
}

func rewriteSQL(t *testing.T, sql string, decisions map[string]*policy.Decision) (string, error) {
	t.Helper()
	res, err := Dialect{}.Rewrite(context.Background(), request(sql, decisions))
	if err != nil {
		return "", err
	}
	if _, perr := parser.Parse(res.SQL); perr != nil && !strings.Contains(res.SQL, "; ") {
		t.Fatalf("output does not parse: %v\n%s", perr, res.SQL)
	}
	return res.SQL, nil
}

func TestReadsUseTheDerivedTable(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	cases := []struct{ name, sql string }{
		{"plain", "SELECT * FROM customers"},
		{"qualified", "SELECT shop.customers.name FROM shop.customers"},
		{"join", "SELECT c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id"},
		{"left join using", "SELECT * FROM orders LEFT JOIN customers USING (id)"},
		{"subquery in where", "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE ssn LIKE '%1')"},
		{"scalar subquery", "SELECT (SELECT name FROM customers c WHERE c.id = o.customer_id) FROM orders o"},
		{"exists", "SELECT 1 FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)"},
		{"cte", "WITH x AS (SELECT * FROM customers) SELECT * FROM x"},
		{"union", "SELECT name FROM customers UNION SELECT CAST(total AS CHAR) FROM orders"},
		{"derived", "SELECT * FROM (SELECT ssn FROM customers) d"},
		{"order by masked", "SELECT name FROM customers ORDER BY ssn"},
		{"having", "SELECT region, COUNT(*) FROM orders, customers GROUP BY region HAVING MAX(ssn) > '1'"},
		{"insert select", "INSERT INTO orders (id, customer_id, total) SELECT id, id, 1 FROM customers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := rewriteSQL(t, c.sql, dec)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "`salary`") {
				t.Fatalf("restricted column in output:\n%s", dialecttest.Short(out))
			}
			assertEveryCustomersRefDerived(t, out)
		})
	}
}

// assertEveryCustomersRefDerived checks structurally that every SELECT
// reading shop.customers directly — the policy's derived table or a
// flattened single-table select — applies the row filter and reads ssn and
// email only inside their mask expressions.
func assertEveryCustomersRefDerived(t *testing.T, out string) {
	t.Helper()
	stmt, err := parser.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		sel, ok := node.(*sqlparser.Select)
		if !ok || !readsCustomers(sel) {
			return true, nil
		}
		reads++
		if sel.Where == nil || !strings.Contains(unquoted(sel.Where), "region = 'EU'") {
			t.Fatalf("customers read without the row filter:\n%s", dialecttest.Short(out))
		}
		sqlparser.Rewrite(sel, func(c *sqlparser.Cursor) bool {
			switch n := c.Node().(type) {
			case *sqlparser.Select:
				return n == sel
			case *sqlparser.CaseExpr:
				if strings.Contains(unquoted(n), "ssn is null then") {
					return false // the mask expression itself
				}
			case *sqlparser.FuncExpr:
				// IFNULL(mask, ssn = ssn): the mask, reporting the
				// column's nullability (a comparison of the column with
				// itself, 1 or NULL).
				if selfComparison(n) && strings.Contains(unquoted(n.Exprs[0]), "ssn is null then") {
					return false
				}
			case *sqlparser.ColName:
				if name := n.Name.Lowered(); name == "ssn" || name == "email" {
					t.Fatalf("raw %s read outside its mask:\n%s", name, dialecttest.Short(out))
				}
			}
			return true
		}, nil)
		return true, nil
	}, stmt)
	if reads == 0 || reads != strings.Count(out, "from `shop`.`customers`") {
		t.Fatalf("%d reads of customers checked:\n%s", reads, dialecttest.Short(out))
	}
}

func unquoted(n sqlparser.SQLNode) string { return strings.ReplaceAll(sqlparser.String(n), "`", "") }

func readsCustomers(sel *sqlparser.Select) bool {
	found := false
	for _, te := range sel.From {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *sqlparser.DerivedTable:
				return false, nil
			case *sqlparser.AliasedTableExpr:
				if tn, ok := x.Expr.(sqlparser.TableName); ok && tn.Name.String() == "customers" && tn.Qualifier.String() == "shop" {
					found = true
				}
			}
			return true, nil
		}, te)
	}
	return found
}

func TestCTEShadowsTable(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	out, err := rewriteSQL(t, "WITH customers AS (SELECT 1 AS id) SELECT * FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "`shop`.`customers`") {
		t.Fatalf("CTE treated as the table:\n%s", dialecttest.Short(out))
	}
	// The table inside a non-recursive CTE's own body is the table.
	out, err = rewriteSQL(t, "WITH customers AS (SELECT * FROM customers) SELECT * FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	assertEveryCustomersRefDerived(t, out)
}

func TestRestrictedAndDenied(t *testing.T) {
	deny := &policy.Decision{Table: policy.TableName{Schema: "shop", Table: "orders"}, Allowed: map[policy.Access]bool{},
		DeniedBy: map[policy.Access]string{policy.Select: "no-orders"}}
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision(), "shop.orders": deny}
	for _, sql := range []string{"SELECT salary FROM customers", "SELECT c.salary FROM customers c", "SELECT name FROM customers WHERE salary > 1",
		"SELECT * FROM customers ORDER BY salary", "UPDATE customers SET salary = 1", "INSERT INTO customers VALUES (1,'a','EU','1','e',1)"} {
		_, err := rewriteSQL(t, sql, dec)
		var re *rewriter.Error
		if !errors.Is(err, policy.ErrColumnDenied) || !errors.As(err, &re) || re.Column != "salary" || re.Policy != "no-salary" {
			t.Errorf("%s: want ErrColumnDenied naming salary and policy, got %v", sql, err)
		}
	}
	for _, sql := range []string{"SELECT * FROM orders", "SELECT * FROM customers WHERE id IN (SELECT customer_id FROM orders)",
		"WITH x AS (SELECT * FROM orders) SELECT 1"} {
		_, err := rewriteSQL(t, sql, dec)
		if !errors.Is(err, policy.ErrAccessDenied) || !strings.Contains(err.Error(), "no-orders") || !strings.Contains(err.Error(), "shop.orders") {
			t.Errorf("%s: want ErrAccessDenied naming table and policy, got %v", sql, err)
		}
	}
}

func TestWritesFilterAndMask(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	out, err := rewriteSQL(t, "UPDATE customers SET name = ssn WHERE email IS NOT NULL AND id = ?", dec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "`region` = 'EU'") || strings.Contains(out, "set `name` = `ssn`") || !strings.Contains(out, "`id` = ?") {
		t.Fatalf("update not filtered/masked:\n%s", dialecttest.Short(out))
	}
	out, err = rewriteSQL(t, "DELETE FROM customers WHERE id = ?", dec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "`region` = 'EU'") {
		t.Fatalf("delete not filtered:\n%s", dialecttest.Short(out))
	}
	for _, sql := range []string{"REPLACE INTO customers (id) VALUES (1)", "INSERT INTO customers (id) VALUES (1) ON DUPLICATE KEY UPDATE name = 'x'",
		"UPDATE customers c JOIN orders o ON o.customer_id = c.id SET name = 'x', id = 1 ORDER BY c.id",
		"UPDATE customers c JOIN orders o ON o.customer_id = c.id SET id = 1"} {
		if _, err := rewriteSQL(t, sql, dec); !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", sql, err)
		}
	}
}

func TestRefusedStatements(t *testing.T) {
	for _, sql := range []string{
		"CALL p()", "PREPARE s FROM 'SELECT 1'", "EXECUTE s", "DEALLOCATE PREPARE s", "LOCK TABLES customers READ",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE customers", "SELECT * FROM customers INTO OUTFILE '/tmp/x'",
		"SELECT LOAD_FILE('/etc/passwd')", "SET ROLE admin", "GRANT SELECT ON shop.* TO u", "DO 1", "HANDLER customers OPEN",
		"SELECT * FROM", "SELEC 1", "SHOW INDEX FROM customers WHERE Key_name = 'x'", "SHOW TABLE STATUS FROM mysql", "SHOW PROCESSLIST", "DROP DATABASE shop",
		"SHOW WARNINGS", "SHOW ERRORS", "SET NAMES gbk", "SET NAMES 'sjis'", "SET CHARACTER SET big5", "SET character_set_client = gbk",
		"SET @@session.character_set_connection = 'gbk'", "SET collation_connection = 'gbk_chinese_ci'", "SET NAMES @x",
		"SET GLOBAL sql_mode = ''", "SET PERSIST max_connections = 1", "SELECT FOUND_ROWS()", "SELECT ROW_COUNT()",
		"SELECT 1 /*! , 2 */", "SELECT 1 /*!50000 , 2 */", "SELECT 1 /*M!100000 , 2 */", "SELECT /*+ BKA(t); */ 1",
		"SELECT * FROM mysql.user", "SELECT * FROM performance_schema.events_statements_history", "SELECT * FROM information_schema.PROCESSLIST",
		"SELECT * FROM sys.x", "SET sql_mode = ''; SELECT 1", "USE other; SELECT 1",
	} {
		if _, err := rewriteSQL(t, sql, nil); !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", sql, err)
		}
	}
}

func TestSessionStatementsPass(t *testing.T) {
	for _, sql := range []string{"BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK", "SAVEPOINT a", "RELEASE SAVEPOINT a",
		"ROLLBACK TO SAVEPOINT a", "SET autocommit = 1", "SET NAMES utf8mb4", "SET NAMES 'latin1'", "SET CHARACTER SET utf8",
		"SET character_set_client = DEFAULT", "SET collation_connection = utf8mb4_bin", "USE shop", "SELECT 1", "SELECT NOW()",
		"SHOW TABLES", "SHOW VARIABLES LIKE 'sql_mode'", "SELECT 1 /* '/*!' */", "SELECT '/*!', \"/*M!\" -- /*!\n", "SELECT 1; SET sql_mode = ''"} {
		if _, err := rewriteSQL(t, sql, nil); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	use := request("USE other", nil)
	use.Session = Session{Database: "shop", NoBackslashEscapes: true}
	res, err := Dialect{}.Rewrite(context.Background(), use)
	if err != nil || res.Effect.Session != (Session{Database: "other", NoBackslashEscapes: true}) {
		t.Fatalf("USE effect: %+v %v", res, err)
	}
	res, err = Dialect{}.Rewrite(context.Background(), request("SET SESSION sql_mode = 'ANSI_QUOTES'", nil))
	if err != nil || !res.Effect.RefreshSession {
		t.Fatalf("sql_mode effect: %+v %v", res, err)
	}
}

func TestContextFunctionsInlined(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": {
		Table: policy.TableName{Schema: "shop", Table: "customers"}, Allowed: dialecttest.AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "name = current_user()", Policy: "own-row"}},
	}}
	out, err := rewriteSQL(t, "SELECT current_user(), CURRENT_USER, current_role() FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	// The result columns keep the names the application's text gives them.
	for _, alias := range []string{" as `current_user()`", " as `CURRENT_USER`", " as `current_role()`"} {
		if !strings.Contains(out, alias) {
			t.Fatalf("the column named %q lost its name:\n%s", alias, dialecttest.Short(out))
		}
		out = strings.Replace(out, alias, "", 1)
	}
	if strings.Contains(strings.ToLower(out), "current_user") || !strings.Contains(out, `'al''ice\\'`) || !strings.Contains(out, "'support'") {
		t.Fatalf("context functions not inlined safely:\n%s", dialecttest.Short(out))
	}
	req := request("SELECT current_user()", nil)
	req.Session = Session{Database: testCatalog().Schema, NoBackslashEscapes: true}
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil || !strings.Contains(res.SQL, `'al''ice\'`) {
		t.Fatalf("NO_BACKSLASH_ESCAPES quoting: %v %v", res, err)
	}
}

func TestMappingTableFilterIsUnderPolicy(t *testing.T) {
	dec := map[string]*policy.Decision{
		"shop.customers": {Table: policy.TableName{Schema: "shop", Table: "customers"}, Allowed: dialecttest.AllAccess(),
			RowFilters: []policy.RowFilter{{Expr: "EXISTS (SELECT 1 FROM region_map m WHERE m.role = current_role() AND m.region = region)", Policy: "by-region"}}},
		"shop.region_map": {Table: policy.TableName{Schema: "shop", Table: "region_map"}, Allowed: dialecttest.AllAccess(),
			RowFilters: []policy.RowFilter{{Expr: "role <> 'hidden'", Policy: "map-filter"}}},
	}
	// The application's CTE named region_map must not capture the policy's table.
	out, err := rewriteSQL(t, "WITH region_map AS (SELECT 'support' AS role, 'EU' AS region) SELECT * FROM customers", dec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "from `shop`.`region_map`") || !strings.Contains(out, "`role` != 'hidden'") {
		t.Fatalf("mapping table not qualified or not under its policy:\n%s", dialecttest.Short(out))
	}
	// A filter reaching its own table again is refused.
	dec["shop.region_map"].RowFilters = []policy.RowFilter{{Expr: "EXISTS (SELECT 1 FROM customers)", Policy: "loop"}}
	if _, err := rewriteSQL(t, "SELECT * FROM customers", dec); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("policy loop: %v", err)
	}
}

func TestPlaceholdersAndComments(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	out, err := rewriteSQL(t, "SELECT /*+ MAX_EXECUTION_TIME(1) */ name FROM customers /* c */ WHERE id = ? AND name = ? LIMIT ?", dec)
	if err != nil {
		t.Fatal(err)
	}
	if out != "select `name` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and (`id` = ? and `name` = ?) limit ?" {
		t.Fatalf("placeholders/comments:\n%s", dialecttest.Short(out))
	}
	// The same through the fenced derived table (a condition that can
	// fail, over an outer join).
	out, err = rewriteSQL(t, "SELECT /*+ MAX_EXECUTION_TIME(1) */ name FROM customers /* c */ LEFT JOIN orders o ON o.customer_id = customers.id WHERE id = ? AND EXP(id) = ? LIMIT ?", dec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "where `shop`.`customers`.`region` = 'EU' limit 18446744073709551615) as `customers` left join `shop`.`orders` as `o` on `o`.`customer_id` = `customers`.`id` where `id` = ? and EXP(`id`) = ? limit ?") || strings.Contains(out, "/*") {
		t.Fatalf("placeholders/comments:\n%s", dialecttest.Short(out))
	}
	// LIMIT ? OFFSET ? keeps its placeholders in their order (printed as
	// LIMIT ?, ? they would swap).
	out, err = rewriteSQL(t, "SELECT name FROM customers LIMIT ? OFFSET ?", dec)
	if err != nil || !strings.HasSuffix(out, " limit ? offset ?") {
		t.Fatalf("LIMIT ? OFFSET ?: %v\n%s", err, dialecttest.Short(out))
	}
	out, err = rewriteSQL(t, "SELECT name FROM customers LIMIT ?, ?", dec)
	if err != nil || !strings.HasSuffix(out, " limit ?, ?") {
		t.Fatalf("LIMIT ?, ?: %v\n%s", err, dialecttest.Short(out))
	}
	// An executable comment is refused: its contents would be code that
	// only some server versions run.
	if _, err := rewriteSQL(t, "SELECT /*! ssn, */ name FROM customers", dec); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("executable comment: %v", err)
	}
}

func TestModeGuards(t *testing.T) {
	req := request(`SELECT 'a\' , ssn FROM customers -- '`, nil)
	req.Session = Session{Database: testCatalog().Schema, NoBackslashEscapes: true}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("backslash under NO_BACKSLASH_ESCAPES: %v", err)
	}
	req = request(`SELECT "ssn" FROM customers`, nil)
	req.Session = Session{Database: testCatalog().Schema, ANSIQuotes: true}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("double quote under ANSI_QUOTES: %v", err)
	}
}

func TestMultiStatement(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	res, err := Dialect{}.Rewrite(context.Background(), request("SELECT name FROM customers; SELECT ssn FROM customers", dec))
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range strings.Split(res.SQL, "; ") {
		assertEveryCustomersRefDerived(t, piece)
	}
	if _, err := (Dialect{}).Rewrite(context.Background(), request("SELECT 1; CALL p()", dec)); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("a refused piece refuses the string: %v", err)
	}
}

// TestPolicyTablesResolveInThePolicySchema: a mapping table named without a
// schema in a policy is the one beside the policed table, whatever
// database the connection has switched to.
func TestPolicyTablesResolveInThePolicySchema(t *testing.T) {
	dec := map[string]*policy.Decision{
		"shop.customers": {Table: policy.TableName{Schema: "shop", Table: "customers"}, Allowed: dialecttest.AllAccess(),
			RowFilters: []policy.RowFilter{{Expr: "EXISTS (SELECT 1 FROM region_map m WHERE m.region = customers.region)", Policy: "by-region"}}},
	}
	req := request("SELECT * FROM shop.customers", dec)
	req.Session = Session{Database: "evil"}
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.SQL, "from `shop`.`region_map` as `m`") || strings.Contains(res.SQL, "`evil`") {
		t.Fatalf("mapping table resolved in the connection's database:\n%s", dialecttest.Short(res.SQL))
	}
}

func TestRoleContextFunctions(t *testing.T) {
	req := request("SELECT is_role_in_session('support'), is_role_in_session('admin'), current_available_roles(), "+
		"current_secondary_roles() FROM orders WHERE is_role_in_session(total)", nil)
	req.User.Roles = []string{"support", "x"}
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := "select true as `is_role_in_session('support')`, false as `is_role_in_session('admin')`, " +
		"'[\"support\",\"x\"]' as `current_available_roles()`, '{\"roles\":\"\",\"value\":\"\"}' as `current_secondary_roles()` " +
		"from `shop`.`orders` where `total` in ('support')"
	if res.SQL != want {
		t.Fatalf("got  %s\nwant %s", res.SQL, want)
	}
}

func TestSchemaChangesCannotEscapeAPolicy(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, sql := range []string{
		"ALTER TABLE customers ADD COLUMN ssn_copy VARCHAR(11) AS (ssn)",
		"ALTER TABLE customers ADD COLUMN x VARCHAR(11) DEFAULT (ssn)",
		"ALTER TABLE customers RENAME COLUMN ssn TO ssn2",
		"ALTER TABLE customers CHANGE ssn ssn2 VARCHAR(11)",
		"ALTER TABLE customers ADD CONSTRAINT c CHECK (ssn LIKE '1%')",
		"ALTER TABLE customers RENAME TO customers_free",
		"RENAME TABLE customers TO customers_free",
	} {
		if _, err := rewriteSQL(t, sql, dec); !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", sql, err)
		}
	}
	for _, sql := range []string{
		"ALTER TABLE customers ADD COLUMN nickname VARCHAR(10) DEFAULT 'x' COMMENT 'tags: PII'",
		"ALTER TABLE customers MODIFY COLUMN email VARCHAR(80) COMMENT 'tags: EMAIL'",
		"ALTER TABLE customers DROP COLUMN email",
		"ALTER TABLE orders RENAME COLUMN total TO amount",
	} {
		if _, err := rewriteSQL(t, sql, dec); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestPolicyTextDefectIsAPolicyError: a row filter or CUSTOM mask that is
// not one expression reaches no statement, and the error is a policy
// error naming the rule, in the flat and the derived form alike.
func TestPolicyTextDefectIsAPolicyError(t *testing.T) {
	for _, sql := range []string{"SELECT id, total FROM orders", "SELECT o.total FROM orders o JOIN customers c ON c.id = o.customer_id"} {
		for _, d := range []*policy.Decision{
			{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "total = = 1", Policy: "bad-filter"}}},
			{Allowed: dialecttest.AllAccess(), RowFilters: []policy.RowFilter{{Expr: "1) OR (1=1", Policy: "bad-filter"}}},
			{Allowed: dialecttest.AllAccess(), Masks: map[string]policy.Mask{"total": {Type: "CUSTOM", Expr: "{col} +", Policy: "bad-mask"}}},
		} {
			_, err := rewriteSQL(t, sql, map[string]*policy.Decision{"shop.orders": d})
			if !errors.Is(err, policy.ErrPolicy) || errors.Is(err, rewriter.ErrUnsupported) {
				t.Fatalf("%s with %+v: want a policy error, got %v", sql, d, err)
			}
			if !strings.Contains(err.Error(), "policy error") || !strings.Contains(err.Error(), `"bad-`) {
				t.Fatalf("%s: error does not name the rule: %v", sql, err)
			}
		}
	}
}

// The driver keeps its prepared statements across transaction control
// only: the parser, not the first word, decides what is.
func TestTransactionControlIsClassified(t *testing.T) {
	dialecttest.TransactionControl(t, testDialect, map[string]bool{
		"BEGIN": true, "  begin": true, "START TRANSACTION": true, "commit": true, "ROLLBACK": true,
		"ROLLBACK TO SAVEPOINT a": true, "SAVEPOINT a": true, "RELEASE SAVEPOINT a": true,
		"/* x */ BEGIN": true, "BEGIN; COMMIT": true,
		"SET autocommit = 0": false, "USE shop": false, "SELECT 1": false, "COMMIT; SET autocommit = 0": false,
		"BEGIN; SELECT 1": false,
	})
}

func TestVerifyRefusesUnsanctionedTables(t *testing.T) {
	stmt, err := parse("SELECT * FROM shop.orders WHERE id IN (SELECT id FROM shop.customers)")
	if err != nil {
		t.Fatal(err)
	}
	var refs []*sqlparser.AliasedTableExpr
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			refs = append(refs, ate)
		}
		return true, nil
	}, stmt)
	if len(refs) != 2 {
		t.Fatalf("%d references", len(refs))
	}
	r := newRewrite(context.Background(), request("", nil))
	r.Sanction(refs[0])
	rd := reading{stmt: stmt, node: stmt}
	if _, err := r.verify(rd); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("verify = %v", err)
	}
	r.Sanction(refs[1])
	want, err := r.verify(rd)
	if err != nil {
		t.Fatal(err)
	}
	// The printed text must name the same tables as the tree.
	if err := verifyPrinted(want, "select * from shop.orders where id in (select id from shop.customers)", false); err != nil {
		t.Fatal(err)
	}
	if err := verifyPrinted(want, "select * from shop.orders where id in (select id from customers)", false); err == nil {
		t.Fatal("a printed text naming another table was accepted")
	}
	// A text read as another form keeps other parts, and is refused.
	if err := verifyPrinted(want, "select * from shop.orders intersect select id from shop.customers", true); err == nil {
		t.Fatal("a printed text of another form was accepted")
	}
}

// selfComparison reports whether f is IFNULL(x, c = c) over one column c.
func selfComparison(f *sqlparser.FuncExpr) bool {
	if !f.Name.EqualString("ifnull") || len(f.Exprs) != 2 {
		return false
	}
	cmp, ok := f.Exprs[1].(*sqlparser.ComparisonExpr)
	if !ok || cmp.Operator != sqlparser.EqualOp || sqlparser.String(cmp.Left) != sqlparser.String(cmp.Right) {
		return false
	}
	_, isCol := cmp.Left.(*sqlparser.ColName)
	return isCol
}
