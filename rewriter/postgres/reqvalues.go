package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// PlaceRequestValues implements rewriter.ValueSyntax: the parser decides
// where each marker sits. A marker read as a column reference becomes a
// constant node, one inside a string constant ('…', E'…', $$…$$, U&'…')
// changes the constant's value; the deparser prints the values (a value
// with a backslash as E'…', which reads the same whatever
// standard_conforming_strings is). A marker in a double-quoted name is
// part of a name and is left for the caller to refuse.
func (syntax) PlaceRequestValues(text string, value func(i int) (policy.RequestValue, error)) (string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return "", err
	}
	holder := &pg.ResTarget{Val: e}
	err = walk(holder, func(m proto.Message, w *pg.Node) (bool, error) {
		switch n := m.(type) {
		case *pg.ColumnRef:
			names, star, ok := colFields(n)
			if !ok || star || len(names) != 2 {
				return false, nil
			}
			i, isMarker := policy.RequestValueColumn(names[0], names[1])
			if !isMarker {
				return false, nil
			}
			if w == nil {
				return false, rewriter.Unsupported("a request value sits where no value may")
			}
			c, err := valueConsts.Of(value, i)
			if err != nil {
				return false, err
			}
			w.Node = c.Node
			return false, nil
		case *pg.A_Const:
			sv, isString := n.Val.(*pg.A_Const_Sval)
			if !isString || sv.Sval == nil {
				return false, nil
			}
			s, err := rewriter.RequestValuesInString(sv.Sval.Sval, value)
			if err != nil {
				return false, err
			}
			if s != sv.Sval.Sval {
				n.Val = &pg.A_Const_Sval{Sval: &pg.String{Sval: s}}
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return deparseExpr(holder.Val)
}

// valueConsts are the constant nodes of request values in a column
// reference's place; a plain decimal number is read by the parser as the
// number it is.
var valueConsts = rewriter.ValueLiterals[*pg.Node]{
	Null:   func() *pg.Node { return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}} },
	Number: parseExpr,
	String: stringConst,
}
