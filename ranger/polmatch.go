package ranger

import (
	"slices"
	"sort"
	"strings"
)

// matchType is Ranger's RangerPolicyResourceMatcher.MatchType.
type matchType int

const (
	mtNone matchType = iota
	mtSelf
	mtDescendant
	mtAncestor
	mtSelfAndAllDescendants
)

func (m matchType) String() string {
	switch m {
	case mtSelf:
		return "SELF"
	case mtDescendant:
		return "DESCENDANT"
	case mtAncestor:
		return "ANCESTOR"
	case mtSelfAndAllDescendants:
		return "SELF_AND_ALL_DESCENDANTS"
	}
	return "NONE"
}

func parseMatchType(s string) matchType {
	switch s {
	case "SELF":
		return mtSelf
	case "DESCENDANT":
		return mtDescendant
	case "ANCESTOR":
		return mtAncestor
	case "SELF_AND_ALL_DESCENDANTS":
		return mtSelfAndAllDescendants
	case "NONE":
		return mtNone
	}
	return mtSelf
}

// matchTypeRank orders match types as Ranger's MatchTypeComparator:
// SELF, SELF_AND_ALL_DESCENDANTS, ANCESTOR, DESCENDANT, NONE.
func matchTypeRank(m matchType) int {
	switch m {
	case mtSelf:
		return 0
	case mtSelfAndAllDescendants:
		return 1
	case mtAncestor:
		return 2
	case mtDescendant:
		return 3
	}
	return 4
}

// matchScope is Ranger's RangerPolicyResourceMatcher.MatchScope.
type matchScope int

const (
	msSelf matchScope = iota
	msSelfOrDescendant
	msSelfOrAncestor
	msDescendant
	msAncestor
	msAny
	msSelfAndAllDescendants
)

func scopeAccepts(s matchScope, m matchType) bool {
	switch s {
	case msSelf:
		return m == mtSelf || m == mtSelfAndAllDescendants
	case msAncestor:
		return m == mtAncestor
	case msDescendant:
		return m == mtDescendant
	case msSelfOrAncestor:
		return m == mtSelf || m == mtSelfAndAllDescendants || m == mtAncestor
	case msSelfOrDescendant:
		return m == mtSelf || m == mtSelfAndAllDescendants || m == mtDescendant
	}
	return m != mtNone
}

// accessResource is the resource of a request: element name to a string
// or []string value, and the resource owner.
type accessResource struct {
	elems map[string]any
	owner string

	ks   []string // the sorted names of the non-nil elements, once computed
	kstr string   // ks joined, a cache key
	ksOK bool
}

func (r *accessResource) keys() []string {
	if r == nil {
		return nil
	}
	if !r.ksOK {
		r.ks = r.ks[:0]
		for k, v := range r.elems {
			if v != nil {
				r.ks = append(r.ks, k)
			}
		}
		sort.Strings(r.ks)
		r.kstr = strings.Join(r.ks, "\x00")
		r.ksOK = true
	}
	return r.ks
}

// set changes one element.
func (r *accessResource) set(name string, v any) {
	r.elems[name] = v
	r.ksOK = false
}

func (r *accessResource) get(name string) (any, bool) {
	if r == nil {
		return nil, false
	}
	v, ok := r.elems[name]
	return v, ok && v != nil
}

// polResMatcher is RangerDefaultPolicyResourceMatcher: it matches a
// policy's resources against a request resource along the service-def's
// resource hierarchies.
type polResMatcher struct {
	sd        *svcDef
	ptype     int
	resources map[string]*PolicyResource
	matchers  elemMatchers // nil when init failed
	valid     []*resDef    // the unique valid hierarchy, if there is one
	dynamic   bool
	pkeys     []string  // the sorted names of the policy's resources
	pkeysHier []*resDef // shortestHierarchy(pkeys)
}

func newPolResMatcher(sd *svcDef, resources map[string]*PolicyResource, ptype int) *polResMatcher {
	m := &polResMatcher{sd: sd, ptype: ptype, resources: resources}
	keys := make([]string, 0, len(resources))
	for k, v := range resources {
		if v != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	m.pkeys = keys
	if len(resources) == 0 || sd == nil {
		return m
	}
	defer func() { m.pkeysHier = m.shortestHierarchy(keys, strings.Join(keys, "\x00")) }()
	hs := sd.hierarchiesWith(ptype, keys)
	valid := 0
	for _, h := range hs {
		if hierarchyValidFor(h, func(n string) bool { return resources[n] != nil }) {
			valid++
			if valid == 1 {
				m.valid = h
			} else {
				m.valid = nil
			}
		}
	}
	if valid == 0 {
		m.valid = nil
		return m
	}
	m.matchers = make(elemMatchers, 0, len(keys))
	for _, h := range hs {
		for _, d := range h {
			if m.matchers.get(d.name) != nil {
				continue
			}
			pr := resources[d.name]
			if pr == nil {
				continue
			}
			rm := newResMatcher(d, pr)
			if rm.dynamic {
				m.dynamic = true
			}
			m.matchers = append(m.matchers, elemMatcher{d.name, rm})
		}
	}
	m.matchers = slices.Clip(m.matchers)
	return m
}

// elemMatchers are a policy's matchers, one per resource element.
type elemMatchers []elemMatcher

type elemMatcher struct {
	name string
	m    *resMatcher
}

func (e elemMatchers) get(name string) *resMatcher {
	for i := range e {
		if e[i].name == name {
			return e[i].m
		}
	}
	return nil
}

// hierarchyValidFor reports whether the present resources leave no gap in h.
func hierarchyValidFor(h []*resDef, present func(string) bool) bool {
	if h == nil {
		return false
	}
	skipped := false
	for _, d := range h {
		if !present(d.name) {
			skipped = true
		} else if skipped {
			return false
		}
	}
	return true
}

func (m *polResMatcher) helper() bool { return m.matchers != nil }

// shortestHierarchy returns the shortest of the service-def's hierarchies
// with all of keys (joined is keys joined by NUL, the memo key).
func (m *polResMatcher) shortestHierarchy(keys []string, joined string) []*resDef {
	if len(keys) == 0 || !m.helper() {
		return nil
	}
	return m.sd.shortestHierarchy(m.ptype, keys, joined)
}

func containsAll(set, sub []string) bool {
	for _, s := range sub {
		if !slices.Contains(set, s) {
			return false
		}
	}
	return true
}

func (m *polResMatcher) hierarchyForResource(r *accessResource) []*resDef {
	rkeys := r.keys()
	if len(rkeys) == 0 {
		if m.valid != nil {
			return m.valid
		}
		return m.pkeysHier
	}
	var h []*resDef
	if m.valid != nil && m.helper() {
		if hierarchyHas(m.valid, rkeys) {
			h = m.valid
		}
	} else {
		pkeys := m.pkeys
		if containsAll(pkeys, rkeys) {
			h = m.pkeysHier
		} else if containsAll(rkeys, pkeys) {
			h = m.shortestHierarchy(rkeys, r.kstr)
		}
	}
	if !hierarchyValidFor(h, func(n string) bool { _, ok := r.get(n); return ok }) {
		return nil
	}
	return h
}

// matchType is RangerDefaultPolicyResourceMatcher.getMatchType.
func (m *polResMatcher) matchType(r *accessResource, scopes map[string]elemScope, c *evalCtx) matchType {
	if r == nil || m.resources == nil {
		return mtNone
	}
	n := len(r.keys())
	if len(m.resources) == 0 && n == 0 {
		return mtSelf
	}
	h := m.hierarchyForResource(r)
	if len(h) == 0 {
		return mtNone
	}
	lastNonAny, size := -1, 0
	for _, d := range h {
		rm := m.matchers.get(d.name)
		if rm == nil {
			break
		}
		if !rm.matchAny {
			lastNonAny = size
		}
		size++
	}
	ret := mtNone
	if n == 0 {
		ret = mtSelf
	}
	for _, d := range h {
		rm := m.matchers.get(d.name)
		v, has := r.get(d.name)
		if rm != nil {
			if has || rm.matchAny {
				if rm.isMatch(v, scopes[d.name], c) {
					ret = mtSelf
				} else {
					ret = mtNone
					break
				}
			}
		} else {
			if has {
				ret = mtAncestor
			}
			break
		}
	}
	if ret == mtSelf && n < len(m.resources) {
		if n > lastNonAny {
			ret = mtSelfAndAllDescendants
		} else {
			ret = mtDescendant
		}
	}
	return ret
}

// isMatchPolicy is RangerDefaultPolicyResourceMatcher.isMatch(policy, scope):
// whether the resources of another policy fall within this one.
func (m *polResMatcher) isMatchPolicy(p *Policy, scope matchScope, c *evalCtx) bool {
	if int(p.PolicyType) != m.ptype || len(p.Resources) == 0 {
		return false
	}
	keys := make([]string, 0, len(p.Resources))
	for k := range p.Resources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := m.shortestHierarchy(keys, strings.Join(keys, "\x00"))
	if len(h) == 0 {
		return false
	}
	mt := mtNone
	ret := false
	acc := &accessResource{elems: map[string]any{}}
	skipped := false
	for _, d := range h {
		pr := p.Resources[d.name]
		if pr != nil && len(pr.Values) > 0 {
			ret = false
			mt = mtNone
			if skipped {
				break
			}
			for _, v := range pr.Values {
				acc.set(d.name, v)
				mt = m.matchType(acc, nil, c)
				if mt != mtNone {
					ret = true
					break
				}
			}
		} else {
			skipped = true
		}
		if !ret {
			break
		}
	}
	return ret && scopeAccepts(scope, mt)
}
