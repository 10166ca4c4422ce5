package postgres

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// A temporary table created by a statement of a string is known to the
// later statements of the string, in pg_temp, as the server will find it.
func TestTemporaryTableCreatedEarlierInTheString(t *testing.T) {
	res, err := rewriteReq(t, request(`create temporary table docs(body json not null); `+
		`insert into docs(body) values('{"foo": "bar"}'); select * from docs`, nil))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, res.SQL, "CREATE TEMPORARY TABLE docs", "INSERT INTO pg_temp.docs", "SELECT * FROM pg_temp.docs")
	if res.Effect.Holds != rewriter.HoldsTemporaryTable {
		t.Fatalf("holds %q", res.Effect.Holds)
	}
	if !slicesContain(res.Tables, policy.TableName{Schema: "pg_temp", Table: "docs"}) {
		t.Fatalf("tables %v", res.Tables)
	}
	// Qualified with pg_temp, with or without the keyword.
	for _, create := range []string{"CREATE TEMP TABLE docs (body json)", "CREATE TABLE pg_temp.docs (body json)"} {
		res := mustRewrite(t, create+"; SELECT body FROM pg_temp.docs; SELECT body FROM docs", nil)
		contains(t, res, "SELECT body FROM pg_temp.docs; SELECT body FROM pg_temp.docs")
	}
	// Without the string's CREATE the table is unknown, as before.
	_, err = rewriteSQL(t, "select * from docs", nil)
	wantKind(t, err, rewriter.ErrUnsupported)
}

func slicesContain(ts []policy.TableName, t policy.TableName) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// A temporary table that shadows a policed table takes the unqualified
// name, as on the server; the policed table keeps its policy under its
// qualified name and is never read unpoliced.
func TestTemporaryTableShadowingInTheString(t *testing.T) {
	dec := simpleDecisions()
	out := mustRewrite(t, "CREATE TEMP TABLE customers (id int, ssn text); INSERT INTO customers VALUES (1, 'x'); "+
		"SELECT ssn FROM customers; SELECT ssn FROM shop.customers", dec)
	parts := strings.Split(out, "; ")
	if len(parts) != 4 {
		t.Fatalf("%d statements: %s", len(parts), out)
	}
	if parts[2] != "SELECT ssn FROM pg_temp.customers" {
		t.Fatalf("the temporary table: %s", parts[2])
	}
	contains(t, parts[3], `"right"(shop.customers.ssn, 4)`, "region = 'EU'", "FROM shop.customers")
	// A restricted column of the policed table stays denied when named
	// qualified; unqualified it is the temporary table's (the server
	// reads pg_temp.customers, which has no salary: its own error).
	_, err := rewriteSQL(t, "CREATE TEMP TABLE customers (id int); SELECT salary FROM shop.customers", dec)
	wantKind(t, err, policy.ErrColumnDenied)
	out = mustRewrite(t, "CREATE TEMP TABLE customers (id int); SELECT salary FROM customers", dec)
	contains(t, out, "SELECT salary FROM pg_temp.customers")
	lacks(t, out, "shop.customers")
	// A table shadowing a denied one does not open it.
	_, err = rewriteSQL(t, "CREATE TEMP TABLE audit (id int); SELECT * FROM shop.audit", dec)
	wantKind(t, err, policy.ErrAccessDenied)
}

// A DROP later in the string removes the table from pg_temp: the name
// resolves further along the path again, to the policed table.
func TestTemporaryTableDroppedInTheString(t *testing.T) {
	dec := simpleDecisions()
	out := mustRewrite(t, "CREATE TEMP TABLE customers (id int); DROP TABLE customers; SELECT id FROM customers", dec)
	parts := strings.Split(out, "; ")
	contains(t, parts[1], "DROP TABLE pg_temp.customers")
	contains(t, parts[2], "region = 'EU'", "FROM shop.customers")
	// A temporary table an earlier call created, dropped by the string.
	req := request("DROP TABLE customers; SELECT id FROM customers", dec)
	cat := testCatalog()
	cat.Tables["pg_temp.customers"] = cat.Tables["shop.orders"]
	req.Catalog = cat
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	parts = strings.Split(res.SQL, "; ")
	contains(t, parts[0], "DROP TABLE pg_temp.customers")
	contains(t, parts[1], "region = 'EU'", "FROM shop.customers")
	// Created again after the DROP: pg_temp again.
	out = mustRewrite(t, "CREATE TEMP TABLE customers (id int); DROP TABLE customers; CREATE TEMP TABLE customers (id int); SELECT id FROM customers", dec)
	contains(t, out, "SELECT id FROM pg_temp.customers")
	// DISCARD TEMP drops them all, an earlier call's too.
	out = mustRewrite(t, "CREATE TEMP TABLE customers (id int); DISCARD TEMP; SELECT id FROM customers", dec)
	contains(t, strings.Split(out, "; ")[2], "region = 'EU'", "FROM shop.customers")
	req = request("DISCARD TEMP; SELECT id FROM customers", dec)
	req.Catalog = cat
	res, err = rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, strings.Split(res.SQL, "; ")[1], "region = 'EU'", "FROM shop.customers")
	// Renamed: the old name resolves along the path, the new one in pg_temp.
	out = mustRewrite(t, "CREATE TEMP TABLE customers (id int); ALTER TABLE customers RENAME TO c2; SELECT id FROM c2; SELECT id FROM customers", dec)
	parts = strings.Split(out, "; ")
	contains(t, parts[2], "SELECT id FROM pg_temp.c2")
	contains(t, parts[3], "region = 'EU'", "FROM shop.customers")
}

// namedView adds the columns a policy's rules name (View.NamedColumns)
// to the test view.
type namedView struct {
	*dialecttest.View
	named map[string][]policy.ColumnRef
}

func (v namedView) NamedColumns(t policy.TableName) []policy.ColumnRef { return v.named[t.Key()] }

// The policy decides on a temporary table created in the string as on
// one created by an earlier call: under its name pg_temp.name, with the
// columns the table is created with.
func TestTemporaryTableInTheStringGetsItsPolicy(t *testing.T) {
	notes := []rewriter.Column{
		{Name: "id", DataType: "integer", ColumnType: "integer"},
		{Name: "body", DataType: "text", ColumnType: "text"},
		{Name: "secret", DataType: "text", ColumnType: "text"},
	}
	withNotes := func(req *rewriter.Request) *rewriter.Request {
		cat := testCatalog()
		cat.Tables["pg_temp.notes"] = notes
		req.Catalog = cat
		return req
	}
	// A table under a read policy: the policy needs the table's columns
	// when it is created, so the CREATE is refused, alone or in a string.
	dec := map[string]*policy.Decision{"pg_temp.notes": {
		Allowed:    dialecttest.AllAccess(),
		Restricted: map[string]string{"secret": "no-secret"},
	}}
	create := "CREATE TEMP TABLE notes (id int, body text, secret text)"
	for _, sql := range []string{create, create + "; SELECT id FROM notes"} {
		_, err := rewriteSQL(t, sql, dec)
		wantKind(t, err, rewriter.ErrUnsupported)
	}
	// Read once it exists (an earlier call created it), restricted.
	res, err := rewriteReq(t, withNotes(request("SELECT * FROM notes", dec)))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, res.SQL, "pg_temp.notes")
	lacks(t, res.SQL, "secret")
	// Dropped and created again in one string: still refused (the
	// string's DROP leaves no columns for the CREATE's policy).
	_, err = rewriteReq(t, withNotes(request("DROP TABLE notes; "+create, dec)))
	wantKind(t, err, rewriter.ErrUnsupported)

	// Rules naming columns of the table for other callers: this caller
	// reads it unpoliced, and the rules are checked against the columns
	// it is created with, as against an earlier call's table.
	named := map[string][]policy.ColumnRef{"pg_temp.notes": {{Rule: "notes-secret", Section: "restricted", Column: "secret"}}}
	for _, tc := range []struct {
		create string
		ok     bool
	}{{create, true}, {"CREATE TEMP TABLE notes (id int, body text)", false}} {
		req := request(tc.create+"; SELECT * FROM notes", nil)
		req.View = namedView{req.View.(*dialecttest.View), named}
		_, err := rewriteReq(t, req)
		if tc.ok && err != nil {
			t.Fatalf("%s: %v", tc.create, err)
		}
		if !tc.ok {
			re := wantKind(t, err, policy.ErrPolicy)
			if re.Column != "secret" || re.Table != "pg_temp.notes" {
				t.Fatalf("%s: %v", tc.create, err)
			}
		}
		// The same check on a table an earlier call created.
		req = withNotes(request("SELECT * FROM notes", nil))
		if !tc.ok {
			req.Catalog.(*rewriter.StaticCatalog).Tables["pg_temp.notes"] = notes[:2]
		}
		req.View = namedView{req.View.(*dialecttest.View), named}
		if _, err := rewriteReq(t, req); (err == nil) != tc.ok {
			t.Fatalf("earlier call, %s: %v", tc.create, err)
		}
	}
	// Denied under its name: denied in the string too.
	dec["pg_temp.notes"] = &policy.Decision{Allowed: dialecttest.AccessExcept(policy.Select), DeniedBy: map[policy.Access]string{policy.Select: "no-temp-reads"}}
	_, err = rewriteSQL(t, "CREATE TEMP TABLE notes (id int); SELECT * FROM notes", dec)
	wantKind(t, err, policy.ErrAccessDenied)
}

// Columns not known with certainty: a check that needs them is refused,
// naming the table; a table under no policy needs none and runs.
func TestTemporaryTableInTheStringWithUnknownColumns(t *testing.T) {
	named := map[string][]policy.ColumnRef{"pg_temp.t2": {{Rule: "t2-a", Section: "masks", Column: "a"}}}
	rewriteNamed := func(sql string) (*rewriter.Result, error) {
		req := request(sql, nil)
		req.View = namedView{req.View.(*dialecttest.View), named}
		return rewriteReq(t, req)
	}
	for _, create := range []string{
		"CREATE TEMP TABLE t2 AS SELECT 1 AS a",
		"CREATE TEMP TABLE t2 (LIKE shop.orders)",
		"CREATE TEMP TABLE t2 (a text COLLATE \"C\")",
		"CREATE TEMP TABLE t2 (a int[])",
		"CREATE TEMP TABLE t2 (a mytype)",
		"CREATE TEMP TABLE t2 (a public.text)",
		"CREATE TEMP TABLE t2 (a int); ALTER TABLE t2 ADD COLUMN b int",
		"CREATE TEMP TABLE t2 (a int); COMMENT ON COLUMN t2.a IS 'tags: PII'",
		"CREATE TEMP VIEW t2 AS SELECT 1 AS a",
	} {
		mustRewrite(t, create+"; SELECT * FROM t2", nil)
		_, err := rewriteNamed(create + "; SELECT * FROM t2")
		re := wantKind(t, err, rewriter.ErrUnsupported)
		if re.Table != "pg_temp.t2" || !strings.Contains(re.Detail, "not known") {
			t.Fatalf("%s: %v", create, err)
		}
	}
	if _, err := rewriteNamed("CREATE TEMP TABLE t2 (a int); SELECT * FROM t2"); err != nil {
		t.Fatal(err)
	}
	// An unqualified type name that a temporary relation could shadow.
	req := request("CREATE TEMP TABLE t2 (a uuid); SELECT * FROM t2", nil)
	req.View = namedView{req.View.(*dialecttest.View), named}
	cat := testCatalog()
	cat.Tables["pg_temp.uuid"] = cat.Tables["shop.orders"]
	req.Catalog = cat
	_, err := rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)
	_, err = rewriteNamed("CREATE TEMP TABLE uuid (x int); CREATE TEMP TABLE t2 (a uuid); SELECT * FROM t2")
	wantKind(t, err, rewriter.ErrUnsupported)
	if _, err := rewriteNamed("CREATE TEMP TABLE t2 (a uuid); SELECT * FROM t2"); err != nil {
		t.Fatal(err)
	}
	// The types the grammar names in pg_catalog (int, json) are not
	// shadowed.
	if _, err := rewriteNamed("CREATE TEMP TABLE int4 (x int); CREATE TEMP TABLE json (x int); CREATE TEMP TABLE t2 (a int, b json); SELECT * FROM t2"); err != nil {
		t.Fatal(err)
	}
}

// CREATE TEMPORARY TABLE IF NOT EXISTS keeps a table that exists: the
// later statements see its columns, not the declared ones.
func TestTemporaryTableIfNotExistsKeepsTheExistingOne(t *testing.T) {
	dec := map[string]*policy.Decision{"pg_temp.notes": {
		Allowed:    dialecttest.AllAccess(),
		Restricted: map[string]string{"secret": "no-secret"},
	}}
	cat := testCatalog()
	cat.Tables["pg_temp.notes"] = []rewriter.Column{{Name: "id", DataType: "integer", ColumnType: "integer"}, {Name: "secret", DataType: "text", ColumnType: "text"}}
	req := request("CREATE TEMP TABLE IF NOT EXISTS notes (id int, other text); SELECT * FROM notes", dec)
	req.Catalog = cat
	res, err := rewriteReq(t, req)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, res.SQL, "SELECT pg_temp.notes.id AS id FROM pg_temp.notes")
	lacks(t, strings.Split(res.SQL, "; ")[1], "secret", "other")
}

// A search path that names a temporary schema by number is not resolved
// against the string's tables; an index or sequence name after a CREATE
// is not resolved either.
func TestTemporaryTableInTheStringRefusals(t *testing.T) {
	req := request("CREATE TEMP TABLE t2 (a int); SELECT * FROM t2", nil)
	req.Session = NewSession([]string{"pg_temp_3", "shop"}, false)
	_, err := rewriteReq(t, req)
	wantKind(t, err, rewriter.ErrUnsupported)

	f := stringFinder{finder: nil}
	for _, name := range [][]string{{"t2_pkey"}, {"pg_temp", "t2_pkey"}} {
		if _, _, err := f.FindRelation(context.Background(), name); err == nil {
			t.Fatalf("%v resolved", name)
		}
	}
}

// The columns derived from a CREATE TEMPORARY TABLE are the ones the
// server lists for the table it creates.
func TestDeclaredColumnsAreTheServers(t *testing.T) {
	q := serverQuery(t)
	create := "CREATE TEMPORARY TABLE decl_probe (a int, b varchar(10), c numeric(8,2), d char, e text, f serial, " +
		"g timestamptz, h boolean, i bigint, j double precision, k character varying, l numeric, m numeric(5), n bytea, " +
		"o jsonb, p uuid, q date, r time, s timestamp(3), t interval, u bit(4), v smallint, w real, x bigserial, " +
		"y pg_catalog.text, z char(3), aa int GENERATED ALWAYS AS (a + 1) STORED, ab int GENERATED BY DEFAULT AS IDENTITY, " +
		"ac decimal(4,1), ad varbit(7), ae timetz, af json, PRIMARY KEY (a))"
	if _, err := q(context.Background(), create); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = q(context.Background(), "DROP TABLE pg_temp.decl_probe") })
	server, err := Dialect{}.Columns(context.Background(), q, policy.TableName{Schema: "pg_temp", Table: "decl_probe"})
	if err != nil {
		t.Fatal(err)
	}
	// The statement rewritten for a session that has no such table yet.
	r := newRewrite(context.Background(), request("", nil), nil)
	tree := mustParse(t, create)
	declared, why := r.declaredColumns(tree.Stmts[0].Stmt.GetCreateStmt())
	if why != "" {
		t.Fatal(why)
	}
	for i := range server {
		server[i].Tags = nil
	}
	if !reflect.DeepEqual(declared, server) {
		for i := range server {
			if i < len(declared) && !reflect.DeepEqual(declared[i], server[i]) {
				t.Errorf("column %d: declared %+v, server %+v", i, declared[i], server[i])
			}
		}
		t.Fatalf("%d declared, %d on the server", len(declared), len(server))
	}
}
