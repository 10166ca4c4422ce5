package postgres

import (
	"context"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

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

func request(sql string, decisions map[string]*policy.Decision) *rewriter.Request {
	cat := testCatalog()
	return dialecttest.Request(sql, decisions, cat, NewSession(cat.Path, false))
}

// testDialect drives the cases both dialects share.
var testDialect = dialecttest.Dialect{
	Rewriter: Dialect{},
	Syntax:   Syntax,
	Request:  request,
	Rewrite:  rewriteReq,
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
			t.Fatalf("output lacks %q:\n%s", p, dialecttest.Short(out))
		}
	}
}

func lacks(t testing.TB, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(out, p) {
			t.Fatalf("output has %q:\n%s", p, dialecttest.Short(out))
		}
	}
}
