package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Result column names. MySQL names an unaliased select-list expression
// after its text as the application wrote it (SELECT UPPER( name ) gives a
// column "UPPER( name )"), so the statement sqe prints, with names quoted
// and spacing normalised — and, for a masked column inside the expression,
// the whole mask expression — would rename the application's columns.
// Code that scans by column name (sqlx, GORM, Rows.Columns) would break.
// sqe therefore gives each such expression of the top-level select list
// (the first SELECT of a UNION) an alias: the text the application wrote.
// Bare columns (named after the column), literals (named after their value)
// and placeholders keep the name the server gives them.

// maxColumnName is the longest alias MySQL accepts.
const maxColumnName = 256

// selectListEnds are the keywords that end a select list.
var selectListEnds = map[int]bool{
	sqlparser.FROM: true, sqlparser.INTO: true, sqlparser.WHERE: true, sqlparser.GROUP: true,
	sqlparser.HAVING: true, sqlparser.ORDER: true, sqlparser.LIMIT: true, sqlparser.UNION: true,
	sqlparser.WINDOW: true, sqlparser.FOR: true, sqlparser.LOCK: true, sqlparser.EXCEPT: true, ';': true,
}

// selectOptions are the words that may follow SELECT before the list.
var selectOptions = map[string]bool{
	"ALL": true, "DISTINCT": true, "DISTINCTROW": true, "HIGH_PRIORITY": true, "STRAIGHT_JOIN": true,
	"SQL_SMALL_RESULT": true, "SQL_BIG_RESULT": true, "SQL_BUFFER_RESULT": true, "SQL_NO_CACHE": true,
	"SQL_CACHE": true, "SQL_CALC_FOUND_ROWS": true,
}

// selectListTexts returns the source text of each entry of the statement's
// top-level select list (the first SELECT outside parentheses), or nil
// when it cannot tell.
func selectListTexts(sql string) []string {
	tk := parser.NewStringTokenizer(sql)
	depth, segStart := 0, -1
	leading := true // still before the list's first expression
	var out []string
	for {
		prev := tk.Pos
		typ, val := tk.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR || tk.Pos <= prev {
			if segStart < 0 || depth != 0 {
				return nil
			}
			return append(out, strings.TrimSpace(sql[segStart:]))
		}
		start := prev
		for start < tk.Pos && isBlank(sql[start]) {
			start++
		}
		switch typ {
		case '(':
			depth++
			leading = false
			continue
		case ')':
			depth--
			continue
		}
		if depth != 0 {
			continue
		}
		if segStart < 0 {
			if typ == sqlparser.SELECT {
				segStart = tk.Pos
			}
			continue
		}
		if leading && typ != sqlparser.ID && selectOptions[strings.ToUpper(val)] {
			segStart = tk.Pos
			continue
		}
		leading = false
		switch {
		case typ == ',':
			out = append(out, strings.TrimSpace(sql[segStart:start]))
			segStart = tk.Pos
		case selectListEnds[typ]:
			return append(out, strings.TrimSpace(sql[segStart:start]))
		}
	}
}

// columnNames finds the select-list entries of stmt that the server would
// name after their text, and returns a function that gives them that text
// as an alias; it is called once the statement is rewritten.
func columnNames(stmt sqlparser.Statement, sql string) func() {
	sel := firstSelect(stmt)
	if sel == nil || sel.SelectExprs == nil {
		return func() {}
	}
	type named struct {
		ae   *sqlparser.AliasedExpr
		name string
	}
	var todo []named
	exprs := sel.SelectExprs.Exprs
	for _, se := range exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if ok && ae.As.IsEmpty() && namedAfterText(ae.Expr) {
			todo = append(todo, named{ae: ae})
		}
	}
	if len(todo) == 0 {
		return func() {}
	}
	texts := selectListTexts(sql)
	if len(texts) != len(exprs) {
		return func() {}
	}
	todo = todo[:0]
	for i, se := range exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() || !namedAfterText(ae.Expr) {
			continue
		}
		name := texts[i]
		if name == "" || len(name) > maxColumnName || strings.Contains(name, "/*") ||
			strings.Contains(name, "--") || strings.Contains(name, "#") {
			continue
		}
		todo = append(todo, named{ae: ae, name: name})
	}
	return func() {
		for _, n := range todo {
			n.ae.As = sqlparser.NewIdentifierCI(n.name)
		}
	}
}

// namedAfterText reports whether the server names an unaliased
// select-list expression after its text.
func namedAfterText(e sqlparser.Expr) bool {
	switch e.(type) {
	case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.NullVal, sqlparser.BoolVal, *sqlparser.Argument:
		return false
	}
	return true
}

// firstSelect is the SELECT whose list names a statement's columns.
func firstSelect(stmt sqlparser.Statement) *sqlparser.Select {
	for {
		switch s := stmt.(type) {
		case *sqlparser.Select:
			return s
		case *sqlparser.Union:
			stmt = s.Left
		default:
			return nil
		}
	}
}
