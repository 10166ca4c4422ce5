package ranger

import (
	"slices"
	"strings"
)

func lower(s string) string { return strings.ToLower(s) }

// isLiteral reports whether a resource value matches only itself: no
// wildcard, token or request expression.
func isLiteral(v string) bool {
	return v != "" && !strings.ContainsAny(v, "*?{}$\\")
}

func allLiteral(vs []string) bool {
	for _, v := range vs {
		if !isLiteral(v) {
			return false
		}
	}
	return true
}

// strSet is an immutable set of strings, compact for the few members
// policy items usually name: a sorted slice, with a map beside it when
// large.
type strSet struct {
	l []string
	m map[string]struct{}
}

const strSetMapMin = 12

func newStrSet(lists ...[]string) strSet {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return strSet{}
	}
	all := make([]string, 0, n)
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	all = slices.Clip(slices.Compact(all))
	s := strSet{l: all}
	if len(all) >= strSetMapMin {
		s.m = make(map[string]struct{}, len(all))
		for _, x := range all {
			s.m[x] = struct{}{}
		}
	}
	return s
}

func (s strSet) has(k string) bool {
	if s.m != nil {
		_, ok := s.m[k]
		return ok
	}
	for _, x := range s.l {
		if x == k {
			return true
		}
	}
	return false
}

func (s strSet) len() int { return len(s.l) }

// list returns the members, sorted (shared; do not modify).
func (s strSet) list() []string { return s.l }

// setKeys returns the keys of m whose value is true.
func setKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	return out
}

// intersects reports whether a member of s is a true key of m.
func (s strSet) intersects(m map[string]bool) bool {
	if len(s.l) == 0 || len(m) == 0 {
		return false
	}
	if len(s.l) <= len(m) {
		for _, x := range s.l {
			if m[x] {
				return true
			}
		}
		return false
	}
	for k, v := range m {
		if v && s.has(k) {
			return true
		}
	}
	return false
}
