package mysql

import (
	"math/rand/v2"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// TestQuoteStringReadsBack: a literal quoteString prints is read by the
// parser as the same string, whatever quotes, backslashes, NULs and
// multi-byte characters it holds; without backslash escapes only the
// quote is doubled.
func TestQuoteStringReadsBack(t *testing.T) {
	alphabet := []string{"a", "'", `\`, "\x00", "é", "𐀀", "%", "_", "\n", "''", `\'`}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", "'", `\`, "\x00", `a'b\c`}
	for range 500 {
		var s string
		for n := rng.IntN(12); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		q := quoteString(s, false)
		stmt, err := parse("select " + q)
		if err != nil {
			t.Fatalf("%q printed as %s does not parse: %v", s, q, err)
		}
		lit, ok := stmt.(*sqlparser.Select).SelectExprs.Exprs[0].(*sqlparser.AliasedExpr).Expr.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal || lit.Val != s {
			t.Fatalf("%q printed as %s reads back as %#v", s, q, stmt.(*sqlparser.Select).SelectExprs.Exprs[0])
		}
	}
	if got, want := quoteString(`a'b\c`+"\x00", true), `'a''b\c`+"\x00'"; got != want {
		t.Errorf("without backslash escapes: %q, want %q", got, want)
	}
}

// TestFastPrintIsThePrint: a query of the usual nodes is printed by
// vitess's fast printer, byte for byte as format prints it node by node;
// a tree holding anything format prints its own way (a comment, a
// placeholder, a literal vitess would escape otherwise) or a node outside
// the allow-list is printed node by node.
func TestFastPrintIsThePrint(t *testing.T) {
	fast := []string{
		"select id, name from customers where region = 'EU' and id = 7",
		"select c.name, count(*), sum(o.total), max(o.total) from customers as c join orders o on o.customer_id = c.id " +
			"left join (select a from x where y in (1, 2)) as d on d.a = c.id where not (o.total > 5 or o.x is null) " +
			"and o.z between 1 and 2 group by c.name order by 2 desc limit 10",
		"select a from t where exists (select 1 from u where u.a = t.a) and cast(a as char(3)) = convert(b using utf8mb4) collate utf8mb4_bin and -a + 1 > 0",
		"select case when ssn is null then null else concat('x', right(ssn, 4)) end as s from customers where name = 'é𐀀%_'",
		"select `select`, `a``b` from `from` where `where` = 'it is'",
	}
	for _, q := range fast {
		stmt, err := parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !fastPrintable(stmt) {
			t.Errorf("%s: not printed by the fast printer", q)
			continue
		}
		got, err := format(stmt, false)
		want, err2 := formatNodes(stmt, false)
		if err != nil || err2 != nil || got != want {
			t.Errorf("%s:\nfast  %s (%v)\nnodes %s (%v)", q, got, err, want, err2)
		}
	}
	slow := []string{
		"select /* note */ id from customers",
		"select id from customers where id = ?",
		"select id from customers where id in ::list",
		"select 'it''s'",
		`select 'a\\b'`,
		`select "say \"hi\""`,
		"select 'a\nb'",
		"select 'a\tb'",
		"select 'a\rb'",
		"select 'a\x00b'",
		"select 'a\x1ab'",
		"select 'a\bb'",
		"select _utf8mb4'x'",
		"select json_extract(doc, '$.a') from t",
		"select a from t union select b from u",
		"with c as (select 1) select * from c",
		"insert into t (a) values ('x')",
		"create table t (a varchar(3) default 'x')",
	}
	for _, q := range slow {
		stmt, err := parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if fastPrintable(stmt) {
			t.Errorf("%s: printed by the fast printer", q)
		}
	}
}
