package mysql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// valueRules are how MariaDB and MySQL store and compare what a write
// check decides: a character column always declares its length, TEXT
// holds 65,535 bytes, TRUE is 1, and the column's character set and
// collation (which may ignore case, accents and trailing spaces) are not
// known to sqe.
var valueRules = rewriter.ValueRules{LengthDeclared: true, TextBytes: 65535, TrueIsOne: true, CollationsFold: true}

// The dialect's part of the write checks (rewriter.WriteCheck): it reads
// a check expression into a rewriter.Cond and the written values out of
// its own tree.

// checkParser reads a check of the target ref: parsed as one expression,
// its context functions replaced by the session's values and its columns
// qualified with the target, as a row filter is.
func (r *rewrite) checkParser(ref *tableRef) rewriter.CheckParser {
	return rewriter.ReadCheck(parseExpr, func(e sqlparser.Expr) (sqlparser.Expr, error) {
		wrap := &sqlparser.AndExpr{Left: e, Right: sqlparser.BoolVal(true)}
		err := r.policyExprs(ref.plan, ref.qualifier, wrap, nil)
		return wrap.Left, err
	}, toCond)
}

// insertChecks records the checks of an INSERT's rows.
func (r *rewrite) insertChecks(ins *sqlparser.Insert, ref *tableRef) error {
	if !ref.plan.HasChecks() {
		return nil
	}
	var cols []string
	for _, c := range ins.Columns {
		cols = append(cols, c.String())
	}
	if len(ins.Columns) == 0 {
		cols = nil
	}
	var rows [][]rewriter.Value
	allRows := false
	switch src := ins.Rows.(type) {
	case sqlparser.Values:
		for _, tuple := range src {
			row := make([]rewriter.Value, len(tuple))
			for i, e := range tuple {
				row[i] = writtenValue(e)
			}
			rows = append(rows, row)
		}
	case *sqlparser.Select:
		allRows = true
		var row []rewriter.Value
		for _, se := range src.GetColumns() {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				row = nil // a star: the values are unknown
				break
			}
			row = append(row, writtenValue(ae.Expr))
		}
		rows = [][]rewriter.Value{row}
	default:
		allRows = true
		rows = [][]rewriter.Value{nil}
	}
	checks, err := rewriter.InsertChecks(ref.plan, Name, valueRules, r.checkParser(ref), cols, rows, allRows)
	r.AddWriteChecks(checks...)
	return err
}

// updateChecks records the checks of the new rows of an UPDATE of ref,
// whose assignments are ues.
func (r *rewrite) updateChecks(ues []*sqlparser.UpdateExpr, ref *tableRef) error {
	if !ref.plan.HasChecks() {
		return nil
	}
	set := map[string]rewriter.Value{}
	for _, ue := range ues {
		name := strings.ToLower(ue.Name.Name.String())
		if c, ok := ue.Expr.(*sqlparser.ColName); ok && strings.EqualFold(c.Name.String(), name) &&
			(c.Qualifier.IsEmpty() || strings.EqualFold(c.Qualifier.Name.String(), ref.alias)) {
			continue // SET c = c keeps the value
		}
		if _, twice := set[name]; twice {
			set[name] = rewriter.Value{} // assigned twice: unknown
			continue
		}
		set[name] = writtenValue(ue.Expr)
	}
	checks, err := rewriter.UpdateChecks(ref.plan, Name, valueRules, r.checkParser(ref), set)
	r.AddWriteChecks(checks...)
	return err
}

// writtenValue is the value a written expression gives its column: a
// literal or a placeholder; anything else is unknown.
func writtenValue(e sqlparser.Expr) rewriter.Value {
	if a, ok := e.(*sqlparser.Argument); ok {
		if n, err := strconv.Atoi(strings.TrimPrefix(a.Name, "v")); err == nil && strings.HasPrefix(a.Name, "v") && n > 0 {
			return rewriter.Value{Kind: rewriter.ValueArg, Arg: n}
		}
		return rewriter.Value{}
	}
	if c, ok := constOf(e); ok {
		return rewriter.Value{Kind: rewriter.ValueConst, Const: c}
	}
	return rewriter.Value{}
}

// constOf reads a literal.
func constOf(e sqlparser.Expr) (rewriter.Const, bool) {
	switch x := e.(type) {
	case *sqlparser.NullVal:
		return rewriter.Const{Kind: rewriter.ConstNull}, true
	case sqlparser.BoolVal:
		return rewriter.Const{Kind: rewriter.ConstBool, Bool: bool(x)}, true
	case *sqlparser.Literal:
		switch x.Type {
		case sqlparser.IntVal, sqlparser.FloatVal, sqlparser.DecimalVal:
			return rewriter.Const{Kind: rewriter.ConstNumber, Text: x.Val}, true
		case sqlparser.StrVal:
			return rewriter.Const{Kind: rewriter.ConstString, Text: x.Val}, true
		}
		return rewriter.Const{Kind: rewriter.ConstOther}, true
	case *sqlparser.UnaryExpr:
		if x.Operator != sqlparser.UMinusOp {
			return rewriter.Const{}, false
		}
		if c, ok := constOf(x.Expr); ok && c.Kind == rewriter.ConstNumber && !strings.HasPrefix(c.Text, "-") {
			c.Text = "-" + c.Text
			return c, true
		}
	}
	return rewriter.Const{}, false
}

// toCond reads a check expression (its columns are the target's).
func toCond(e sqlparser.Expr) *rewriter.Cond {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return &rewriter.Cond{Op: rewriter.CondAnd, Args: []*rewriter.Cond{toCond(x.Left), toCond(x.Right)}}
	case *sqlparser.OrExpr:
		return &rewriter.Cond{Op: rewriter.CondOr, Args: []*rewriter.Cond{toCond(x.Left), toCond(x.Right)}}
	case *sqlparser.NotExpr:
		return &rewriter.Cond{Op: rewriter.CondNot, Args: []*rewriter.Cond{toCond(x.Expr)}}
	case *sqlparser.ComparisonExpr:
		if c := comparison(x); c != nil {
			return c
		}
	case *sqlparser.BetweenExpr:
		l, okL := operand(x.Left)
		from, okF := operand(x.From)
		to, okT := operand(x.To)
		if okL && okF && okT {
			c := &rewriter.Cond{Op: rewriter.CondAnd, Args: []*rewriter.Cond{
				{Op: rewriter.CondCompare, Cmp: rewriter.CmpGe, Left: l, Right: from},
				{Op: rewriter.CondCompare, Cmp: rewriter.CmpLe, Left: l, Right: to},
			}}
			if !x.IsBetween {
				c = &rewriter.Cond{Op: rewriter.CondNot, Args: []*rewriter.Cond{c}}
			}
			return c
		}
	case *sqlparser.IsExpr:
		l, ok := operand(x.Left)
		if !ok {
			break
		}
		switch x.Right {
		case sqlparser.IsNullOp, sqlparser.IsNotNullOp:
			return &rewriter.Cond{Op: rewriter.CondIsNull, Left: l, Negate: x.Right == sqlparser.IsNotNullOp}
		case sqlparser.IsTrueOp, sqlparser.IsNotTrueOp:
			return &rewriter.Cond{Op: rewriter.CondTruth, Left: l, Want: true, Negate: x.Right == sqlparser.IsNotTrueOp}
		case sqlparser.IsFalseOp, sqlparser.IsNotFalseOp:
			return &rewriter.Cond{Op: rewriter.CondTruth, Left: l, Want: false, Negate: x.Right == sqlparser.IsNotFalseOp}
		}
	case *sqlparser.ColName, sqlparser.BoolVal, *sqlparser.NullVal:
		if o, ok := operand(e); ok {
			return &rewriter.Cond{Op: rewriter.CondValue, Left: o}
		}
	}
	return &rewriter.Cond{Op: rewriter.CondUnknown, Reads: columnsIn(e)}
}

var comparisonOps = map[sqlparser.ComparisonExprOperator]string{
	sqlparser.EqualOp:         rewriter.CmpEq,
	sqlparser.NotEqualOp:      rewriter.CmpNe,
	sqlparser.LessThanOp:      rewriter.CmpLt,
	sqlparser.LessEqualOp:     rewriter.CmpLe,
	sqlparser.GreaterThanOp:   rewriter.CmpGt,
	sqlparser.GreaterEqualOp:  rewriter.CmpGe,
	sqlparser.NullSafeEqualOp: rewriter.CmpNullSafeEq,
}

func comparison(x *sqlparser.ComparisonExpr) *rewriter.Cond {
	l, ok := operand(x.Left)
	if !ok || x.Escape != nil {
		return nil
	}
	if op, ok := comparisonOps[x.Operator]; ok {
		r, ok := operand(x.Right)
		if !ok {
			return nil
		}
		return &rewriter.Cond{Op: rewriter.CondCompare, Cmp: op, Left: l, Right: r}
	}
	if x.Operator != sqlparser.InOp && x.Operator != sqlparser.NotInOp {
		return nil
	}
	tuple, ok := x.Right.(sqlparser.ValTuple)
	if !ok {
		return nil
	}
	c := &rewriter.Cond{Op: rewriter.CondIn, Left: l, Negate: x.Operator == sqlparser.NotInOp}
	for _, v := range tuple {
		o, ok := operand(v)
		if !ok {
			return nil
		}
		c.List = append(c.List, o)
	}
	return c
}

// operand reads a column of the target or a literal.
func operand(e sqlparser.Expr) (rewriter.Operand, bool) {
	if c, ok := e.(*sqlparser.ColName); ok {
		return rewriter.Operand{Column: strings.ToLower(c.Name.String())}, true
	}
	if k, ok := constOf(e); ok {
		return rewriter.Operand{Const: k}, true
	}
	return rewriter.Operand{}, false
}

// columnsIn lists every column name in e (lower-cased).
func columnsIn(e sqlparser.Expr) []string {
	var out []string
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok {
			out = append(out, strings.ToLower(c.Name.String()))
		}
		return true, nil
	}, e)
	return out
}
