package postgres

import (
	"sort"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func quoteName(n string) string { return `"` + strings.ReplaceAll(n, `"`, `""`) + `"` }

var refusedNaming = testDialect.RefusedNaming

func TestEveryListedFunctionPasses(t *testing.T) {
	var names []string
	for _, l := range []map[string]bool{builtinFunctions, pgMeasures} {
		for n := range l {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) < 1000 {
		t.Fatalf("only %d built-ins listed", len(names))
	}
	for _, n := range names {
		for _, call := range []string{quoteName(n) + "(1)", "pg_catalog." + quoteName(n) + "(1)"} {
			if _, err := rewriteSQL(t, "SELECT "+call, nil); err != nil {
				t.Errorf("%s: %v", call, err)
			}
		}
	}
}

func TestRefusedFunctions(t *testing.T) {
	dialecttest.RefusedFunctions(t, testDialect, map[string]string{
		// The connection's statements and cursors: other callers' rewritten SQL.
		"SELECT * FROM pg_prepared_statement()":                             "pg_prepared_statement",
		"SELECT name, statement FROM pg_catalog.pg_prepared_statement()":    "pg_catalog.pg_prepared_statement",
		"SELECT (pg_prepared_statement()).statement":                        "pg_prepared_statement",
		"SELECT * FROM pg_cursor()":                                         "pg_cursor",
		"SELECT x.* FROM ROWS FROM (pg_cursor()) x":                         "pg_cursor",
		"SELECT id FROM customers WHERE EXISTS (SELECT 1 FROM pg_cursor())": "pg_cursor",
		// Sequences: counts of hidden rows, writes with read access.
		"SELECT pg_sequence_last_value('tickets_id_seq')":           "pg_sequence_last_value",
		"SELECT pg_sequence_last_value('tickets_id_seq'::regclass)": "pg_sequence_last_value",
		"SELECT nextval('tickets_id_seq')":                          "nextval",
		"SELECT pg_catalog.nextval('tickets_id_seq')":               "pg_catalog.nextval",
		"SELECT setval('tickets_id_seq', 1)":                        "setval",
		"SELECT currval('tickets_id_seq')":                          "currval",
		"SELECT lastval()":                                          "lastval",
		"SELECT id FROM customers WHERE id < nextval('s')":          "nextval",
		"INSERT INTO orders (id) VALUES (nextval('s'))":             "nextval",
		// Configuration, locks, other sessions.
		"SELECT * FROM pg_show_all_file_settings()":         "pg_show_all_file_settings",
		"SELECT * FROM pg_hba_file_rules()":                 "pg_hba_file_rules",
		"SELECT * FROM pg_lock_status()":                    "pg_lock_status",
		"SELECT current_setting('app.tenant')":              "current_setting",
		"SELECT current_query()":                            "current_query",
		"SELECT pg_advisory_lock(1)":                        "pg_advisory_lock",
		"SELECT pg_sleep(1)":                                "pg_sleep",
		"SELECT pg_backend_pid()":                           "pg_backend_pid",
		"SELECT inet_server_addr()":                         "inet_server_addr",
		"SELECT has_table_privilege('customers', 'select')": "has_table_privilege",
		"SELECT pg_get_viewdef('cust_v')":                   "pg_get_viewdef",
		"SELECT txid_current()":                             "txid_current",
		"SELECT setseed(0.5)":                               "setseed",
		"SELECT getpgusername()":                            "getpgusername",
		"SELECT pg_notify('c', 'x')":                        "pg_notify",
		"SELECT * FROM currtid2('customers', '(0,1)')":      "currtid2",
		"SELECT pg_relation_size('customers')":              "pg_relation_size",
		// Application functions and shadowing schemas.
		"SELECT myschema.lower(name) FROM customers":       "myschema.lower",
		"SELECT calc_tax(total) FROM orders":               "calc_tax",
		"SELECT id FROM customers ORDER BY myschema.f(id)": "myschema.f",
		"SELECT \"LOWER\"(name) FROM customers":            "LOWER",
		// Aggregates, windows, variadic, FILTER, WITHIN GROUP.
		"SELECT my_agg(id) FILTER (WHERE id > 1) FROM customers":             "my_agg",
		"SELECT my_pct(0.5) WITHIN GROUP (ORDER BY id) FROM customers":       "my_pct",
		"SELECT my_win(id) OVER (ORDER BY id) FROM customers":                "my_win",
		"SELECT count(*) FILTER (WHERE pg_backend_pid() > 0) FROM customers": "pg_backend_pid",
		"SELECT my_concat(VARIADIC ARRAY['a'])":                              "my_concat",
		"SELECT lower(pg_backend_pid()::text COLLATE \"C\")":                 "pg_backend_pid",
		// Everywhere in a statement.
		"UPDATE orders SET total = calc(total)":                                                             "calc",
		"DELETE FROM orders WHERE id = calc(1)":                                                             "calc",
		"WITH x AS (SELECT calc(1)) SELECT * FROM x":                                                        "calc",
		"SELECT id FROM orders GROUP BY id HAVING calc(id) > 0":                                             "calc",
		"SELECT * FROM customers c JOIN LATERAL calc(c.id) f ON true":                                       "calc",
		"SELECT o.id FROM orders o JOIN customers c ON calc(c.id)":                                          "calc",
		"SELECT id FROM customers LIMIT nextval('s')":                                                       "nextval",
		"SELECT id FROM customers ORDER BY id OFFSET calc(1) ROWS FETCH FIRST calc(2) ROWS ONLY":            "calc",
		"SELECT id, sum(id) OVER (PARTITION BY calc(id)) FROM customers":                                    "calc",
		"SELECT id FROM customers GROUP BY calc(id)":                                                        "calc",
		"INSERT INTO orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET total = calc(1)":                 "calc",
		"INSERT INTO orders (id) VALUES (1) RETURNING nextval('s')":                                         "nextval",
		"UPDATE orders SET total = 1 RETURNING pg_backend_pid()":                                            "pg_backend_pid",
		"MERGE INTO orders o USING customers c ON o.id = c.id WHEN MATCHED THEN UPDATE SET total = calc(1)": "calc",
		"VALUES (nextval('s'))":                                                                             "nextval",
		"EXPLAIN SELECT * FROM pg_cursor()":                                                                 "pg_cursor",
		"DECLARE cur CURSOR FOR SELECT pg_backend_pid()":                                                    "pg_backend_pid",
		"SELECT 1 WHERE pg_catalog.pg_backend_pid() IN (SELECT pg_backend_pid())":                           "pg_backend_pid",
		"SELECT * FROM xmltable('/a' PASSING calc(1) COLUMNS x int)":                                        "calc",
		"SELECT o.id FROM orders o JOIN customers c USING (id) WHERE pg_backend_pid() IS NULL":              "pg_backend_pid",
	})
}

func TestAllowedFunctions(t *testing.T) {
	for _, sql := range []string{
		"SELECT lower(name), pg_catalog.upper(ssn), length(email) FROM customers",
		"SELECT count(*) FILTER (WHERE id > 1), percentile_cont(0.5) WITHIN GROUP (ORDER BY id), string_agg(name, ',' ORDER BY id) FROM customers",
		"SELECT id, row_number() OVER (PARTITION BY region ORDER BY id), lag(name) OVER w FROM customers WINDOW w AS (ORDER BY id)",
		"SELECT concat_ws(VARIADIC ARRAY['a', 'b']), format('%s', 1), lower(name COLLATE \"C\") FROM customers",
		"SELECT * FROM generate_series(1, 3) g, unnest(ARRAY[1, 2]) u, json_each('{}') j",
		"SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a'])) WITH ORDINALITY AS t(a, b, n)",
		"SELECT * FROM json_to_record('{\"a\": 1}') AS t(a int, b text[])",
		"SELECT now(), current_date, current_timestamp, localtime, current_database(), current_schema, version()",
		"SELECT pg_typeof(1), pg_column_size(name), to_regclass('customers'), 'customers'::regclass FROM customers",
		"SELECT coalesce(name, ''), nullif(ssn, ''), greatest(1, 2), least(1, 2), CASE WHEN id > 1 THEN 1 END FROM customers",
		"SELECT xmlelement(name x, name), json_build_object('a', id), jsonb_path_query('{}', '$') FROM customers",
		"SELECT md5(name), sha256(convert_to(ssn, 'UTF8')), encode(decode('00', 'hex'), 'base64') FROM customers",
		"SELECT id FROM customers WHERE name ~ '^a' AND name !~~* 'b%' AND ARRAY[1] <@ ARRAY[1, 2] AND '{}'::jsonb ? 'a'",
		"SELECT 1 OPERATOR(pg_catalog.+) 2",
		"SELECT id FROM customers ORDER BY name USING ~<~",
		"SELECT id FROM customers WHERE id = ANY (SELECT id FROM orders)",
		// SQL-syntax forms the grammar turns into function calls.
		"SELECT COLLATION FOR (name), overlay(name placing 'x' from 1), position('a' in name), substring(name from 1 for 2), trim(both 'x' from name), name IS NORMALIZED, now() AT TIME ZONE 'UTC', extract(year from now()), (1, 2) OVERLAPS (3, 4) FROM customers",
	} {
		mustRewrite(t, sql, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
	}
}

func TestFunctionsAllowedByName(t *testing.T) {
	req := request("SELECT nextval('s'), calc_tax(total), billing.fx(total) FROM orders", nil)
	refusedNaming(t, req, "nextval")
	req.AllowedFunctions = []string{"nextval", "Calc_Tax", "billing.fx"}
	if _, err := rewriteReq(t, req); err != nil {
		t.Fatal(err)
	}
	// A qualified name allows that schema only; an unqualified one the
	// unqualified call only.
	dialecttest.QualifiedFunctionAllowsItsSchemaOnly(t, testDialect)
	req = request("SELECT billing.calc_tax(1)", nil)
	req.AllowedFunctions = []string{"calc_tax"}
	refusedNaming(t, req, "billing.calc_tax")
	// A function that reads files stays refused whatever is allowed.
	dialecttest.FileFunctionStaysRefused(t, testDialect, "SELECT pg_read_file('/etc/passwd')", "pg_read_file")
}

func TestPolicyExpressionsAreNotChecked(t *testing.T) {
	dialecttest.PolicyExpressionsAreNotChecked(t, testDialect, "region = current_setting('app.region') AND shop.f(id) AND id::shop.mytype IS NOT NULL", "shop.mask_name({col})",
		[]string{"current_setting", "shop.f(", "shop.mask_name("})
}

func TestTypesOfCasts(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for sql, name := range map[string]string{
		"SELECT null::customers": "customers",
		"SELECT json_populate_record(null::customers, '{\"ssn\": \"x\"}')":     "customers",
		"SELECT jsonb_populate_recordset(NULL::shop.customers, '[]')":          "shop.customers",
		"SELECT CAST(NULL AS customers)":                                       "customers",
		"SELECT ROW(1, 'a')::customers":                                        "customers",
		"SELECT '{}'::customers[]":                                             "customers",
		"SELECT customers '(1)'":                                               "customers",
		"SELECT * FROM json_to_record('{}') AS t(c customers)":                 "customers",
		"SELECT * FROM json_populate_record(null::pg_catalog.pg_authid, '{}')": "pg_catalog.pg_authid",
		"SELECT 'x'::mood":                                                     "mood",
		"SELECT id FROM customers WHERE name::public.mytype IS NULL":           "public.mytype",
	} {
		refusedNaming(t, request(sql, dec), "type "+name)
	}
	for _, sql := range []string{
		"SELECT 1::int, 2::bigint, 3::smallint, '4'::numeric(10, 2), 1.5::real, 2.5::double precision, 1::float8",
		"SELECT 'a'::text, 'b'::varchar(10), 'c'::char(3), 'd'::character varying, 'e'::name, 'f'::bpchar",
		"SELECT now()::timestamp with time zone, now()::timestamptz(3), now()::date, now()::time, interval '1 day', date '2024-01-01'",
		"SELECT '{}'::jsonb, '{}'::json, '$'::jsonpath, 'x'::bytea, gen_random_uuid()::uuid, true::boolean, B'1'::bit(1)",
		"SELECT ARRAY[1]::int[], '{a}'::text[][], '[1,2)'::int4range, '10.0.0.1'::inet, 'x'::xml, 'a b'::tsvector",
		"SELECT 'customers'::regclass, 'int4'::regtype, ROW(1, 2)::record, CAST(1 AS pg_catalog.int4)",
	} {
		mustRewrite(t, sql, dec)
	}
	req := request("SELECT 'happy'::mood, 'x'::app.label", nil)
	refusedNaming(t, req, "mood")
	req.AllowedTypes = []string{"mood", "app.label"}
	if _, err := rewriteReq(t, req); err != nil {
		t.Fatal(err)
	}
}

func TestOperators(t *testing.T) {
	for sql, name := range map[string]string{
		"SELECT 1 OPERATOR(public.+) 2":                                                      "public.+",
		"SELECT id FROM customers WHERE name === 'x'":                                        "===",
		"SELECT id FROM customers WHERE id OPERATOR(myschema.=) ANY (ARRAY[1])":              "myschema.=",
		"SELECT id FROM customers ORDER BY id USING OPERATOR(myschema.<)":                    "myschema.<",
		"SELECT id FROM customers WHERE id OPERATOR(myschema.=) ANY (SELECT id FROM orders)": "myschema.=",
	} {
		refusedNaming(t, request(sql, nil), "operator "+name)
	}
}

func TestFunctionsInSchemaChanges(t *testing.T) {
	for sql, name := range map[string]string{
		"CREATE TABLE x AS SELECT null::customers AS c":              "type customers",
		"CREATE VIEW v AS SELECT pg_backend_pid() AS p":              "pg_backend_pid",
		"CREATE TABLE t2 (id int DEFAULT nextval('t2_seq'))":         "nextval",
		"CREATE TABLE t3 (id int CHECK (shop.valid_id(id)))":         "shop.valid_id",
		"CREATE TABLE t4 AS SELECT id FROM customers WHERE calc(id)": "calc",
	} {
		refusedNaming(t, request(sql, nil), name)
	}
	// Column types and casts in a schema change are the application's
	// own types: not checked.
	for _, sql := range []string{
		"CREATE TABLE t5 (id int DEFAULT 0, m mood, c text DEFAULT 'x'::mood::text CHECK (char_length(c) < 9), at timestamptz DEFAULT now(), u uuid DEFAULT gen_random_uuid())",
	} {
		mustRewrite(t, sql, nil)
	}
}

// allowingView is a View whose policy set allows functions by name.
type allowingView struct {
	*dialecttest.View
	allowed []string
}

func (v allowingView) AllowedFunctions() []string { return v.allowed }

func TestFunctionsAllowedByThePolicySet(t *testing.T) {
	req := request("SELECT calc_tax(total), billing.fx(1) FROM orders", nil)
	refusedNaming(t, req, "calc_tax")
	req.View = allowingView{View: req.View.(*dialecttest.View), allowed: []string{"calc_tax"}}
	refusedNaming(t, req, "billing.fx")
	req.AllowedFunctions = []string{"billing.fx"}
	if _, err := rewriteReq(t, req); err != nil {
		t.Fatal(err)
	}
}
