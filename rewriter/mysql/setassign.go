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
	tk := parser.NewStringTokenizer(sql)
	var out strings.Builder
	last := 0       // the end of the text copied to out
	depth := 0      // parentheses
	inItem := false // inside an assignment, before its operator
	first, changed := true, false
	for {
		prev := tk.Pos
		typ, _ := tk.Scan()
		if typ == 0 {
			break
		}
		if typ == sqlparser.LEX_ERROR || tk.Pos <= prev {
			return nil, false
		}
		if first {
			if typ != sqlparser.SET {
				return nil, false
			}
			first, inItem = false, true
			continue
		}
		switch {
		case typ == '(':
			depth++
		case typ == ')':
			depth--
		case depth != 0:
		case typ == ',':
			inItem = true
		case typ == '=' && inItem:
			inItem = false
		case typ == sqlparser.ASSIGNMENT_OPT && inItem:
			start := tk.Pos - 2
			if start < last || sql[start:tk.Pos] != ":=" {
				return nil, false
			}
			out.WriteString(sql[last:start])
			out.WriteString("=")
			last, inItem, changed = tk.Pos, false, true
		}
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
