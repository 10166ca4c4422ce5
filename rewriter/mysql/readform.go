package mysql

import (
	"errors"
	"sync/atomic"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// readForms keeps the read forms derivedTable parsed, by text: a table's
// read form (TablePlan.DerivedSelect) is the same text for every statement
// that misses the rewrite cache until its policy or its columns change,
// and a copy of the tree costs a fraction of the parse. Failures are not
// remembered.
var readForms = rewriter.Bounded[string, *readForm]{Max: 1024}

// readForm is a parsed read form: the select without its entries, and
// the entries, hoistGuardedMasks applied; neither is handed out. An entry
// whose expression is a mask the policy rewrite can only qualify
// (frozenableMask) is frozen by the form's first rewrite and shared by
// the later ones, as a flattened read's masks are (frozen.go).
type readForm struct {
	rest       *sqlparser.Select
	entries    []*sqlparser.AliasedExpr
	frozenable []bool
	frozen     atomic.Pointer[[]*frozenMask]
	// static says that the policy rewrite leaves every instance of the
	// form the same select (staticForm): its print is then the form's,
	// computed once (formText).
	static bool
}

// readFormOf parses a table's read form: a select whose entries are all
// aliased expressions.
func readFormOf(text string) (*readForm, error) {
	if f, ok := readForms.Get(text); ok {
		return f, nil
	}
	stmt, err := parse(text)
	if err != nil {
		return nil, err
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.SelectExprs == nil {
		return nil, errNotAReadForm
	}
	hoistGuardedMasks(sel)
	f := &readForm{rest: sel}
	for _, se := range sel.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, errNotAReadForm
		}
		f.entries = append(f.entries, ae)
		f.frozenable = append(f.frozenable, frozenableMask(ae.Expr))
	}
	sel.SelectExprs = nil
	f.static = staticForm(f)
	return readForms.Put(text, f), nil
}

// staticForm reports whether the policy rewrite can do nothing to an
// instance of f but qualify its columns with its table: a select of one
// table, without alias, hints or partitions, whose filter and entries
// hold only the nodes frozenableMask lists (columns, constants, operators,
// calls of functions that are not context or session functions: no
// subquery, variable or placeholder), and with no other clause. Every
// instance then prints the same.
func staticForm(f *readForm) bool {
	sel := f.rest
	if len(sel.From) != 1 || sel.With != nil || sel.Distinct || sel.GroupBy != nil || sel.Having != nil ||
		len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Into != nil || sel.Windows != nil || sel.Lock != sqlparser.NoLock ||
		sel.StraightJoinHint || sel.SQLCalcFoundRows || sel.Comments != nil {
		return false
	}
	ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || !ate.As.IsEmpty() || ate.Hints != nil || ate.Partitions != nil || ate.Columns != nil {
		return false
	}
	if _, ok := ate.Expr.(sqlparser.TableName); !ok {
		return false
	}
	if sel.Where != nil && (sel.Where.Type != sqlparser.WhereClause || !frozenableMask(sel.Where.Expr)) {
		return false
	}
	for _, frozenable := range f.frozenable {
		if !frozenable {
			return false
		}
	}
	return len(f.entries) > 0
}

// errNotAReadForm is readFormOf's refusal of another statement.
var errNotAReadForm = errors.New("not a read form")

// instance is a select of the form the caller owns, and the frozen masks
// placed in it by entry (nil before the form's first rewrite).
func (f *readForm) instance() (*sqlparser.Select, []*frozenMask) {
	sel := deepCloneStatement(f.rest).(*sqlparser.Select)
	var frozen []*frozenMask
	if p := f.frozen.Load(); p != nil {
		frozen = *p
	}
	sel.SelectExprs = &sqlparser.SelectExprs{}
	for i, ae := range f.entries {
		if frozen != nil && frozen[i] != nil {
			sel.SelectExprs.Exprs = append(sel.SelectExprs.Exprs, &sqlparser.AliasedExpr{Expr: frozen[i].expr, As: ae.As})
			continue
		}
		sel.SelectExprs.Exprs = append(sel.SelectExprs.Exprs, &sqlparser.AliasedExpr{Expr: deepClone(ae.Expr), As: ae.As})
	}
	return sel, frozen
}

// freeze keeps the frozenable entries of sel, an instance the policy
// rewrite walked whole, for the form's later instances.
func (f *readForm) freeze(sel *sqlparser.Select) {
	if f.frozen.Load() != nil || sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != len(f.entries) {
		return
	}
	frozen := make([]*frozenMask, len(f.entries))
	for i, se := range sel.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !f.frozenable[i] {
			continue
		}
		frozen[i] = newFrozenMask(ae.Expr)
	}
	f.frozen.CompareAndSwap(nil, &frozen)
}

// deepCloneStatement copies stmt entirely, column references included
// (see deepClone).
func deepCloneStatement(stmt sqlparser.Statement) sqlparser.Statement {
	c := sqlparser.CloneStatement(stmt)
	return sqlparser.Rewrite(c, func(cur *sqlparser.Cursor) bool {
		if col, ok := cur.Node().(*sqlparser.ColName); ok {
			cp := *col
			cur.Replace(&cp)
		}
		return true
	}, nil).(sqlparser.Statement)
}
