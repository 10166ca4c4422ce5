package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"
)

// CallArg is one argument of a call read by SimpleCall: an unqualified
// column reference (Column holds its name) or a constant (Value holds an
// integer's digits, with its sign, or a string literal's value).
type CallArg struct {
	Column string
	Value  string
}

// SimpleCall parses text as exactly one expression and, when it is a call
// of an unqualified function with plain arguments only (unqualified
// columns, integer literals, possibly negated, and string literals),
// returns the function's lower-cased name and its arguments; ok is false
// for anything else.
func SimpleCall(text string) (name string, args []CallArg, ok bool) {
	e, err := parseExpr(text)
	if err != nil {
		return "", nil, false
	}
	f, isCall := e.(*sqlparser.FuncExpr)
	if !isCall || !f.Qualifier.IsEmpty() {
		return "", nil, false
	}
	for _, a := range f.Exprs {
		arg, ok := callArg(a)
		if !ok {
			return "", nil, false
		}
		args = append(args, arg)
	}
	return f.Name.Lowered(), args, true
}

func callArg(e sqlparser.Expr) (CallArg, bool) {
	switch a := e.(type) {
	case *sqlparser.ColName:
		if !a.Qualifier.IsEmpty() {
			return CallArg{}, false
		}
		return CallArg{Column: a.Name.String()}, true
	case *sqlparser.Literal:
		switch a.Type {
		case sqlparser.StrVal, sqlparser.IntVal:
			return CallArg{Value: a.Val}, true
		}
	case *sqlparser.UnaryExpr:
		if lit, ok := a.Expr.(*sqlparser.Literal); ok && a.Operator == sqlparser.UMinusOp && lit.Type == sqlparser.IntVal {
			return CallArg{Value: "-" + lit.Val}, true
		}
	}
	return CallArg{}, false
}
