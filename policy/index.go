package policy

import (
	"math/bits"
	"slices"
	"strings"
)

// probeIndex maps (principal, resource) to the principal's entry for the
// resource: every principal's index, stored in one open-addressing table
// so that a probe is one hash and, almost always, one or two slots, whatever
// the number of policies. It holds no pointers the garbage collector must
// scan.
type probeIndex struct {
	keys  []uint64
	vals  []int32 // entry index + 1; 0 marks an empty slot
	shift uint8
}

func probeKey(pid, rid int32) uint64 { return uint64(uint32(pid))<<32 | uint64(uint32(rid)) }

// slot returns the home slot of k (Fibonacci hashing over a mixed key).
func (h *probeIndex) slot(k uint64) uint64 {
	k ^= k >> 29
	return (k * 0x9E3779B97F4A7C15) >> h.shift
}

func newProbeIndex(n int) probeIndex {
	// Load factor at most 2/3.
	size := 8
	for size*2 < n*3 {
		size <<= 1
	}
	return probeIndex{
		keys:  make([]uint64, size),
		vals:  make([]int32, size),
		shift: uint8(64 - bits.TrailingZeros(uint(size))),
	}
}

func (h *probeIndex) put(pid, rid, e int32) {
	k := probeKey(pid, rid)
	mask := uint64(len(h.keys) - 1)
	for i := h.slot(k); ; i = (i + 1) & mask {
		if h.vals[i] == 0 {
			h.keys[i], h.vals[i] = k, e+1
			return
		}
	}
}

func (h *probeIndex) get(pid, rid int32) (int32, bool) {
	if len(h.keys) == 0 {
		return 0, false
	}
	k := probeKey(pid, rid)
	mask := uint64(len(h.keys) - 1)
	for i := h.slot(k); ; i = (i + 1) & mask {
		v := h.vals[i]
		if v == 0 {
			return 0, false
		}
		if h.keys[i] == k {
			return v - 1, true
		}
	}
}

// wildIndex finds the wildcard table entries that match a table without
// looking at unrelated ones. Patterns whose schema part is literal are
// filed under that schema; the others in anySchema. Within each, a pattern
// is filed by the table part's literal text: the whole part when it has no
// wildcard, else its longer literal anchor (the prefix before the first
// wildcard or the suffix after the last), else (no literal text at all,
// e.g. "*") in a short list of catch-alls. A lookup then probes one map per
// distinct anchor length and checks only the patterns whose anchor the
// table's name carries.
type wildIndex struct {
	pats      []wildPat
	bySchema  map[string]*anchorIndex
	anySchema *anchorIndex
}

type wildPat struct {
	schema, table glob
	schemaWild    bool
	rid           int32
}

type anchorIndex struct {
	exact      map[string][]int32
	prefix     map[string][]int32
	suffix     map[string][]int32
	prefixLens []int // distinct, ascending
	suffixLens []int
	any        []int32
}

func (w *wildIndex) add(schema, table string, rid int32) {
	p := int32(len(w.pats))
	sw := strings.ContainsAny(schema, "*?")
	w.pats = append(w.pats, wildPat{schema: glob(schema), table: glob(table), schemaWild: sw, rid: rid})
	var a *anchorIndex
	if sw {
		if w.anySchema == nil {
			w.anySchema = &anchorIndex{}
		}
		a = w.anySchema
	} else {
		if w.bySchema == nil {
			w.bySchema = map[string]*anchorIndex{}
		}
		if a = w.bySchema[schema]; a == nil {
			a = &anchorIndex{}
			w.bySchema[schema] = a
		}
	}
	a.add(table, p)
}

func addTo(m *map[string][]int32, k string, p int32) {
	if *m == nil {
		*m = map[string][]int32{}
	}
	(*m)[k] = append((*m)[k], p)
}

func addLen(lens []int, n int) []int {
	if i, found := slices.BinarySearch(lens, n); !found {
		lens = slices.Insert(lens, i, n)
	}
	return lens
}

func (a *anchorIndex) add(table string, p int32) {
	first := strings.IndexAny(table, "*?")
	if first < 0 {
		addTo(&a.exact, table, p)
		return
	}
	last := strings.LastIndexAny(table, "*?")
	prefix, suffix := table[:first], table[last+1:]
	switch {
	case prefix != "" && len(prefix) >= len(suffix):
		addTo(&a.prefix, prefix, p)
		a.prefixLens = addLen(a.prefixLens, len(prefix))
	case suffix != "":
		addTo(&a.suffix, suffix, p)
		a.suffixLens = addLen(a.suffixLens, len(suffix))
	default:
		a.any = append(a.any, p)
	}
}

// candidates calls fn for every pattern whose anchor table carries.
func (a *anchorIndex) candidates(table string, fn func(int32)) {
	if a == nil {
		return
	}
	for _, p := range a.exact[table] {
		fn(p)
	}
	for _, n := range a.prefixLens {
		if n > len(table) {
			break
		}
		for _, p := range a.prefix[table[:n]] {
			fn(p)
		}
	}
	for _, n := range a.suffixLens {
		if n > len(table) {
			break
		}
		for _, p := range a.suffix[table[len(table)-n:]] {
			fn(p)
		}
	}
	for _, p := range a.any {
		fn(p)
	}
}

// match appends the resources of the patterns that match k; examined, when
// not nil, counts the patterns looked at.
func (w *wildIndex) match(k tkey, out []int32, examined *int) []int32 {
	if len(w.pats) == 0 {
		return out
	}
	check := func(p int32) {
		if examined != nil {
			*examined++
		}
		wp := &w.pats[p]
		if wp.table.match(k.table) && (!wp.schemaWild || wp.schema.match(k.schema)) {
			out = append(out, wp.rid)
		}
	}
	if w.bySchema != nil {
		w.bySchema[k.schema].candidates(k.table, check)
	}
	w.anySchema.candidates(k.table, check)
	return out
}
