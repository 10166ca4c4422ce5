package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// keepGuardedTypes gives each guarded mask of a read form, CASE WHEN
// filter THEN mask END (rewriter.TablePlan.DerivedSelect), an ELSE that
// is a NULL of the mask's declared type. With no ELSE the CASE has the
// type without its modifier (character varying, not character
// varying(20); numeric, not numeric(10,2)), and the result column would
// report another length or precision than the column's. The value is the
// same: NULL where the filter does not hold. A guarded NULL (MASK_NULL)
// is that NULL alone: it reads nothing of the row.
func keepGuardedTypes(sel *pg.SelectStmt) {
	if sel == nil {
		return
	}
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		c := rt.GetVal().GetCaseExpr()
		if c == nil || c.Arg != nil || c.Defresult != nil || len(c.Args) != 1 {
			continue
		}
		w := c.Args[0].GetCaseWhen()
		if w == nil {
			continue
		}
		if isTypedNull(w.Result) {
			rt.Val = w.Result
			continue
		}
		c.Defresult = typedNull(w.Result)
	}
}

// isTypedNull reports whether e is CAST(NULL AS t), with or without a
// COLLATE clause.
func isTypedNull(e *pg.Node) bool {
	if cc := e.GetCollateClause(); cc != nil {
		e = cc.Arg
	}
	tc := e.GetTypeCast()
	return tc != nil && tc.Arg.GetAConst().GetIsnull()
}

// typedNull is a NULL of e's declared type when e declares one, CAST(x AS
// t) or that with a COLLATE clause: CAST(NULL AS t) [COLLATE c]. nil
// otherwise.
func typedNull(e *pg.Node) *pg.Node {
	if cc := e.GetCollateClause(); cc != nil {
		inner := typedNull(cc.Arg)
		if inner == nil {
			return nil
		}
		names := make([]*pg.Node, len(cc.Collname))
		for i, n := range cc.Collname {
			names[i] = proto.Clone(n).(*pg.Node)
		}
		return &pg.Node{Node: &pg.Node_CollateClause{CollateClause: &pg.CollateClause{Arg: inner, Collname: names}}}
	}
	tc := e.GetTypeCast()
	if tc == nil || tc.TypeName == nil {
		return nil
	}
	return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{
		Arg:      &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}},
		TypeName: proto.Clone(tc.TypeName).(*pg.TypeName),
	}}}
}
