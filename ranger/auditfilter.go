package ranger

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Audit filters are Ranger's ranger.plugin.audit.filters: a service
// config entry (of the resource service, and of its tag service) holding a
// list of filters, each deciding whether the accesses it matches are
// audited. After a request's access is decided, the filters are tried in
// their order, the tag service's first (against each of the request's
// tags), then the resource service's; the first that matches sets
// isAudited, and when none does the policies' audit decision stands
// (RangerPolicyEngineImpl.evaluateAuditPolicies).
//
// The entry is the lenient JSON Ranger's Gson reads (single-quoted
// strings); sqe reads it with a YAML parser, whose flow style is a
// superset of that JSON.

// auditFilterConfig is the service config key of the filters.
const auditFilterConfig = "ranger.plugin.audit.filters"

// auditFilterEntry is one filter as written (Ranger's AuditFilter).
type auditFilterEntry struct {
	AccessResult string                     `yaml:"accessResult"`
	Resources    map[string]*auditFilterRes `yaml:"resources"`
	AccessTypes  []string                   `yaml:"accessTypes"`
	Actions      []string                   `yaml:"actions"`
	Users        []string                   `yaml:"users"`
	Groups       []string                   `yaml:"groups"`
	Roles        []string                   `yaml:"roles"`
	IsAudited    *bool                      `yaml:"isAudited"`
}

type auditFilterRes struct {
	Values      []string `yaml:"values"`
	IsExcludes  bool     `yaml:"isExcludes"`
	IsRecursive bool     `yaml:"isRecursive"`
}

// auditFilter is one filter, ready to match requests
// (RangerAuditPolicyEvaluator with its one item).
type auditFilter struct {
	matcher *polResMatcher // nil: every resource
	tags    []string       // the tag service's: the tag resource's values
	result  string         // "" (any), ALLOWED, DENIED or NOT_DETERMINED

	anyUser              bool
	users, groups, roles strSet
	hasOwner             bool

	anyAction            bool
	actions, accessTypes strSet

	audited *bool // nil: the filter decides nothing
}

// parseAuditFilters reads a service's audit filters against its
// service definition. An entry that does not parse is an error: the
// policy set does not load, as a filter sqe ignored could stop audits
// the operator asked for.
func parseAuditFilters(sd *svcDef, cfg map[string]string) ([]*auditFilter, error) {
	text := strings.TrimSpace(cfg[auditFilterConfig])
	if text == "" {
		return nil, nil
	}
	var entries []auditFilterEntry
	if err := yaml.Unmarshal([]byte(text), &entries); err != nil {
		return nil, fmt.Errorf("ranger: service config %s does not parse as a list of audit filters", auditFilterConfig)
	}
	out := make([]*auditFilter, 0, len(entries))
	for i, en := range entries {
		f := &auditFilter{result: strings.ToUpper(en.AccessResult), audited: en.IsAudited}
		switch f.result {
		case "", "ALLOWED", "DENIED", "NOT_DETERMINED":
		default:
			return nil, fmt.Errorf("ranger: audit filter %d: accessResult %q is not ALLOWED, DENIED or NOT_DETERMINED", i+1, en.AccessResult)
		}
		if len(en.Resources) > 0 {
			res := make(map[string]*PolicyResource, len(en.Resources))
			for k, v := range en.Resources {
				if v == nil {
					continue
				}
				res[k] = &PolicyResource{Values: v.Values, IsExcludes: Bool(v.IsExcludes), IsRecursive: Bool(v.IsRecursive)}
				if k == "tag" {
					f.tags = v.Values
				}
			}
			f.matcher = newPolResMatcher(sd, res, PolicyTypeAccess)
		}
		f.users, f.groups, f.roles = newStrSet(en.Users), newStrSet(en.Groups), newStrSet(en.Roles)
		f.anyUser = (len(en.Users) == 0 && len(en.Groups) == 0 && len(en.Roles) == 0) ||
			f.groups.has(groupPublic) || f.users.has(userCurrent)
		f.hasOwner = f.users.has(resourceOwner)
		f.actions, f.accessTypes = newStrSet(en.Actions), newStrSet(en.AccessTypes)
		f.anyAction = len(en.Actions) == 0 && len(en.AccessTypes) == 0
		out = append(out, f)
	}
	return out, nil
}

// matches reports whether the filter's item applies to the request with
// its access result: the access result, the user (or a group or role) and
// the action or access type.
func (f *auditFilter) matches(r *request, res *result) bool {
	switch f.result {
	case "DENIED":
		if !res.determined || res.allowed {
			return false
		}
	case "ALLOWED":
		if !res.determined || !res.allowed {
			return false
		}
	case "NOT_DETERMINED":
		if res.determined {
			return false
		}
	}
	if !f.anyUser {
		ok := r.user != "" && f.users.has(r.user)
		if !ok && f.hasOwner && r.user != "" && r.res != nil {
			ok = r.user == r.res.owner
		}
		for g := range r.groups {
			ok = ok || f.groups.has(g)
		}
		for role := range r.roles {
			ok = ok || f.roles.has(role)
		}
		if !ok {
			return false
		}
	}
	if !f.anyAction && !(r.action != "" && f.actions.has(r.action)) && !(r.accessType != "" && f.accessTypes.has(r.accessType)) {
		return false
	}
	return true
}

// matchesResource is the filter's resource check for a request on a
// resource (not a tag).
func (f *auditFilter) matchesResource(r *request) bool {
	if f.matcher == nil {
		return true
	}
	mt := f.matcher.matchType(r.res, r.elemScopes, r.evalCtx())
	switch mt {
	case mtSelf, mtSelfAndAllDescendants:
		return true
	case mtDescendant:
		return r.isAccessTypeAny() || r.scope == reqSelfOrDescendants
	}
	return false
}

// matchesTag is the filter's resource check for a request on one of the
// resource's tags: the filter names the tag, and the tag is on the
// resource itself, on all its descendants, or (for a tag request) on an
// ancestor.
func (f *auditFilter) matchesTag(t *tagForEval, r *request) bool {
	named := false
	for _, v := range f.tags {
		if v == "*" || strings.EqualFold(v, t.Type) {
			named = true
			break
		}
	}
	if !named {
		return false
	}
	switch t.MatchType {
	case mtSelf, mtSelfAndAllDescendants, mtAncestor:
		return true
	case mtDescendant:
		return r.isAccessTypeAny() || r.scope == reqSelfOrDescendants
	}
	return false
}

// applyAuditFilters is RangerPolicyEngineImpl.evaluateAuditPolicies for a
// decided access request.
func (e *engine) applyAuditFilters(r *request, res *result) {
	if len(e.tagAuditFilters) == 0 && len(e.auditFilters) == 0 {
		return
	}
	for _, f := range e.tagAuditFilters {
		if f.audited == nil {
			continue
		}
		for _, t := range r.tags {
			if f.matchesTag(t, r) && f.matches(r.forTag(t), res) {
				res.setAudited(*f.audited)
				return
			}
		}
	}
	for _, f := range e.auditFilters {
		if f.audited != nil && f.matchesResource(r) && f.matches(r, res) {
			res.setAudited(*f.audited)
			return
		}
	}
}
