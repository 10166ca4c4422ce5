package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/rewriter"
)

// TranslateHive implements rewriter.HiveSyntax: text is read by the
// dialect's expression parser and each function call of its tree is what
// rewriter.HiveCall says (a name in a string constant or a comment is no
// call; a double-quoted name is the call's name, compared without case).
// A call renamed to current_user prints as "current_user"(), the call
// the dialect's rewrite inlines as the caller's name.
func (syntax) TranslateHive(text string) (string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return "", err
	}
	holder := &pg.ResTarget{Val: e}
	err = walk(holder, func(m proto.Message, _ *pg.Node) (bool, error) {
		fc, ok := m.(*pg.FuncCall)
		if !ok {
			return true, nil
		}
		name, schema := funcName(fc)
		if name == "" {
			return false, rewriter.Unsupported("unexpected function name")
		}
		args := len(fc.Args)
		if fc.AggStar || fc.AggDistinct || fc.FuncVariadic || fc.Over != nil || fc.AggFilter != nil ||
			len(fc.AggOrder) > 0 || fc.AggWithinGroup {
			args++ // decorated beyond its arguments
		}
		to, err := rewriter.HiveCall(name, schema != "", args)
		if err != nil {
			return false, err
		}
		if to != "" {
			fc.Funcname = []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: to}}}}
		}
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return deparseExpr(holder.Val)
}
