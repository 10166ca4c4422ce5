package postgres

import (
	"context"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// testView decides from a fixed map; tables it does not list are open.
type testView struct {
	policy.BaseView
	user      session.User
	decisions map[string]*policy.Decision
}

var _ policy.View = (*testView)(nil)

func (v *testView) Decide(t policy.TableName) (*policy.Decision, error) {
	if d, ok := v.decisions[t.Key()]; ok {
		c := *d
		c.Table = t
		return &c, nil
	}
	return &policy.Decision{Table: t, Allowed: allAccess()}, nil
}
func (v *testView) Fingerprint() string { return v.user.Name }
func (v *testView) User() session.User  { return v.user }

func allAccess() map[policy.Access]bool {
	m := map[policy.Access]bool{}
	for _, a := range policy.Accesses {
		m[a] = true
	}
	return m
}

func accessExcept(denied ...policy.Access) map[policy.Access]bool {
	m := allAccess()
	for _, a := range denied {
		delete(m, a)
	}
	return m
}

// customersDecision filters, masks and restricts shop.customers.
func customersDecision() *policy.Decision {
	return &policy.Decision{
		Allowed:    allAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}},
		Masks: map[string]policy.Mask{
			"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
			"email": {Type: "MASK_NULL", Policy: "email-null"},
		},
		Restricted: map[string]string{"salary": "no-salary"},
	}
}

func testCatalog() *rewriter.StaticCatalog {
	str := func(n string, l string) rewriter.Column {
		return rewriter.Column{Name: n, DataType: "character varying", ColumnType: "character varying(" + l + ")"}
	}
	integer := func(n string) rewriter.Column {
		return rewriter.Column{Name: n, DataType: "integer", ColumnType: "integer"}
	}
	return &rewriter.StaticCatalog{Path: []string{"shop", "public"}, Tables: map[string][]rewriter.Column{
		"shop.customers":  {integer("id"), str("name", "40"), str("region", "8"), str("ssn", "11"), str("email", "60"), integer("salary")},
		"shop.orders":     {integer("id"), integer("customer_id"), integer("total")},
		"shop.region_map": {str("role", "20"), str("region", "8")},
		"shop.audit":      {integer("id"), str("note", "80")},
		"public.items":    {integer("id"), str("label", "20")},
		"public.orders":   {integer("id"), integer("customer_id"), integer("total")},
		"other.customers": {integer("id"), str("name", "40")},
		"pg_catalog.pg_class": {
			{Name: "oid", DataType: "oid", ColumnType: "oid"}, {Name: "relname", DataType: "name", ColumnType: "name"},
		},
	}}
}

func testUser() session.User {
	return session.User{Name: `al'ice\`, PrimaryRole: "support"}
}

func request(sql string, decisions map[string]*policy.Decision) *rewriter.Request {
	cat := testCatalog()
	u := testUser()
	return &rewriter.Request{
		SQL:     sql,
		View:    &testView{user: u, decisions: decisions},
		User:    u,
		Catalog: cat,
		Session: NewSession(cat.Path, false),
	}
}

// short keeps failure messages readable: mask expressions are long.
func short(s string) string {
	if len(s) > 900 {
		return s[:450] + " … " + s[len(s)-450:]
	}
	return s
}

func mustParse(t testing.TB, sql string) *pg.ParseResult {
	t.Helper()
	tree, err := pg.Parse(sql)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, sql)
	}
	return tree
}

func rewriteReq(t testing.TB, req *rewriter.Request) (*rewriter.Result, error) {
	t.Helper()
	res, err := Dialect{}.Rewrite(context.Background(), req)
	if err != nil {
		return nil, err
	}
	mustParse(t, res.SQL)
	if !res.Cacheable {
		t.Fatalf("result not cacheable: %s", res.SQL)
	}
	return res, nil
}

func rewriteSQL(t testing.TB, sql string, decisions map[string]*policy.Decision) (string, error) {
	t.Helper()
	res, err := rewriteReq(t, request(sql, decisions))
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

func mustRewrite(t testing.TB, sql string, decisions map[string]*policy.Decision) string {
	t.Helper()
	out, err := rewriteSQL(t, sql, decisions)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func contains(t testing.TB, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(out, p) {
			t.Fatalf("output lacks %q:\n%s", p, short(out))
		}
	}
}

func lacks(t testing.TB, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(out, p) {
			t.Fatalf("output has %q:\n%s", p, short(out))
		}
	}
}
