package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// serverNames lists the first column of a query on the test server.
func serverNames(t *testing.T, query string) []string {
	t.Helper()
	db := testdb.OpenPostgres(t, testdb.PostgresDSN(t))
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestServerFunctionsOffTheListAreRefused walks every function the real
// server has in pg_catalog: one that is not on the list is refused,
// however it is called, with an error naming it. This is what keeps a
// new server version's new function out until someone decides about it.
func TestServerFunctionsOffTheListAreRefused(t *testing.T) {
	names := serverNames(t, "SELECT DISTINCT proname::text FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace ORDER BY 1")
	if len(names) < 1000 {
		t.Fatalf("the server lists only %d functions", len(names))
	}
	refused := 0
	for _, n := range names {
		if builtin(n) {
			continue
		}
		if isSessionRoleFunction(n) {
			continue
		}
		if _, context := contextFunctions[n]; context {
			continue
		}
		refused++
		q := quoteName(n)
		for _, sql := range []string{
			"SELECT " + q + "()",
			"SELECT pg_catalog." + q + "(1, 'a')",
			"SELECT * FROM " + q + "(1)",
			"SELECT * FROM ROWS FROM (pg_catalog." + q + "()) AS x",
			"SELECT id FROM customers WHERE " + q + "(id) IS NULL",
			"SELECT count(*) FILTER (WHERE " + q + "(id)) FROM customers",
		} {
			refusedNaming(t, request(sql, nil), n)
		}
	}
	t.Logf("%d of the server's %d function names are refused", refused, len(names))

	// Every listed name is a function of the server's pg_catalog: an
	// unqualified name pg_catalog lacks would resolve to a function of
	// another schema on the search path.
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, l := range []map[string]bool{builtinFunctions, pgMeasures} {
		for n := range l {
			if !has[n] {
				t.Errorf("%s is listed but pg_catalog has no such function", n)
			}
		}
	}
}

// TestServerTypesOffTheListAreRefused: a cast to any type of the server
// that is not on the list (composite types, the catalogs' row types,
// pseudo-types) is refused, naming it; the list's types exist.
func TestServerTypesOffTheListAreRefused(t *testing.T) {
	all := map[string]bool{}
	for _, n := range serverNames(t, "SELECT typname::text FROM pg_type WHERE typnamespace = 'pg_catalog'::regnamespace AND typname !~ '^_'") {
		all[n] = true
		if builtinTypes[n] {
			continue
		}
		refusedNaming(t, request("SELECT NULL::"+quoteName(n), nil), "type "+n)
		refusedNaming(t, request("SELECT CAST(NULL AS pg_catalog."+quoteName(n)+"[])", nil), "type pg_catalog."+n)
	}
	for n := range builtinTypes {
		switch n {
		case "int", "integer", "smallint", "bigint", "real", "float", "double", "decimal", "boolean", "character":
			continue // SQL spellings the grammar maps onto pg_catalog's names
		}
		if !all[n] {
			t.Errorf("type %s is listed but the server has no such type", n)
		}
	}
}

// TestServerOperatorsAreListed: every operator of pg_catalog is on the
// operator list, so that no built-in operator is refused.
func TestServerOperatorsAreListed(t *testing.T) {
	for _, op := range serverNames(t, "SELECT DISTINCT oprname::text FROM pg_operator WHERE oprnamespace = 'pg_catalog'::regnamespace") {
		if !builtinOperators[op] {
			t.Errorf("operator %s of pg_catalog is not listed", op)
		}
		if strings.ContainsAny(op, " \t") {
			t.Errorf("operator %q", op)
		}
	}
}

// serverQuery is a rewriter.Query over the test server.
func serverQuery(t *testing.T) rewriter.Query {
	t.Helper()
	db := testdb.OpenPostgres(t, testdb.PostgresDSN(t))
	db.SetMaxOpenConns(1) // one connection: its temporary tables stay visible
	return func(ctx context.Context, q string, args ...any) ([][]any, error) {
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]any
		for rows.Next() {
			row := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			out = append(out, row)
		}
		return out, rows.Err()
	}
}

// TestNamedClassesOnServer: the test server (PostgreSQL with ICU)
// classifies as Go's tables do, so its connections get masks that name
// the classes; and a column's collation is read for the masks to hand
// their result back in.
func TestNamedClassesOnServer(t *testing.T) {
	q := serverQuery(t)
	s, err := Dialect{}.ReadSession(context.Background(), q)
	if err != nil || !s.(Session).NamedClasses {
		t.Fatalf("%+v %v: want NamedClasses on a server with ICU", s, err)
	}
	if _, err := q(context.Background(), `CREATE TEMPORARY TABLE coll_probe (c text COLLATE "C", d text)`); err != nil {
		t.Fatal(err)
	}
	cols, err := Dialect{}.Columns(context.Background(), q, policy.TableName{Schema: "pg_temp", Table: "coll_probe"})
	if err != nil || len(cols) != 2 {
		t.Fatalf("%+v %v", cols, err)
	}
	if cols[0].Collation != `pg_catalog."C"` || cols[1].Collation != "" {
		t.Errorf("collations %q and %q, want pg_catalog.\"C\" and the default", cols[0].Collation, cols[1].Collation)
	}
}
