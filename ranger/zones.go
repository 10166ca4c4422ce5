package ranger

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file is Ranger's security zones (RangerSecurityZoneMatcher and the
// zone-aware evaluation of RangerPolicyEngineImpl): a zone owns the
// resources its resource sets match, and a request on such a resource is
// evaluated with the zone's policies only.

// ZoneInfo is one security zone of a policy download
// (ServicePolicies.SecurityZoneInfo): the resources the zone owns, one map
// of resource name to values per resource set, and the zone's policies.
type ZoneInfo struct {
	ZoneName                     string                `json:"zoneName,omitempty"`
	Resources                    []map[string][]string `json:"resources"`
	Policies                     []*Policy             `json:"policies"`
	ContainsAssociatedTagService Bool                  `json:"containsAssociatedTagService"`
}

// parseZones decodes a download's securityZones.
func parseZones(raw map[string]json.RawMessage) (map[string]*ZoneInfo, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]*ZoneInfo, len(raw))
	for _, name := range sortedKeys(raw) {
		zi := &ZoneInfo{}
		if err := json.Unmarshal(raw[name], zi); err != nil {
			return nil, fmt.Errorf("security zone %q does not parse: %v", name, err)
		}
		out[name] = zi
	}
	return out, nil
}

// zoneMatcher matches one resource set of a zone.
type zoneMatcher struct {
	zone string
	m    *polResMatcher
	// column is the set's column values: nil when it names no column or
	// matches every column.
	column []string
}

// zoneSet is a service's zones: their resource matchers, policy
// repositories and whether each has an associated tag service.
type zoneSet struct {
	names    []string
	matchers []zoneMatcher
	repos    map[string]*repository
	withTags map[string]bool
}

func newZoneSet(sd *svcDef, def *ServiceDef, zones map[string]*ZoneInfo, lenient bool) *zoneSet {
	if len(zones) == 0 {
		return nil
	}
	zs := &zoneSet{repos: map[string]*repository{}, withTags: map[string]bool{}}
	recursive := map[string]bool{}
	if def != nil {
		for _, rd := range def.Resources {
			if rd != nil && rd.RecursiveSupported != nil {
				recursive[rd.Name] = bool(*rd.RecursiveSupported)
			}
		}
	}
	for _, name := range sortedKeys(zones) {
		zi := zones[name]
		zs.names = append(zs.names, name)
		for _, set := range zi.Resources {
			res := make(map[string]*PolicyResource, len(set))
			for k, vals := range set {
				res[k] = &PolicyResource{Values: vals, IsRecursive: Bool(recursive[k])}
			}
			zm := zoneMatcher{zone: name, m: newPolResMatcher(sd, res, PolicyTypeAccess)}
			if cols, ok := set["column"]; ok && !matchesAny(cols) {
				zm.column = cols
			}
			zs.matchers = append(zs.matchers, zm)
		}
		zs.repos[name] = newRepository(sd, zi.Policies, "", lenient)
		if zi.ContainsAssociatedTagService {
			zs.withTags[name] = true
		}
	}
	return zs
}

// matchesAny reports whether resource values match every value.
func matchesAny(vals []string) bool {
	for _, v := range vals {
		if v == "*" {
			return true
		}
	}
	return len(vals) == 0
}

// matched returns the zones whose resource sets match the resource, as
// Ranger's getZonesForResourceAndChildren does: a set that lies below the
// resource (a descendant match) adds the unzoned name "" as well. within
// holds the zones the resource itself lies in (the other matches).
func (zs *zoneSet) matched(res *accessResource, c *evalCtx) (all, within map[string]bool) {
	for _, zm := range zs.matchers {
		mt := zm.m.matchType(res, nil, c)
		if mt == mtNone {
			continue
		}
		if all == nil {
			all = map[string]bool{}
		}
		all[zm.zone] = true
		if mt == mtDescendant {
			all[""] = true
			continue
		}
		if within == nil {
			within = map[string]bool{}
		}
		within[zm.zone] = true
	}
	return all, within
}

// zoneFor returns the zone whose policies decide a request on res ("" for
// the unzoned policies). Ranger evaluates a request that matches exactly
// one zone with that zone's policies, and one that matches none or more
// than one (say a zone below the resource, which adds the unzoned space
// above it) with the unzoned policies. A resource that lies within two
// zones is a configuration Ranger's admin refuses; sqe fails closed on it
// rather than fall back to the unzoned policies.
func (zs *zoneSet) zoneFor(res *accessResource, c *evalCtx) (string, error) {
	if zs == nil {
		return "", nil
	}
	all, within := zs.matched(res, c)
	if len(within) > 1 {
		return "", fmt.Errorf("the resource %s lies in more than one security zone (%s)", describeResource(res), strings.Join(sortedKeys(within), ", "))
	}
	if len(all) == 1 {
		for z := range all {
			return z, nil
		}
	}
	return "", nil
}

func describeResource(res *accessResource) string {
	var parts []string
	for _, k := range []string{"database", "table", "column"} {
		if v, ok := res.elems[k].(string); ok {
			if v == syntheticColumn {
				v = "(other columns)"
			}
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ".")
}

// repoFor returns the repository a request's zone evaluates with.
func (e *engine) repoFor(r *request) *repository {
	if r.zone != "" && e.zones != nil {
		if repo := e.zones.repos[r.zone]; repo != nil {
			return repo
		}
	}
	return e.repo
}

// tagPolicyInZone reports whether a tag policy applies to a request in
// zone: a zone with an associated tag service uses the tag policies of
// that zone; every other request uses the tag policies of no zone.
func (e *engine) tagPolicyInZone(pe *policyEval, zone string) bool {
	want := ""
	if zone != "" && e.zones != nil && e.zones.withTags[zone] {
		want = zone
	}
	return pe.p.ZoneName == want
}
