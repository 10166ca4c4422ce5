package mysql

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// Whether a row-filtered derived table needs its fence (see fence) depends
// on what the statement around it can evaluate on a row the filter would
// reject. Merged into the outer query, the server may test the
// application's conditions before the filter's; a condition that can fail
// on some value (an overflow, a cast, a function of the application's
// choosing) would then reveal a hidden row by failing. A condition built
// only from comparisons, boolean connectives, NULL tests, IN lists,
// BETWEEN and LIKE over columns, literals and placeholders cannot fail on
// any value, so a statement made only of those reads the merged form,
// which the server can answer from an index.

// canFailOnARow reports whether any expression of the statement, outside
// its select lists, could raise an error depending on a row's values, or
// the statement has a shape (subqueries, derived tables, set operations)
// whose evaluation order sqe does not reason about.
func canFailOnARow(stmt sqlparser.Statement) bool {
	sel, ok := stmt.(*sqlparser.Select)
	if !ok {
		return true
	}
	if sel.With != nil || sel.Having != nil || len(sel.Windows) > 0 || sel.Into != nil {
		return true
	}
	for _, te := range sel.From {
		if !safeTableExpr(te) {
			return true
		}
	}
	// Select-list expressions are computed only for rows every condition
	// admitted; they may be anything that contains no query.
	for _, se := range sel.SelectExprs.Exprs {
		if hasQuery(se) {
			return true
		}
	}
	if sel.Where != nil && !safeCondition(sel.Where.Expr) {
		return true
	}
	if sel.GroupBy != nil {
		for _, e := range sel.GroupBy.Exprs {
			if !safeValue(e) {
				return true
			}
		}
	}
	for _, o := range sel.OrderBy {
		if !safeValue(o.Expr) {
			return true
		}
	}
	return false
}

// guardableConditions reports whether a SELECT that canFailOnARow fails
// only through conjuncts of its WHERE, none holding another query: each
// such conjunct can then be guarded by the filters of the tables it reads
// (see flatten for a single table, joinguard.go for joins) instead of
// fencing them. fallible lists them by position among the WHERE's
// conjuncts (splitAnd).
func guardableConditions(sel *sqlparser.Select) (fallible []int, ok bool) {
	if sel.With != nil || sel.Having != nil || len(sel.Windows) > 0 || sel.Into != nil || sel.Where == nil ||
		len(sel.From) == 0 {
		return nil, false
	}
	for _, te := range sel.From {
		if !safeTableExpr(te) {
			return nil, false
		}
	}
	for _, se := range sel.SelectExprs.Exprs {
		if hasQuery(se) {
			return nil, false
		}
	}
	if sel.GroupBy != nil {
		for _, e := range sel.GroupBy.Exprs {
			if !safeValue(e) {
				return nil, false
			}
		}
	}
	for _, o := range sel.OrderBy {
		if !safeValue(o.Expr) {
			return nil, false
		}
	}
	for i, c := range splitAnd(sel.Where.Expr, nil) {
		if safeCondition(c) {
			continue
		}
		if hasQuery(c) {
			return nil, false
		}
		fallible = append(fallible, i)
	}
	return fallible, true
}

// splitAnd appends the conjuncts of e (its top-level AND operands, left
// to right) to out.
func splitAnd(e sqlparser.Expr, out []sqlparser.Expr) []sqlparser.Expr {
	if and, ok := e.(*sqlparser.AndExpr); ok {
		return splitAnd(and.Right, splitAnd(and.Left, out))
	}
	return append(out, e)
}

func safeTableExpr(te sqlparser.TableExpr) bool {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		_, isName := t.Expr.(sqlparser.TableName)
		return isName
	case *sqlparser.JoinTableExpr:
		if !safeTableExpr(t.LeftExpr) || !safeTableExpr(t.RightExpr) {
			return false
		}
		return t.Condition == nil || t.Condition.On == nil || safeCondition(t.Condition.On)
	case *sqlparser.ParenTableExpr:
		for _, e := range t.Exprs {
			if !safeTableExpr(e) {
				return false
			}
		}
		return true
	}
	return false
}

// safeCondition accepts comparisons and their boolean combinations.
func safeCondition(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return safeCondition(x.Left) && safeCondition(x.Right)
	case *sqlparser.OrExpr:
		return safeCondition(x.Left) && safeCondition(x.Right)
	case *sqlparser.NotExpr:
		return safeCondition(x.Expr)
	case *sqlparser.ComparisonExpr:
		switch x.Operator {
		case sqlparser.EqualOp, sqlparser.LessThanOp, sqlparser.GreaterThanOp, sqlparser.LessEqualOp,
			sqlparser.GreaterEqualOp, sqlparser.NotEqualOp, sqlparser.NullSafeEqualOp, sqlparser.InOp,
			sqlparser.NotInOp, sqlparser.LikeOp, sqlparser.NotLikeOp:
		default:
			return false
		}
		if x.Escape != nil && !safeValue(x.Escape) {
			return false
		}
		return safeValue(x.Left) && safeValue(x.Right)
	case *sqlparser.BetweenExpr:
		return safeValue(x.Left) && safeValue(x.From) && safeValue(x.To)
	case *sqlparser.IsExpr:
		return safeValue(x.Left)
	case *sqlparser.ColName, sqlparser.BoolVal:
		return true
	}
	return false
}

// safeValue accepts columns, literals, placeholders and lists of them.
func safeValue(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.Argument, *sqlparser.NullVal, sqlparser.BoolVal:
		return true
	case sqlparser.ValTuple:
		for _, v := range x {
			if !safeValue(v) {
				return false
			}
		}
		return true
	}
	return false
}

// simpleFilter reports whether every conjunct of the plan's row filter is
// a single comparison of columns and constants, an IN or NOT IN list of
// them (a tenant list), a NULL test or a boolean column: a condition no
// row's values can make fail.
func simpleFilter(plan *rewriter.TablePlan) bool {
	e, ok, err := rewriter.ParseFilter(plan, Syntax, parseExpr)
	if !ok {
		return err == nil
	}
	return simpleConjunction(e)
}

func simpleConjunction(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return simpleConjunction(x.Left) && simpleConjunction(x.Right)
	case *sqlparser.ComparisonExpr:
		switch x.Operator {
		case sqlparser.EqualOp, sqlparser.LessThanOp, sqlparser.GreaterThanOp, sqlparser.LessEqualOp,
			sqlparser.GreaterEqualOp, sqlparser.NotEqualOp:
			return simpleOperand(x.Left) && simpleOperand(x.Right)
		case sqlparser.InOp, sqlparser.NotInOp:
			list, ok := x.Right.(sqlparser.ValTuple)
			if !ok || len(list) == 0 || !simpleOperand(x.Left) {
				return false
			}
			for _, v := range list {
				if !simpleOperand(v) {
					return false
				}
			}
			return true
		}
	case *sqlparser.IsExpr:
		switch x.Right {
		case sqlparser.IsNullOp, sqlparser.IsNotNullOp:
			return simpleOperand(x.Left)
		}
	case *sqlparser.ColName:
		return true
	}
	return false
}

func simpleOperand(e sqlparser.Expr) bool {
	switch e.(type) {
	case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.NullVal, sqlparser.BoolVal:
		return true
	}
	return false
}

func hasQuery(n sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch node.(type) {
		case *sqlparser.ColName:
			return false, nil
		case *sqlparser.Subquery, *sqlparser.DerivedTable, *sqlparser.Select, *sqlparser.Union:
			found = true
			return false, nil
		}
		return true, nil
	}, n)
	return found
}

// collectConditionColumns answers, for a SELECT, which columns its
// conditions read (rewriter.ConditionColumns): the names of every column
// in FROM (ON, USING), WHERE, GROUP BY, HAVING, windows, ORDER BY and
// LIMIT, whatever their qualifier, and the columns of the select-list
// expressions that GROUP BY or ORDER BY name by position or alias; all
// of them when that cannot be told (a NATURAL join, a position or alias
// naming anything but a plain column).
func collectConditionColumns(sel *sqlparser.Select) rewriter.ConditionColumns {
	var cc rewriter.ConditionColumns
	cols := func(n sqlparser.SQLNode) {
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			switch x := node.(type) {
			case *sqlparser.ColName:
				cc.Add(x.Name.String())
				return false, nil
			case *sqlparser.JoinTableExpr:
				switch x.Join {
				case sqlparser.NaturalJoinType, sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType:
					cc.All = true
				}
				switch x.Join {
				case sqlparser.LeftJoinType, sqlparser.RightJoinType, sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType:
					cc.OuterJoin = true
				}
				if x.Condition != nil {
					for _, c := range x.Condition.Using {
						cc.Add(c.String())
					}
				}
			}
			return true, nil
		}, n)
	}
	for _, te := range sel.From {
		cols(te)
	}
	if sel.Where != nil {
		cols(sel.Where)
	}
	if sel.GroupBy != nil {
		cols(sel.GroupBy)
	}
	if sel.Having != nil {
		cols(sel.Having)
	}
	if len(sel.Windows) > 0 {
		cols(sel.Windows)
	}
	if len(sel.OrderBy) > 0 {
		cols(sel.OrderBy)
	}
	if sel.Limit != nil {
		cols(sel.Limit)
	}
	// GROUP BY and ORDER BY may name a select-list entry by position or
	// by alias.
	var keys []sqlparser.Expr
	if sel.GroupBy != nil {
		keys = append(keys, sel.GroupBy.Exprs...)
	}
	for _, o := range sel.OrderBy {
		keys = append(keys, o.Expr)
	}
	for _, k := range keys {
		if se, named := selectEntry(sel, k); named {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				cc.All = true
				continue
			}
			c, ok := ae.Expr.(*sqlparser.ColName)
			if !ok {
				cc.All = true
				continue
			}
			cc.Add(c.Name.String())
		}
	}
	return cc
}

// selectEntry returns the select-list entry a GROUP BY or ORDER BY key
// names by position (an integer literal) or by alias (an unqualified
// column), and whether the key names one; a position with a star before
// it, or out of range, names a nil entry.
func selectEntry(sel *sqlparser.Select, key sqlparser.Expr) (sqlparser.SelectExpr, bool) {
	exprs := sel.SelectExprs.Exprs
	switch k := key.(type) {
	case *sqlparser.Literal:
		if k.Type != sqlparser.IntVal {
			return nil, false
		}
		pos, err := strconv.Atoi(k.Val)
		if err != nil || pos < 1 || pos > len(exprs) {
			return nil, true
		}
		for _, se := range exprs[:pos] {
			if _, star := se.(*sqlparser.StarExpr); star {
				return nil, true
			}
		}
		return exprs[pos-1], true
	case *sqlparser.ColName:
		if !k.Qualifier.IsEmpty() {
			return nil, false
		}
		for _, se := range exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && ae.As.EqualString(k.Name.String()) {
				return se, true
			}
		}
	}
	return nil, false
}
