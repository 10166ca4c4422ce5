package postgres

import (
	"strings"
	"sync/atomic"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// A table's read form (TablePlan.DerivedSelect) is the same text for every
// statement that misses the rewrite cache until its policy or columns
// change: SELECT <targets> FROM schema.table [WHERE filter]. It is parsed
// once; each rewrite takes its own copy and rewrites the policy's
// expressions in it (policyExprs: columns qualified by the table, context
// functions inlined, subqueries rewritten for the caller).
//
// Most targets are the policy's masks, dozens of nodes each, and for most
// of them that rewrite can do one thing only: qualify their columns by
// the table. A target built of nothing but constants, casts, operators,
// CASE, COLLATE, COALESCE, NULL tests, calls of functions that are neither
// context functions nor forbidden, and unqualified column names
// (frozenable) is rewritten to the same tree for every caller, given that
// each column it names is a column of the table, which each rewrite still
// checks. Such a target is rewritten once, by the first rewrite that reads
// the form (the policy rewrite's own result, not a second implementation
// of it), and later rewrites place that frozen tree, shared and never
// changed, instead of copying and walking their own; its text for the
// spliced print (splice.go) is computed once with it. Every other target,
// and the filter, is copied and rewritten per statement as before.

// readFormCache keeps the parsed read forms by text, at most 1,024 (a
// policy set has far fewer tables); when it is full it starts over.
var readFormCache = rewriter.Bounded[string, *readForm]{Max: 1024}

// readForm is one read form as parsed.
type readForm struct {
	// sel is the parsed select without its targets; targets are its
	// targets. Neither is handed out or changed.
	sel     *pg.SelectStmt
	targets []*pg.Node
	// columns are, per target, the names of the columns a frozenable
	// target reads (nil: the target is rewritten per statement).
	columns [][]string
	// frozen are the frozen targets by index, set once by the first
	// rewrite of the form (nil entries: rewritten per statement).
	frozen atomic.Pointer[[]*frozenTarget]
	// id tells this form from every other the process parsed (a key of
	// the printed selects of its instances, splice.go).
	id uint64
}

// readFormIDs numbers the parsed read forms.
var readFormIDs atomic.Uint64

// frozenTarget is a read-form target's expression as the policy rewrite
// leaves it, shared by every statement that places the form.
type frozenTarget struct {
	val *pg.Node
	// text is the target's text for the spliced print (textOfTarget; ""
	// when it is printed in place).
	text string
	// encoding is val's encoding when it was frozen under the tests'
	// cross-check, which checks that no rewrite changed it.
	encoding string
}

// placedForm is a read form a rewrite placed: its select and, by target
// index, the frozen targets it shares (nil when it walked its own), and
// the FROM item that holds it (nil until tableRef places it).
type placedForm struct {
	form   *readForm
	sel    *pg.SelectStmt
	frozen []*frozenTarget
	from   *pg.Node
}

// readFormOf returns the parsed read form of text: a plain select of one
// table with no other clause than WHERE.
func readFormOf(text string) (*readForm, bool) {
	if f, ok := readFormCache.Get(text); ok {
		return f, true
	}
	tree, err := parse(text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, false
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.FromClause) != 1 ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil ||
		len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.DistinctClause) > 0 ||
		len(sel.WindowClause) > 0 || len(sel.LockingClause) > 0 || sel.IntoClause != nil || len(sel.ValuesLists) > 0 {
		return nil, false
	}
	base := sel.FromClause[0].GetRangeVar()
	if base == nil || base.Alias != nil || base.Catalogname != "" {
		return nil, false
	}
	keepGuardedTypes(sel)
	f := &readForm{sel: sel, targets: sel.TargetList, columns: make([][]string, len(sel.TargetList)), id: readFormIDs.Add(1)}
	sel.TargetList = nil
	for i, t := range f.targets {
		f.columns[i] = frozenableColumns(t, base.Schemaname, base.Relname)
	}
	return readFormCache.Put(text, f), true
}

// instance returns a select of the form the caller owns, and the frozen
// targets placed in it (nil before the form's first rewrite).
func (f *readForm) instance() (*pg.SelectStmt, []*frozenTarget) {
	sel := copySelectStmt(f.sel)
	var frozen []*frozenTarget
	if p := f.frozen.Load(); p != nil {
		frozen = *p
	}
	sel.TargetList = make([]*pg.Node, len(f.targets))
	for i, t := range f.targets {
		if frozen != nil && frozen[i] != nil {
			rt := t.GetResTarget()
			sel.TargetList[i] = &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{
				Name: rt.Name, Val: frozen[i].val, Location: rt.Location}}}
			continue
		}
		sel.TargetList[i] = copyNode(t)
	}
	return sel, frozen
}

// freeze keeps the frozenable targets of sel, an instance the policy
// rewrite walked whole, for the form's later instances.
func (f *readForm) freeze(sel *pg.SelectStmt) {
	if f.frozen.Load() != nil || len(sel.TargetList) != len(f.targets) {
		return
	}
	frozen := make([]*frozenTarget, len(f.targets))
	for i, cols := range f.columns {
		if cols == nil {
			continue
		}
		val := copyNode(sel.TargetList[i].GetResTarget().GetVal())
		ft := &frozenTarget{val: val, text: textOfTarget(val)}
		if spliceCrossCheck {
			ft.encoding = encodingOf(val)
		}
		frozen[i] = ft
	}
	f.frozen.CompareAndSwap(nil, &frozen)
}

// encodingOf is n's encoding inside a one-target select ("" if it has
// none).
func encodingOf(n *pg.Node) string {
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}}
	encoded, err := marshalParseResult(&pg.ParseResult{Version: treeVersion(),
		Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}})
	if err != nil {
		return ""
	}
	return string(encoded)
}

// frozenableColumns returns the columns a read-form target of the table
// schema.table names when the target is frozenable (a named target
// without indirection whose expression holds only the nodes below, array
// subscripts included), and nil when it is not. Those are the nodes the policy rewrite leaves as
// they are in a policy expression, except a column named alone or as
// schema.table.column, which it qualifies by the table after checking
// that the table has it (policyColumn).
func frozenableColumns(t *pg.Node, schema, table string) []string {
	rt := t.GetResTarget()
	if rt == nil || rt.Name == "" || len(rt.Indirection) > 0 || rt.Val == nil {
		return nil
	}
	cols := []string{}
	ok := true
	_ = walk(rt.Val, func(m protoMessage, _ *pg.Node) (bool, error) {
		switch e := m.(type) {
		case *pg.A_Const, *pg.Integer, *pg.Float, *pg.Boolean, *pg.String, *pg.BitString,
			*pg.TypeCast, *pg.TypeName, *pg.CaseExpr, *pg.CaseWhen, *pg.A_Expr, *pg.BoolExpr,
			*pg.NullTest, *pg.CollateClause, *pg.CoalesceExpr, *pg.MinMaxExpr, *pg.List, *pg.A_Indices:
			return true, nil
		case *pg.A_Indirection:
			// A subscript of a value (an integer mask's lookup), not a
			// field of a row.
			for _, ind := range e.Indirection {
				if ind.GetAIndices() == nil {
					ok = false
					return false, nil
				}
			}
			return true, nil
		case *pg.FuncCall:
			name, in := funcName(e)
			if _, bad := forbidden(name); name == "" || bad || isSessionRoleFunction(name) ||
				(in != "" && in != "pg_catalog") {
				ok = false
				return false, nil
			}
			if _, context := contextFunctions[strings.ToLower(name)]; context || e.Over != nil ||
				e.AggFilter != nil || len(e.AggOrder) > 0 || e.AggStar || e.AggDistinct {
				ok = false
				return false, nil
			}
			return true, nil
		case *pg.ColumnRef:
			names, star, fine := colFields(e)
			if len(names) == 3 && names[0] == schema && names[1] == table {
				names = names[2:]
			}
			if !fine || star || len(names) != 1 {
				ok = false
				return false, nil
			}
			cols = append(cols, names[0])
			return false, nil
		}
		ok = false
		return false, nil
	})
	if !ok {
		return nil
	}
	return cols
}

// unknownPolicyColumn is the refusal of a policy expression that names a
// column its table does not have.
func unknownPolicyColumn(base *tableRef) error {
	return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: base.table.String(),
		Detail: "a policy expression names a column or table it does not read"}
}

// frozenChanged reports whether a rewrite changed a frozen target (the
// tests' cross-check).
func frozenChanged(forms []placedForm) bool {
	for _, pf := range forms {
		for _, ft := range pf.frozen {
			if ft != nil && ft.encoding != "" && encodingOf(ft.val) != ft.encoding {
				return true
			}
		}
	}
	return false
}
