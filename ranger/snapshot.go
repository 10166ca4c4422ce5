package ranger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// Snapshot is a compiled, immutable Ranger policy set: the service's
// policies, its tag policies, roles, tags and user store. It implements
// policy.Snapshot and is safe for concurrent use.
type Snapshot struct {
	version uint64
	eng     *engine
	idx     *principalIndex
	tagIdx  *principalIndex
	zoneIdx map[string]*principalIndex // the policies of each security zone
	dbFor   func(policy.TableName) string
	now     func() time.Time
	// writeChecks: row filters check written rows (WithWriteChecks).
	writeChecks bool
	shared      *sharedCache // decisions by View fingerprint and table; nil when disabled

	minuteClock bool // decisions depend on the time of day (script conditions)
	// statementTables: decisions depend on every table the statement
	// accesses (accessed-together conditions; View.ForStatementTables)
	statementTables bool
	transitions     []time.Time // instants at which validity schedules change
	zoneErr         error
	info            Info
	// clientAddrAttr is the session attribute that holds the caller's
	// IP address (WithClientAddressAttribute).
	clientAddrAttr string
}

// TableTags returns the tags the snapshot's tag download gives t's
// columns (see policy.TagSource): lower-cased column name to upper-cased
// tag types, "*" for the table's own tags. Resources named by patterns
// are not listed; Ranger's tag policies match them through the engine.
func (s *Snapshot) TableTags(_ context.Context, t policy.TableName) (map[string][]string, error) {
	if s.eng == nil {
		return nil, nil
	}
	return s.eng.tags.tableTags(s.dbFor(t), t.Table), nil
}

var _ policy.TagSource = (*Snapshot)(nil)

// GeolocationErrors lists the service-def's geolocation enrichers whose
// file could not be read. Their location attributes are unknown: every
// condition that reads one counts against the caller.
func (s *Snapshot) GeolocationErrors() []error {
	if s.eng == nil {
		return nil
	}
	var out []error
	for _, ge := range s.eng.geo {
		if ge.err != nil {
			out = append(out, ge.err)
		}
	}
	return out
}

// ScriptFailures counts the condition scripts that failed while they ran
// in this snapshot's evaluations (each failure made its item count
// against the caller). Decisions are cached, so a failure is counted when
// a decision is made, not for each statement that reuses it.
func (s *Snapshot) ScriptFailures() uint64 {
	if s.eng == nil {
		return 0
	}
	return s.eng.scriptFailures.Load()
}

// Info describes what a snapshot was built from.
type Info struct {
	ServiceName      string
	PolicyVersion    int64
	RoleVersion      int64
	TagVersion       int64
	UserStoreVersion int64
	Policies         int // the unzoned policies
	ZonePolicies     int // the policies of the security zones
	Zones            int
	TagPolicies      int
	Roles            int
	TaggedResources  int
}

var _ policy.Snapshot = (*Snapshot)(nil)

// errNoServiceDef is returned for a download without a service-def.
var errNoServiceDef = errors.New("ranger: the policies carry no serviceDef")

func compileSnapshot(b *Bundle, cfg *config) (*Snapshot, error) {
	if b == nil || b.ServiceDef == nil {
		return nil, errNoServiceDef
	}
	sp := &b.ServicePolicies
	hasDB, hasTable := false, false
	for _, r := range sp.ServiceDef.Resources {
		if r == nil {
			continue
		}
		switch r.Name {
		case "database":
			hasDB = true
		case "table":
			hasTable = true
		}
	}
	if !hasDB || !hasTable {
		return nil, fmt.Errorf("ranger: service-def %q has no database and table resources (sqe needs the hive service-def)", sp.ServiceDef.Name)
	}
	var tags *ServiceTags
	if cfg.tags {
		tags = b.Tags
	}
	var roles *Roles
	if cfg.roles {
		roles = b.Roles
	}
	zones, zerr := parseZones(sp.SecurityZones)
	eng := newEngine(engineInput{
		policies:      sp,
		zones:         zones,
		roles:         roles,
		tags:          tags,
		userStore:     b.UserStore,
		superUsers:    cfg.superUsers,
		superGroups:   cfg.superGroups,
		scriptLimit:   cfg.scriptLimit,
		auditExcluded: cfg.auditExcl,
		geoOpen:       cfg.geoOpener(),
	})
	s := &Snapshot{
		version:     policy.NextVersion(),
		eng:         eng,
		idx:         newPrincipalIndex(),
		tagIdx:      newPrincipalIndex(),
		dbFor:       cfg.databaseFor,
		now:         cfg.now,
		writeChecks: cfg.writeChecks,
		shared:      newSharedCache(cfg.cacheSize),

		clientAddrAttr: cfg.clientAddrAttr,
	}
	if zerr != nil {
		s.zoneErr = fmt.Errorf("%w: %v", policy.ErrAccessDenied, zerr)
	}
	index := func(ix *principalIndex, repo *repository, add func(*policyEval)) {
		if repo == nil {
			return
		}
		for _, pt := range []int{PolicyTypeAccess, PolicyTypeDataMask, PolicyTypeRowFilter} {
			for i, pe := range repo.byType[pt] {
				pe.seq = i
				add(pe)
				s.noteTime(pe)
			}
		}
	}
	index(s.idx, eng.repo, s.idx.addResourcePolicy)
	index(s.tagIdx, eng.tagRepo, s.tagIdx.addTagPolicy)
	if eng.zones != nil {
		s.zoneIdx = map[string]*principalIndex{}
		for _, z := range eng.zones.names {
			ix := newPrincipalIndex()
			index(ix, eng.zones.repos[z], ix.addResourcePolicy)
			s.zoneIdx[z] = ix
		}
	}
	if eng.tags != nil && eng.tags.timed {
		s.minuteClock = true
		s.transitions = append(s.transitions, eng.tags.transitions...)
	}
	slices.SortFunc(s.transitions, func(a, b time.Time) int { return a.Compare(b) })
	s.transitions = slices.CompactFunc(s.transitions, func(a, b time.Time) bool { return a.Equal(b) })
	s.info = Info{
		ServiceName:   sp.ServiceName,
		PolicyVersion: version(sp.PolicyVersion),
		Policies:      len(sp.Policies),
		Zones:         len(zones),
		RoleVersion:   -1,
		TagVersion:    -1,
	}
	for _, zi := range zones {
		s.info.ZonePolicies += len(zi.Policies)
	}
	if sp.TagPolicies != nil {
		s.info.TagPolicies = len(sp.TagPolicies.Policies)
	}
	if roles != nil {
		s.info.RoleVersion = version(roles.RoleVersion)
		s.info.Roles = len(roles.RangerRoles)
	}
	if tags != nil {
		s.info.TagVersion = version(tags.TagVersion)
		s.info.TaggedResources = len(tags.ServiceResources)
	}
	s.info.UserStoreVersion = -1
	if b.UserStore != nil {
		s.info.UserStoreVersion = version(b.UserStore.UserStoreVersion)
	}
	return s, nil
}

func (s *Snapshot) noteTime(pe *policyEval) {
	for _, v := range pe.validity {
		if v.hasRecurrences() {
			s.minuteClock = true
		}
		s.transitions = append(s.transitions, v.transitions()...)
	}
	for _, ci := range pe.condInfo {
		if ci.timeSensitive {
			s.minuteClock = true
		}
		if ci.readsStatement {
			s.statementTables = true
		}
	}
	for _, items := range [][]*itemEval{pe.allow, pe.deny, pe.allowEx, pe.denyEx, pe.mask, pe.rowFilter} {
		for _, it := range items {
			if requestValuesReadTime(it.item) {
				// The filter's or mask's values change with the time
				// of the request, so must the View's fingerprint.
				s.minuteClock = true
			}
			for _, ci := range it.info {
				if ci.timeSensitive {
					s.minuteClock = true
				}
				if ci.readsStatement {
					s.statementTables = true
				}
			}
		}
	}
}

// Version identifies the snapshot; it changes with every publication.
func (s *Snapshot) Version() uint64 { return s.version }

// Info describes what the snapshot was built from.
func (s *Snapshot) Info() Info { return s.info }

// View resolves the user's principals: the user, the user's groups (and
// those the user store maps the user to), the public group, and the roles
// the user holds (User.Roles and the Ranger roles that name the user or a
// group, closed over role membership). Active roles follow User.PrimaryRole
// and User.SecondaryRoles as in package policy; a primary or secondary role
// the user does not hold is an error wrapping policy.ErrAccessDenied.
func (s *Snapshot) View(u session.User) (policy.View, error) {
	return s.view(u)
}

func (s *Snapshot) view(u session.User) (*View, error) {
	u = u.Clone()
	groupSet := map[string]bool{}
	for _, g := range u.Groups {
		if g != "" {
			groupSet[g] = true
		}
	}
	if us := s.eng.userStore; us != nil {
		for _, g := range us.UserGroupMapping[u.Name] {
			if g != "" {
				groupSet[g] = true
			}
		}
	}
	held := s.eng.roles.rolesFor(u.Name, groupSet)
	for _, r := range u.Roles {
		if r != "" {
			held[r] = true
		}
	}
	held = s.eng.roles.closure(held)
	active := held
	if !u.AllSecondary() {
		for _, r := range u.SecondaryRoles {
			if r != "" && !held[r] {
				return nil, fmt.Errorf("%w: secondary role %q is not granted to user %q", policy.ErrAccessDenied, r, u.Name)
			}
		}
	}
	if u.PrimaryRole != "" {
		if !held[u.PrimaryRole] {
			return nil, fmt.Errorf("%w: primary role %q is not granted to user %q", policy.ErrAccessDenied, u.PrimaryRole, u.Name)
		}
		if !u.AllSecondary() {
			active = s.eng.roles.closure(map[string]bool{u.PrimaryRole: true})
			for _, r := range u.SecondaryRoles {
				if r != "" {
					for x := range s.eng.roles.closure(map[string]bool{r: true}) {
						active[x] = true
					}
				}
			}
		}
	}
	attrs := map[string]string{}
	if us := s.eng.userStore; us != nil {
		for k, v := range us.UserAttrMapping[u.Name] {
			attrs[k] = v
		}
	}
	for k, v := range u.Attributes {
		attrs[k] = v
	}
	var groupAttrs map[string]map[string]string
	if us := s.eng.userStore; us != nil {
		groupAttrs = us.GroupAttrMapping
	}
	v := &View{
		snap:       s,
		user:       u,
		groupSet:   groupSet,
		groups:     sortedKeys(groupSet),
		heldSet:    held,
		activeSet:  active,
		held:       sortedKeys(held),
		attrs:      attrs,
		groupAttrs: groupAttrs,
		at:         s.now(),
	}
	if s.clientAddrAttr != "" {
		v.clientIP = strings.TrimSpace(u.Attributes[s.clientAddrAttr])
	}
	v.active = v.held
	if !sameSet(active, held) {
		v.active = sortedKeys(active)
	}
	v.fp = v.fingerprint()
	return v, nil
}

func (s *Snapshot) timeEpoch(at time.Time) (int, bool) {
	if len(s.transitions) == 0 {
		return 0, false
	}
	return sort.Search(len(s.transitions), func(i int) bool { return s.transitions[i].After(at) }), true
}

// sameSet reports whether a and b are the same map.
func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// requestValuesReadTime reports whether a request expression of the
// item's row filter or CUSTOM mask may read the time of the request (or
// cannot be compiled, in which case the filter fails closed anyway).
func requestValuesReadTime(it *PolicyItem) bool {
	if it == nil {
		return false
	}
	var texts []string
	if it.RowFilterInfo != nil {
		texts = append(texts, it.RowFilterInfo.FilterExpr)
	}
	if it.DataMaskInfo != nil {
		texts = append(texts, it.DataMaskInfo.ValueExpr)
	}
	for _, text := range texts {
		if !hasRequestExpressions(text) {
			continue
		}
		for _, m := range reReqExpr.FindAllStringSubmatch(text, -1) {
			if sc, err := compileExpr(m[1]); err != nil || sc.timeSensitive {
				return true
			}
		}
	}
	return false
}
