package mysql

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/rewriter"
)

// serverFunctionNames are the function names the test server documents:
// information_schema.SQL_FUNCTIONS and the function topics of its help
// tables.
func serverFunctionNames(t *testing.T) []string {
	t.Helper()
	db := testdb.OpenMySQL(t, testdb.MySQLDSN(t))
	rows, err := db.Query(`SELECT LOWER(FUNCTION) FROM information_schema.SQL_FUNCTIONS
		UNION SELECT LOWER(REPLACE(t.name, '\\_', '_')) FROM mysql.help_topic t
		JOIN mysql.help_category c USING (help_category_id)
		LEFT JOIN mysql.help_category p ON p.help_category_id = c.parent_category_id
		WHERE c.name LIKE '%Functions%' OR p.name LIKE '%Functions%' OR c.name LIKE 'Geo%' OR p.name LIKE 'Geo%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ident := regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if ident.MatchString(n) {
			out = append(out, n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// syntaxOfItsOwn are names the parser reads as a form of its own that
// computes on its arguments: not a function call of that name.
var syntaxOfItsOwn = map[string]bool{
	"default": true, // DEFAULT(col): the column's default
	"values":  true, // VALUES(col) of ON DUPLICATE KEY UPDATE
	"char":    true, // CHAR(65 USING …)
	"convert": true, "cast": true, "binary": true,
}

// TestServerFunctionsOffTheListAreRefused walks every function the real
// server documents: one that is not on the list is refused, however it is
// called; when the call parses, the error names it. This is what keeps a
// new server version's new function out until someone decides about it.
func TestServerFunctionsOffTheListAreRefused(t *testing.T) {
	names := serverFunctionNames(t)
	if len(names) < 250 {
		t.Fatalf("the server documents only %d functions", len(names))
	}
	refused, named := 0, 0
	var list []string
	for _, n := range names {
		if builtinFunctions[n] || syntaxOfItsOwn[n] {
			continue
		}
		if _, context := rewriter.ContextFunctions[n]; context {
			continue // inlined as the session's value
		}
		refused++
		list = append(list, n)
		parsedOnce := false
		for _, call := range callForms(n) {
			sql := "SELECT " + call
			_, err := Dialect{}.Rewrite(context.Background(), request(sql, nil))
			if err == nil {
				t.Errorf("%s passes", sql)
				continue
			}
			if _, perr := parser.Parse(sql); perr != nil {
				continue // refused as a statement that does not parse
			}
			parsedOnce = true
			if !strings.Contains(strings.ToLower(err.Error()), n) {
				t.Errorf("%s: the error does not name %s: %v", sql, n, err)
			}
		}
		if parsedOnce {
			named++
		}
	}
	t.Logf("%d of the server's %d function names are refused (%d in a call that parses): %s", refused, len(names), named, strings.Join(list, " "))
}

// TestListedFunctionsAreServerBuiltins calls every listed name on the real
// server: none may be unknown to it (error 1305, "FUNCTION db.name does
// not exist"), since the server resolves an unqualified name it lacks to
// a stored function of the current database.
func TestListedFunctionsAreServerBuiltins(t *testing.T) {
	db := testdb.OpenMySQL(t, testdb.MySQLDSN(t))
	var names []string
	for n := range builtinFunctions {
		names = append(names, n)
	}
	for n := range syntaxNames {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		builtin := false
		var last error
		for _, args := range []string{"()", "(1)", "(1, 1)", "(1, 1, 1)"} {
			_, err := db.Exec("DO " + n + args)
			var me *gomysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1305 {
				builtin = true
				break
			}
			last = err
		}
		if !builtin {
			t.Errorf("%s is listed but is not a built-in of the server: %v", n, last)
		}
	}
}
