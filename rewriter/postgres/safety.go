package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/rewriter"
)

// Whether a row-filtered derived table needs its fence (see fence.go)
// depends on what the statement around it can evaluate on a row the filter
// would reject. Pulled up into the outer query, the filter's conditions are
// ordered by estimated cost with the application's, and not reliably
// first: a conjunct column = constant is re-created from its equivalence
// class after the other conditions on the table, so a condition of the
// same cost (id * 429496730 IS NOT NULL, one operator) runs before it, and
// a domain coercion costs nothing at all. A condition built only from
// comparisons, boolean connectives, NULL and boolean tests, IN lists,
// BETWEEN and LIKE with a constant pattern, over columns, literals and
// placeholders, cannot fail on any value, so a statement made only of
// those reads the merged form, which the server can answer from an index.

// canFailOnARow reports whether any expression of the statement, outside
// its select list, could raise an error depending on a row's values, or
// the statement has a shape (subqueries, CTEs, set operations, derived
// tables, functions in FROM, windows) whose evaluation order sqe does not
// reason about.
//
// A comparison of two columns (or a column with a list of columns) is safe
// only when types, read from the catalog, proves that no side is cast to
// the other's type by a cast that can fail on a value (numeric = float8
// casts the numeric, which overflows beyond float8's range); nil types
// prove nothing.
func canFailOnARow(stmt *pg.Node, types columnTypes) bool {
	sel := stmt.GetSelectStmt()
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || sel.IntoClause != nil ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || len(sel.ValuesLists) > 0 {
		return true
	}
	for _, d := range sel.DistinctClause {
		if d != nil && d.Node != nil { // DISTINCT ON (…); plain DISTINCT is a list of one empty node
			return true
		}
	}
	for _, f := range sel.FromClause {
		if !safeFromItem(f, types) {
			return true
		}
	}
	// Select-list expressions are computed only for rows every condition
	// admitted; they may be anything that holds no query and no window.
	for _, t := range sel.TargetList {
		if hasQueryOrWindow(t) {
			return true
		}
	}
	if sel.WhereClause != nil && !safeCondition(sel.WhereClause, types) {
		return true
	}
	for _, g := range sel.GroupClause {
		if !safeValue(g) {
			return true
		}
	}
	for _, s := range sel.SortClause {
		sb := s.GetSortBy()
		if sb == nil || len(sb.UseOp) > 0 || !safeValue(sb.Node) {
			return true
		}
	}
	for _, l := range []*pg.Node{sel.LimitCount, sel.LimitOffset} {
		if l != nil && !safeValue(l) {
			return true
		}
	}
	// A whole-row reference compares rows (which fails on rows of
	// dissimilar types) and computes every column of the row.
	_, wholeRow := collectConditionColumns(sel)
	return wholeRow
}

// guardableConditions reports whether a SELECT of tables joined by inner
// joins (or one table) that canFailOnARow fails only through conjuncts of
// its WHERE, none holding a query or a window: each of them can then be
// guarded by the filters of the tables it reads (see guardConjuncts)
// instead of fencing those tables. fallible lists them by position among
// the WHERE's conjuncts (splitAnd); tables are the statement's table
// references, each guarded or fenced.
func guardableConditions(sel *pg.SelectStmt, types columnTypes) (fallible []int, tables []*pg.RangeVar, ok bool) {
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || sel.IntoClause != nil ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || len(sel.ValuesLists) > 0 || sel.WhereClause == nil ||
		len(sel.FromClause) == 0 {
		return nil, nil, false
	}
	for _, f := range sel.FromClause {
		if tables, ok = innerJoined(f, types, tables); !ok {
			return nil, nil, false
		}
	}
	for _, d := range sel.DistinctClause {
		if d != nil && d.Node != nil {
			return nil, nil, false
		}
	}
	for _, t := range sel.TargetList {
		if hasQueryOrWindow(t) {
			return nil, nil, false
		}
	}
	for _, g := range sel.GroupClause {
		if !safeValue(g) {
			return nil, nil, false
		}
	}
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb == nil || len(sb.UseOp) > 0 || !safeValue(sb.Node) {
			return nil, nil, false
		}
	}
	for _, l := range []*pg.Node{sel.LimitCount, sel.LimitOffset} {
		if l != nil && !safeValue(l) {
			return nil, nil, false
		}
	}
	if _, wholeRow := collectConditionColumns(sel); wholeRow {
		return nil, nil, false
	}
	for i, c := range splitAnd(sel.WhereClause, nil) {
		if safeCondition(c, types) {
			continue
		}
		if hasQueryOrWindow(c) {
			return nil, nil, false
		}
		fallible = append(fallible, i)
	}
	return fallible, tables, len(fallible) > 0
}

// innerJoined appends the table references of a FROM item made only of
// tables and inner joins whose conditions cannot fail (safeFromItem) to
// tables; ok is false for any other item (an outer join, a subquery, a
// function): a WHERE conjunct above an outer join may meet a row of
// the nullable side that its guard does not describe.
func innerJoined(n *pg.Node, types columnTypes, tables []*pg.RangeVar) ([]*pg.RangeVar, bool) {
	switch t := n.GetNode().(type) {
	case *pg.Node_RangeVar:
		return append(tables, t.RangeVar), true
	case *pg.Node_JoinExpr:
		j := t.JoinExpr
		if j.Jointype != pg.JoinType_JOIN_INNER || !safeFromItem(n, types) {
			return nil, false
		}
		tables, ok := innerJoined(j.Larg, types, tables)
		if !ok {
			return nil, false
		}
		return innerJoined(j.Rarg, types, tables)
	}
	return nil, false
}

// splitAnd appends the conjuncts of n (the operands of its top-level
// ANDs, left to right) to out.
func splitAnd(n *pg.Node, out []*pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		for _, a := range b.Args {
			out = splitAnd(a, out)
		}
		return out
	}
	return append(out, n)
}

// guardConjuncts rebuilds the conjunction where with the conjuncts at the
// given positions as CASE WHEN guard THEN conjunct ELSE false END: the
// server evaluates them only on rows the guard (the filters of the
// tables the conjunct reads, each over its read form's columns) admits,
// and drops the row otherwise, as the filters do. The other conjuncts
// stay as they are, so that indexes still serve them. A table that was
// fenced instead has no guard: its derived table holds only admitted
// rows.
func guardConjuncts(where *pg.Node, positions []int, guards map[string]*pg.Node, order []string) (*pg.Node, error) {
	conj := splitAnd(where, nil)
	for _, i := range positions {
		guard := conjunctGuards(conj[i], guards, order)
		if guard == nil {
			continue // it reads no guarded table
		}
		no, err := parseExpr("false")
		if err != nil {
			return nil, err
		}
		conj[i] = &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: &pg.CaseExpr{
			Args: []*pg.Node{{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{
				Expr:   guard,
				Result: conj[i],
			}}}},
			Defresult: no,
		}}}
	}
	if len(conj) == 1 {
		return conj[0], nil
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: conj}}}, nil
}

// conjunctGuards is the guard of one conjunct: the filters (guards, by
// alias, in FROM order) of the guarded tables it reads, ANDed; nil when
// it reads none. A column named by alias.column reads that table; any
// other column reference (unqualified, or schema.table.column) may read
// any of them, and takes every guard, as does a conjunct that names no
// column.
func conjunctGuards(c *pg.Node, guards map[string]*pg.Node, order []string) *pg.Node {
	reads := map[string]bool{}
	all, named := false, false
	_ = walk(c, func(m protoMessage, _ *pg.Node) (bool, error) {
		cr, ok := m.(*pg.ColumnRef)
		if !ok {
			return true, nil
		}
		named = true
		if q := cr.Fields[0].GetString_(); len(cr.Fields) == 2 && q != nil {
			reads[q.Sval] = true
		} else {
			all = true
		}
		return true, nil
	})
	all = all || !named // a conjunct of constants is guarded as a whole-row one
	var terms []*pg.Node
	for _, alias := range order {
		if g := guards[alias]; g != nil && (all || reads[alias]) {
			terms = append(terms, copyNode(g))
		}
	}
	switch len(terms) {
	case 0:
		return nil
	case 1:
		return terms[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: terms}}}
}

// conjunctGuard is the plan's row filter over the columns of its read
// form, as the statement around it sees them (qualified by alias): ok is
// false when a column it reads is masked or not visible there (the guard
// would not read the raw value), or the filter is not simple.
func conjunctGuard(plan *rewriter.TablePlan, alias string) (guard *pg.Node, ok bool, err error) {
	e, has, err := rewriter.ParseFilter(plan, Syntax, parseExpr)
	if err != nil || !has {
		return nil, false, err
	}
	if !simpleFilter(e) || len(plan.Decision.TagMasks) > 0 {
		// (tag masks not resolved to columns may mask any column)
		return nil, false, nil
	}
	visible := map[string]bool{}
	for _, c := range plan.Columns {
		visible[c.Name] = true
	}
	ok = true
	_ = walk(e, func(m protoMessage, _ *pg.Node) (bool, error) {
		cr, isRef := m.(*pg.ColumnRef)
		if !isRef {
			return true, nil
		}
		name := ""
		if len(cr.Fields) == 1 {
			name = cr.Fields[0].GetString_().GetSval()
		}
		if _, masked := plan.Mask(name); name == "" || masked || !visible[name] {
			ok = false
			return false, nil
		}
		cr.Fields = []*pg.Node{pg.MakeStrNode(alias), pg.MakeStrNode(name)}
		return false, nil
	})
	return e, ok, nil
}

func safeFromItem(n *pg.Node, types columnTypes) bool {
	if n == nil {
		return false
	}
	switch t := n.Node.(type) {
	case *pg.Node_RangeVar:
		return true
	case *pg.Node_JoinExpr:
		j := t.JoinExpr
		if !safeFromItem(j.Larg, types) || !safeFromItem(j.Rarg, types) {
			return false
		}
		return j.Quals == nil || safeCondition(j.Quals, types)
	}
	return false
}

// safeCondition accepts comparisons and their boolean combinations.
func safeCondition(n *pg.Node, types columnTypes) bool {
	if n == nil {
		return false
	}
	switch e := n.Node.(type) {
	case *pg.Node_BoolExpr:
		for _, a := range e.BoolExpr.Args {
			if !safeCondition(a, types) {
				return false
			}
		}
		return len(e.BoolExpr.Args) > 0
	case *pg.Node_AExpr:
		return safeAExpr(e.AExpr) && sameTypeFamily(e.AExpr, types) && likeIsDeterministic(e.AExpr, types)
	case *pg.Node_NullTest:
		return safeValue(e.NullTest.Arg)
	case *pg.Node_BooleanTest:
		return safeValue(e.BooleanTest.Arg)
	case *pg.Node_ColumnRef:
		return !isStar(e.ColumnRef)
	case *pg.Node_AConst:
		return true
	}
	return false
}

func safeAExpr(x *pg.A_Expr) bool {
	if len(x.Name) != 1 {
		return false // a schema-qualified operator
	}
	op := x.Name[0].GetString_()
	if op == nil {
		return false
	}
	switch x.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		switch op.Sval {
		case "=", "<>", "!=", "<", "<=", ">", ">=":
		default:
			return false
		}
		return safeValue(x.Lexpr) && safeValue(x.Rexpr)
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return safeValue(x.Lexpr) && safeValue(x.Rexpr)
	case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		l := x.Rexpr.GetList()
		if l == nil || len(l.Items) == 0 || !safeValue(x.Lexpr) {
			return false
		}
		for _, v := range l.Items {
			if !safeValue(v) {
				return false
			}
		}
		return true
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		// A pattern ending in an escape character fails on every row it
		// is tested on: only a constant pattern without one is safe (an
		// ESCAPE clause makes the pattern a function call).
		c := x.Rexpr.GetAConst()
		if c == nil || c.GetSval() == nil || strings.Contains(c.GetSval().Sval, `\`) {
			return false
		}
		return safeValue(x.Lexpr)
	}
	return false
}

// safeValue accepts columns, literals and placeholders.
func safeValue(n *pg.Node) bool {
	if n == nil {
		return false
	}
	switch e := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return !isStar(e.ColumnRef)
	case *pg.Node_AConst, *pg.Node_ParamRef:
		return true
	}
	return false
}

func hasQueryOrWindow(n *pg.Node) bool {
	found := false
	_ = walk(n, func(m proto.Message, _ *pg.Node) (bool, error) {
		switch e := m.(type) {
		case *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect:
			found = true
		case *pg.FuncCall:
			if e.Over != nil {
				found = true
			}
		}
		return !found, nil
	})
	return found
}

// collectConditionColumns answers, for a SELECT, which columns its
// conditions read (rewriter.ConditionColumns): every column name in FROM
// (ON, USING), WHERE, GROUP BY, ORDER BY and LIMIT, whatever its
// qualifier, and the columns of the select-list entries GROUP BY or ORDER
// BY name by position or output name; all of them when that cannot be
// told (a NATURAL join, a bare name that may be a whole-row reference to
// a FROM entry, a position or output name naming anything but a plain
// column). wholeRow is set when a bare name may be a whole-row reference.
func collectConditionColumns(sel *pg.SelectStmt) (cc rewriter.ConditionColumns, wholeRow bool) {
	entries := map[string]bool{} // the names of FROM entries
	var bare []string
	cols := func(n *pg.Node) {
		_ = walk(n, func(m proto.Message, _ *pg.Node) (bool, error) {
			switch e := m.(type) {
			case *pg.ColumnRef:
				if isStar(e) {
					cc.All = true
				}
				for _, f := range e.Fields {
					if s := f.GetString_(); s != nil {
						cc.Add(s.Sval)
					}
				}
				if len(e.Fields) == 1 {
					if s := e.Fields[0].GetString_(); s != nil {
						bare = append(bare, s.Sval)
					}
				}
			case *pg.JoinExpr:
				if e.IsNatural {
					cc.All = true
				}
				if e.Jointype != pg.JoinType_JOIN_INNER {
					cc.OuterJoin = true
				}
				for _, u := range e.UsingClause {
					if s := u.GetString_(); s != nil {
						cc.Add(s.Sval)
					}
				}
				if e.Alias != nil {
					entries[strings.ToLower(e.Alias.Aliasname)] = true
				}
				if e.JoinUsingAlias != nil {
					entries[strings.ToLower(e.JoinUsingAlias.Aliasname)] = true
				}
			case *pg.RangeVar:
				entries[strings.ToLower(e.Relname)] = true
				if e.Alias != nil {
					entries[strings.ToLower(e.Alias.Aliasname)] = true
				}
			}
			return true, nil
		})
	}
	for _, f := range sel.FromClause {
		cols(f)
	}
	for _, n := range []*pg.Node{sel.WhereClause, sel.HavingClause, sel.LimitCount, sel.LimitOffset} {
		if n != nil {
			cols(n)
		}
	}
	var keys []*pg.Node
	for _, l := range [][]*pg.Node{sel.GroupClause, sel.SortClause, sel.DistinctClause, sel.WindowClause} {
		for _, n := range l {
			if n == nil || n.Node == nil {
				continue
			}
			cols(n)
			if sb := n.GetSortBy(); sb != nil {
				n = sb.Node
			}
			keys = append(keys, n)
		}
	}
	// GROUP BY and ORDER BY may name a select-list entry by position or
	// by output name.
	for _, k := range keys {
		rt, named := selectEntry(sel, k)
		if !named {
			continue
		}
		if rt == nil || rt.Val == nil {
			cc.All = true
			continue
		}
		c := rt.Val.GetColumnRef()
		if c == nil || isStar(c) || len(c.Fields) == 0 {
			cc.All = true
			continue
		}
		cols(rt.Val)
	}
	for _, b := range bare {
		if entries[strings.ToLower(b)] {
			cc.All = true // a whole-row reference reads every column
			wholeRow = true
		}
	}
	return cc, wholeRow
}

// selectEntry returns the select-list entry a GROUP BY or ORDER BY key
// names by position (an integer constant) or by output name (an
// unqualified column), and whether the key names one; a position with a
// star at or before it, or out of range, names nil.
func selectEntry(sel *pg.SelectStmt, key *pg.Node) (*pg.ResTarget, bool) {
	if key == nil {
		return nil, false
	}
	if c := key.GetAConst(); c != nil {
		iv := c.GetIval()
		if iv == nil {
			return nil, false
		}
		pos := int(iv.Ival)
		if pos < 1 || pos > len(sel.TargetList) {
			return nil, true
		}
		for _, t := range sel.TargetList[:pos] {
			rt := t.GetResTarget()
			if rt == nil || rt.Val == nil {
				return nil, true
			}
			if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
				return nil, true
			}
		}
		return sel.TargetList[pos-1].GetResTarget(), true
	}
	cr := key.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 {
		return nil, false
	}
	s := cr.Fields[0].GetString_()
	if s == nil {
		return nil, false
	}
	for _, t := range sel.TargetList {
		if rt := t.GetResTarget(); rt != nil && rt.Name != "" && strings.EqualFold(rt.Name, s.Sval) {
			return rt, true
		}
	}
	return nil, false
}

// needsFence asks the core whether the read form of a table, whose
// filter is where, referenced in scope sc, must be fenced
// (rewriter.Statement.NeedsFence).
func (r *rewrite) needsFence(plan *rewriter.TablePlan, where *pg.Node, sc *scope) bool {
	if where == nil {
		return false
	}
	return r.NeedsFence(plan, sc != nil && sc.policy, simpleFilter(where))
}

// needsGuard asks the core whether a write's own condition cond, as the
// application wrote it, must be guarded by the target's filter
// (rewriter.NeedsGuard). A bare name of the target reads its whole row.
func needsGuard(ref *tableRef, filter, cond *pg.Node) bool {
	if cond == nil {
		return false
	}
	var cc rewriter.ConditionColumns
	_ = walk(cond, func(m proto.Message, _ *pg.Node) (bool, error) {
		if c, ok := m.(*pg.ColumnRef); ok {
			if isStar(c) {
				cc.All = true
			}
			for _, f := range c.Fields {
				if s := f.GetString_(); s != nil {
					cc.Add(s.Sval)
				}
			}
			if len(c.Fields) == 1 {
				if s := c.Fields[0].GetString_(); s != nil &&
					(strings.EqualFold(s.Sval, ref.alias) || strings.EqualFold(s.Sval, ref.table.Table)) {
					cc.All = true
				}
			}
		}
		return true, nil
	})
	return rewriter.NeedsGuard([]*rewriter.TablePlan{ref.plan}, simpleFilter(filter), !safeCondition(cond, targetTypes(ref)), &cc)
}

// columnTypes resolves a column reference to its type as the catalog
// reports it (information_schema's data_type), when it can.
type columnTypes func(c *pg.ColumnRef) (rewriter.Column, bool)

// typeFamilies are the types whose values compare without a cast that can
// fail: the integers and numeric (an integer widens to numeric exactly),
// the floating-point types, and the character types. Any other type
// compares safely only with itself.
var typeFamilies = map[string]string{
	"smallint": "exact", "integer": "exact", "bigint": "exact", "numeric": "exact",
	"real": "float", "double precision": "float",
	"text": "text", "character varying": "text", "character": "text", "name": "text",
}

// sameTypeFamily reports whether the columns a comparison reads (its two
// sides, IN and BETWEEN lists included) all have types of one family.
// Literals and placeholders take the type of what they are compared with;
// a comparison with at most one column casts nothing on a value.
func sameTypeFamily(x *pg.A_Expr, types columnTypes) bool {
	var cols []*pg.ColumnRef
	add := func(n *pg.Node) {
		if c := n.GetColumnRef(); c != nil {
			cols = append(cols, c)
		}
	}
	add(x.Lexpr)
	if l := x.Rexpr.GetList(); l != nil {
		for _, it := range l.Items {
			add(it)
		}
	} else {
		add(x.Rexpr)
	}
	if len(cols) < 2 {
		return true
	}
	if types == nil {
		return false
	}
	family := ""
	for i, c := range cols {
		col, ok := types(c)
		if !ok {
			return false
		}
		t := col.DataType
		f, known := typeFamilies[t]
		if !known {
			f = "=" + t
			if t == "user-defined" || t == "array" {
				return false // information_schema does not say which type
			}
		}
		if i > 0 && f != family {
			return false
		}
		family = f
	}
	return true
}

// fromTypes resolves the column references of a SELECT whose FROM list is
// made of tables (see safeFromItem) through the catalog: a qualified
// reference in the table its qualifier names, an unqualified one in the
// one table of FROM that has the column.
func (r *rewrite) fromTypes(sel *pg.SelectStmt) columnTypes {
	if sel == nil {
		return nil
	}
	type entry struct {
		name string // alias, or the table's name
		cols []rewriter.Column
	}
	var tables []entry
	var collect func(n *pg.Node) bool
	collect = func(n *pg.Node) bool {
		switch t := n.GetNode().(type) {
		case *pg.Node_RangeVar:
			tn, err := r.resolve(t.RangeVar, false)
			if err != nil {
				return false
			}
			cols, found, err := r.Req.Catalog.Columns(r.Ctx, tn)
			if err != nil || !found {
				return false
			}
			name := t.RangeVar.Relname
			if t.RangeVar.Alias != nil && t.RangeVar.Alias.Aliasname != "" {
				name = t.RangeVar.Alias.Aliasname
			}
			tables = append(tables, entry{name: name, cols: cols})
			return true
		case *pg.Node_JoinExpr:
			return collect(t.JoinExpr.Larg) && collect(t.JoinExpr.Rarg)
		}
		return false
	}
	if r.Req.Catalog == nil {
		return nil
	}
	for _, f := range sel.FromClause {
		if !collect(f) {
			return nil
		}
	}
	columnIn := func(cols []rewriter.Column, name string) (rewriter.Column, bool) {
		for _, c := range cols {
			if c.Name == name {
				return c, true
			}
		}
		return rewriter.Column{}, false
	}
	return func(c *pg.ColumnRef) (rewriter.Column, bool) {
		names, star, ok := colFields(c)
		if !ok || star || len(names) == 0 || len(names) > 2 {
			return rewriter.Column{}, false
		}
		found, col := 0, rewriter.Column{}
		for _, t := range tables {
			if len(names) == 2 && t.name != names[0] {
				continue
			}
			if cc, ok := columnIn(t.cols, names[len(names)-1]); ok {
				found++
				col = cc
			}
		}
		return col, found == 1
	}
}

// likeIsDeterministic reports whether a LIKE or ILIKE reads a column whose
// collation the catalog shows to be deterministic: on a nondeterministic
// one the server refuses LIKE when it first evaluates it, and whether it
// evaluates it at all would tell whether the table has rows the filter
// hides. Other comparisons pass.
func likeIsDeterministic(x *pg.A_Expr, types columnTypes) bool {
	if x.Kind != pg.A_Expr_Kind_AEXPR_LIKE && x.Kind != pg.A_Expr_Kind_AEXPR_ILIKE {
		return true
	}
	c := x.Lexpr.GetColumnRef()
	if c == nil {
		return true // a constant or a placeholder
	}
	if types == nil {
		return false
	}
	col, ok := types(c)
	return ok && !col.Nondeterministic
}

// targetTypes resolves the column references of a write's condition that
// name a column of its target table (unqualified, or qualified by the
// target's name or alias); others are unknown.
func targetTypes(ref *tableRef) columnTypes {
	if ref == nil || ref.plan == nil || len(ref.plan.All) == 0 {
		return nil
	}
	return func(c *pg.ColumnRef) (rewriter.Column, bool) {
		names, star, ok := colFields(c)
		if !ok || star || len(names) == 0 || len(names) > 2 {
			return rewriter.Column{}, false
		}
		if len(names) == 2 && !strings.EqualFold(names[0], ref.alias) && !strings.EqualFold(names[0], ref.table.Table) {
			return rewriter.Column{}, false
		}
		for _, col := range ref.plan.All {
			if col.Name == names[len(names)-1] {
				return col, true
			}
		}
		return rewriter.Column{}, false
	}
}

// refuseLikeOnNondeterministic refuses LIKE, ILIKE and SIMILAR TO on a
// column of a filtered table whose collation is nondeterministic (names
// compared without qualifiers). The server cannot evaluate them on such a
// column, and finds out when it plans the statement, by trying the pattern
// on the column's statistics, which sample every row, hidden ones
// included: whether the statement fails would tell whether the table has
// rows the caller cannot see. No fence helps, since planning comes first.
func (r *rewrite) refuseLikeOnNondeterministic(stmt *pg.Node) error {
	if len(r.nondeterministic) == 0 {
		return nil
	}
	var found string
	_ = walk(stmt, func(m proto.Message, _ *pg.Node) (bool, error) {
		x, ok := m.(*pg.A_Expr)
		if !ok || found != "" {
			return found == "", nil
		}
		switch x.Kind {
		case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
		default:
			return true, nil
		}
		if c := x.Lexpr.GetColumnRef(); c != nil {
			if names, _, ok := colFields(c); ok && len(names) > 0 && r.nondeterministic[names[len(names)-1]] {
				found = names[len(names)-1]
			}
		}
		return true, nil
	})
	if found != "" {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Column: found,
			Detail: "LIKE, ILIKE and SIMILAR TO on a column with a nondeterministic collation are not supported through sqe: the server refuses them when it plans the statement, after reading statistics of rows the policy hides"}
	}
	return nil
}
