package ranger

import (
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// This file is the policy engine: Ranger's RangerPolicyEngineImpl,
// RangerPolicyRepository, RangerDefaultPolicyEvaluator (with the
// RangerOptimizedPolicyEvaluator ordering) and the policy-item evaluators,
// written from their documented behaviour and checked against Ranger's
// own policy-engine fixtures.

// tagForEval is a tag attached to the requested resource (RangerTagForEval).
type tagForEval struct {
	Type       string
	Attributes map[string]string
	Options    map[string]any
	MatchType  matchType
	validity   []*validityEval
}

func (t *tagForEval) key() string {
	var b strings.Builder
	b.WriteString(t.Type)
	b.WriteByte(0)
	b.WriteString(t.MatchType.String())
	for _, k := range sortedKeys(t.Attributes) {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(t.Attributes[k])
	}
	return b.String()
}

func (t *tagForEval) applicable(at time.Time) tri {
	return schedulesApplicable(t.validity, at)
}

// reqScope is Ranger's RangerAccessRequest.ResourceMatchingScope.
type reqScope int

const (
	reqSelf reqScope = iota
	reqSelfOrDescendants
	reqSelfOrChild
)

// request is one access request (RangerAccessRequest).
type request struct {
	res        *accessResource
	accessType string
	action     string // Ranger's request action (REQ.action, ctx.getAction())
	user       string
	groups     map[string]bool
	roles      map[string]bool // every role the user holds (deny side)
	active     map[string]bool // the roles that grant (allow side); nil: roles
	rolesSet   bool

	userAttrs  map[string]string
	groupAttrs map[string]map[string]string

	tags     []*tagForEval
	tagsSet  bool
	curTag   *tagForEval
	tagMatch matchType
	isTag    bool

	accessTime           time.Time
	scope                reqScope
	elemScopes           map[string]elemScope
	ignoreDescendantDeny bool
	requestData          string
	clientIP, remoteIP   string
	context              map[string]any
	strict               bool
	// geo are the service-def's geolocation enrichers; enriched is set
	// once their attributes are in context (see engine.prepare).
	geo      []*geoEnricher
	enriched bool
	// sd and zones are the engine's, for the scripts' ctx.getResource
	// and ctx.getResourceZones (set by engine.prepare).
	sd    *svcDef
	zones *zoneSet
	// requested are every resource the statement accesses (Ranger's
	// REQUESTED_RESOURCES), when requestedSet.
	requested    []*accessResource
	requestedSet bool

	// zone is the security zone whose policies decide the request ("":
	// the unzoned policies).
	zone string

	st  *evalState
	ctx *evalCtx // evalCtx(), once made
	// restrictOnly is set while a policy whose policy-level conditions or
	// validity schedules are unknown is evaluated: only items that take
	// access away may match.
	restrictOnly bool
}

// evalState is the per-evaluation state Ranger keeps in the request context.
type evalState struct {
	allRequested      []string
	isAnyAccess       bool
	accessGroups      [][]string
	accessTypeResults map[string]*result
	tokens            map[string]string
	uncertain         int64 // policy id whose unknown condition decided a mask/filter
	hasUncertain      bool
	// matchedUnknown: the last item that matched did so only because a
	// condition could not be evaluated (a deny or allow exception)
	matchedUnknown bool
	// exceptedUnknown: an allow exception whose condition could not be
	// evaluated took an allow away, in policy exceptedBy
	exceptedUnknown bool
	exceptedBy      int64
	exceptedByTag   bool
	// columnNameRead: a script read the column name of a request that
	// stands for every column no policy names
	columnNameRead bool
	// exprFailed: a ${{...}} expression in a policy's resource values
	// could not be evaluated while the resource was matched
	exprFailed bool
}

// reasonUnknownCondition is the result reason of a deny that applied
// because its condition could not be evaluated.
const reasonUnknownCondition = "condition sqe cannot evaluate"

func (r *request) isAccessTypeAny() bool { return r.accessType == "" || r.accessType == anyAccess }

func (r *request) isDelegatedAdmin() bool { return r.accessType == adminAccess }

func (r *request) grantRoles() map[string]bool {
	if r.active != nil {
		return r.active
	}
	return r.roles
}

func (r *request) evalCtx() *evalCtx {
	if r.ctx == nil || r.ctx.req != r || r.ctx.tokens == nil {
		r.ctx = &evalCtx{tokens: r.st.tokens, req: r}
	}
	return r.ctx
}

// withAccess is RangerAccessRequestWrapper: the same request for one access type.
func (r *request) withAccess(at string) *request {
	c := *r
	c.accessType = at
	return &c
}

// result is RangerAccessResult.
type result struct {
	ptype           int
	req             *request
	determined      bool
	allowed         bool
	auditDetermined bool
	audited         bool
	auditPolicyID   int64
	policyID        int64
	priority        int
	reason          string
	maskType        *string
	maskCondition   *string
	maskedValue     *string
	filterExpr      *string
	hasInfo         bool
	fromTag         bool
}

func newResult(ptype int, req *request) *result {
	return &result{ptype: ptype, req: req, auditPolicyID: -1, policyID: -1}
}

func (r *result) setAllowed(v bool) {
	if !v {
		r.determined = true
	}
	r.allowed = v
}

func (r *result) setAudited(v bool) {
	r.auditDetermined = true
	r.audited = v
}

func (r *result) setAccessFrom(o *result) {
	r.determined = o.determined
	r.allowed = o.allowed
	r.policyID = o.policyID
	r.priority = o.priority
	r.reason = o.reason
	r.maskType, r.maskCondition, r.maskedValue, r.filterExpr = o.maskType, o.maskCondition, o.maskedValue, o.filterExpr
	r.hasInfo = o.hasInfo
	r.fromTag = o.fromTag
}

func (r *result) setAuditFrom(o *result) {
	r.auditDetermined = o.auditDetermined
	r.audited = o.audited
	r.auditPolicyID = o.auditPolicyID
}

type itemKind int

const (
	itemAllow itemKind = iota
	itemDeny
	itemAllowEx
	itemDenyEx
	itemMask
	itemRowFilter
)

// restrictive reports whether matching an item of this kind takes access away.
func (k itemKind) restrictive() bool { return k == itemDeny || k == itemAllowEx }

type itemEval struct {
	item      *PolicyItem
	kind      itemKind
	accesses  strSet
	users     strSet
	groups    strSet
	roles     strSet
	hasPublic bool
	hasCur    bool
	hasOwner  bool
	conds     []condEval
	info      []condInfo
	evalOrder int
}

func newItemEval(it *PolicyItem, kind itemKind, sd *svcDef, lenient bool) *itemEval {
	e := &itemEval{
		item:     it,
		kind:     kind,
		accesses: newStrSet(setKeys(sd.impliedAccesses(it.Accesses))),
		users:    newStrSet(it.Users),
		groups:   newStrSet(it.Groups),
		roles:    newStrSet(it.Roles),
	}
	e.hasPublic = e.groups.has(groupPublic)
	e.hasCur = e.users.has(userCurrent)
	e.hasOwner = e.users.has(resourceOwner)
	for _, c := range it.Conditions {
		ce, info := buildCondition(c, sd, lenient)
		e.conds = append(e.conds, ce)
		e.info = append(e.info, info)
	}
	// RangerAbstractPolicyItemEvaluator.computeEvalOrder
	order := 1000
	if e.hasPublic || e.hasCur {
		order -= 100
	} else {
		order -= min(100, len(it.Users)+len(it.Groups))
	}
	if n := len(it.Accesses); n > 0 && len(sd.raw.AccessTypes) > 0 {
		order -= int(math.Round(25 * float64(n) / float64(len(sd.raw.AccessTypes))))
	}
	if d := 25 - 5*len(it.Conditions); d > 0 {
		order -= d
	}
	e.evalOrder = order
	return e
}

func (e *itemEval) matchPrincipals(r *request) bool {
	if r.user != "" || e.hasCur {
		if e.hasCur || e.users.has(r.user) {
			return true
		}
	}
	if e.hasPublic {
		return true
	}
	if e.groups.intersects(r.groups) {
		return true
	}
	if e.roles.len() > 0 {
		roles := r.grantRoles()
		if e.kind.restrictive() {
			roles = r.roles
		}
		if e.roles.intersects(roles) {
			return true
		}
	}
	if e.hasOwner && r.user != "" && r.res != nil && r.user == r.res.owner {
		return true
	}
	return false
}

// match is RangerDefaultPolicyItemEvaluator.isMatch. An unknown condition
// matches a restrictive item and does not match a granting one; for a mask
// or filter item it is recorded as uncertain.
func (e *itemEval) match(r *request, policyID int64) bool {
	if !e.matchPrincipals(r) {
		return false
	}
	if r.restrictOnly && !e.kind.restrictive() {
		if e.kind == itemMask || e.kind == itemRowFilter {
			r.st.uncertain, r.st.hasUncertain = policyID, true
		}
		return false
	}
	if r.isDelegatedAdmin() {
		return bool(e.item.DelegateAdmin)
	}
	if !e.accesses.has(strings.ToLower(r.accessType)) {
		return false
	}
	switch allConds(e.conds, r) {
	case triTrue:
		// under restrictOnly, the policy matched only because something
		// (its conditions, its validity, its resources) was unknown
		r.st.matchedUnknown = r.restrictOnly
		return true
	case triUnknown:
		if e.kind.restrictive() {
			r.st.matchedUnknown = true
			return true
		}
		if e.kind == itemMask || e.kind == itemRowFilter {
			r.st.uncertain, r.st.hasUncertain = policyID, true
		}
		return false
	}
	return false
}

// policyEval evaluates one policy.
type policyEval struct {
	p         *Policy
	id        int64
	name      string
	sd        *svcDef
	ptype     int
	priority  int
	matchers  []*polResMatcher
	allow     []*itemEval
	deny      []*itemEval
	allowEx   []*itemEval
	denyEx    []*itemEval
	mask      []*itemEval
	rowFilter []*itemEval
	conds     []condEval
	condInfo  []condInfo
	validity  []*validityEval
	evalOrder int
	hasAllow  bool
	hasDeny   bool
	audit     bool
	denyAll   bool
	isTag     bool
	seq       int // position in Ranger's evaluation order within its type

	users, groups, roles strSet
	perms                strSet
	allPerms             bool
	hasPublic            bool
	hasCur               bool
	hasOwner             bool
	delegate             bool
}

func newPolicyEval(p *Policy, sd *svcDef, lenient bool) *policyEval {
	pe := &policyEval{
		p:        p,
		id:       int64(p.ID),
		name:     p.Name,
		sd:       sd,
		ptype:    int(p.PolicyType),
		priority: int(p.PolicyPriority),
		audit:    p.AuditEnabled(),
		denyAll:  bool(p.IsDenyAllElse),
	}
	pe.matchers = append(pe.matchers, newPolResMatcher(sd, p.Resources, pe.ptype))
	for _, r := range p.AdditionalResources {
		pe.matchers = append(pe.matchers, newPolResMatcher(sd, r, pe.ptype))
	}
	mk := func(items []*PolicyItem, kind itemKind) []*itemEval {
		var out []*itemEval
		for _, it := range items {
			if it != nil {
				out = append(out, newItemEval(it, kind, sd, lenient))
			}
		}
		if kind != itemMask && kind != itemRowFilter {
			sort.SliceStable(out, func(i, j int) bool { return out[i].evalOrder < out[j].evalOrder })
		}
		return out
	}
	pe.allow = mk(p.PolicyItems, itemAllow)
	if sd.denyEnabled {
		pe.deny = mk(p.DenyPolicyItems, itemDeny)
		pe.allowEx = mk(p.AllowExceptions, itemAllowEx)
		pe.denyEx = mk(p.DenyExceptions, itemDenyEx)
	}
	pe.mask = mk(p.DataMaskPolicyItems, itemMask)
	pe.rowFilter = mk(p.RowFilterPolicyItems, itemRowFilter)
	for _, c := range p.Conditions {
		ce, info := buildCondition(c, sd, lenient)
		pe.conds = append(pe.conds, ce)
		pe.condInfo = append(pe.condInfo, info)
	}
	for _, v := range p.ValiditySchedules {
		if v != nil {
			pe.validity = append(pe.validity, newValidityEval(v))
		}
	}
	pe.hasAllow = len(p.PolicyItems) > 0
	pe.hasDeny = pe.denyAll || len(p.DenyPolicyItems) > 0

	// RangerOptimizedPolicyEvaluator: the union of principals and access
	// types of every item, used to skip policies that cannot apply.
	all := [][]*itemEval{pe.allow, pe.deny, pe.allowEx, pe.denyEx, pe.mask, pe.rowFilter}
	var perms, users, groups, roles [][]string
	for _, items := range all {
		for _, it := range items {
			pe.delegate = pe.delegate || bool(it.item.DelegateAdmin)
			perms = append(perms, it.accesses.list())
			users = append(users, it.users.list())
			groups = append(groups, it.groups.list())
			roles = append(roles, it.roles.list())
		}
	}
	pe.perms, pe.users, pe.groups, pe.roles = newStrSet(perms...), newStrSet(users...), newStrSet(groups...), newStrSet(roles...)
	rawPerms := map[string]bool{}
	for _, items := range [][]*PolicyItem{p.PolicyItems, p.DenyPolicyItems, p.AllowExceptions, p.DenyExceptions, p.DataMaskPolicyItems, p.RowFilterPolicyItems} {
		for _, it := range items {
			if it == nil {
				continue
			}
			for _, a := range it.Accesses {
				if a.allowed() {
					rawPerms[a.Type] = true
				}
			}
		}
	}
	if pe.denyAll {
		pe.allPerms = true
	} else {
		pe.allPerms = true
		for _, a := range sd.raw.AccessTypes {
			if a != nil && !rawPerms[a.Name] {
				pe.allPerms = false
				break
			}
		}
	}
	pe.hasCur = pe.users.has(userCurrent)
	pe.hasOwner = pe.users.has(resourceOwner)
	pe.hasPublic = pe.denyAll || pe.groups.has(groupPublic)
	pe.evalOrder = pe.computeEvalOrder(len(rawPerms))
	return pe
}

func (pe *policyEval) dynamic() bool {
	for _, m := range pe.matchers {
		if m.dynamic {
			return true
		}
	}
	return false
}

// computeEvalOrder is RangerOptimizedPolicyEvaluator.computeEvalOrder.
func (pe *policyEval) computeEvalOrder(nPerms int) int {
	order := 10000
	type lr struct {
		level int
		pr    *PolicyResource
	}
	var items []lr
	for name, pr := range pe.p.Resources {
		if pr == nil || len(pr.Values) == 0 {
			continue
		}
		for _, d := range pe.sd.defs[PolicyTypeAccess] {
			if d.name == name {
				items = append(items, lr{d.level, pr})
				break
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].level < items[j].level })
	discount := 0
	for _, it := range items {
		star, q, any := false, false, false
		for _, v := range it.pr.Values {
			if v == "" || v == "*" {
				any = true
				break
			} else if strings.Contains(v, "*") {
				star = true
			} else if strings.Contains(v, "?") {
				q = true
			}
		}
		if any {
			discount += 25
		} else {
			if star {
				discount += 10
			} else if q {
				discount += 5
			}
			if it.pr.IsExcludes {
				discount += 5
			}
			if it.pr.IsRecursive {
				discount += 5
			}
		}
	}
	if pe.dynamic() {
		order += 20
	}
	order -= min(100, discount)
	if pe.hasPublic || pe.hasCur {
		order -= 25
	} else {
		order -= min(pe.groups.len()+pe.users.len(), 25)
	}
	if n := len(pe.sd.raw.AccessTypes); n > 0 {
		order -= int(math.Round(25 * float64(nPerms) / float64(n)))
	}
	nConds := len(pe.conds)
	for _, items := range [][]*itemEval{pe.allow, pe.deny, pe.allowEx, pe.denyEx, pe.mask, pe.rowFilter} {
		for _, it := range items {
			nConds += len(it.conds)
		}
	}
	if d := 25 - 5*nConds; d > 0 {
		order -= d
	}
	return order
}

// evalOrderLess is RangerPolicyEvaluator's EVAL_ORDER_COMPARATOR.
func evalOrderLess(a, b *policyEval) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.hasDeny != b.hasDeny {
		return a.hasDeny
	}
	if a.evalOrder != b.evalOrder {
		return a.evalOrder < b.evalOrder
	}
	return a.id < b.id
}

// nameLess is RangerPolicyEvaluator's NAME_COMPARATOR.
func nameLess(a, b *policyEval) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.hasDeny != b.hasDeny {
		return a.hasDeny
	}
	if a.name != b.name {
		return a.name < b.name
	}
	return a.id < b.id
}

// matchable is RangerOptimizedPolicyEvaluator.hasMatchablePolicyItem.
func (pe *policyEval) matchable(r *request) bool {
	principal := pe.hasPublic || pe.hasCur || pe.users.has(r.user)
	if !principal && pe.hasOwner && r.res != nil && r.user != "" && r.user == r.res.owner {
		principal = true
	}
	if !principal {
		principal = pe.groups.intersects(r.groups) || pe.roles.intersects(r.roles)
	}
	if !principal {
		return false
	}
	if pe.allPerms || r.isAccessTypeAny() {
		return true
	}
	if pe.perms.has(strings.ToLower(r.accessType)) {
		return true
	}
	for _, a := range r.st.allRequested {
		if pe.perms.has(a) {
			return true
		}
	}
	if r.isDelegatedAdmin() {
		return pe.delegate
	}
	return false
}

func (pe *policyEval) applicable(at time.Time) tri { return schedulesApplicable(pe.validity, at) }

func (pe *policyEval) updateResult(res *result, mt matchType, allowed bool, reason string) {
	if !allowed {
		if mt != mtDescendant || !res.req.ignoreDescendantDeny {
			res.setAllowed(false)
			res.priority = pe.priority
			res.policyID = pe.id
			res.fromTag = pe.isTag
			res.reason = reason
		}
		return
	}
	if !res.allowed {
		res.setAllowed(true)
		res.priority = pe.priority
		res.policyID = pe.id
		res.fromTag = pe.isTag
		res.reason = reason
	}
}

// evaluate is RangerDefaultPolicyEvaluator.evaluate.
func (pe *policyEval) evaluate(r *request, res *result) {
	for _, m := range pe.matchers {
		if res.determined && res.auditDetermined {
			return
		}
		var mt matchType
		unknownRes := false
		if r.isTag {
			mt = r.tagMatch
		} else {
			mt, unknownRes = pe.matchResource(m, r)
		}
		var matched bool
		if r.isAccessTypeAny() || r.scope == reqSelfOrDescendants {
			matched = mt == mtSelf || mt == mtSelfAndAllDescendants || mt == mtDescendant || (mt == mtAncestor && r.isTag)
		} else {
			matched = mt == mtSelf || mt == mtSelfAndAllDescendants || (mt == mtAncestor && r.isTag)
		}
		if unknownRes {
			// sqe cannot tell whether the policy covers the resource: it
			// may take access away, as if it did, but not grant.
			mt, matched = mtSelf, true
		}
		if !matched {
			continue
		}
		pc := allConds(pe.conds, r)
		if unknownRes && pc == triTrue {
			pc = triUnknown
		}
		if pc == triFalse {
			continue
		}
		if !res.auditDetermined && pe.audit {
			res.setAudited(true)
			res.auditPolicyID = pe.id
		}
		if !res.determined && pe.matchable(r) {
			saved := r.restrictOnly
			if pc == triUnknown {
				r.restrictOnly = true
			}
			pe.evaluateItems(r, mt, res)
			r.restrictOnly = saved
		}
	}
}

// matchResource matches the request's resource against one of the
// policy's resources. unknown reports that a ${{...}} expression in the
// policy's values could not be evaluated for sqe's own request, so the
// match type cannot be trusted.
func (pe *policyEval) matchResource(m *polResMatcher, r *request) (mt matchType, unknown bool) {
	if r.st == nil {
		return m.matchType(r.res, r.elemScopes, r.evalCtx()), false
	}
	saved := r.st.exprFailed
	r.st.exprFailed = false
	mt = m.matchType(r.res, r.elemScopes, r.evalCtx())
	unknown = r.st.exprFailed
	r.st.exprFailed = saved || unknown
	return mt, unknown
}

func (pe *policyEval) matchingItem(r *request, res *result) *itemEval {
	switch pe.ptype {
	case PolicyTypeDataMask:
		return firstMatch(r, pe.mask, nil, pe.id)
	case PolicyTypeRowFilter:
		return firstMatch(r, pe.rowFilter, nil, pe.id)
	}
	if it := firstMatch(r, pe.deny, pe.denyEx, pe.id); it != nil {
		return it
	}
	if !res.determined {
		return firstMatch(r, pe.allow, pe.allowEx, pe.id)
	}
	return nil
}

// firstMatch returns the first item that matches and no exception
// excepts. r.st.matchedUnknown then tells whether it matched only because
// a condition could not be evaluated.
func firstMatch(r *request, items, exceptions []*itemEval, policyID int64) *itemEval {
	var ret *itemEval
	unknown := false
	for _, it := range items {
		if it.match(r, policyID) {
			ret = it
			unknown = r.st.matchedUnknown
			break
		}
	}
	if ret != nil {
		for _, ex := range exceptions {
			if ex.match(r, policyID) {
				if ex.kind == itemAllowEx && r.st.matchedUnknown && !r.st.exceptedUnknown {
					r.st.exceptedUnknown, r.st.exceptedBy, r.st.exceptedByTag = true, policyID, r.isTag
				}
				r.st.matchedUnknown = false
				return nil
			}
		}
	}
	r.st.matchedUnknown = unknown
	return ret
}

func (pe *policyEval) applyItem(it *itemEval, res *result, mt matchType) {
	reason := ""
	if res.req.st.matchedUnknown {
		reason = reasonUnknownCondition
	}
	switch it.kind {
	case itemMask:
		// RangerDefaultDataMaskPolicyItemEvaluator: the matched item's mask
		// replaces what an earlier (lower-priority) policy set.
		if mi := it.item.DataMaskInfo; mi != nil {
			t := mi.DataMaskType
			res.maskType = &t
			res.maskCondition = strPtrOrNil(resolveForResult(mi.ConditionExpr, res.req))
			res.maskedValue = strPtrOrNil(resolveForResult(mi.ValueExpr, res.req))
			res.hasInfo = true
			res.determined = true
			res.priority = pe.priority
			res.policyID = pe.id
			res.fromTag = pe.isTag
			pe.updateResult(res, mt, true, "")
		}
	case itemRowFilter:
		if fi := it.item.RowFilterInfo; fi != nil {
			res.filterExpr = strPtrOrNil(resolveForResult(fi.FilterExpr, res.req))
			res.hasInfo = true
		}
		if res.filterExpr != nil {
			pe.updateResult(res, mt, true, "")
		}
	default:
		pe.updateResult(res, mt, it.kind != itemDeny, reason)
	}
}

// resolveForResult resolves ${{...}} as Ranger does. Requests of a View
// keep the text: its expressions are resolved where the value's place in
// the SQL is known (see markRequestValues).
func resolveForResult(s string, r *request) string {
	if s == "" || r.strict || !hasRequestExpressions(s) {
		return s
	}
	return resolveRequestExpressions(s, r)
}

func strPtrOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// evaluateItems is RangerDefaultPolicyEvaluator.evaluatePolicyItems.
func (pe *policyEval) evaluateItems(r *request, mt matchType, res *result) {
	isAccessPolicy := pe.ptype == PolicyTypeAccess
	if len(r.st.allRequested) == 0 {
		if it := pe.matchingItem(r, res); it != nil {
			pe.applyItem(it, res, mt)
		} else if pe.denyAll && isAccessPolicy {
			pe.updateResult(res, mt, false, "matched deny-all-else policy")
		}
		return
	}
	if r.st.accessTypeResults == nil {
		r.st.accessTypeResults = map[string]*result{}
	}
	results := r.st.accessTypeResults
	for _, at := range r.st.allRequested {
		one := r.withAccess(at)
		oneRes := newResult(res.ptype, one)
		oneRes.setAuditFrom(res)
		if it := pe.matchingItem(one, oneRes); it != nil {
			pe.applyItem(it, oneRes, mt)
		} else if pe.denyAll && isAccessPolicy {
			pe.updateResult(oneRes, mt, false, "matched deny-all-else policy")
		}
		var allowRes, denyRes *result
		switch {
		case oneRes.allowed:
			allowRes = oneRes
		case oneRes.determined:
			denyRes = oneRes
		default:
			continue
		}
		old := results[at]
		if old == nil {
			if allowRes != nil {
				results[at] = allowRes
			} else {
				results[at] = denyRes
			}
		} else if old.allowed {
			if denyRes != nil {
				if pe.priority >= old.priority {
					results[at] = denyRes
				}
			} else if isAccessPolicy {
				if pe.priority > old.priority {
					results[at] = allowRes
				}
			} else if pe.priority >= old.priority {
				results[at] = allowRes
			}
		} else {
			if pe.priority >= old.priority && allowRes != nil && r.st.isAnyAccess {
				results[at] = allowRes
			} else if pe.priority > old.priority {
				if allowRes != nil {
					results[at] = allowRes
				} else if denyRes != nil {
					results[at] = denyRes
				}
			}
		}
		if r.st.isAnyAccess {
			if r.ignoreDescendantDeny && allowRes != nil {
				break
			} else if !r.ignoreDescendantDeny && denyRes != nil {
				break
			}
		}
	}
	if c := compositeResult(r, res); c != nil {
		res.setAccessFrom(c)
	}
}

func deriveFromGroup(r *request, group []string) *result {
	determined := true
	denied := false
	var deniedRes *result
	for _, at := range group {
		ar := r.st.accessTypeResults[at]
		if ar == nil {
			determined = false
			continue
		}
		if ar.allowed {
			return ar
		}
		denied = true
		if deniedRes == nil {
			deniedRes = ar
		}
	}
	if determined && denied {
		return deniedRes
	}
	return nil
}

func compositeResult(r *request, res *result) *result {
	if len(r.st.accessGroups) == 0 {
		return deriveFromGroup(r, r.st.allRequested)
	}
	determined := true
	allowed := false
	var allowRes *result
	for _, g := range r.st.accessGroups {
		gr := deriveFromGroup(r, g)
		if gr == nil {
			determined = false
			continue
		}
		if !gr.allowed {
			return gr
		}
		allowed = true
		if allowRes == nil {
			allowRes = gr
		}
	}
	if determined && allowed {
		return allowRes
	}
	if determined {
		out := newResult(res.ptype, r)
		out.setAuditFrom(res)
		out.setAllowed(true)
		return out
	}
	return nil
}

// ---- repositories and the engine ----

type repository struct {
	sd       *svcDef
	byType   map[int][]*policyEval // sorted by eval order
	byName   map[int][]*policyEval // mask/filter: sorted by name (empty resources)
	policies int
	isTag    bool
}

func newRepository(sd *svcDef, policies []*Policy, component string, lenient bool) *repository {
	repo := &repository{sd: sd, byType: map[int][]*policyEval{}, byName: map[int][]*policyEval{}, isTag: component != ""}
	for _, p := range policies {
		if p == nil {
			continue
		}
		repo.policies++
		if !p.Enabled() {
			continue
		}
		if component != "" {
			p = normalizeTagPolicy(p, component)
			if p == nil {
				continue
			}
		}
		pe := newPolicyEval(p, sd, lenient)
		pe.isTag = component != ""
		switch pe.ptype {
		case PolicyTypeAccess, PolicyTypeDataMask, PolicyTypeRowFilter:
			repo.byType[pe.ptype] = append(repo.byType[pe.ptype], pe)
		}
	}
	for t, l := range repo.byType {
		sort.SliceStable(l, func(i, j int) bool { return evalOrderLess(l[i], l[j]) })
		n := append([]*policyEval(nil), l...)
		sort.SliceStable(n, func(i, j int) bool { return nameLess(n[i], n[j]) })
		repo.byName[t] = n
	}
	return repo
}

// normalizeTagPolicy strips the component prefix ("hive:select" ->
// "select", "hive:MASK" -> "MASK") from a tag policy's items and drops
// items and accesses of other components, as Ranger does.
func normalizeTagPolicy(p *Policy, component string) *Policy {
	prefix := component + componentSep
	c := *p
	norm := func(items []*PolicyItem, mask bool) []*PolicyItem {
		var out []*PolicyItem
		for _, it := range items {
			if it == nil {
				continue
			}
			ni := *it
			ni.Accesses = nil
			hadAccesses := len(it.Accesses) > 0
			for _, a := range it.Accesses {
				if strings.HasPrefix(a.Type, prefix) {
					a.Type = strings.TrimPrefix(a.Type, prefix)
					ni.Accesses = append(ni.Accesses, a)
				} else if !strings.Contains(a.Type, componentSep) {
					ni.Accesses = append(ni.Accesses, a)
				}
			}
			if hadAccesses && len(ni.Accesses) == 0 && !bool(it.DelegateAdmin) {
				continue
			}
			if mask && it.DataMaskInfo != nil {
				mi := *it.DataMaskInfo
				if strings.HasPrefix(mi.DataMaskType, prefix) {
					mi.DataMaskType = strings.TrimPrefix(mi.DataMaskType, prefix)
				} else if strings.Contains(mi.DataMaskType, componentSep) {
					continue
				}
				ni.DataMaskInfo = &mi
			}
			out = append(out, &ni)
		}
		return out
	}
	c.PolicyItems = norm(p.PolicyItems, false)
	c.DenyPolicyItems = norm(p.DenyPolicyItems, false)
	c.AllowExceptions = norm(p.AllowExceptions, false)
	c.DenyExceptions = norm(p.DenyExceptions, false)
	c.DataMaskPolicyItems = norm(p.DataMaskPolicyItems, true)
	c.RowFilterPolicyItems = norm(p.RowFilterPolicyItems, false)
	if !p.AuditEnabled() && len(c.PolicyItems) == 0 && len(c.DenyPolicyItems) == 0 && len(c.AllowExceptions) == 0 &&
		len(c.DenyExceptions) == 0 && len(c.DataMaskPolicyItems) == 0 && len(c.RowFilterPolicyItems) == 0 {
		return nil
	}
	return &c
}

// candidates returns the policies of a type that may match the request,
// in Ranger's evaluation order.
func (repo *repository) candidates(r *request, ptype int) []*policyEval {
	if ptype != PolicyTypeAccess && (r.res == nil || len(r.res.keys()) == 0) {
		return repo.byName[ptype]
	}
	return repo.byType[ptype]
}

// engine evaluates requests against one service's policies, tag policies,
// roles and tags.
type engine struct {
	sd          *svcDef
	repo        *repository
	tagSD       *svcDef
	tagRepo     *repository
	zones       *zoneSet // nil without security zones
	auditMode   string
	superUsers  map[string]bool
	superGroups map[string]bool
	auditExUser map[string]bool
	auditExGrp  map[string]bool
	auditExRole map[string]bool
	// auditFilters and tagAuditFilters are the resource and tag
	// services' ranger.plugin.audit.filters; auditFilterErr is set when
	// either does not parse, and every access is then audited.
	auditFilters    []*auditFilter
	tagAuditFilters []*auditFilter
	auditFilterErr  error
	roles           *roleIndex
	tags            *tagIndex
	userStore       *UserStore
	lenient         bool
	// geo are the service-def's geolocation enrichers.
	geo []*geoEnricher
	// scriptFailures counts condition scripts that failed while they ran.
	scriptFailures atomic.Uint64
}

// splitSet is the set of the comma-separated names in s, and of more.
func splitSet(s string, more ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			m[p] = true
		}
	}
	for _, l := range more {
		for _, p := range l {
			m[p] = true
		}
	}
	return m
}

type engineInput struct {
	policies    *ServicePolicies
	roles       *Roles
	tags        *ServiceTags
	userStore   *UserStore
	superUsers  []string
	superGroups []string
	lenient     bool
	zones       map[string]*ZoneInfo
	scriptLimit time.Duration // 0: defaultScriptTimeLimit
	// geoOpen opens the files of the service-def's geolocation enrichers
	// (nil: the file system).
	geoOpen GeolocationOpener
	// auditExcluded are the plugin's own audit exclusions, beside the
	// service config's (WithAuditExclusions).
	auditExcluded AuditExclusions
}

func newEngine(in engineInput) *engine {
	sp := in.policies
	e := &engine{lenient: in.lenient, userStore: in.userStore}
	e.sd = newSvcDef(sp.ServiceDef, "")
	e.sd.scriptFailures = &e.scriptFailures
	e.sd.scriptLimit = in.scriptLimit
	e.repo = newRepository(e.sd, sp.Policies, "", in.lenient)
	e.zones = newZoneSet(e.sd, sp.ServiceDef, in.zones, in.lenient)
	e.auditMode = sp.AuditMode
	cfg := sp.ServiceConfig
	e.superUsers = splitSet(cfg["ranger.plugin.super.users"])
	e.superGroups = splitSet(cfg["ranger.plugin.super.groups"])
	for _, u := range in.superUsers {
		e.superUsers[u] = true
	}
	for _, g := range in.superGroups {
		e.superGroups[g] = true
	}
	e.auditExUser = splitSet(cfg["ranger.plugin.audit.exclude.users"], in.auditExcluded.Users)
	e.auditExGrp = splitSet(cfg["ranger.plugin.audit.exclude.groups"], in.auditExcluded.Groups)
	e.auditExRole = splitSet(cfg["ranger.plugin.audit.exclude.roles"], in.auditExcluded.Roles)
	e.auditFilters, e.auditFilterErr = parseAuditFilters(e.sd, cfg)
	if tp := sp.TagPolicies; tp != nil && tp.ServiceDef != nil {
		e.tagSD = newSvcDef(tp.ServiceDef, e.sd.name)
		e.tagSD.scriptFailures = &e.scriptFailures
		e.tagSD.scriptLimit = in.scriptLimit
		e.tagRepo = newRepository(e.tagSD, tp.Policies, e.sd.name, in.lenient)
		if e.auditFilterErr == nil {
			e.tagAuditFilters, e.auditFilterErr = parseAuditFilters(e.tagSD, tp.ServiceConfig)
		}
	}
	if e.auditFilterErr != nil {
		e.auditFilters, e.tagAuditFilters = nil, nil
		e.auditMode = "audit-all"
	}
	if sp.ServiceDef != nil {
		e.geo = newGeoEnrichers(sp.ServiceDef.ContextEnrichers, in.geoOpen)
	}
	e.roles = newRoleIndex(in.roles)
	if in.tags != nil {
		e.tags = newTagIndex(e.sd, in.tags)
	}
	return e
}

func (e *engine) isSuperUser(user string, groups map[string]bool) bool {
	if e.superUsers[user] {
		return true
	}
	for g := range groups {
		if e.superGroups[g] {
			return true
		}
	}
	return false
}

// prepare fills in what Ranger's request processor adds: the user's roles,
// the {USER}/{OWNER} tokens, the user store's attributes and the tags.
func (e *engine) prepare(r *request) {
	if r.groups == nil {
		r.groups = map[string]bool{}
	}
	if !r.rolesSet {
		r.roles = e.roles.rolesFor(r.user, r.groups)
		r.rolesSet = true
	}
	if r.st == nil {
		r.st = &evalState{}
	}
	owner := ""
	if r.res != nil {
		owner = r.res.owner
	}
	if t := r.st.tokens; t == nil || t["USER"] != r.user || (owner != "" && t["OWNER"] != owner) {
		nt := make(map[string]string, len(t)+2)
		for k, v := range t {
			nt[k] = v
		}
		nt["USER"] = r.user
		if owner != "" {
			nt["OWNER"] = owner
		}
		r.st.tokens = nt
		r.ctx = nil
	}
	if r.userAttrs == nil && e.userStore != nil {
		r.userAttrs = e.userStore.UserAttrMapping[r.user]
		if r.groupAttrs == nil {
			r.groupAttrs = e.userStore.GroupAttrMapping
		}
	}
	if !r.tagsSet {
		if e.tags != nil {
			r.tags = e.tags.find(r)
		}
		r.tagsSet = true
	}
	r.sd, r.zones = e.sd, e.zones
	if !r.enriched {
		r.enriched = true
		r.geo = e.geo
		if len(e.geo) > 0 && r.clientIP != "" {
			if r.context == nil {
				r.context = map[string]any{}
			}
			for _, ge := range e.geo {
				ge.enrich(r.clientIP, r.context)
			}
		}
	}
}

// contextValue returns the request-context attribute name and whether
// its value is known. Ranger reads an attribute nothing set as null, and
// so does a request of Ranger's own fixtures; for sqe's own requests
// (strict) an absent attribute is known only when a geolocation enricher
// that sets attributes of that name could locate the client IP address
// with its file, and did not find it; anything else may have been set by
// an enricher or a host sqe does not have, so its value is unknown.
func (r *request) contextValue(name string) (any, bool) {
	if v, ok := r.context[name]; ok {
		return v, true
	}
	if !r.strict {
		return nil, true
	}
	if _, ok := ipv4Number(r.clientIP); !ok {
		return nil, false
	}
	covered := false
	for _, ge := range r.geo {
		if strings.HasPrefix(name, ge.prefix) {
			if ge.db == nil {
				return nil, false
			}
			covered = true
		}
	}
	return nil, covered
}

// candidateSource supplies the policies that may apply to a request. The
// engine's own repositories supply every policy; a View supplies those of
// the caller's principals (the per-principal index).
type candidateSource interface {
	resource(r *request, ptype int) []*policyEval
	tag(r *request, tagType string, ptype int) []*policyEval
}

type repoCandidates struct{ e *engine }

func (c repoCandidates) resource(r *request, ptype int) []*policyEval {
	return c.e.repoFor(r).candidates(r, ptype)
}

func (c repoCandidates) tag(_ *request, _ string, ptype int) []*policyEval {
	if c.e.tagRepo == nil {
		return nil
	}
	return c.e.tagRepo.byType[ptype]
}

// evaluate is RangerPolicyEngineImpl.evaluatePolicies for one request.
func (e *engine) evaluate(r *request, ptype int) *result {
	if e.zones == nil || r.zone != "" {
		return e.evaluateWith(r, ptype, repoCandidates{e})
	}
	return e.evaluateZoned(r, ptype)
}

// evaluateZoned is Ranger's zone-aware evaluation: a request that matches
// one zone is evaluated with that zone's policies; one that matches none,
// or several for a specific access type, with the unzoned policies; one
// for any access that matches several, with each zone's in turn until one
// allows.
func (e *engine) evaluateZoned(r *request, ptype int) *result {
	e.prepare(r)
	all, _ := e.zones.matched(r.res, r.evalCtx())
	if len(all) == 0 || (len(all) > 1 && !r.isAccessTypeAny()) {
		return e.evaluateWith(r, ptype, repoCandidates{e})
	}
	var res *result
	for _, z := range sortedKeys(all) {
		zr := *r
		zr.zone = z
		zr.st = &evalState{tokens: r.st.tokens}
		zr.ctx = nil
		res = e.evaluateWith(&zr, ptype, repoCandidates{e})
		if res.allowed {
			break
		}
	}
	return res
}

func (e *engine) evaluateWith(r *request, ptype int, cs candidateSource) *result {
	e.prepare(r)
	if r.isAccessTypeAny() {
		r.st.allRequested = e.sd.allAccess
		r.st.isAnyAccess = true
		if !r.ignoreDescendantDeny {
			r.st.accessGroups = nil
			for _, a := range r.st.allRequested {
				r.st.accessGroups = append(r.st.accessGroups, []string{a})
			}
		}
	}
	res := e.evaluateOne(r, ptype, cs)
	if ptype == PolicyTypeAccess {
		e.applyAuditFilters(r, res)
	}
	return res
}

func (e *engine) newResult(r *request, ptype int) *result {
	res := newResult(ptype, r)
	switch e.auditMode {
	case "audit-all":
		res.setAudited(true)
	case "audit-none":
		res.setAudited(false)
	default:
		if e.repoFor(r).policies == 0 && e.tagRepo == nil {
			res.setAudited(true)
		}
	}
	excluded := e.auditExUser[r.user]
	for g := range r.groups {
		excluded = excluded || e.auditExGrp[g]
	}
	for role := range r.roles {
		excluded = excluded || e.auditExRole[role]
	}
	if excluded {
		res.setAudited(false)
	}
	return res
}

func (e *engine) evaluateOne(r *request, ptype int, cs candidateSource) *result {
	super := e.isSuperUser(r.user, r.groups)
	res := e.newResult(r, ptype)
	if super || r.accessType == "_super_user" {
		res.setAllowed(super)
		res.determined = true
		res.policyID = -1
		res.priority = math.MaxInt32
		res.reason = "superuser"
	}
	e.evaluateTags(r, ptype, res, cs)

	allowedByTags := res.determined && res.allowed
	deniedByTags := res.determined && !res.allowed
	if e.repoFor(r).policies > 0 {
		res.determined = false
		for _, pe := range cs.resource(r, ptype) {
			if !pe.retrievable(r) {
				continue
			}
			switch pe.applicable(r.accessTime) {
			case triFalse:
				continue
			case triUnknown:
				// A policy sqe cannot place in time: only what it takes away counts.
				saved := r.restrictOnly
				r.restrictOnly = true
				e.step(pe, r, ptype, res, deniedByTags)
				r.restrictOnly = saved
			default:
				e.step(pe, r, ptype, res, deniedByTags)
			}
			if res.auditDetermined && res.determined {
				break
			}
		}
		if !res.determined {
			if deniedByTags {
				res.setAllowed(false)
			} else if allowedByTags {
				res.setAllowed(true)
			}
			if !res.allowed {
				res.determined = true
			}
		}
		if res.allowed {
			res.determined = true
		}
		r.st.accessTypeResults = nil
		r.st.isAnyAccess = false
	}
	return res
}

// retrievable reports whether Ranger's resource tries would hand the
// policy to the request (RangerResourceEvaluatorsRetriever): only when its
// resources can match the whole requested resource, database, table and
// column. Ranger's evaluation loop relies on that: an allow from a policy
// without deny items ends it, which is right only when every policy left
// to evaluate could have applied. sqe's candidate lists are wider (per
// database and table, or every policy), so the others are skipped here;
// they could not change the result but that shortcut.
func (pe *policyEval) retrievable(r *request) bool {
	if r.res == nil || len(r.res.keys()) == 0 {
		return true // Ranger evaluates every policy for an empty resource
	}
	for _, m := range pe.matchers {
		if mt, unknown := pe.matchResource(m, r); mt != mtNone || unknown {
			return true
		}
	}
	return false
}

func (e *engine) step(pe *policyEval, r *request, ptype int, res *result, deniedByTags bool) {
	if deniedByTags {
		if res.priority >= pe.priority {
			res.determined = true
		}
	} else if res.allowed {
		if ptype == PolicyTypeAccess {
			if res.priority > pe.priority {
				res.determined = true
			}
		} else if res.priority >= pe.priority {
			res.determined = true
		}
	}
	pe.evaluate(r, res)
	if res.allowed && !pe.hasDeny {
		res.determined = true
	}
}

type tagPolicyEval struct {
	pe  *policyEval
	tag *tagForEval
}

// tagCandidates is RangerPolicyRepository.getLikelyMatchPolicyEvaluators for tags.
func (e *engine) tagCandidates(r *request, ptype int, cs candidateSource) []tagPolicyEval {
	if e.tagRepo == nil || len(r.tags) == 0 {
		return nil
	}
	var out []tagPolicyEval
	for _, t := range r.tags {
		if t.applicable(r.accessTime) == triFalse {
			continue
		}
		tr := &accessResource{elems: map[string]any{"tag": t.Type}}
		for _, pe := range cs.tag(r, t.Type, ptype) {
			if !e.tagPolicyInZone(pe, r.zone) || pe.applicable(r.accessTime) == triFalse {
				continue
			}
			ok := false
			for _, m := range pe.matchers {
				if m.matchType(tr, nil, r.evalCtx()) != mtNone {
					ok = true
					break
				}
			}
			if ok {
				out = append(out, tagPolicyEval{pe, t})
			}
		}
	}
	switch ptype {
	case PolicyTypeAccess:
		sort.SliceStable(out, func(i, j int) bool { return evalOrderLess(out[i].pe, out[j].pe) })
	case PolicyTypeDataMask:
		sort.SliceStable(out, func(i, j int) bool {
			a, b := matchTypeRank(out[i].tag.MatchType), matchTypeRank(out[j].tag.MatchType)
			if a != b {
				return a < b
			}
			return nameLess(out[i].pe, out[j].pe)
		})
	case PolicyTypeRowFilter:
		sort.SliceStable(out, func(i, j int) bool { return nameLess(out[i].pe, out[j].pe) })
	}
	return out
}

func (r *request) forTag(t *tagForEval) *request {
	c := *r
	owner := ""
	if r.res != nil {
		owner = r.res.owner
	}
	c.res = &accessResource{elems: map[string]any{"tag": t.Type}, owner: owner}
	c.curTag = t
	c.tagMatch = t.MatchType
	c.isTag = true
	return &c
}

// evaluateTags is RangerPolicyEngineImpl.evaluateTagPolicies.
func (e *engine) evaluateTags(r *request, ptype int, res *result, cs candidateSource) {
	for _, tp := range e.tagCandidates(r, ptype, cs) {
		tr := r.forTag(tp.tag)
		tres := newResult(ptype, tr)
		tres.setAccessFrom(res)
		tres.setAuditFrom(res)
		// A policy or a tag sqe cannot place in time: only what it takes
		// away counts.
		if tp.pe.applicable(r.accessTime) == triUnknown || tp.tag.applicable(r.accessTime) == triUnknown {
			tr.restrictOnly = true
		}
		tp.pe.evaluate(tr, tres)
		if tres.allowed && !tp.pe.hasDeny {
			tres.determined = true
		}
		if tres.audited {
			res.setAuditFrom(tres)
		}
		if !res.determined {
			if tres.determined {
				res.setAccessFrom(tres)
			} else if !res.allowed && tres.allowed {
				res.setAccessFrom(tres)
			}
		}
		if res.auditDetermined && res.determined {
			break
		}
	}
	if res.allowed {
		res.determined = true
	}
}
