package ranger

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Names of Ranger constants used by the engine.
const (
	anyAccess     = "_any"
	adminAccess   = "_admin"
	userCurrent   = "{USER}"
	resourceOwner = "{OWNER}"
	groupPublic   = "public"
	componentSep  = ":"
)

// resDef is a resource level as the matchers use it: the service-def's
// definition merged with the policy type's (datamask and rowfilter defs
// override matcher options, as ServiceDefUtil.normalize does).
type resDef struct {
	name      string
	parent    string
	level     int
	matcher   string
	options   Options
	validLeaf *bool
	mandatory bool
}

// svcDef is a compiled service-def.
type svcDef struct {
	raw           *ServiceDef
	name          string
	defs          map[int][]*resDef   // policy type -> resource levels
	hierarchies   map[int][][]*resDef // policy type -> root-to-leaf paths (and valid-leaf prefixes)
	implied       map[string][]string // access type -> implied grants (one level, as Ranger)
	allAccess     []string            // every access type name, sorted
	denyEnabled   bool
	conditionDefs map[string]*PolicyConditionDef
	maskTypes     map[string]*DataMaskTypeDef
	orderedNames  []string
	shortest      sync.Map // hierKey -> []*resDef
	// scriptFailures counts condition scripts that could not be evaluated
	// (shared by the engine's service-defs; nil outside an engine)
	scriptFailures *atomic.Uint64
	// scriptLimit bounds a run of a condition script (0: the default)
	scriptLimit time.Duration
}

func newSvcDef(sd *ServiceDef, componentType string) *svcDef {
	if sd == nil {
		sd = &ServiceDef{}
	}
	s := &svcDef{
		raw:           sd,
		name:          sd.Name,
		defs:          map[int][]*resDef{},
		hierarchies:   map[int][][]*resDef{},
		implied:       map[string][]string{},
		conditionDefs: map[string]*PolicyConditionDef{},
		maskTypes:     map[string]*DataMaskTypeDef{},
	}
	base := make([]*resDef, 0, len(sd.Resources))
	for _, r := range sd.Resources {
		if r == nil {
			continue
		}
		base = append(base, toResDef(r))
	}
	s.defs[PolicyTypeAccess] = base
	merge := func(over []*ResourceDef) []*resDef {
		var out []*resDef
		for _, o := range over {
			if o == nil {
				continue
			}
			var d *resDef
			for _, b := range base {
				if b.name == o.Name {
					c := *b
					c.options = Options{}
					for k, v := range b.options {
						c.options[k] = v
					}
					for k, v := range o.MatcherOptions {
						c.options[k] = v
					}
					if o.Matcher != "" {
						c.matcher = o.Matcher
					}
					if boolOr(o.Mandatory, false) {
						c.mandatory = true
					}
					d = &c
					break
				}
			}
			if d == nil {
				d = toResDef(o)
			}
			out = append(out, d)
		}
		return out
	}
	if sd.DataMaskDef != nil && len(sd.DataMaskDef.Resources) > 0 {
		s.defs[PolicyTypeDataMask] = merge(sd.DataMaskDef.Resources)
	}
	if sd.RowFilterDef != nil && len(sd.RowFilterDef.Resources) > 0 {
		s.defs[PolicyTypeRowFilter] = merge(sd.RowFilterDef.Resources)
	}
	for pt, defs := range s.defs {
		s.hierarchies[pt] = computeHierarchies(defs)
	}

	// Access types, normalised for a tag service-def: "hive:select" becomes
	// "select" and other components' types are dropped.
	prefix := ""
	if componentType != "" {
		prefix = componentType + componentSep
	}
	norm := func(n string) (string, bool) {
		if prefix != "" {
			if strings.HasPrefix(n, prefix) {
				return strings.TrimPrefix(n, prefix), true
			}
			if strings.Contains(n, componentSep) {
				return "", false
			}
		}
		return n, true
	}
	seen := map[string]bool{}
	addImplied := func(a *AccessTypeDef) {
		name, ok := norm(a.Name)
		if !ok {
			return
		}
		for _, g := range a.ImpliedGrants {
			if prefix != "" && strings.HasPrefix(a.Name, prefix) {
				if !strings.HasPrefix(g, prefix) {
					continue
				}
				g = strings.TrimPrefix(g, prefix)
			}
			key := strings.ToLower(name)
			if !slices.Contains(s.implied[key], g) {
				s.implied[key] = append(s.implied[key], g)
			}
		}
	}
	for _, a := range sd.AccessTypes {
		if a == nil {
			continue
		}
		name, ok := norm(a.Name)
		if !ok {
			continue
		}
		if !seen[name] {
			seen[name] = true
			s.allAccess = append(s.allAccess, name)
		}
		addImplied(a)
	}
	for _, a := range sd.MarkerAccessTypes {
		if a != nil {
			addImplied(a)
		}
	}
	sort.Strings(s.allAccess)
	s.denyEnabled = true
	if v, ok := sd.Options["enableDenyAndExceptionsInPolicies"]; ok {
		s.denyEnabled = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	for _, c := range sd.PolicyConditions {
		if c != nil {
			s.conditionDefs[c.Name] = c
		}
	}
	if sd.DataMaskDef != nil {
		for _, m := range sd.DataMaskDef.MaskTypes {
			if m != nil {
				s.maskTypes[m.Name] = m
			}
		}
	}
	ordered := slices.Clone(base)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].level < ordered[j].level })
	for _, d := range ordered {
		s.orderedNames = append(s.orderedNames, d.name)
	}
	return s
}

func toResDef(r *ResourceDef) *resDef {
	d := &resDef{
		name:      r.Name,
		parent:    r.Parent,
		level:     int(r.Level),
		matcher:   r.Matcher,
		options:   r.MatcherOptions,
		mandatory: boolOr(r.Mandatory, false),
	}
	if r.IsValidLeaf != nil {
		v := bool(*r.IsValidLeaf)
		d.validLeaf = &v
	}
	return d
}

// computeHierarchies returns every path from a root resource to a leaf,
// plus the prefixes that end at a resource marked isValidLeaf (the
// resource graph must be a forest, as Ranger requires).
func computeHierarchies(defs []*resDef) [][]*resDef {
	if len(defs) == 0 {
		return nil
	}
	byName := map[string]*resDef{}
	children := map[string][]string{}
	hasParent := map[string]bool{}
	var names []string
	for _, d := range defs {
		if _, dup := byName[d.name]; !dup {
			names = append(names, d.name)
		}
		byName[d.name] = d
	}
	for _, d := range defs {
		if d.parent != "" {
			if _, ok := byName[d.parent]; ok {
				if !slices.Contains(children[d.parent], d.name) {
					children[d.parent] = append(children[d.parent], d.name)
				}
				hasParent[d.name] = true
			}
		}
	}
	for _, n := range names {
		if len(children[n]) == 0 {
			if d := byName[n]; d.validLeaf != nil && !*d.validLeaf {
				return nil // a sink that is not a valid leaf: invalid graph
			}
		}
	}
	var out [][]*resDef
	seen := map[string]bool{}
	add := func(p []*resDef) {
		var k strings.Builder
		for _, d := range p {
			k.WriteString(d.name)
			k.WriteByte(0)
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			out = append(out, slices.Clone(p))
		}
	}
	var walk func(n string, path []*resDef, visiting map[string]bool)
	walk = func(n string, path []*resDef, visiting map[string]bool) {
		if visiting[n] {
			return
		}
		visiting[n] = true
		defer delete(visiting, n)
		path = append(path, byName[n])
		if len(children[n]) == 0 {
			add(path)
			for i := 0; i < len(path)-1; i++ {
				if v := path[i].validLeaf; v != nil && *v {
					add(path[:i+1])
				}
			}
			return
		}
		for _, c := range children[n] {
			walk(c, path, visiting)
		}
	}
	for _, n := range names {
		if !hasParent[n] {
			walk(n, nil, map[string]bool{})
		}
	}
	return out
}

func hierarchyHas(h []*resDef, keys []string) bool {
	for _, k := range keys {
		found := false
		for _, d := range h {
			if d.name == k {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (s *svcDef) hierarchiesFor(policyType int) [][]*resDef {
	if policyType == policyTypeAudit {
		policyType = PolicyTypeAccess
	}
	return s.hierarchies[policyType]
}

type hierKey struct {
	ptype int
	keys  string
}

// shortestHierarchy is the shortest hierarchy with all of keys, memoised.
func (s *svcDef) shortestHierarchy(ptype int, keys []string, joined string) []*resDef {
	k := hierKey{ptype, joined}
	if v, ok := s.shortest.Load(k); ok {
		return v.([]*resDef)
	}
	var ret []*resDef
	for _, h := range s.hierarchiesWith(ptype, keys) {
		if ret == nil || len(h) < len(ret) {
			ret = h
			if len(ret) == len(keys) {
				break
			}
		}
	}
	s.shortest.Store(k, ret)
	return ret
}

func (s *svcDef) hierarchiesWith(policyType int, keys []string) [][]*resDef {
	var out [][]*resDef
	for _, h := range s.hierarchiesFor(policyType) {
		if hierarchyHas(h, keys) {
			out = append(out, h)
		}
	}
	return out
}

// impliedAccesses expands an item's allowed access types with the
// service-def's implied grants (one level, as Ranger does).
func (s *svcDef) impliedAccesses(accesses []ItemAccess) map[string]bool {
	out := map[string]bool{}
	allowed := map[string]bool{}
	for _, a := range accesses {
		t := strings.ToLower(a.Type)
		if a.allowed() {
			allowed[t] = true
		} else if _, ok := allowed[t]; !ok {
			allowed[t] = false
		}
	}
	for t, ok := range allowed {
		if ok {
			out[t] = true
		}
	}
	for t, ok := range allowed {
		if !ok {
			continue
		}
		for _, g := range s.implied[t] {
			out[strings.ToLower(g)] = true
		}
	}
	return out
}
