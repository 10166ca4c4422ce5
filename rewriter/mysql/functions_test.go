package mysql

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

var refusedNaming = testDialect.RefusedNaming

// specialCalls are the calls of functions with a syntax of their own.
var specialCalls = map[string]string{
	"date_add":      "DATE_ADD(NOW(), INTERVAL 1 DAY)",
	"date_sub":      "DATE_SUB(NOW(), INTERVAL 1 DAY)",
	"extract":       "EXTRACT(YEAR FROM NOW())",
	"position":      "POSITION('a' IN 'b')",
	"timestampadd":  "TIMESTAMPADD(DAY, 1, NOW())",
	"timestampdiff": "TIMESTAMPDIFF(DAY, NOW(), NOW())",
}

// callForms are the calls of a function tried until one parses.
func callForms(name string) []string {
	out := []string{specialCalls[name]}
	for _, n := range []string{name, "`" + name + "`"} {
		out = append(out, n+"('2024-01-02')", n+"()", n+"(1, 2)", n+"(1, 2, 3)", n+"(1)", n+"(POINT(1, 2))",
			n+"(1, 2, 3, 4)", n+"() OVER ()", n+"(1) OVER ()", n+"(1, 2) OVER ()")
	}
	return out
}

func TestEveryListedFunctionPasses(t *testing.T) {
	var names []string
	for n := range builtinFunctions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var errs []string
		passed := false
		for _, call := range callForms(n) {
			_, err := Dialect{}.Rewrite(context.Background(), request("SELECT "+call, nil))
			if err == nil {
				passed = true
				break
			}
			errs = append(errs, err.Error())
		}
		if !passed {
			t.Errorf("%s: no call form passes: %s", n, strings.Join(errs, " | "))
		}
	}
}

func TestRefusedFunctions(t *testing.T) {
	dialecttest.RefusedFunctions(t, testDialect, map[string]string{
		"SELECT GET_LOCK('x', 1)":                                                     "get_lock",
		"SELECT RELEASE_LOCK('x')":                                                    "release_lock",
		"SELECT RELEASE_ALL_LOCKS()":                                                  "release_all_locks",
		"SELECT IS_USED_LOCK('x')":                                                    "is_used_lock",
		"SELECT IS_FREE_LOCK('x')":                                                    "is_free_lock",
		"SELECT LAST_INSERT_ID()":                                                     "last_insert_id",
		"SELECT LAST_INSERT_ID(5)":                                                    "last_insert_id",
		"SELECT CONNECTION_ID()":                                                      "connection_id",
		"SELECT SLEEP(1)":                                                             "sleep",
		"SELECT id FROM customers WHERE SLEEP(0) = 0":                                 "sleep",
		"SELECT BENCHMARK(1000, MD5('x'))":                                            "benchmark",
		"SELECT MASTER_POS_WAIT('f', 1)":                                              "master_pos_wait",
		"SELECT MASTER_GTID_WAIT('0-1-1')":                                            "master_gtid_wait",
		"SELECT BINLOG_GTID_POS('f', 1)":                                              "binlog_gtid_pos",
		"SELECT GTID_SUBSET('a', 'b')":                                                "gtid_subset",
		"SELECT WAIT_FOR_EXECUTED_GTID_SET('a')":                                      "wait_for_executed_gtid_set",
		"SELECT PS_CURRENT_THREAD_ID()":                                               "ps_current_thread_id",
		"SELECT PS_THREAD_ID(1)":                                                      "ps_thread_id",
		"SELECT WSREP_LAST_SEEN_GTID()":                                               "wsrep_last_seen_gtid",
		"SELECT UUID_SHORT()":                                                         "uuid_short",
		"SELECT NEXTVAL(s)":                                                           "nextval",
		"SELECT SETVAL(s, 1)":                                                         "setval",
		"SELECT LASTVAL(s)":                                                           "lastval",
		"SELECT LOAD_FILE('/etc/passwd')":                                             "load_file",
		"SELECT FOUND_ROWS()":                                                         "found_rows",
		"SELECT ROW_COUNT()":                                                          "row_count",
		"SELECT shop.calc_tax(total) FROM orders":                                     "shop.calc_tax",
		"SELECT calc_tax(total) FROM orders":                                          "calc_tax",
		"SELECT id FROM customers ORDER BY my_fn(id)":                                 "my_fn",
		"SELECT COUNT(*) FROM customers WHERE my_fn(ssn)":                             "my_fn",
		"UPDATE orders SET total = my_fn(total)":                                      "my_fn",
		"DELETE FROM orders WHERE my_fn(id)":                                          "my_fn",
		"INSERT INTO orders (id) VALUES (my_fn(1))":                                   "my_fn",
		"INSERT INTO orders (id) SELECT my_fn(id) FROM customers":                     "my_fn",
		"SELECT (SELECT MAX(my_fn(id)) FROM customers)":                               "my_fn",
		"WITH x AS (SELECT my_fn(1) AS a) SELECT a FROM x":                            "my_fn",
		"SELECT id, SUM(my_fn(id)) OVER (ORDER BY id) FROM customers":                 "my_fn",
		"SELECT GROUP_CONCAT(my_fn(ssn)) FROM customers":                              "my_fn",
		"SET @x = my_fn(1)":                                                           "my_fn",
		"INSERT INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE total = my_fn(1)": "my_fn",
		"UPDATE orders SET total = 1 ORDER BY my_fn(id) LIMIT 1":                      "my_fn",
		"DELETE FROM orders ORDER BY my_fn(id) LIMIT 1":                               "my_fn",
		"SELECT id FROM customers GROUP BY my_fn(id)":                                 "my_fn",
		"SELECT c.id FROM customers c JOIN orders o ON my_fn(c.id) = o.id":            "my_fn",
		"SELECT c.id FROM customers c, JSON_TABLE(my_fn(c.ssn), '$[*]' COLUMNS (x INT PATH '$')) j": "my_fn",
		"SELECT id FROM customers WHERE id IN (SELECT my_fn(id) FROM orders)":                       "my_fn",
		"SELECT id FROM customers UNION SELECT my_fn(1)":                                            "my_fn",
		"SELECT id INTO @v FROM customers WHERE my_fn(id) LIMIT 1":                                  "my_fn",
		"SELECT id FROM customers WHERE id = 1 AND GET_LOCK(ssn, 0)":                                "get_lock",
	})
}

func TestAllowedFunctions(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, sql := range []string{
		"SELECT LOWER(name), UPPER(ssn), LENGTH(email), SUBSTRING(ssn, 1, 3), TRIM(name), LOCATE('a', name) FROM customers",
		"SELECT CAST(id AS CHAR), CONVERT(name, CHAR(10)), CONVERT(name USING utf8mb4), name COLLATE utf8mb4_bin FROM customers",
		"SELECT DATE_ADD(NOW(), INTERVAL 1 DAY), EXTRACT(YEAR FROM CURDATE()), TIMESTAMPDIFF(DAY, NOW(), NOW()), CURRENT_TIMESTAMP, UTC_TIMESTAMP()",
		"SELECT JSON_EXTRACT('{}', '$.a'), JSON_OBJECT('a', id), JSON_ARRAYAGG(id), JSON_UNQUOTE('\"a\"'), JSON_VALID('{}') FROM customers",
		"SELECT COUNT(*), COUNT(DISTINCT region), SUM(id), AVG(id), MAX(name), GROUP_CONCAT(name ORDER BY id SEPARATOR ','), STDDEV(id), BIT_OR(id) FROM customers",
		"SELECT ROW_NUMBER() OVER w, RANK() OVER w, LAG(name) OVER w, NTILE(2) OVER w, FIRST_VALUE(name) OVER w, NTH_VALUE(name, 2) OVER w FROM customers WINDOW w AS (ORDER BY id)",
		"SELECT IF(id > 1, 'a', 'b'), IFNULL(email, ''), COALESCE(email, ssn), NULLIF(ssn, ''), GREATEST(1, 2), CASE WHEN id THEN 1 END FROM customers",
		"SELECT MD5(ssn), SHA2(ssn, 256), CRC32(name), HEX(name), TO_BASE64(name), REGEXP_REPLACE(ssn, '[0-9]', 'x'), name REGEXP '^a' FROM customers",
		"SELECT DATABASE(), SCHEMA(), VERSION(), UUID(), RAND(), CHARSET(name), COLLATION(name) FROM customers",
		"SELECT ST_AsText(POINT(1, 2)), ST_X(POINT(1, 2)), ST_GeomFromText('POINT(1 1)')",
		"SELECT EXTRACTVALUE('<a>1</a>', '/a'), INSERT(name, 1, 2, 'x'), CHAR(65), WEIGHT_STRING(name) FROM customers",
		"SELECT id FROM customers WHERE MATCH (name) AGAINST ('x')",
		"INSERT INTO orders (id, total) VALUES (1, 2) ON DUPLICATE KEY UPDATE total = VALUES(total)",
		"SELECT current_user(), current_role(), is_role_in_session('support')",
	} {
		if _, err := (Dialect{}).Rewrite(context.Background(), request(sql, dec)); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// An expression alone in its place (a JOIN's ON, JSON_TABLE's document)
// is checked like any other: its function, column or context function.
func TestExpressionAloneInItsPlace(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	refusedNaming(t, request("SELECT o.id FROM orders o JOIN customers c ON my_fn(c.id)", dec), "my_fn")
	refusedNaming(t, request("SELECT o.id FROM orders o JOIN customers c ON GET_LOCK('a', 0)", dec), "get_lock")
	refusedNaming(t, request("SELECT c.id FROM customers c, JSON_TABLE(my_fn(c.ssn), '$[*]' COLUMNS (x INT PATH '$')) j", dec), "my_fn")
	_, err := (Dialect{}).Rewrite(context.Background(), request("SELECT o.id FROM orders o JOIN customers c ON c.salary", dec))
	if !errors.Is(err, policy.ErrColumnDenied) {
		t.Fatalf("a restricted column alone in ON: %v", err)
	}
	for _, q := range []string{
		"SELECT o.id FROM orders o JOIN customers c ON current_user()",
		"SELECT j.x FROM JSON_TABLE(current_user(), '$[*]' COLUMNS (x INT PATH '$')) j",
	} {
		out, err := rewriteSQL(t, q, dec)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if strings.Contains(strings.ToLower(out), "current_user") || !strings.Contains(out, "al''ice") {
			t.Fatalf("%s: the context function is not inlined: %s", q, out)
		}
	}
}

func TestFunctionsAllowedByName(t *testing.T) {
	req := request("SELECT calc_tax(total), billing.fx(total), SLEEP(0) FROM orders", nil)
	refusedNaming(t, req, "calc_tax")
	req.AllowedFunctions = []string{"CALC_TAX", "billing.fx", "sleep"}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	dialecttest.QualifiedFunctionAllowsItsSchemaOnly(t, testDialect)
	req = request("SELECT GET_LOCK('a', 0)", nil)
	req.AllowedFunctions = []string{"get_lock"}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// Reading files stays refused whatever is allowed.
	dialecttest.FileFunctionStaysRefused(t, testDialect, "SELECT LOAD_FILE('/etc/passwd')", "LOAD_FILE")
}

func TestPolicyExpressionsAreNotChecked(t *testing.T) {
	dialecttest.PolicyExpressionsAreNotChecked(t, testDialect, "region = shop.tenant_region() AND CONNECTION_ID() > 0", "shop.mask_name({col})",
		[]string{"tenant_region(", "mask_name("})
}
