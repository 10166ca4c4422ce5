package rewriter

import (
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// TestTemplateResultIsReadsOfApplicationTables: only a cacheable read of
// application tables, with no write checks and no effect on the
// connection, is reused for other literal values.
func TestTemplateResultIsReadsOfApplicationTables(t *testing.T) {
	read := func(tables ...policy.TableName) *Result {
		return &Result{Kind: KindSelect, Cacheable: true, Tables: tables}
	}
	app := policy.TableName{Schema: "shop", Table: "customers"}
	if !TemplateResult(read(app)) {
		t.Fatal("a read of an application table is not templated")
	}
	for what, res := range map[string]*Result{
		"a listing":            read(app, policy.TableName{Schema: "information_schema", Table: "columns"}),
		"pg_class":             read(policy.TableName{Schema: "pg_catalog", Table: "pg_class"}),
		"a temporary table":    read(policy.TableName{Schema: "pg_temp_3", Table: "x"}),
		"a table of no schema": read(policy.TableName{Table: "x"}),
		"the mysql schema":     read(policy.TableName{Schema: "MySQL", Table: "user"}),
		"a write":              {Kind: KindUpdate, Cacheable: true, Tables: []policy.TableName{app}},
		"not cacheable":        {Kind: KindSelect, Tables: []policy.TableName{app}},
		"a held connection":    {Kind: KindSelect, Cacheable: true, Tables: []policy.TableName{app}, Effect: Effect{Holds: HoldsCursor}},
		"write checks":         {Kind: KindSelect, Cacheable: true, Tables: []policy.TableName{app}, WriteChecks: []*WriteCheck{{}}},
		"nothing":              nil,
	} {
		if TemplateResult(res) {
			t.Errorf("%s is templated", what)
		}
	}
}

// TestShapeKeyTellsStatementsApart: statements with other text around
// their literals, or literals of another class, have other shapes.
func TestShapeKeyTellsStatementsApart(t *testing.T) {
	lit := func(sql string, class LiteralClass, at ...int) (string, []TemplateLiteral) {
		var out []TemplateLiteral
		for i := 0; i < len(at); i += 2 {
			out = append(out, TemplateLiteral{Start: at[i], End: at[i+1], Class: class})
		}
		return sql, out
	}
	a := ShapeKey(lit("x = 1 AND y = 2", ClassInt32, 4, 5, 14, 15))
	if b := ShapeKey(lit("x = 7 AND y = 9", ClassInt32, 4, 5, 14, 15)); a != b {
		t.Fatal("same shape, other keys")
	}
	for _, other := range []string{
		ShapeKey(lit("x = 1 AND y = 2", ClassInt64, 4, 5, 14, 15)),
		ShapeKey(lit("x = 1 AND y = 2", ClassInt32, 4, 5)),
		ShapeKey(lit("x = 1 AND z = 2", ClassInt32, 4, 5, 14, 15)),
		ShapeKey(lit("x = 1  AND y = 2", ClassInt32, 4, 5, 15, 16)),
	} {
		if other == a {
			t.Errorf("another statement has the shape of x = 1 AND y = 2")
		}
	}
}
