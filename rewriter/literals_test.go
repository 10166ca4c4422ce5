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

// TestPlainLiteral: only texts both printers print as written take part,
// with the class the server reads them as.
func TestPlainLiteral(t *testing.T) {
	for _, c := range []struct {
		kind  TokenKind
		src   string
		class LiteralClass // 0: not a template literal
	}{
		{TokenNumber, "0", ClassInt32}, {TokenNumber, "42", ClassInt32}, {TokenNumber, "2147483647", ClassInt32},
		{TokenNumber, "2147483648", ClassInt64}, {TokenNumber, "9223372036854775807", ClassInt64},
		{TokenNumber, "9223372036854775808", 0}, {TokenNumber, "007", 0}, {TokenNumber, "1e5", 0},
		{TokenNumber, "1.5", ClassDecimal}, {TokenNumber, "0.25", ClassDecimal}, {TokenNumber, "00.5", 0},
		{TokenNumber, "1.", 0}, {TokenNumber, ".5", 0}, {TokenNumber, "0x1F", 0},
		{TokenString, "'abc'", ClassString}, {TokenString, "''", ClassString}, {TokenString, "'Zoë 😀 %_-'", ClassString},
		{TokenString, "'it''s'", 0}, {TokenString, `'a\'`, 0}, {TokenString, `'a\nb'`, 0}, {TokenString, "E'abc'", 0},
		{TokenString, "N'abc'", 0}, {TokenString, "_utf8mb4'abc'", 0}, {TokenString, "X'41'", 0},
		{TokenString, "'a?b'", 0}, {TokenString, "'$1'", 0}, {TokenString, "'a\tb'", 0}, {TokenString, "'a\"b'", 0},
		{TokenString, "'a`b'", 0}, {TokenString, "'\xff'", 0}, {TokenName, "'abc'", 0}, {TokenWord, "42", 0},
	} {
		class, ok := PlainLiteral(c.kind, c.src)
		if ok != (c.class != 0) || class != c.class {
			t.Errorf("%q: class %q %v, want %q", c.src, class, ok, c.class)
		}
	}
}
