package ranger

import (
	"strings"
)

// This file holds Ranger's accessed-together conditions
// (RangerHiveResourcesAccessedTogetherCondition and
// RangerHiveResourcesNotAccessedTogetherCondition): they read every
// resource the statement accesses (the request's requested resources,
// Ranger's REQUESTED_RESOURCES context) and ask whether two of them fall
// under the condition's resource specs.

// togetherSpec is one resource spec of an accessed-together condition,
// "database[.table[.column]]": the element matchers by resource name.
type togetherSpec struct {
	matchers map[string]*resMatcher
	// needsColumn: the spec names columns (not "*"), which a
	// table-level resource cannot be matched against
	needsColumn bool
}

// togetherCond is an accessed-together condition; not is the
// not-accessed-together form.
type togetherCond struct {
	sd    *svcDef
	specs []*togetherSpec
	not   bool
}

// newTogetherCond builds the condition as Ranger does: each value is a
// spec split on dots (empty parts dropped); a value with more than three
// parts is ignored, and only the hive service-def has specs at all.
func newTogetherCond(sd *svcDef, values []string, not bool) condEval {
	c := &togetherCond{sd: sd, not: not}
	if sd == nil || sd.name != "hive" {
		return c
	}
	defs := map[string]*ResourceDef{}
	for _, d := range sd.raw.Resources {
		if d != nil {
			if _, dup := defs[d.Name]; !dup {
				defs[d.Name] = d
			}
		}
	}
	for _, v := range values {
		var parts []string
		for _, p := range strings.Split(strings.TrimSpace(v), ".") {
			if p != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 || len(parts) > 3 {
			continue
		}
		vals := map[string]string{"database": parts[0], "table": "*", "column": "*"}
		if len(parts) >= 2 {
			vals["table"] = parts[1]
		}
		if len(parts) == 3 {
			vals["column"] = parts[2]
		}
		spec := &togetherSpec{matchers: map[string]*resMatcher{}}
		for name, val := range vals {
			if d := defs[name]; d != nil {
				m := newResMatcher(toResDef(d), &PolicyResource{Values: []string{val}})
				spec.matchers[name] = m
				if name == "column" && !m.matchAny {
					spec.needsColumn = true
				}
			}
		}
		c.specs = append(c.specs, spec)
	}
	return c
}

// matches is Ranger's RangerDefaultPolicyResourceMatcher.isMatch(resource,
// evalContext): every element of the resource is matched by the spec's
// matcher for it, and every element the resource lacks is one the spec
// matches whatever its value ("*").
func (s *togetherSpec) matches(sd *svcDef, res *accessResource, c *evalCtx) bool {
	some := false
	for _, d := range sd.raw.Resources {
		if d == nil {
			continue
		}
		m := s.matchers[d.Name]
		switch v := res.elems[d.Name].(type) {
		case nil:
			if m != nil && !m.matchAny {
				return false
			}
		case string:
			some = true
			if m == nil || !m.isMatch(v, scopeSelf, c) {
				return false
			}
		default:
			return false
		}
	}
	return some
}

// mutuallyExcluded is Ranger's RangerRequestedResources.isMutuallyExcluded:
// false when, over every requested resource and every spec, more than one
// match is found (a resource matched by two specs counts twice); only a
// request for more than one resource can be false.
func (t *togetherCond) mutuallyExcluded(r *request) bool {
	if len(r.requested) <= 1 {
		return true
	}
	c := r.evalCtx()
	n := 0
	for _, res := range r.requested {
		for _, s := range t.specs {
			if s.matches(t.sd, res, c) {
				n++
				if n > 1 {
					return false
				}
			}
		}
	}
	return true
}

func (t *togetherCond) eval(r *request) tri {
	if len(t.specs) == 0 {
		return triTrue
	}
	if !r.requestedSet {
		if r.strict {
			// sqe does not know the statement's other resources
			return triUnknown
		}
		// Ranger: no requested resources in the context
		return triOf(t.not)
	}
	if r.strict {
		for _, res := range r.requested {
			if _, ok := res.elems["column"]; ok {
				continue
			}
			for _, s := range t.specs {
				if s.needsColumn {
					// sqe's requested resources are tables: a
					// spec that names columns cannot be decided
					return triUnknown
				}
			}
		}
	}
	excluded := t.mutuallyExcluded(r)
	if t.not {
		return triOf(excluded)
	}
	return triOf(!excluded)
}
