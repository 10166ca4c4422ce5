package postgres

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/rewriter"
)

// valueRules are how PostgreSQL stores and compares what a write check
// decides: boolean and uuid are types of their own, text has no length,
// and a deterministic collation compares bytes (a nondeterministic one
// is not decided: rewriter.Column.Nondeterministic).
var valueRules = rewriter.ValueRules{BooleanUUID: true}

// The dialect's part of the write checks (rewriter.WriteCheck): it reads
// a check expression into a rewriter.Cond and the written values out of
// its own tree.

// checkParser reads a check of the target ref: parsed as one expression,
// its context functions replaced by the session's values, as a row filter
// is.
func (r *rewrite) checkParser(ref *tableRef) rewriter.CheckParser {
	return rewriter.ReadCheck(parseExpr, func(e *pg.Node) (*pg.Node, error) {
		holder := &pg.ResTarget{Val: e}
		err := r.policyExprs(policyBase(ref), holder)
		return holder.Val, err
	}, toCond)
}

// insertChecks records the checks of the rows an INSERT (or a MERGE's
// INSERT action) writes: cols are its column list, values its VALUES
// lists or, for INSERT … SELECT, nil with sel the query.
func (r *rewrite) insertChecks(ref *tableRef, cols []*pg.Node, sel *pg.Node, values [][]*pg.Node) error {
	if !ref.plan.HasChecks() {
		return nil
	}
	var names []string
	for _, n := range cols {
		rt := n.GetResTarget()
		name := rt.GetName()
		if len(rt.GetIndirection()) > 0 {
			name = "" // a part of the column: its value is not known
		}
		names = append(names, name)
	}
	if len(cols) == 0 {
		names = nil
	}
	allRows := false
	if s := sel.GetSelectStmt(); s != nil {
		switch {
		case len(s.ValuesLists) > 0 && s.Op == pg.SetOperation_SETOP_NONE:
			for _, l := range s.ValuesLists {
				values = append(values, l.GetList().GetItems())
			}
		case s.Op == pg.SetOperation_SETOP_NONE && len(s.TargetList) > 0:
			allRows = true
			var row []*pg.Node
			for _, n := range s.TargetList {
				rt := n.GetResTarget()
				if rt == nil || rt.Val.GetColumnRef() != nil && isStar(rt.Val.GetColumnRef()) {
					row = nil
					break
				}
				row = append(row, rt.Val)
			}
			values = [][]*pg.Node{row}
		default:
			allRows = true
			values = [][]*pg.Node{nil}
		}
	} else if sel == nil && values == nil {
		values = [][]*pg.Node{nil} // DEFAULT VALUES
	}
	rows := make([][]rewriter.Value, len(values))
	for i, l := range values {
		for _, e := range l {
			rows[i] = append(rows[i], writtenValue(e))
		}
	}
	if names == nil {
		for _, c := range ref.plan.All {
			names = append(names, c.Name)
		}
	}
	checks, err := rewriter.InsertChecks(ref.plan, Name, valueRules, r.checkParser(ref), names, rows, allRows)
	r.AddWriteChecks(checks...)
	return err
}

// updateChecks records the checks of the new rows of an UPDATE (or a
// MERGE's UPDATE action) whose SET list is list.
func (r *rewrite) updateChecks(ref *tableRef, list []*pg.Node) error {
	if !ref.plan.HasChecks() {
		return nil
	}
	set := map[string]rewriter.Value{}
	for _, n := range list {
		rt := n.GetResTarget()
		name := strings.ToLower(rt.GetName())
		if o, ok := operand(rt.GetVal()); ok && o.Column == name && len(rt.GetIndirection()) == 0 && sameTarget(rt.GetVal().GetColumnRef(), ref) {
			continue // SET c = c keeps the value
		}
		v := writtenValue(rt.GetVal())
		if _, twice := set[name]; twice || len(rt.GetIndirection()) > 0 || rt.GetVal().GetMultiAssignRef() != nil {
			v = rewriter.Value{}
		}
		set[name] = v
	}
	checks, err := rewriter.UpdateChecks(ref.plan, Name, valueRules, r.checkParser(ref), set)
	r.AddWriteChecks(checks...)
	return err
}

// writtenValue is the value a written expression gives its column: a
// literal or a placeholder; anything else (DEFAULT, a cast, an
// expression) is unknown.
func writtenValue(e *pg.Node) rewriter.Value {
	if p := e.GetParamRef(); p != nil && p.Number > 0 {
		return rewriter.Value{Kind: rewriter.ValueArg, Arg: int(p.Number)}
	}
	if c, ok := constOf(e); ok {
		return rewriter.Value{Kind: rewriter.ValueConst, Const: c}
	}
	return rewriter.Value{}
}

// constOf reads a literal.
func constOf(e *pg.Node) (rewriter.Const, bool) {
	c := e.GetAConst()
	if c == nil {
		return rewriter.Const{}, false
	}
	switch {
	case c.Isnull:
		return rewriter.Const{Kind: rewriter.ConstNull}, true
	case c.GetIval() != nil:
		return rewriter.Const{Kind: rewriter.ConstNumber, Text: strconv.FormatInt(int64(c.GetIval().Ival), 10)}, true
	case c.GetFval() != nil:
		return rewriter.Const{Kind: rewriter.ConstNumber, Text: c.GetFval().Fval}, true
	case c.GetSval() != nil:
		return rewriter.Const{Kind: rewriter.ConstString, Text: c.GetSval().Sval}, true
	case c.GetBoolval() != nil:
		return rewriter.Const{Kind: rewriter.ConstBool, Bool: c.GetBoolval().Boolval}, true
	}
	return rewriter.Const{Kind: rewriter.ConstOther}, true
}

var comparisonOps = map[string]string{
	"=": rewriter.CmpEq, "<>": rewriter.CmpNe, "!=": rewriter.CmpNe,
	"<": rewriter.CmpLt, "<=": rewriter.CmpLe, ">": rewriter.CmpGt, ">=": rewriter.CmpGe,
}

// toCond reads a check expression (its columns are the target's).
func toCond(e *pg.Node) *rewriter.Cond {
	if c := convertCond(e); c != nil {
		return c
	}
	return &rewriter.Cond{Op: rewriter.CondUnknown, Reads: columnsIn(e)}
}

func convertCond(e *pg.Node) *rewriter.Cond {
	switch {
	case e.GetBoolExpr() != nil:
		b := e.GetBoolExpr()
		c := &rewriter.Cond{}
		switch b.Boolop {
		case pg.BoolExprType_AND_EXPR:
			c.Op = rewriter.CondAnd
		case pg.BoolExprType_OR_EXPR:
			c.Op = rewriter.CondOr
		case pg.BoolExprType_NOT_EXPR:
			c.Op = rewriter.CondNot
		default:
			return nil
		}
		for _, a := range b.Args {
			c.Args = append(c.Args, toCond(a))
		}
		return c
	case e.GetAExpr() != nil:
		return aExprCond(e.GetAExpr())
	case e.GetNullTest() != nil:
		nt := e.GetNullTest()
		l, ok := operand(nt.Arg)
		if !ok || nt.Argisrow {
			return nil
		}
		return &rewriter.Cond{Op: rewriter.CondIsNull, Left: l, Negate: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}
	case e.GetBooleanTest() != nil:
		bt := e.GetBooleanTest()
		l, ok := operand(bt.Arg)
		if !ok {
			return nil
		}
		switch bt.Booltesttype {
		case pg.BoolTestType_IS_TRUE, pg.BoolTestType_IS_NOT_TRUE:
			return &rewriter.Cond{Op: rewriter.CondTruth, Left: l, Want: true, Negate: bt.Booltesttype == pg.BoolTestType_IS_NOT_TRUE}
		case pg.BoolTestType_IS_FALSE, pg.BoolTestType_IS_NOT_FALSE:
			return &rewriter.Cond{Op: rewriter.CondTruth, Left: l, Want: false, Negate: bt.Booltesttype == pg.BoolTestType_IS_NOT_FALSE}
		}
	case e.GetColumnRef() != nil, e.GetAConst() != nil:
		if o, ok := operand(e); ok {
			return &rewriter.Cond{Op: rewriter.CondValue, Left: o}
		}
	}
	return nil
}

func aExprCond(a *pg.A_Expr) *rewriter.Cond {
	if len(a.Name) != 1 || a.Name[0].GetString_() == nil {
		return nil
	}
	op := a.Name[0].GetString_().Sval
	l, ok := operand(a.Lexpr)
	if !ok {
		return nil
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		cmp, ok := comparisonOps[op]
		r, okR := operand(a.Rexpr)
		if !ok || !okR {
			return nil
		}
		return &rewriter.Cond{Op: rewriter.CondCompare, Cmp: cmp, Left: l, Right: r}
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		r, ok := operand(a.Rexpr)
		if !ok || op != "=" {
			return nil
		}
		cmp := rewriter.CmpDistinct
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			cmp = rewriter.CmpNullSafeEq
		}
		return &rewriter.Cond{Op: rewriter.CondCompare, Cmp: cmp, Left: l, Right: r}
	case pg.A_Expr_Kind_AEXPR_IN:
		list := a.Rexpr.GetList()
		if list == nil || op != "=" && op != "<>" {
			return nil
		}
		c := &rewriter.Cond{Op: rewriter.CondIn, Left: l, Negate: op == "<>"}
		for _, item := range list.Items {
			o, ok := operand(item)
			if !ok {
				return nil
			}
			c.List = append(c.List, o)
		}
		return c
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		list := a.Rexpr.GetList()
		if list == nil || len(list.Items) != 2 {
			return nil
		}
		from, okF := operand(list.Items[0])
		to, okT := operand(list.Items[1])
		if !okF || !okT {
			return nil
		}
		c := &rewriter.Cond{Op: rewriter.CondAnd, Args: []*rewriter.Cond{
			{Op: rewriter.CondCompare, Cmp: rewriter.CmpGe, Left: l, Right: from},
			{Op: rewriter.CondCompare, Cmp: rewriter.CmpLe, Left: l, Right: to},
		}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			c = &rewriter.Cond{Op: rewriter.CondNot, Args: []*rewriter.Cond{c}}
		}
		return c
	}
	return nil
}

// operand reads a column of the target, a literal, or a string literal
// cast to uuid or text (which compare as the literal).
func operand(e *pg.Node) (rewriter.Operand, bool) {
	if c := e.GetColumnRef(); c != nil {
		if len(c.Fields) == 0 || c.Fields[len(c.Fields)-1].GetString_() == nil {
			return rewriter.Operand{}, false
		}
		return rewriter.Operand{Column: strings.ToLower(c.Fields[len(c.Fields)-1].GetString_().Sval)}, true
	}
	if tc := e.GetTypeCast(); tc != nil && tc.TypeName != nil && len(tc.TypeName.Typmods) == 0 && len(tc.TypeName.ArrayBounds) == 0 {
		base, _ := typeNames(tc.TypeName)
		if k, ok := constOf(tc.Arg); ok && k.Kind == rewriter.ConstString && (base == "uuid" || base == "text") {
			return rewriter.Operand{Const: k}, true
		}
		return rewriter.Operand{}, false
	}
	if k, ok := constOf(e); ok {
		return rewriter.Operand{Const: k}, true
	}
	return rewriter.Operand{}, false
}

// columnsIn lists every column name in e (the last part of each column
// reference, lower-cased).
func columnsIn(e *pg.Node) []string {
	var out []string
	_ = walk(e, func(m proto.Message, _ *pg.Node) (bool, error) {
		if c, ok := m.(*pg.ColumnRef); ok && len(c.Fields) > 0 {
			if s := c.Fields[len(c.Fields)-1].GetString_(); s != nil {
				out = append(out, strings.ToLower(s.Sval))
			}
		}
		return true, nil
	})
	return out
}

// sameTarget reports whether a column reference names a column of the
// target (unqualified, or qualified with its name).
func sameTarget(c *pg.ColumnRef, ref *tableRef) bool {
	if c == nil {
		return false
	}
	switch len(c.Fields) {
	case 1:
		return true
	case 2:
		q := c.Fields[0].GetString_()
		return q != nil && q.Sval == ref.alias
	}
	return false
}
