package mysql

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

var _ rewriter.ConditionSyntax = syntax{}

// ConditionColumns implements rewriter.ConditionSyntax: text must be one
// expression over unqualified columns of its row and functions (context
// functions among them), with no subquery, aggregate, window, variable or
// placeholder.
func (syntax) ConditionColumns(text string) ([]string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return nil, fmt.Errorf("does not parse as one mysql SQL expression")
	}
	var cols []string
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.Subquery, *sqlparser.ExistsExpr, *sqlparser.Select, *sqlparser.Union:
			bad = fmt.Errorf("a subquery may not be read: a condition reads only its own row")
		case *sqlparser.ColName:
			if !n.Qualifier.IsEmpty() {
				bad = fmt.Errorf("column %s is qualified: a condition reads only its own row's columns, unqualified", sqlparser.String(n))
				break
			}
			name := strings.ToLower(n.Name.String())
			if !contains(cols, name) {
				cols = append(cols, name)
			}
		case sqlparser.AggrFunc:
			bad = fmt.Errorf("an aggregate may not be computed: a condition reads only its own row")
		case *sqlparser.OverClause, sqlparser.WindowFunc:
			bad = fmt.Errorf("a window function may not be computed: a condition reads only its own row")
		case *sqlparser.Variable:
			bad = fmt.Errorf("a variable may not be read: a condition reads only its own row and the session")
		case *sqlparser.Argument, *sqlparser.ListArg:
			bad = fmt.Errorf("a placeholder may not appear in a condition")
		}
		return bad == nil, nil
	}, e)
	if bad != nil {
		return nil, bad
	}
	return cols, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var _ rewriter.ValueSyntax = syntax{}
