package udf

import (
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"vitess.io/vitess/go/vt/sqlparser"
)

var vitessParser = func() *sqlparser.Parser {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		panic(err)
	}
	return p
}()

// reformat parses expr as the rewriters do (the only item of a SELECT
// list, nothing else) and returns the parser's own formatting of it.
func reformat(d Dialect, expr string) (string, error) {
	if d == MySQL {
		stmt, err := vitessParser.Parse("select " + expr)
		if err != nil {
			return "", err
		}
		sel, ok := stmt.(*sqlparser.Select)
		if !ok || len(sel.SelectExprs.Exprs) != 1 || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil {
			return "", fmt.Errorf("not a single expression")
		}
		if len(sel.From) != 1 || sqlparser.String(sel.From[0]) != "dual" {
			return "", fmt.Errorf("not a single expression (from %s)", sqlparser.String(sel.From[0]))
		}
		ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return "", fmt.Errorf("not a single expression")
		}
		return sqlparser.String(ae.Expr), nil
	}
	tree, err := pg.Parse("SELECT " + expr)
	if err != nil {
		return "", err
	}
	if len(tree.Stmts) != 1 {
		return "", fmt.Errorf("%d statements", len(tree.Stmts))
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.FromClause) > 0 || sel.WhereClause != nil || len(sel.TargetList) != 1 ||
		sel.TargetList[0].GetResTarget().GetName() != "" {
		return "", fmt.Errorf("not a single expression")
	}
	out, err := pg.Deparse(tree)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(out, "SELECT ") {
		return "", fmt.Errorf("deparsed to %q", out)
	}
	return strings.TrimPrefix(out, "SELECT "), nil
}

type parseTarget struct {
	dataType, columnType string
}

var parseTargets = map[Dialect][]parseTarget{
	MySQL: {
		{"varchar", "varchar(40)"}, {"char", "char(10)"}, {"text", "text"}, {"longtext", "longtext"},
		{"tinyint", "tinyint(4)"}, {"smallint", "smallint(6)"}, {"mediumint", "mediumint(9)"}, {"int", "int(11)"},
		{"bigint", "bigint(20)"}, {"tinyint", "tinyint(3) unsigned"}, {"int", "int(10) unsigned"}, {"date", "date"},
		{"decimal", "decimal(10,2)"}, {"datetime", "datetime(3)"}, {"json", "json"}, {"blob", "blob"},
	},
	Postgres: {
		{"character varying", "character varying(40)"}, {"character", "character(10)"}, {"text", "text"},
		{"smallint", "smallint"}, {"integer", "integer"}, {"bigint", "bigint"}, {"date", "date"},
		{"numeric", "numeric(10,2)"}, {"timestamp without time zone", "timestamp without time zone"}, {"uuid", "uuid"},
		{"USER-DEFINED", "mood"}, {"ARRAY", "integer[]"},
	},
}

// TestMaskSQLParses checks that every expression MaskSQL emits is one
// expression to the parsers the rewriters use, and that it survives their
// formatting unchanged in structure (formatting twice is stable).
func TestMaskSQLParses(t *testing.T) {
	all := append(append(append([]maskCase{}, stringCases...), integerCases...), dateCases...)
	all = append(all, maskCase{TypeCustom, nil})
	n := 0
	for d, targets := range parseTargets {
		col := "`t`.`c`"
		if d == Postgres {
			col = `"t"."c"`
		}
		for _, pt := range targets {
			target := Target{Dialect: d, Column: col, DataType: strings.ToLower(pt.dataType), ColumnType: pt.columnType}
			for _, mc := range all {
				custom := ""
				if mc.typ == TypeCustom {
					custom = "concat('x', {col})"
				}
				expr, err := MaskSQL(target, mc.typ, mc.args, custom)
				if err != nil {
					continue
				}
				once, err := reformat(d, expr)
				if err != nil {
					t.Errorf("%s %s %s: %v\n%s", d, pt.columnType, mc, err, abbrev(expr))
					continue
				}
				twice, err := reformat(d, once)
				if err != nil || twice != once {
					t.Errorf("%s %s %s: reformatting is not stable: %v", d, pt.columnType, mc, err)
				}
				n++
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d expressions checked", n)
	}
	t.Logf("%d expressions parse", n)
}
