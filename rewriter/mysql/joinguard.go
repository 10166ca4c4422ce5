package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// A read of tables joined by inner joins whose only conditions that can
// fail on a value are conjuncts of its WHERE keeps each table's derived
// table mergeable: each such conjunct is guarded by the filters of the
// tables it reads,
//
//	CASE WHEN c.region = 'EU' THEN upper(c.name) LIKE 'A%' ELSE FALSE END
//
// so that the server evaluates it only on rows those filters admit,
// wherever its plan puts it, while the join order, the indexes and an
// early stop at a LIMIT stay the server's to choose. A table whose filter
// cannot be its guard (not simple, or reading a column that the derived
// table masks or does not show) is fenced alone: its derived table holds
// only admitted rows. A single-table read is flattened instead (see
// flatten), and an outer join keeps the fence.

// joinGuard is that state for one statement.
type joinGuard struct {
	sel      *sqlparser.Select
	fallible []int // positions of the WHERE conjuncts that can fail (splitAnd)
	// guards are the guarded tables' filters over their derived tables'
	// columns, by lower-cased alias, in FROM order; aliases are every
	// table of the statement's FROM.
	guards  map[string]sqlparser.Expr
	order   []string
	aliases map[string]bool
}

// newJoinGuard returns the guard state of sel, or nil when sel is not a
// read of two or more tables joined by inner joins that can fail only
// through conjuncts of its WHERE.
func newJoinGuard(sel *sqlparser.Select) *joinGuard {
	if len(sel.From) == 1 {
		if _, single := sel.From[0].(*sqlparser.AliasedTableExpr); single {
			return nil // flattened, or fenced
		}
	}
	for _, te := range sel.From {
		if !innerJoined(te) {
			return nil
		}
	}
	fallible, ok := guardableConditions(sel)
	if !ok || len(fallible) == 0 {
		return nil
	}
	return &joinGuard{sel: sel, fallible: fallible, guards: map[string]sqlparser.Expr{}, aliases: map[string]bool{}}
}

// innerJoined reports whether a FROM entry is made only of tables and
// inner joins.
func innerJoined(te sqlparser.TableExpr) bool {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		_, isName := t.Expr.(sqlparser.TableName)
		return isName
	case *sqlparser.JoinTableExpr:
		if t.Join != sqlparser.NormalJoinType && t.Join != sqlparser.StraightJoinType {
			return false
		}
		return innerJoined(t.LeftExpr) && innerJoined(t.RightExpr)
	case *sqlparser.ParenTableExpr:
		for _, e := range t.Exprs {
			if !innerJoined(e) {
				return false
			}
		}
		return true
	}
	return false
}

// table decides for a filtered table of the statement, read through its
// derived table under alias: guarded by its filter over the derived
// table's columns, or fenced.
func (g *joinGuard) table(r *rewrite, alias string, plan *rewriter.TablePlan, derived *sqlparser.Select) error {
	if len(plan.Decision.RowFilters) == 0 || derived.Limit != nil {
		return nil
	}
	key := strings.ToLower(alias)
	if _, twice := g.guards[key]; !twice && simpleFilter(plan) && len(plan.Decision.TagMasks) == 0 {
		guard, ok, err := r.aliasFilter(plan, alias)
		if err != nil {
			return err
		}
		if ok {
			g.guards[key] = guard
			g.order = append(g.order, key)
			return nil
		}
	}
	fence(derived)
	return nil
}

// aliasFilter is the plan's row filter over the columns of its derived
// table under alias; ok is false when a column it reads is masked or not
// shown there (the guard would not read the raw value).
func (r *rewrite) aliasFilter(plan *rewriter.TablePlan, alias string) (sqlparser.Expr, bool, error) {
	e, has, err := rewriter.ParseFilter(plan, Syntax, parseExpr)
	if err != nil || !has {
		return nil, false, err
	}
	q := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(alias)}
	if err := r.policyExprs(plan, q, e, nil); err != nil {
		return nil, false, err
	}
	visible := map[string]bool{}
	for _, c := range plan.Columns {
		visible[strings.ToLower(c.Name)] = true
	}
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch c := n.(type) {
		case *sqlparser.ColName:
			name := c.Name.String()
			if _, masked := plan.Mask(name); masked || !visible[strings.ToLower(name)] ||
				!c.Qualifier.Qualifier.IsEmpty() || !strings.EqualFold(c.Qualifier.Name.String(), alias) {
				ok = false
			}
		case *sqlparser.Subquery:
			ok = false
		}
		return ok, nil
	}, e)
	return e, ok, nil
}

// guardWhere guards the fallible conjuncts of the statement's WHERE.
func (g *joinGuard) guardWhere() {
	if len(g.guards) > 0 && g.sel.Where != nil {
		g.sel.Where.Expr = guardConjuncts(g.sel.Where.Expr, g.fallible, g.conjunctGuard)
	}
}

// conjunctGuard is the filters of the guarded tables conjunct c may read,
// ANDed (nil when it reads none): a column qualified by a table's alias
// reads that table; any other column reference (unqualified, qualified
// by a database or by a name that is no alias of the statement) may read
// every table, as does a conjunct that names no column.
func (g *joinGuard) conjunctGuard(c sqlparser.Expr) sqlparser.Expr {
	reads := map[string]bool{}
	all, named := false, false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		col, ok := n.(*sqlparser.ColName)
		if !ok {
			return true, nil
		}
		named = true
		q := strings.ToLower(col.Qualifier.Name.String())
		if q == "" || !col.Qualifier.Qualifier.IsEmpty() || !g.aliases[q] {
			all = true
		}
		reads[q] = true
		return true, nil
	}, c)
	all = all || !named
	var guard sqlparser.Expr
	for _, alias := range g.order {
		if all || reads[alias] {
			if guard == nil {
				guard = deepClone(g.guards[alias])
			} else {
				guard = &sqlparser.AndExpr{Left: guard, Right: deepClone(g.guards[alias])}
			}
		}
	}
	return guard
}
