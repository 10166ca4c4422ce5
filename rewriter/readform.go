package rewriter

import "strings"

// The read form's decisions. A row-filtered table is read through its
// derived table; whether the server may merge that derived table into the
// statement (and test the statement's conditions, or compute a mask, on a
// row the filter rejects) is decided here, from the dialect's answers to
// syntax questions: can an expression of the statement fail on a row's
// values (SetConditions' mergeable), which columns do its conditions read
// (ConditionColumns), is a filter a plain conjunction of comparisons. A
// write keeps its target; whether its own condition must be guarded by the
// target's filter is decided here too (NeedsGuard).

// ConditionColumns are the columns a statement (or a write's condition)
// may read outside its select list, by name, whatever their qualifier: a
// column of any table of the statement that shares its name with a masked
// column counts as that column.
type ConditionColumns struct {
	names map[string]bool
	// All: the set cannot be told (a NATURAL join, a whole-row reference,
	// a star, a position or output name naming an expression).
	All bool
	// OuterJoin: the statement has an outer join (see NeedsFence).
	OuterJoin bool
}

// Add records a column the conditions read.
func (cc *ConditionColumns) Add(name string) {
	if cc.names == nil {
		cc.names = map[string]bool{}
	}
	cc.names[strings.ToLower(name)] = true
}

// Reads reports whether the set may hold the column.
func (cc *ConditionColumns) Reads(name string) bool {
	return cc.All || cc.names[strings.ToLower(name)]
}

// readsAny reports whether the set may hold a column at all.
func (cc *ConditionColumns) readsAny() bool { return cc.All || len(cc.names) > 0 }

// readsMask reports whether conditions reading cc may evaluate one of the
// plan's mask expressions. Tag masks the plan has not resolved to columns
// make every column count as masked.
func (cc *ConditionColumns) readsMask(plan *TablePlan) bool {
	d := plan.Decision
	if len(d.TagMasks) > 0 {
		return cc.readsAny()
	}
	for name := range d.Masks {
		if _, masked := plan.Mask(name); masked && cc.Reads(name) {
			return true
		}
	}
	return false
}

// hasMasks reports whether the plan masks any column (MASK_NONE places no
// expression and counts as none).
func (p *TablePlan) hasMasks() bool {
	d := p.Decision
	if len(d.TagMasks) > 0 {
		return true
	}
	for name := range d.Masks {
		if _, masked := p.Mask(name); masked {
			return true
		}
	}
	return false
}

// SetConditions records the statement's answers, taken on the statement as
// the application wrote it: mergeable is true when no expression of it
// outside its select lists can fail on a row's values and its shape is one
// whose evaluation order sqe reasons about (a single query without
// subqueries); conds are then the columns its conditions read.
func (s *Statement[Ref]) SetConditions(mergeable bool, conds ConditionColumns) {
	s.mergeable, s.conds = mergeable, conds
}

// NeedsFence reports whether the derived table of a table read with plan
// must be fenced (computed on its own, before anything of the statement
// around it sees a row): it has a row filter, and the server may
// evaluate, on a row the filter rejects,
//
//   - an expression of the statement that can fail (it is not mergeable);
//   - in a policy's own expressions (inPolicy: a filter reading a mapping
//     table), any mask, or a filter that is not simple: the statement's
//     conditions say nothing about them;
//   - when the masks are not guarded (the filter is not simple, see
//     TablePlan.DerivedSelect), a mask expression of the table in a
//     condition (a masked column read outside the select list, also
//     through an output name or position: merged, it is the mask
//     expression evaluated wherever the condition is, hidden rows
//     included, and a CUSTOM mask can fail on a value), or any mask of
//     the table in a statement with an outer join (merged on the nullable
//     side, a mask that is not strict may be computed at the table's own
//     scan, before a filter turned into a join has rejected the row).
//
// filterSimple is the dialect's answer whether the table's filter is a
// conjunction of single comparisons of columns and constants; the
// dialect passes the same answer to DerivedSelect as guardMasks. A
// guarded mask is NULL on a row the filter rejects and is computed only
// on the rows it admits, so the statement stays flat: its conditions,
// joins, grouping and LIMIT are planned with the filter as the server
// plans its own row policies.
//
// Select-list expressions are computed only for the rows every condition
// admitted, so a mask read only there needs no fence either way.
func (s *Statement[Ref]) NeedsFence(plan *TablePlan, inPolicy, filterSimple bool) bool {
	if len(plan.Decision.RowFilters) == 0 {
		return false
	}
	if !s.mergeable {
		return true
	}
	if inPolicy {
		return plan.hasMasks() || !filterSimple
	}
	if filterSimple {
		return false
	}
	if s.conds.OuterJoin && plan.hasMasks() {
		return true
	}
	return s.conds.readsMask(plan)
}

// NeedsGuard reports whether a write's own condition must be guarded by
// its targets' row filters (CASE WHEN filters THEN condition ELSE false
// END), because the server may evaluate it on a row the filters hide: it
// is guarded unless the write has exactly one target with a filter that
// is a conjunction of simple comparisons (filterSimple), the condition
// cannot fail on a row's values (canFail, the dialect's answer with the
// target's column types) and it reads no masked column of the target
// (conds, read on the condition as the application wrote it).
func NeedsGuard(targets []*TablePlan, filterSimple, canFail bool, conds *ConditionColumns) bool {
	if len(targets) != 1 || !filterSimple || canFail {
		return true
	}
	return conds.readsMask(targets[0])
}

// ParseFilter is the plan's row filters, ANDed and canonicalised
// (FilterSQL), read by the dialect's expression parser; ok is false when
// the table has none.
func ParseFilter[E any](p *TablePlan, syn Syntax, parse func(string) (E, error)) (e E, ok bool, err error) {
	text, err := p.FilterSQL(syn)
	if err != nil || text == "" {
		return e, false, err
	}
	e, err = parse(text)
	if err != nil {
		return e, false, &Error{Kind: ErrUnsupported, Table: p.Table.String(), Detail: "row filter is not a single SQL expression"}
	}
	return e, true, nil
}

// HasChecks reports whether a row filter of the plan checks the rows a
// write puts in the table (policy.RowFilter.Check).
func (p *TablePlan) HasChecks() bool {
	for _, f := range p.Decision.RowFilters {
		if f.Check != "" {
			return true
		}
	}
	return false
}
