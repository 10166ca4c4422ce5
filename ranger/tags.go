package ranger

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// tagIndex finds the tags of a requested resource (Ranger's RangerTagEnricher).
type tagIndex struct {
	sd          *svcDef
	resources   []*taggedResource
	all         []*Tag
	byDB        map[string][]*taggedResource // literal lower-cased database -> resources
	wildDB      []*taggedResource            // database pattern, excluded or absent
	version     int64
	validity    map[*Tag][]*validityEval // the tags' validity periods, evaluated once
	timed       bool                     // some tag has a validity period: decisions depend on the time
	transitions []time.Time              // instants at which tags' validity periods change
}

type taggedResource struct {
	sr      *ServiceResource
	m       *polResMatcher
	tags    []*Tag
	columns []string // literal column values, lower-cased (for column-aware decisions)
	colWild bool     // a column value that is a pattern or excluded
}

func newTagIndex(sd *svcDef, st *ServiceTags) *tagIndex {
	ix := &tagIndex{sd: sd, byDB: map[string][]*taggedResource{}, validity: map[*Tag][]*validityEval{}, version: version(st.TagVersion)}
	ids := sortedKeys(st.Tags)
	sort.SliceStable(ids, func(i, j int) bool { return numLess(ids[i], ids[j]) })
	for _, id := range ids {
		if t := st.Tags[id]; t != nil {
			ix.all = append(ix.all, t)
			if vs := tagValidity(t); len(vs) > 0 {
				ix.validity[t] = vs
				ix.timed = true
				for _, v := range vs {
					ix.transitions = append(ix.transitions, v.transitions()...)
				}
			}
		}
	}
	for _, sr := range st.ServiceResources {
		if sr == nil || len(sr.ResourceElements) == 0 {
			continue
		}
		keys := sortedKeys(sr.ResourceElements)
		var m *polResMatcher
		for _, pt := range []int{PolicyTypeAccess, PolicyTypeDataMask, PolicyTypeRowFilter} {
			if len(sd.hierarchiesWith(pt, keys)) > 0 {
				m = newPolResMatcher(sd, sr.ResourceElements, pt)
				break
			}
		}
		if m == nil {
			continue
		}
		tr := &taggedResource{sr: sr, m: m}
		for _, tid := range st.ResourceToTagIDs[strconv.FormatInt(int64(sr.ID), 10)] {
			if t := st.Tags[strconv.FormatInt(int64(tid), 10)]; t != nil {
				tr.tags = append(tr.tags, t)
			}
		}
		if col := sr.ResourceElements["column"]; col != nil {
			if col.IsExcludes {
				tr.colWild = true
			}
			for _, v := range col.Values {
				if isLiteral(v) {
					tr.columns = append(tr.columns, lower(v))
				} else {
					tr.colWild = true
				}
			}
		}
		ix.resources = append(ix.resources, tr)
		db := sr.ResourceElements["database"]
		if db != nil && !bool(db.IsExcludes) && len(db.Values) > 0 && allLiteral(db.Values) {
			for _, v := range db.Values {
				k := lower(v)
				ix.byDB[k] = append(ix.byDB[k], tr)
			}
		} else {
			ix.wildDB = append(ix.wildDB, tr)
		}
	}
	return ix
}

func numLess(a, b string) bool {
	x, e1 := strconv.ParseInt(a, 10, 64)
	y, e2 := strconv.ParseInt(b, 10, 64)
	if e1 == nil && e2 == nil {
		return x < y
	}
	return a < b
}

func newTagForEval(t *Tag, mt matchType) *tagForEval { return tagForEvalOf(t, mt, tagValidity(t)) }

func tagForEvalOf(t *Tag, mt matchType, validity []*validityEval) *tagForEval {
	te := &tagForEval{Type: t.Type, Attributes: t.Attributes, Options: t.Options, MatchType: mt, validity: validity}
	if te.Attributes == nil {
		te.Attributes = map[string]string{}
	}
	return te
}

// tagValidity evaluates a tag's validity periods, or those of its
// TAG_VALIDITY_PERIODS option when it has none.
func tagValidity(t *Tag) []*validityEval {
	var out []*validityEval
	for _, v := range t.ValidityPeriods {
		if v != nil {
			out = append(out, newValidityEval(v))
		}
	}
	if len(out) == 0 && t.Options != nil {
		if s, ok := t.Options["TAG_VALIDITY_PERIODS"].(string); ok {
			var vs []*ValiditySchedule
			if json.Unmarshal([]byte(s), &vs) == nil {
				for _, v := range vs {
					if v != nil {
						out = append(out, newValidityEval(v))
					}
				}
			}
		}
	}
	return out
}

// candidates returns the tagged resources that may match the request.
func (ix *tagIndex) candidates(r *request) []*taggedResource {
	v, ok := r.res.get("database")
	s, isStr := v.(string)
	if !ok || !isStr || s == "" || s == "*" {
		return ix.resources
	}
	exact := ix.byDB[lower(s)]
	if len(exact) == 0 {
		return ix.wildDB
	}
	out := make([]*taggedResource, 0, len(exact)+len(ix.wildDB))
	out = append(out, exact...)
	return append(out, ix.wildDB...)
}

// find returns the tags of the request's resource, deduplicated as
// Ranger's set of RangerTagForEval is.
func (ix *tagIndex) find(r *request) []*tagForEval {
	seen := map[string]bool{}
	var out []*tagForEval
	add := func(t *Tag, mt matchType) {
		te := tagForEvalOf(t, mt, ix.validity[t])
		if k := te.key(); !seen[k] {
			seen[k] = true
			out = append(out, te)
		}
	}
	if (r.res == nil || len(r.res.keys()) == 0) && r.isAccessTypeAny() {
		for _, t := range ix.all {
			add(t, mtDescendant)
		}
		return out
	}
	c := r.evalCtx()
	for _, tr := range ix.candidates(r) {
		mt := tr.m.matchType(r.res, r.elemScopes, c)
		var matched bool
		if r.isAccessTypeAny() || r.scope == reqSelfOrDescendants {
			matched = mt != mtNone
		} else {
			matched = mt == mtSelf || mt == mtSelfAndAllDescendants || mt == mtAncestor
		}
		if matched {
			for _, t := range tr.tags {
				add(t, mt)
			}
		}
	}
	return out
}

// tableTags returns the tags Ranger's tag download gives the columns of
// schema.table: lower-cased column to tag types, "*" for tags on the table
// itself (or its database). Only resources that name the database, the
// table and the columns literally are listed: a pattern or an exclusion
// cannot be answered per column name (Ranger's own tag policies still
// match them, through the engine).
func (ix *tagIndex) tableTags(schema, table string) map[string][]string {
	if ix == nil {
		return nil
	}
	var out map[string][]string
	add := func(col string, tags []*Tag) {
		for _, t := range tags {
			if t == nil || t.Type == "" {
				continue
			}
			typ := strings.ToUpper(t.Type)
			if out == nil {
				out = map[string][]string{}
			}
			if !slices.Contains(out[col], typ) {
				out[col] = append(out[col], typ)
			}
		}
	}
	for _, tr := range ix.byDB[lower(schema)] {
		tb := tr.sr.ResourceElements["table"]
		if tb == nil {
			if tr.sr.ResourceElements["column"] == nil {
				add("*", tr.tags) // a tagged database
			}
			continue
		}
		if bool(tb.IsExcludes) || !allLiteral(tb.Values) || !slices.ContainsFunc(tb.Values, func(v string) bool { return strings.EqualFold(v, table) }) {
			continue
		}
		if tr.sr.ResourceElements["column"] == nil {
			add("*", tr.tags)
			continue
		}
		if tr.colWild {
			continue
		}
		for _, c := range tr.columns {
			add(c, tr.tags)
		}
	}
	return out
}
