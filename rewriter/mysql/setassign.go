package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// SET @x := 1. MySQL and MariaDB read = and := alike as SET's assignment
// (GORM writes SET @name := ?); the parser reads only =. A SET statement
// that does not parse is read again with the first := of each assignment
// written =, which is the same statement to the server; the form is
// accepted only when the result is a SET. A := later in an assignment is
// the expression operator (SET @a = @b := 1) and stays.
func readSetAssignments(sql string) (sqlparser.Statement, bool) {
	var out strings.Builder
	last := 0       // the end of the text copied to out
	depth := 0      // parentheses
	inItem := false // inside an assignment, before its operator
	first, changed, ok := true, false, true
	read := tokens(sql, func(t sqlToken) bool {
		if first {
			first, inItem = false, true
			ok = t.typ == sqlparser.SET
			return ok
		}
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth != 0:
		case t.typ == ',':
			inItem = true
		case t.typ == '=' && inItem:
			inItem = false
		case t.typ == sqlparser.ASSIGNMENT_OPT && inItem:
			if t.start < last || sql[t.start:t.end] != ":=" {
				ok = false
				return false
			}
			out.WriteString(sql[last:t.start])
			out.WriteString("=")
			last, inItem, changed = t.end, false, true
		}
		return true
	})
	if !read || !ok {
		return nil, false
	}
	if !changed {
		return nil, false
	}
	out.WriteString(sql[last:])
	stmt, err := parse(out.String())
	if err != nil {
		return nil, false
	}
	if _, isSet := stmt.(*sqlparser.Set); !isSet {
		return nil, false
	}
	return stmt, true
}
