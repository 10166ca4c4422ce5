package mysql

import (
	"strconv"
	"sync/atomic"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// Masks rewritten once.
//
// A masked column a statement reads is replaced by its mask (see
// maskedTargetColumn): the mask's SQL, parsed (from a cache, deep-copied),
// rewritten by the policy rewrite (policyExprs: columns qualified by the
// table, context functions inlined, subqueries rewritten for the caller),
// and guarded by the table's filter. For most masks the policy rewrite can
// do one thing only, qualify their columns, and then its result depends
// on nothing but the mask's SQL and the qualifier: a mask built of nothing
// but the nodes frozenableMask lists (the built-in masks are) is rewritten
// once, by the first statement that reads it (the policy rewrite's own
// result, not a second implementation of it), and later statements place
// that frozen tree, shared and never changed, instead of copying and
// walking their own. Its print is computed and checked once with it, and
// the spliced print (splice.go) puts that text where the tree stands as a
// select-list entry or as the result of a CASE's WHEN, without printing
// the mask again. A frozen mask guarded by a flattened read's filter and
// standing as a whole select-list entry is frozen once more with its guard
// (guardedFrozenMask), so that the print splices the entry whole instead
// of formatting the guard around the mask on every statement.

// frozenMasks keeps the frozen masks by qualifier and SQL, at most 1,024;
// when it is full it starts over.
var frozenMasks = rewriter.Bounded[frozenKey, *frozenMask]{Max: 1024}

// frozenMask is a mask as the policy rewrite leaves it.
type frozenMask struct {
	expr sqlparser.Expr
	// texts are the prints of expr and, for a mask of the form IFNULL(m,
	// c = c), of m (which guardMask places alone under the guard), each
	// checked as an entry is (selfContained); "" when it is printed in
	// place.
	texts map[sqlparser.Expr]frozenPrint
	// print is expr's print when it was frozen, for the tests' check that
	// no statement changed it.
	print string
}

// frozenPrint is the checked print of a frozen node, and a name for it
// that no other print of the process has.
type frozenPrint struct {
	text, id string
}

// frozenPrints numbers the frozen prints.
var frozenPrints atomic.Uint64

func newFrozenPrint(text string) frozenPrint {
	return frozenPrint{text: text, id: strconv.FormatUint(frozenPrints.Add(1), 36)}
}

// frozenKey is a mask's SQL and the qualifier of the table it reads.
type frozenKey struct {
	qualifier sqlparser.TableName
	text      string
}

// guardedMasks keeps the frozen guarded masks of flattened reads by the
// guard's print and the frozen mask, at most 1,024; when it is full it
// starts over.
var guardedMasks = rewriter.Bounded[guardedKey, *frozenMask]{Max: 1024}

// guardedKey is a guard's print and the frozen mask it guards.
type guardedKey struct {
	guard string
	mask  *frozenMask
}

// guardedFrozenMask is fm guarded by ref's guard (guardMask), frozen and
// shared by every statement whose guard prints the same: placed as a whole
// select-list entry, its checked print is spliced there, where the mask
// guarded in place would make the print format the guard around it on
// every statement. nil when the guard does not print or the guarded mask
// has no checked print (the caller guards fm in place).
func guardedFrozenMask(ref *tableRef, fm *frozenMask) *frozenMask {
	if !ref.guardPrinted {
		ref.guardPrinted = true
		if text, err := format(ref.guard, false); err == nil {
			ref.guardText = text
		}
	}
	if ref.guardText == "" {
		return nil
	}
	key := guardedKey{guard: ref.guardText, mask: fm}
	if g, ok := guardedMasks.Get(key); ok {
		return g
	}
	g := newFrozenMask(guardMask(ref.guard, fm.expr))
	if g == nil || g.texts[g.expr].text == "" {
		g = nil
	}
	return guardedMasks.Put(key, g)
}

// frozenMaskOf returns the frozen mask of key, or nil.
func frozenMaskOf(key frozenKey) *frozenMask {
	fm, _ := frozenMasks.Get(key)
	return fm
}

// freezeMask keeps a copy of e, a mask as the policy rewrite left it, under
// key.
func freezeMask(key frozenKey, e sqlparser.Expr) {
	fm := newFrozenMask(e)
	if fm == nil {
		return
	}
	frozenMasks.Put(key, fm)
}

// newFrozenMask is a frozen copy of e, a mask as the policy rewrite left
// it, with its prints; nil if it does not print.
func newFrozenMask(e sqlparser.Expr) *frozenMask {
	e = deepClone(e)
	fm := &frozenMask{expr: e, texts: map[sqlparser.Expr]frozenPrint{}}
	text, err := format(e, false)
	if err != nil {
		return nil
	}
	fm.print = text
	switch e.(type) {
	case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.NullVal:
		// Printed in place: a placeholder would cost more.
	default:
		if selfContained(text) {
			fm.texts[e] = newFrozenPrint(text)
		}
	}
	if m, _, ok := nullableAsColumn(e); ok {
		if mt, err := format(m, false); err == nil && selfContained(mt) {
			fm.texts[m] = newFrozenPrint(mt)
		}
	}
	return fm
}

// frozenableMask reports whether e, a mask's SQL as parsed, is one the
// policy rewrite leaves as it is but for qualifying its columns: it holds
// only the nodes below (no subquery, no variable, no placeholder), and
// calls no function the rewrite inlines or refuses.
func frozenableMask(e sqlparser.Expr) bool {
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch f := n.(type) {
		case *sqlparser.ColName:
			return false, nil
		case *sqlparser.FuncExpr:
			name := f.Name.Lowered()
			_, bad := forbiddenFunctions[name]
			_, context := rewriter.ContextFunctions[name]
			if bad || context || !f.Qualifier.IsEmpty() || sessionFunction(name) {
				ok = false
				return false, nil
			}
			return true, nil
		case *sqlparser.BinaryExpr, *sqlparser.CaseExpr, *sqlparser.When, *sqlparser.CastExpr, *sqlparser.CharExpr,
			*sqlparser.CollateExpr, *sqlparser.ComparisonExpr, *sqlparser.ConvertType, *sqlparser.ConvertUsingExpr,
			*sqlparser.ConvertExpr, *sqlparser.IsExpr, *sqlparser.Literal, *sqlparser.NullVal, sqlparser.BoolVal,
			*sqlparser.RegexpReplaceExpr, *sqlparser.UnaryExpr, *sqlparser.AndExpr, *sqlparser.OrExpr,
			*sqlparser.NotExpr, *sqlparser.IntroducerExpr, sqlparser.IdentifierCI, sqlparser.IdentifierCS, sqlparser.ValTuple,
			*sqlparser.IntervalDateExpr, *sqlparser.SubstrExpr:
			return true, nil
		}
		ok = false
		return false, nil
	}, e)
	return ok
}

// sessionFunction reports the functions the rewrite answers from the
// caller's session (inSession).
func sessionFunction(name string) bool {
	switch name {
	case "is_role_in_session", "is_group_in_session", "session_attribute":
		return true
	}
	return false
}

// frozenUse records that the statement placed fm: its texts splice.
func (r *rewrite) frozenUse(fm *frozenMask) {
	if r.frozen == nil {
		r.frozen = map[sqlparser.Expr]frozenPrint{}
	}
	// The mask itself is marked even without a print, so that the
	// spliced print never walks into the shared tree.
	r.frozen[fm.expr] = frozenPrint{}
	for n, text := range fm.texts {
		r.frozen[n] = text
	}
	if spliceCrossCheck {
		r.frozenPlaced = append(r.frozenPlaced, fm)
	}
}

// frozenChanged reports whether a statement changed a frozen mask it
// placed (the tests' check).
func frozenChanged(placed []*frozenMask) bool {
	for _, fm := range placed {
		if text, err := format(fm.expr, false); err != nil || text != fm.print {
			return true
		}
	}
	return false
}
