package ranger

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

// ReasonNoPolicy is recorded in Decision.DeniedBy and Decision.Restricted
// when no Ranger policy allowed the access.
const ReasonNoPolicy = "no policy"

// ColumnsNeededError is returned by View.Decide when the caller's decision
// for a table depends on column names that no policy spells out: a
// column-level grant that covers only some columns, a column pattern
// (ssn*, an excluded pattern), or a mask or tag that applies to every
// column. View.DecideColumnInfo (or DecideColumns) with the table's
// columns answers exactly. It wraps policy.ErrNeedsColumns, which matches
// policy.ErrAccessDenied, so a caller that does not handle it fails
// closed.
type ColumnsNeededError struct {
	Table  policy.TableName
	Reason string
}

func (e *ColumnsNeededError) Error() string {
	return fmt.Sprintf("%v: %s: the decision depends on the table's columns: %s", policy.ErrAccessDenied, e.Table, e.Reason)
}

// Unwrap returns policy.ErrNeedsColumns.
func (e *ColumnsNeededError) Unwrap() error { return policy.ErrNeedsColumns }

// View answers policy questions for one caller. It implements policy.View
// (with the caller's held and active roles, the snapshot version and
// decisions by columns; Ranger policies name no revision, check no named
// columns and allow no functions by name), and is safe for concurrent
// use. Returned Decisions are shared and must not be modified.
type View struct {
	policy.BaseView

	snap       *Snapshot
	user       session.User
	groupSet   map[string]bool
	groups     []string
	heldSet    map[string]bool
	activeSet  map[string]bool
	held       []string
	active     []string
	attrs      map[string]string
	groupAttrs map[string]map[string]string
	tokens     map[string]string // {USER}, shared by the View's requests (read-only)
	pins       []*pbucket
	tagPins    []*pbucket
	zonePins   map[string][]*pbucket // the caller's buckets in each zone's index
	at         time.Time
	fp         string
	// clientIP is the caller's IP address (WithClientAddressAttribute);
	// location holds the geolocation enrichers' attributes for it, made
	// by prep and shared, read-only, by the View's requests.
	clientIP string
	location map[string]any
	// requested are the statement's tables (ForStatementTables), when
	// requestedSet.
	requested    []*accessResource
	requestedSet bool

	prepOnce sync.Once // pins and tokens, made when a decision is first evaluated

	mu    sync.Mutex
	cache []cacheEntry
}

type cacheEntry struct {
	key decisionKey
	decided
}

// decisionKey identifies a question to a View: a table and,
// for DecideColumns, its columns.
type decisionKey struct {
	schema, table string
	known         bool
	cols          string
}

// prep makes what evaluating a decision needs.
func (v *View) prep() {
	v.prepOnce.Do(func() {
		v.pins = v.snap.idx.pins(v.user.Name, v.groups, v.held)
		v.tagPins = v.snap.tagIdx.pins(v.user.Name, v.groups, v.held)
		if len(v.snap.zoneIdx) > 0 {
			v.zonePins = make(map[string][]*pbucket, len(v.snap.zoneIdx))
			for z, ix := range v.snap.zoneIdx {
				v.zonePins[z] = ix.pins(v.user.Name, v.groups, v.held)
			}
		}
		v.tokens = map[string]string{"USER": v.user.Name}
		if eng := v.snap.eng; len(eng.geo) > 0 && v.clientIP != "" {
			v.location = map[string]any{}
			for _, ge := range eng.geo {
				ge.enrich(v.clientIP, v.location)
			}
		}
	})
}

func (v *View) lookup(k decisionKey) (decided, bool) {
	for i := range v.cache {
		if v.cache[i].key == k {
			return v.cache[i].decided, true
		}
	}
	return decided{}, false
}

type decided struct {
	d   *policy.Decision
	err error
}

var _ policy.View = (*View)(nil)

func (v *View) fingerprint() string {
	size := 64 + len(v.user.Name) + len(v.user.PrimaryRole)
	for _, l := range [][]string{v.groups, v.held, v.active, v.user.SecondaryRoles} {
		for _, s := range l {
			size += len(s) + 4
		}
	}
	for k, x := range v.attrs {
		size += len(k) + len(x) + 9
	}
	var b strings.Builder
	b.Grow(size)
	var num [20]byte
	writeInt := func(n int64) { b.Write(strconv.AppendInt(num[:0], n, 10)) }
	str := func(s string) {
		writeInt(int64(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	list := func(tag byte, l []string) {
		b.WriteByte(tag)
		writeInt(int64(len(l)))
		b.WriteByte('[')
		for _, s := range l {
			str(s)
		}
		b.WriteByte(']')
	}
	b.WriteString("ranger;v")
	b.Write(strconv.AppendUint(num[:0], v.snap.version, 10))
	b.WriteString(";u")
	str(v.user.Name)
	list('g', v.groups)
	list('h', v.held)
	list('a', v.active)
	b.WriteByte('p')
	str(v.user.PrimaryRole)
	list('s', v.user.SecondaryRoles)
	keys := sortedKeys(v.attrs)
	b.WriteByte('t')
	writeInt(int64(len(keys)))
	b.WriteByte('[')
	for _, k := range keys {
		str(k)
		b.WriteByte('=')
		str(v.attrs[k])
	}
	b.WriteByte(']')
	if n, ok := v.snap.timeEpoch(v.at); ok {
		b.WriteString(";e")
		writeInt(int64(n))
	}
	if v.snap.minuteClock {
		b.WriteString(";m")
		writeInt(minuteKey(v.at))
	}
	return b.String()
}

// Fingerprint identifies everything the View's decisions depend on: the
// snapshot version, the user, groups, held and active roles, the primary
// and secondary roles and the attributes, and, when policies depend on
// time, the validity period (and the minute) the View was built in.
func (v *View) Fingerprint() string { return v.fp }

// ForStatementTables implements policy.StatementTablesView: it returns
// the View that decides the tables of a statement that accesses exactly
// tables (every base table it reads or writes). Ranger's accessed-together
// conditions (RangerHiveResourcesAccessedTogetherCondition and its
// not-together form) read this set; a View that was not given it counts
// them against the caller, as it does a condition whose spec names
// columns (the set holds tables). When no policy of the snapshot has
// such a condition, the View itself is returned.
func (v *View) ForStatementTables(tables []policy.TableName) policy.View {
	if !v.snap.statementTables {
		return v
	}
	nv := &View{
		snap: v.snap, user: v.user, groupSet: v.groupSet, groups: v.groups,
		heldSet: v.heldSet, activeSet: v.activeSet, held: v.held, active: v.active,
		attrs: v.attrs, groupAttrs: v.groupAttrs, at: v.at, clientIP: v.clientIP,
		requestedSet: true,
	}
	seen := map[[2]string]bool{}
	var keys []string
	for _, t := range tables {
		db := v.snap.dbFor(t)
		k := [2]string{db, t.Table}
		if seen[k] {
			continue
		}
		seen[k] = true
		nv.requested = append(nv.requested, &accessResource{elems: map[string]any{"database": db, "table": t.Table}})
		keys = append(keys, strconv.Itoa(len(db))+":"+db+strconv.Itoa(len(t.Table))+":"+t.Table)
	}
	sort.Strings(keys)
	nv.fp = v.fp + ";r" + strconv.Itoa(len(keys)) + "[" + strings.Join(keys, "") + "]"
	return nv
}

var _ policy.StatementTablesView = (*View)(nil)

// User returns a copy of the session user.
func (v *View) User() session.User { return v.user.Clone() }

// HeldRoles returns every role the user holds, sorted.
func (v *View) HeldRoles() []string { return v.held }

// ActiveRoles returns the roles active in the session, sorted.
func (v *View) ActiveRoles() []string { return v.active }

// SnapshotVersion returns the version of the snapshot the View was built on.
func (v *View) SnapshotVersion() uint64 { return v.snap.version }

// resource implements candidateSource.
func (v *View) resource(r *request, ptype int) []*policyEval {
	db, _ := r.res.elems["database"].(string)
	tbl, _ := r.res.elems["table"].(string)
	if r.zone != "" {
		if ix := v.snap.zoneIdx[r.zone]; ix != nil {
			return ix.resourceCandidates(v.zonePins[r.zone], ptype, db, tbl)
		}
	}
	return v.snap.idx.resourceCandidates(v.pins, ptype, db, tbl)
}

func (v *View) tag(_ *request, tagType string, ptype int) []*policyEval {
	return v.snap.tagIdx.tagCandidates(v.tagPins, ptype, tagType)
}

// viewRequest is a request allocated with its state.
type viewRequest struct {
	r   request
	st  evalState
	ctx evalCtx
}

func (v *View) newRequest(elems map[string]any, accessType string) *request {
	return v.newRequestOn(&accessResource{elems: elems}, accessType, nil)
}

// newRequestOn makes a request on res, in vr when not nil.
func (v *View) newRequestOn(res *accessResource, accessType string, vr *viewRequest) *request {
	v.prep()
	if vr == nil {
		vr = &viewRequest{}
	} else {
		*vr = viewRequest{}
	}
	vr.st.tokens = v.tokens
	vr.r = request{
		res:                  res,
		accessType:           accessType,
		user:                 v.user.Name,
		groups:               v.groupSet,
		roles:                v.heldSet,
		active:               v.activeSet,
		rolesSet:             true,
		userAttrs:            v.attrs,
		groupAttrs:           v.groupAttrs,
		accessTime:           v.at,
		ignoreDescendantDeny: true,
		strict:               true,
		st:                   &vr.st,
		clientIP:             v.clientIP,
		context:              v.location,
		geo:                  v.snap.eng.geo,
		enriched:             true,
		requested:            v.requested,
		requestedSet:         v.requestedSet,
	}
	vr.ctx = evalCtx{tokens: v.tokens, req: &vr.r}
	vr.r.ctx = &vr.ctx
	return &vr.r
}

// decideState serves one decision: the requests on one table share their
// candidate policies and, per resource, their tags.
type decideState struct {
	v     *View
	cands map[candKey][]*policyEval
	tags  map[resKey][]*tagForEval
	res   map[resKey]*accessResource
	// scratch holds the requests whose state nothing reads after the
	// evaluation (see eval's keep).
	scratch viewRequest
	// zones caches each resource's security zone; zoneErr is the first
	// resource whose zone could not be chosen (the decision then fails).
	zones   map[resKey]string
	zoneErr error
}

// resKey identifies a database, table or column resource.
type resKey struct {
	v   [3]string
	has uint8
}

type candKey struct {
	ptype     int
	tag       bool
	db, table string // for a tag: table is the tag type
	zone      string
}

func (v *View) newDecideState() *decideState { return &decideState{v: v} }

// resource implements candidateSource.
func (s *decideState) resource(r *request, ptype int) []*policyEval {
	db, _ := r.res.elems["database"].(string)
	tbl, _ := r.res.elems["table"].(string)
	k := candKey{ptype: ptype, db: db, table: tbl, zone: r.zone}
	if l, ok := s.cands[k]; ok {
		return l
	}
	l := s.v.resource(r, ptype)
	if s.cands == nil {
		s.cands = map[candKey][]*policyEval{}
	}
	s.cands[k] = l
	return l
}

func (s *decideState) tag(r *request, tagType string, ptype int) []*policyEval {
	k := candKey{ptype: ptype, tag: true, table: tagType}
	if l, ok := s.cands[k]; ok {
		return l
	}
	l := s.v.tag(r, tagType, ptype)
	if s.cands == nil {
		s.cands = map[candKey][]*policyEval{}
	}
	s.cands[k] = l
	return l
}

// eval evaluates one request. keep is false when the caller reads only the
// result: the request is then made in scratch and overwritten by the next.
func (s *decideState) eval(elems map[string]any, accessType string, ptype int, keep bool) (*result, *request) {
	var k resKey
	for i, name := range [3]string{"database", "table", "column"} {
		if x, ok := elems[name].(string); ok {
			k.v[i] = x
			k.has |= 1 << i
		}
	}
	ar := s.res[k]
	if ar == nil {
		ar = &accessResource{elems: elems}
		if s.res == nil {
			s.res = map[resKey]*accessResource{}
		}
		s.res[k] = ar
	}
	var into *viewRequest
	if !keep {
		into = &s.scratch
	}
	r := s.v.newRequestOn(ar, accessType, into)
	if zs := s.v.snap.eng.zones; zs != nil {
		z, ok := s.zones[k]
		if !ok {
			var err error
			z, err = zs.zoneFor(ar, r.evalCtx())
			if err != nil {
				if s.zoneErr == nil {
					s.zoneErr = err
				}
				// Nothing allows the request; the decision fails anyway.
				return newResult(ptype, r), r
			}
			if s.zones == nil {
				s.zones = map[resKey]string{}
			}
			s.zones[k] = z
		}
		r.zone = z
	}
	if s.v.snap.eng.tags == nil {
		return s.v.snap.eng.evaluateWith(r, ptype, s), r
	}
	if tags, ok := s.tags[k]; ok {
		r.tags, r.tagsSet = tags, true
	}
	res := s.v.snap.eng.evaluateWith(r, ptype, s)
	if s.tags == nil {
		s.tags = map[resKey][]*tagForEval{}
	}
	s.tags[k] = r.tags
	return res, r
}

func policyName(res *result) string {
	if res.policyID < 0 {
		if st := res.req.st; !res.allowed && st != nil && st.exceptedUnknown {
			kind := "ranger policy "
			if st.exceptedByTag {
				kind = "ranger tag policy "
			}
			return kind + strconv.FormatInt(st.exceptedBy, 10) + ": allow exception " + reasonUnknownCondition
		}
		return ReasonNoPolicy
	}
	name := "ranger policy " + strconv.FormatInt(res.policyID, 10)
	if res.fromTag {
		name = "ranger tag policy " + strconv.FormatInt(res.policyID, 10)
	}
	if !res.allowed && res.reason == reasonUnknownCondition {
		name += ": deny " + reasonUnknownCondition
	}
	return name
}

// Decide returns the caller's Decision for the table. When the decision
// depends on column names that no policy spells out, it returns a
// *ColumnsNeededError; DecideColumns then answers.
func (v *View) Decide(t policy.TableName) (*policy.Decision, error) {
	return v.cached(t, nil, false)
}

// DecideColumns returns the caller's Decision for the table given all its
// columns: every column without an allowed select is Restricted.
func (v *View) DecideColumns(t policy.TableName, columns []string) (*policy.Decision, error) {
	return v.cached(t, columns, true)
}

// DecideColumnInfo implements policy.View: DecideColumns with the
// columns' names (Ranger policies read no types or tags of the catalog).
func (v *View) DecideColumnInfo(t policy.TableName, columns []policy.ColumnInfo) (*policy.Decision, error) {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.Name
	}
	return v.cached(t, names, true)
}

// viewCacheSize bounds the decisions one View keeps.
const viewCacheSize = 256

func (v *View) cached(t policy.TableName, cols []string, known bool) (*policy.Decision, error) {
	k := decisionKey{schema: t.Schema, table: t.Table, known: known}
	if known {
		var b strings.Builder
		for _, c := range cols {
			b.WriteString(lower(c))
			b.WriteByte(0)
		}
		k.cols = b.String()
	}
	v.mu.Lock()
	if d, ok := v.lookup(k); ok {
		v.mu.Unlock()
		return d.d, d.err
	}
	v.mu.Unlock()
	shared := v.snap.shared
	sk := sharedKey{v.fp, k}
	var dd decided
	found := false
	if shared != nil {
		dd, found = shared.get(sk)
	}
	if !found {
		v.prep()
		dd.d, dd.err = v.decide(t, cols, known)
		if shared != nil {
			shared.put(sk, dd)
		}
	}
	v.mu.Lock()
	if prev, ok := v.lookup(k); ok {
		dd = prev
	} else if len(v.cache) < viewCacheSize {
		v.cache = append(v.cache, cacheEntry{k, dd})
	}
	v.mu.Unlock()
	return dd.d, dd.err
}

// syntheticColumn stands for every column no policy names.
const syntheticColumn = "\x00"

type colResult struct {
	name    string
	allowed bool
	audited bool
	reason  string
	mask    *maskOutcome
	// nameRead: a script read the column's name (for syntheticColumn)
	nameRead bool
}

func (s *decideState) evalColumn(db, tbl, col string) colResult {
	elems := map[string]any{"database": db, "table": tbl, "column": col}
	res, _ := s.eval(elems, string(policy.Select), PolicyTypeAccess, false)
	// The policy that allowed or denied the column.
	cr := colResult{name: col, allowed: res.allowed, audited: res.audited, reason: policyName(res), nameRead: res.req.st.columnNameRead}
	if !res.allowed {
		return cr
	}
	mres, mr := s.eval(elems, string(policy.Select), PolicyTypeDataMask, true)
	cr.nameRead = cr.nameRead || mr.st.columnNameRead
	if mr.st.hasUncertain {
		cr.mask = &maskOutcome{restrict: fmt.Sprintf("ranger policy %d: mask condition sqe cannot evaluate", mr.st.uncertain)}
		return cr
	}
	if mres.maskType != nil {
		pol := policyName(mres)
		mo := realiseMask(mres, pol, mr)
		cr.mask = &mo
	}
	return cr
}

// namedColumns lists the columns the caller's candidate policies and the
// table's tags name, or reports why they cannot stand for the others.
func (s *decideState) namedColumns(db, tbl string) ([]string, string) {
	v := s.v
	tr := &request{res: &accessResource{elems: map[string]any{"database": db, "table": tbl}}}
	seen := map[string]bool{}
	var out []string
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	// The zones the table's columns can fall in: each has its policies.
	zones := []string{""}
	if zs := v.snap.eng.zones; zs != nil {
		c := v.newRequest(tr.res.elems, string(policy.Select)).evalCtx()
		m, _ := zs.matched(tr.res, c)
		for _, z := range sortedKeys(m) {
			if z != "" {
				zones = append(zones, z)
			}
		}
		for _, zm := range zs.matchers {
			if zm.column == nil || zm.m.matchType(tr.res, nil, c) == mtNone {
				continue
			}
			for _, col := range zm.column {
				if strings.ContainsAny(col, "*?") {
					return nil, fmt.Sprintf("security zone %q names columns by pattern", zm.zone)
				}
				add(lower(col))
			}
		}
	}
	for _, pt := range []int{PolicyTypeAccess, PolicyTypeDataMask} {
		for _, z := range zones {
			tr.zone = z
			if err := s.namedIn(tr, pt, add); err != "" {
				return nil, err
			}
		}
	}
	if ix := v.snap.eng.tags; ix != nil {
		r := v.newRequest(map[string]any{"database": db, "table": tbl}, string(policy.Select))
		r.st.tokens = map[string]string{"USER": v.user.Name}
		c := r.evalCtx()
		for _, tr := range ix.candidates(r) {
			if tr.m.matchType(r.res, nil, c) == mtNone {
				continue
			}
			if tr.colWild {
				return nil, fmt.Sprintf("tagged resource %d names columns by pattern", tr.sr.ID)
			}
			for _, col := range tr.columns {
				add(col)
			}
		}
	}
	return out, ""
}

// namedIn adds the columns the caller's candidate policies of type pt in
// tr's zone name, or reports why they cannot stand for the others.
func (s *decideState) namedIn(tr *request, pt int, add func(string)) string {
	for _, pe := range s.resource(tr, pt) {
		for _, m := range pe.matchers {
			if m.matchers == nil {
				continue
			}
			cm := m.matchers.get("column")
			if cm == nil || cm.matchAny {
				continue
			}
			if cm.dynamic {
				return fmt.Sprintf("ranger policy %d names columns with tokens or expressions", pe.id)
			}
			for _, vm := range cm.matchers {
				if vm.kind != vmStr {
					return fmt.Sprintf("ranger policy %d names columns by pattern", pe.id)
				}
				add(lower(vm.value))
			}
		}
	}
	return ""
}

func (v *View) decide(t policy.TableName, cols []string, known bool) (*policy.Decision, error) {
	if v.snap.zoneErr != nil {
		return nil, fmt.Errorf("%s: %w", t, v.snap.zoneErr)
	}
	s := v.newDecideState()
	d, err := v.decideIn(s, t, cols, known)
	if s.zoneErr != nil {
		// A request fell in more than one zone: nothing decided it.
		return nil, fmt.Errorf("%w: %s: %v", policy.ErrAccessDenied, t, s.zoneErr)
	}
	return d, err
}

func (v *View) decideIn(s *decideState, t policy.TableName, cols []string, known bool) (*policy.Decision, error) {
	db := v.snap.dbFor(t)
	tbl := t.Table
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{}}
	tableElems := map[string]any{"database": db, "table": tbl}
	deny := func(a policy.Access, reason string) {
		if d.DeniedBy == nil {
			d.DeniedBy = map[policy.Access]string{}
		}
		d.DeniedBy[a] = reason
	}
	// grant names the policy that allowed a.
	grant := func(a policy.Access, reason string) {
		if reason == ReasonNoPolicy {
			return
		}
		if d.AllowedBy == nil {
			d.AllowedBy = map[policy.Access]string{}
		}
		d.AllowedBy[a] = reason
	}
	// unaudited records an access Ranger would not audit.
	unaudited := func(a policy.Access) {
		if d.Unaudited == nil {
			d.Unaudited = map[policy.Access]bool{}
		}
		d.Unaudited[a] = true
	}
	for _, a := range []policy.Access{policy.Update, policy.Create, policy.Drop, policy.Alter, policy.Index, policy.Lock} {
		res, _ := s.eval(tableElems, string(a), PolicyTypeAccess, false)
		allowed := res.allowed
		reason := policyName(res)
		audited := res.audited
		if !allowed && a == policy.Create {
			// CREATE TABLE is authorised on the database in Hive.
			if dres, _ := s.eval(map[string]any{"database": db}, string(a), PolicyTypeAccess, false); dres.allowed {
				allowed, reason, audited = true, policyName(dres), dres.audited
			}
		}
		if !audited {
			unaudited(a)
		}
		if allowed {
			d.Allowed[a] = true
			grant(a, reason)
		} else {
			deny(a, reason)
		}
	}

	// select, column by column
	var results []colResult
	var other *colResult
	if known {
		for _, c := range cols {
			results = append(results, s.evalColumn(db, tbl, c))
		}
		if len(cols) == 0 {
			res, _ := s.eval(tableElems, string(policy.Select), PolicyTypeAccess, false)
			cr := colResult{allowed: res.allowed, audited: res.audited, reason: policyName(res), name: syntheticColumn}
			other = &cr
		}
	} else {
		named, why := s.namedColumns(db, tbl)
		if why != "" {
			return nil, &ColumnsNeededError{Table: t, Reason: why}
		}
		for _, c := range named {
			results = append(results, s.evalColumn(db, tbl, c))
		}
		cr := s.evalColumn(db, tbl, syntheticColumn)
		if cr.nameRead {
			return nil, &ColumnsNeededError{Table: t, Reason: "a condition script reads the column's name"}
		}
		other = &cr
	}
	anyAllowed := other != nil && other.allowed
	anyAudited := other != nil && other.audited
	for _, r := range results {
		anyAllowed = anyAllowed || r.allowed
		anyAudited = anyAudited || r.audited
	}
	if !anyAudited && (other != nil || len(results) > 0) {
		unaudited(policy.Select)
	}
	if !known && other != nil {
		if !other.allowed && anyAllowed {
			return nil, &ColumnsNeededError{Table: t, Reason: "select is allowed on some columns only (" + other.reason + " for the others)"}
		}
		if other.allowed && other.mask != nil && (other.mask.err != nil || other.mask.restrict != "" || other.mask.mask.Type != udf.TypeNone) {
			return nil, &ColumnsNeededError{Table: t, Reason: "a mask applies to columns no policy names"}
		}
	}
	if anyAllowed {
		d.Allowed[policy.Select] = true
		// The policy that allowed the first allowed column (or the table's
		// other columns) names the select grant.
		for _, r := range results {
			if r.allowed {
				grant(policy.Select, r.reason)
				break
			}
		}
		if d.AllowedBy[policy.Select] == "" && other != nil && other.allowed {
			grant(policy.Select, other.reason)
		}
		for _, r := range results {
			col := lower(r.name)
			if !r.allowed {
				if d.Restricted == nil {
					d.Restricted = map[string]string{}
				}
				d.Restricted[col] = r.reason
				continue
			}
			if r.mask == nil {
				continue
			}
			switch {
			case r.mask.err != nil:
				return nil, fmt.Errorf("%w: %s.%s: %v", policy.ErrAccessDenied, t, r.name, r.mask.err)
			case r.mask.restrict != "":
				if d.Restricted == nil {
					d.Restricted = map[string]string{}
				}
				d.Restricted[col] = r.mask.restrict
			case r.mask.mask.Type == udf.TypeNone:
				// unmasked: nothing to do
			default:
				if d.Masks == nil {
					d.Masks = map[string]policy.Mask{}
				}
				d.Masks[col] = r.mask.mask
			}
		}
	} else {
		reason := ReasonNoPolicy
		if other != nil {
			reason = other.reason
		} else if len(results) > 0 {
			reason = results[0].reason
		}
		deny(policy.Select, reason)
	}

	// row filter
	if d.Allowed[policy.Select] || d.Allowed[policy.Update] {
		res, rr := s.eval(tableElems, string(policy.Select), PolicyTypeRowFilter, true)
		if rr.st.hasUncertain {
			return nil, fmt.Errorf("%w: %s: ranger policy %d: row filter condition sqe cannot evaluate", policy.ErrAccessDenied, t, rr.st.uncertain)
		}
		if res.filterExpr != nil && strings.TrimSpace(*res.filterExpr) != "" {
			f, err := realiseFilter(*res.filterExpr, policyName(res), rr)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", policy.ErrAccessDenied, t, err)
			}
			if s.v.snap.writeChecks {
				f.Check = f.Expr
			}
			d.RowFilters = []policy.RowFilter{f}
		}
	}

	all := true
	for _, a := range policy.Accesses {
		if !d.Allowed[a] {
			all = false
			if d.DeniedBy[policy.All] == "" {
				deny(policy.All, d.DeniedBy[a])
			}
		}
	}
	if all {
		d.Allowed[policy.All] = true
		one := d.AllowedBy[policy.Accesses[0]]
		for _, a := range policy.Accesses {
			if d.AllowedBy[a] != one {
				one = ""
			}
		}
		if one != "" {
			grant(policy.All, one)
		}
	}
	return d, nil
}

// IsColumnsNeeded reports whether err asks for a column-aware decision.
func IsColumnsNeeded(err error) bool {
	var c *ColumnsNeededError
	return errors.As(err, &c)
}

// minuteKey names the part of a minute a time falls in: its first
// millisecond, or the rest. Time-of-day conditions change at most once a
// minute, and recurring validity schedules change at whole minutes (an
// interval starts) and a millisecond later (an interval's inclusive end
// has passed), so a decision holds for every time with the same key.
func minuteKey(t time.Time) int64 {
	ms := t.UnixMilli()
	minute, rest := ms/60000, ms%60000
	if rest < 0 {
		minute, rest = minute-1, rest+60000
	}
	key := minute * 2
	if rest != 0 {
		key++
	}
	return key
}
