package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sqe-project/sqe/session"
)

// Reasons recorded in Decision.DeniedBy when no deny rule matched.
const (
	// ReasonNoAllow: the table has allow rules, none of which matched.
	ReasonNoAllow = "no allow rule"
	// ReasonDefaultDeny: no allow rule governs the table and the file's
	// default is deny.
	ReasonDefaultDeny = "default: deny"
	// ReasonDefaultAllow is recorded in Decision.AllowedBy when no allow
	// rule governs the table and the file's default is allow.
	ReasonDefaultAllow = "default: allow"
)

// pin is one of the View's principals that has rules somewhere. Rules that
// grant or shape access (allow, row filters, masks) apply only from active
// pins; rules that take away (deny, restricted) from every pin.
type pin struct {
	pid    int32
	active bool
}

type fileView struct {
	// The defaults of what the native file has not: decisions by columns
	// and a policy revision.
	BaseView

	// The caller and the principals resolved for it, shared with the
	// snapshot's other Views for the same caller (see viewPrincipals).
	*viewPrincipals

	c         *Compiled
	merge     *viewMerge // nil unless mergeable
	cacheSize int32      // WithDecisionCacheSize

	mu   sync.Mutex
	tags *viewTags // the caller's tag bindings, resolved on first use
	// The Decision cache: the first Decisions (found by their Table) in
	// small, filled in order under mu and read without it; once both are
	// taken, the others in cache (under mu).
	small [2]atomic.Pointer[Decision]
	cache map[TableName]*Decision
}

// viewPrincipals is what a View resolves from its caller: a copy of the
// caller, the held and active roles and the pinned principals. It depends
// on nothing but the snapshot and the caller, and is not changed once
// built (the role names and the fingerprint, built on first use, are set
// once), so the snapshot's Views for the same caller share it (see
// snapshotMemo).
type viewPrincipals struct {
	user session.User // the caller's copy, without its Attributes
	// attrs are the caller's attributes: key and value pairs, sorted by
	// key; nil when User.Attributes is nil.
	attrs []string

	groups    []string // sorted, unique
	held      []int32  // role pids, sorted (so in name order)
	activeAll bool     // else the active roles are in extra
	mergeable bool
	mergeCost int32 // entries of the pinned principals
	pins      []pin
	extra     *viewExtra // nil for most callers
	hash      uint64     // the caller's hash in the memo

	names  atomic.Pointer[roleNameLists] // built on first use
	fpOnce sync.Once
	fp     string

	pinBuf  [6]pin
	heldBuf [6]int32
	userBuf [4]string // the user's lists, when short
}

// viewExtra holds what few Views need.
type viewExtra struct {
	active      []int32  // role pids, sorted, when not every held role is
	extraHeld   []string // held roles the snapshot does not know, sorted
	extraActive []string
	unresolved  []int32 // held principals the snapshot marks unresolved
}

// roleNameLists are a View's held and active role names.
type roleNameLists struct{ held, active []string }

// viewMerge is the adaptive merge's state (mu guards probes and started).
type viewMerge struct {
	probes  int
	started bool
	merged  atomic.Pointer[mergedIndex]
}

func (v *fileView) x() *viewExtra {
	if v.extra == nil {
		v.extra = &viewExtra{}
	}
	return v.extra
}

func (v *fileView) extraHeld() []string {
	if v.extra == nil {
		return nil
	}
	return v.extra.extraHeld
}

func (v *fileView) unresolved() []int32 {
	if v.extra == nil {
		return nil
	}
	return v.extra.unresolved
}

var _ View = (*fileView)(nil)

// View resolves u's principals against the snapshot: held roles are the
// closure of u.Roles, the file's roles for u.Name and for each of u.Groups;
// active roles follow u.PrimaryRole and u.SecondaryRoles. A primary or
// secondary role the user does not hold is an error wrapping
// ErrAccessDenied (ErrUnresolved when the user holds an unresolved
// principal through which the role might have been granted).
//
// The View pins the indexes of the principals it holds: Decide probes only
// those, for the resources (exact and wildcard table entries) that apply to
// the table. The View is safe for concurrent use, but meant for one
// statement: what it changes (its cached Decisions, its merged index) is
// its own. What never changes once built may be shared with the snapshot's
// other Views (see WithMemoSize): the principals resolved for the same
// caller (with the role lists and the fingerprint), and the read-only maps
// and row filters of Decisions that have the same content. Decide caches
// its answers: the *Decision it returns is shared by later calls for the
// same table, and, once the snapshot's memo knows what the caller's
// principals find for the table, by other Views too; it must not be
// modified (use Decision.Clone for a private copy).
func (c *Compiled) View(u session.User) (View, error) {
	v, err := c.view(u)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (c *Compiled) view(u session.User) (*fileView, error) {
	m := &c.memo
	var v *fileView
	var hash uint64
	keep := false // keep the principals in the memo
	if len(m.callers) > 0 {
		hash = m.callerHash(&u)
		if p := m.caller(hash, &u); p != nil {
			v = &fileView{viewPrincipals: p, c: c, cacheSize: int32(c.opts.decisionCache)}
			if p.mergeable {
				v.merge = &viewMerge{}
			}
			return v, nil
		}
		keep = m.seenCaller(hash)
	}
	if keep {
		// The memo keeps the principals alone, not the View.
		v = &fileView{viewPrincipals: &viewPrincipals{hash: hash}}
	} else {
		blk := &viewBlock{}
		v = &blk.v
		v.viewPrincipals = &blk.p
	}
	v.c, v.cacheSize = c, int32(c.opts.decisionCache)
	v.user, v.attrs = cloneUser(u, v.userBuf[:0])
	u = v.user
	held := idset{ids: v.heldBuf[:0]}
	for _, r := range u.Roles {
		if r == "" {
			continue
		}
		if pid, ok := c.roles[r]; ok {
			c.addClosure(&held, pid)
		} else {
			x := v.x()
			x.extraHeld = append(x.extraHeld, r)
		}
	}
	upid, hasUser := int32(0), false
	if u.Name != "" {
		if upid, hasUser = c.users[u.Name]; hasUser {
			for _, r := range c.edgesOf(upid) {
				c.addClosure(&held, r)
			}
		}
	}
	v.groups = sortedUnique(u.Groups)
	var gbuf [4]int32
	gpids := gbuf[:0]
	for _, g := range v.groups {
		if gpid, ok := c.groups[g]; ok {
			gpids = append(gpids, gpid)
			for _, r := range c.edgesOf(gpid) {
				c.addClosure(&held, r)
			}
		}
	}
	slices.Sort(held.ids)
	v.held = held.ids
	if x := v.extra; x != nil && len(x.extraHeld) > 1 {
		slices.Sort(x.extraHeld)
		x.extraHeld = slices.Compact(x.extraHeld)
	}

	if c.unresolved != nil {
		mark := func(pid int32) {
			if _, ok := c.unresolved[pid]; ok {
				x := v.x()
				x.unresolved = append(x.unresolved, pid)
			}
		}
		mark(0)
		if hasUser {
			mark(upid)
		}
		for _, g := range gpids {
			mark(g)
		}
		for _, r := range v.held {
			mark(r)
		}
	}

	if err := v.resolveActive(); err != nil {
		return nil, err
	}

	pins := v.pinBuf[:0]
	addPin := func(pid int32, active bool) {
		if n := int(c.pidOff[pid+1] - c.pidOff[pid]); n > 0 {
			pins = append(pins, pin{pid: pid, active: active})
			v.mergeCost += int32(n)
		}
	}
	addPin(0, true)
	if hasUser {
		addPin(upid, true)
	}
	for _, g := range gpids {
		addPin(g, true)
	}
	for _, r := range v.held {
		active := v.activeAll
		if !active {
			_, active = slices.BinarySearch(v.extra.active, r)
		}
		addPin(r, active)
	}
	v.pins = pins
	o := &c.opts
	v.mergeable = o.mergeBound > 0 && int(v.mergeCost) <= o.mergeBound && len(pins) >= max(o.mergeMinPins, 2)
	if v.mergeable {
		v.merge = &viewMerge{}
	}
	if keep {
		m.addCaller(v.viewPrincipals)
	}
	return v, nil
}

// viewBlock is a View and its principals in one allocation, for a caller
// the memo does not keep.
type viewBlock struct {
	v fileView
	p viewPrincipals
}

// resolveActive checks the primary and secondary roles and computes the
// active roles.
func (v *fileView) resolveActive() error {
	c, u := v.c, &v.user
	v.activeAll = true
	if !u.AllSecondary() {
		for _, r := range u.SecondaryRoles {
			if r != "" && !v.holdsName(r) {
				return v.notGranted("secondary", r)
			}
		}
	}
	if u.PrimaryRole == "" {
		return nil
	}
	if !v.holdsName(u.PrimaryRole) {
		return v.notGranted("primary", u.PrimaryRole)
	}
	if u.AllSecondary() {
		return nil
	}
	v.activeAll = false
	var act idset
	activate := func(name string) {
		if pid, ok := c.roles[name]; ok {
			c.addClosure(&act, pid)
		} else {
			x := v.x()
			x.extraActive = append(x.extraActive, name)
		}
	}
	activate(u.PrimaryRole)
	for _, r := range u.SecondaryRoles {
		if r != "" {
			activate(r)
		}
	}
	slices.Sort(act.ids)
	x := v.x()
	x.active = act.ids
	slices.Sort(x.extraActive)
	x.extraActive = slices.Compact(x.extraActive)
	return nil
}

func (v *fileView) holdsName(r string) bool {
	if pid, ok := v.c.roles[r]; ok {
		return v.holds(pid)
	}
	_, ok := slices.BinarySearch(v.extraHeld(), r)
	return ok
}

func (v *fileView) holds(pid int32) bool {
	_, ok := slices.BinarySearch(v.held, pid)
	return ok
}

func (v *fileView) notGranted(which, role string) error {
	if un := v.unresolved(); len(un) > 0 {
		p := un[0]
		v.c.counters.unreadable(FailUnresolved)
		return &UnresolvedError{
			User:      v.user.Name,
			Principal: v.c.principals[p],
			Reason:    v.c.unresolved[p],
			Detail:    fmt.Sprintf("%s role %q may be granted through it", which, role),
		}
	}
	v.c.counters.unreadable(FailRoleNotGranted)
	return fmt.Errorf("%w: %s role %q is not granted to user %q", ErrAccessDenied, which, role, v.user.Name)
}

// idset is a small set of pids: a slice, with a map once it grows.
type idset struct {
	ids []int32
	m   map[int32]struct{}
}

func (s *idset) has(id int32) bool {
	if s.m != nil {
		_, ok := s.m[id]
		return ok
	}
	return slices.Contains(s.ids, id)
}

func (s *idset) add(id int32) bool {
	if s.has(id) {
		return false
	}
	s.ids = append(s.ids, id)
	switch {
	case s.m != nil:
		s.m[id] = struct{}{}
	case len(s.ids) > 32:
		s.m = make(map[int32]struct{}, 2*len(s.ids))
		for _, x := range s.ids {
			s.m[x] = struct{}{}
		}
	}
	return true
}

// addClosure adds the role and every role it contains.
func (c *Compiled) addClosure(s *idset, role int32) {
	if !s.add(role) {
		return
	}
	var buf [16]int32
	stack := append(buf[:0], role)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range c.edgesOf(x) {
			if s.add(y) {
				stack = append(stack, y)
			}
		}
	}
}

// cloneUser copies u, its three lists and its attributes (as key and
// value pairs, sorted by key; nil when u.Attributes is nil) into buf, grown
// once when they do not fit. The copy's Attributes is nil.
func cloneUser(u session.User, buf []string) (session.User, []string) {
	c := session.User{Name: u.Name, PrimaryRole: u.PrimaryRole}
	ng, nr, ns, na := len(u.Groups), len(u.Roles), len(u.SecondaryRoles), len(u.Attributes)
	n := ng + nr + ns + 2*na
	if n > cap(buf) {
		buf = make([]string, 0, n)
	}
	buf = buf[:n]
	copy(buf, u.Groups)
	copy(buf[ng:], u.Roles)
	copy(buf[ng+nr:], u.SecondaryRoles)
	if u.Groups != nil {
		c.Groups = buf[:ng:ng]
	}
	if u.Roles != nil {
		c.Roles = buf[ng : ng+nr : ng+nr]
	}
	if u.SecondaryRoles != nil {
		c.SecondaryRoles = buf[ng+nr : ng+nr+ns : ng+nr+ns]
	}
	if u.Attributes == nil {
		return c, nil
	}
	attrs := buf[ng+nr+ns : n : n]
	// The keys, sorted, in the second half; then each pair in its place
	// (pair i overwrites keys that come before key i, or key i itself
	// once it has been read).
	keys := attrs[na:]
	i := 0
	for k := range u.Attributes {
		keys[i] = k
		i++
	}
	slices.Sort(keys)
	for i := 0; i < na; i++ {
		k := keys[i]
		attrs[2*i], attrs[2*i+1] = k, u.Attributes[k]
	}
	return c, attrs
}

// sortedUnique returns the non-empty strings of in, sorted and unique; in
// itself when it already is (in belongs to the View).
func sortedUnique(in []string) []string {
	ok := true
	for i, s := range in {
		if s == "" || i > 0 && in[i-1] >= s {
			ok = false
			break
		}
	}
	if ok {
		return in
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// roleNames returns the names of sorted role pids merged with sorted extra
// names (which the snapshot does not know, so never repeat one).
func (c *Compiled) roleNames(pids []int32, extra []string) []string {
	out := make([]string, 0, len(pids)+len(extra))
	i, j := 0, 0
	for i < len(pids) || j < len(extra) {
		if j == len(extra) || i < len(pids) && c.principals[pids[i]].Name < extra[j] {
			out = append(out, c.principals[pids[i]].Name)
			i++
		} else {
			out = append(out, extra[j])
			j++
		}
	}
	return out
}

// roleNameLists returns the held and active role names, building them on
// first use.
func (v *fileView) roleNameLists() *roleNameLists {
	if n := v.names.Load(); n != nil {
		return n
	}
	n := &roleNameLists{held: v.c.roleNames(v.held, v.extraHeld())}
	if v.activeAll {
		n.active = n.held
	} else {
		n.active = v.c.roleNames(v.extra.active, v.extra.extraActive)
	}
	if v.names.CompareAndSwap(nil, n) {
		return n
	}
	return v.names.Load()
}

// fingerprint encodes everything a View's decisions and the session's
// context functions depend on. Every string is length-prefixed and every
// list counted, so distinct inputs give distinct fingerprints.
func (v *fileView) fingerprint() string {
	c, u := v.c, &v.user
	var extraHeld, extraActive []string
	active := v.held
	if x := v.extra; x != nil {
		extraHeld = x.extraHeld
		if !v.activeAll {
			active, extraActive = x.active, x.extraActive
		}
	}
	if v.activeAll {
		extraActive = extraHeld
	}
	size := 64 + len(u.Name) + len(u.PrimaryRole)
	for _, l := range [][]string{v.groups, extraHeld, extraActive, u.SecondaryRoles} {
		for _, s := range l {
			size += len(s) + 4
		}
	}
	for _, pid := range v.held {
		size += 2 * (len(c.principals[pid].Name) + 4)
	}
	for _, s := range v.attrs {
		size += len(s) + 4
	}
	var b strings.Builder
	b.Grow(size)
	var num [20]byte
	int := func(n int) { b.Write(strconv.AppendInt(num[:0], int64(n), 10)) }
	str := func(s string) {
		int(len(s))
		b.WriteByte(':')
		b.WriteString(s)
	}
	list := func(tag byte, l []string) {
		b.WriteByte(tag)
		int(len(l))
		b.WriteByte('[')
		for _, s := range l {
			str(s)
		}
		b.WriteByte(']')
	}
	// roles writes the names of sorted pids merged with sorted extra
	// names, as roleNames lists them.
	roles := func(tag byte, pids []int32, extra []string) {
		b.WriteByte(tag)
		int(len(pids) + len(extra))
		b.WriteByte('[')
		i, j := 0, 0
		for i < len(pids) || j < len(extra) {
			if j == len(extra) || i < len(pids) && c.principals[pids[i]].Name < extra[j] {
				str(c.principals[pids[i]].Name)
				i++
			} else {
				str(extra[j])
				j++
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte('v')
	b.Write(strconv.AppendUint(num[:0], c.version, 10))
	b.WriteString(";u")
	str(u.Name)
	list('g', v.groups)
	roles('h', v.held, extraHeld)
	roles('a', active, extraActive)
	b.WriteByte('p')
	str(u.PrimaryRole)
	// As given: current_secondary_roles() reports them in this order.
	list('s', u.SecondaryRoles)
	b.WriteByte('t')
	int(len(v.attrs) / 2)
	b.WriteByte('[')
	for i := 0; i < len(v.attrs); i += 2 {
		str(v.attrs[i])
		b.WriteByte('=')
		str(v.attrs[i+1])
	}
	b.WriteByte(']')
	return b.String()
}

// Fingerprint encodes the snapshot version, the user name, the sorted
// groups, held and active roles, the primary and secondary roles and the
// sorted attributes. It is computed on first use.
func (v *fileView) Fingerprint() string {
	v.fpOnce.Do(func() { v.fp = v.fingerprint() })
	return v.fp
}

// User returns a copy of the session user the View was built for.
func (v *fileView) User() session.User {
	u := v.user.Clone()
	if v.attrs != nil {
		u.Attributes = make(map[string]string, len(v.attrs)/2)
		for i := 0; i < len(v.attrs); i += 2 {
			u.Attributes[v.attrs[i]] = v.attrs[i+1]
		}
	}
	return u
}

// HeldRoles implements View.
func (v *fileView) HeldRoles() []string { return v.roleNameLists().held }

// ActiveRoles implements View.
func (v *fileView) ActiveRoles() []string { return v.roleNameLists().active }

// SnapshotVersion returns the version of the snapshot the View pinned.
func (v *fileView) SnapshotVersion() uint64 { return v.c.version }

// Decide returns the caller's Decision for t. The result is cached and
// shared: callers must not modify it. A decision that depends on an
// unresolved principal the user holds is refused with an *UnresolvedError.
func (v *fileView) Decide(t TableName) (*Decision, error) {
	size := int(v.cacheSize)
	if size > 0 {
		if d := v.cached(t); d != nil {
			return d, nil
		}
	}
	d, err := v.decide(t)
	if err != nil {
		v.c.counters.RecordFailClosed(FailUnresolved)
		return nil, err
	}
	if size > 0 {
		d = v.store(t, d, size)
	}
	return d, nil
}

func (v *fileView) cached(t TableName) *Decision {
	for i := range v.small {
		d := v.small[i].Load()
		if d == nil {
			return nil // cache is used only once small is full
		}
		if d.Table == t {
			return d
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cache[t]
}

// store caches d unless another caller got there first (whose Decision
// is returned then), or the cache is full.
func (v *fileView) store(t TableName, d *Decision, size int) *Decision {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0 // taken small slots
	for i := range v.small {
		prev := v.small[i].Load()
		if prev == nil {
			break
		}
		if prev.Table == t {
			return prev
		}
		n++
	}
	if prev, ok := v.cache[t]; ok {
		return prev
	}
	switch {
	case n < len(v.small) && n < size:
		v.small[n].Store(d)
	case n+len(v.cache) < size:
		if v.cache == nil {
			v.cache = make(map[TableName]*Decision, 8)
		}
		v.cache[t] = d
	}
	return d
}

// mergedIndex is a View's principals' entries merged by resource.
type mergedIndex struct {
	byRid   map[int32]int32
	entries []mergedEntry
}

type mergedEntry struct {
	allow accessBits
	refs  []int32
}

func (v *fileView) decide(t TableName) (*Decision, error) {
	d := v.memoized(t)
	if d == nil {
		var refBuf [32]int32
		allow, governed, refs, err := v.evaluate(t, refBuf[:0])
		if err != nil {
			return nil, err
		}
		d = v.decisionFor(t, allow, governed, refs)
	}
	if v.c.tags != nil {
		return v.withTags(d)
	}
	return d, nil
}

// evaluate finds what applies to t: the access types the active principals
// allow, whether an allow rule governs t, and the applicable rules in rule
// order (appended to refs).
func (v *fileView) evaluate(t TableName, refs []int32) (allow accessBits, governed bool, _ []int32, _ error) {
	c := v.c
	k := tkey{strings.ToLower(t.Schema), strings.ToLower(t.Table)}
	var ridBuf [8]int32
	rids := c.resolve(k, ridBuf[:0])
	if v.extra != nil && len(v.extra.unresolved) > 0 {
		if err := v.checkUnresolved(t, rids); err != nil {
			return 0, false, nil, err
		}
	}
	for _, rid := range rids {
		governed = governed || c.governed[rid]
	}
	var m *mergedIndex
	if v.merge != nil {
		m = v.merge.merged.Load()
	}
	if m != nil {
		for _, rid := range rids {
			if i, ok := m.byRid[rid]; ok {
				me := &m.entries[i]
				allow |= me.allow
				refs = append(refs, me.refs...)
			}
		}
	} else if len(rids) > 0 && len(v.pins) > 0 {
		for _, rid := range rids {
			for _, p := range v.pins {
				ei, ok := c.probe.get(p.pid, rid)
				if !ok {
					continue
				}
				e := &c.entries[ei]
				rs := c.refs[e.off : e.off+e.n]
				switch {
				case p.active:
					allow |= e.allow
					refs = append(refs, rs...)
				case e.takeAway:
					refs = c.appendTakeAway(refs, rs)
				}
			}
		}
		if v.mergeable {
			v.probed(len(v.pins) * len(rids))
		}
	}
	if len(refs) > 1 {
		slices.Sort(refs)
		refs = slices.Compact(refs)
	}
	return allow, governed, refs, nil
}

// appendTakeAway appends the deny and restricted rules of rs.
func (c *Compiled) appendTakeAway(refs, rs []int32) []int32 {
	for _, ri := range rs {
		if k := c.rules[ri].kind; k == kindDeny || k == kindRestrict {
			refs = append(refs, ri)
		}
	}
	return refs
}

type decisionBlock struct {
	d       Decision
	filters [2]RowFilter
}

// decision builds the Decision from the access types the active principals
// allow, whether an allow rule governs the table, and the applicable rules
// in rule order.
func (c *Compiled) decision(t TableName, allow accessBits, governed bool, refs []int32) *Decision {
	// The Decision and (up to two) row filters in one allocation.
	blk := &decisionBlock{}
	blk.d.Table = t
	c.fillDecision(&blk.d, blk.filters[:0], allow, governed, refs)
	return &blk.d
}

// fillDecision sets d's access maps, row filters, masks and restricted
// columns (see decision). The row filters go to buf when they fit; either
// way d.RowFilters has no spare capacity, so that appending to a shared
// Decision's filters copies them.
func (c *Compiled) fillDecision(d *Decision, buf []RowFilter, allow accessBits, governed bool, refs []int32) {
	var reasons [7]string
	var denied accessBits
	filters := 0
	for _, ri := range refs {
		if c.rules[ri].kind == kindFilter {
			filters++
		}
	}
	switch {
	case filters == 0:
	case filters <= cap(buf):
		d.RowFilters = buf[:0:filters]
	default:
		d.RowFilters = make([]RowFilter, 0, filters)
	}
	for _, ri := range refs {
		r := &c.rules[ri]
		switch r.kind {
		case kindDeny:
			if nb := r.bits &^ denied; nb != 0 {
				for i := range Accesses {
					if nb&(1<<i) != 0 {
						reasons[i] = c.ruleName(r)
					}
				}
				denied |= nb
			}
		case kindRestrict:
			for _, cs := range c.cols[r.cols.off : r.cols.off+r.cols.n] {
				col := c.str(r.rid, cs)
				if _, ok := d.Restricted[col]; ok {
					continue
				}
				if d.Restricted == nil {
					d.Restricted = map[string]string{}
				}
				d.Restricted[col] = c.ruleName(r)
			}
		}
	}
	for _, ri := range refs {
		r := &c.rules[ri]
		switch r.kind {
		case kindFilter:
			f := RowFilter{Expr: c.str(r.rid, r.text), Policy: c.ruleName(r)}
			switch r.mask {
			case checkItself:
				f.Check = f.Expr
			case checkOther:
				f.Check = c.str(r.rid, r.cols)
			}
			d.RowFilters = append(d.RowFilters, f)
		case kindMask:
			col := c.str(r.rid, r.text)
			if _, ok := d.Restricted[col]; ok {
				continue
			}
			if _, ok := d.Masks[col]; ok {
				continue
			}
			if d.Masks == nil {
				d.Masks = map[string]Mask{}
			}
			d.Masks[col] = c.masks[r.mask]
		}
	}
	if denied == 0 {
		// No deny rule: the Decision's access maps are the shared ones.
		switch {
		case governed:
			d.Allowed, d.DeniedBy = allowedMaps[allow&allAccess], noAllowMaps[allow&allAccess]
			d.AllowedBy = c.allowedBy(allow&allAccess, refs)
		case c.defaultAllow:
			d.Allowed, d.AllowedBy = allowedMaps[allAccess], defaultAllowMaps[allAccess]
		default:
			d.Allowed, d.DeniedBy = allowedMaps[0], defaultDenyMap
		}
		return
	}
	var allowed accessBits
	for i, a := range Accesses {
		bit := accessBits(1) << i
		reason := reasons[i]
		if reason == "" {
			switch {
			case governed && allow&bit == 0:
				reason = ReasonNoAllow
			case !governed && !c.defaultAllow:
				reason = ReasonDefaultDeny
			}
		}
		if reason == "" {
			allowed |= bit
			continue
		}
		if d.DeniedBy == nil {
			d.DeniedBy = make(map[Access]string, len(Accesses)+1)
			d.DeniedBy[All] = reason
		}
		d.DeniedBy[a] = reason
	}
	d.Allowed = allowedMaps[allowed]
	if governed {
		d.AllowedBy = c.allowedBy(allowed, refs)
	} else {
		d.AllowedBy = defaultAllowMaps[allowed]
	}
}

// allowedBy names, for each type in allowed, the first allow rule in refs
// (rule order) that grants it.
func (c *Compiled) allowedBy(allowed accessBits, refs []int32) map[Access]string {
	if allowed == 0 {
		return nil
	}
	m := make(map[Access]string, len(Accesses)+1)
	rest := allowed
	for _, ri := range refs {
		r := &c.rules[ri]
		if r.kind != kindAllow || r.bits&rest == 0 {
			continue
		}
		name := c.ruleName(r)
		if rest == allAccess && r.bits&allAccess == allAccess {
			m[All] = name
		}
		for i, a := range Accesses {
			if r.bits&rest&(1<<i) != 0 {
				m[a] = name
			}
		}
		if rest &^= r.bits; rest == 0 {
			break
		}
	}
	return m
}

// checkUnresolved refuses a decision that could change if the user held
// more roles than the snapshot knows of: the user holds an unresolved
// principal (whose role grants or contained roles are unknown) and the
// table has rules for a role the View does not hold.
func (v *fileView) checkUnresolved(t TableName, rids []int32) error {
	c := v.c
	for _, rid := range rids {
		for _, e := range c.entries[c.ridOff[rid]:c.ridOff[rid+1]] {
			if c.isRole(e.pid) && !v.holds(e.pid) {
				p := v.extra.unresolved[0]
				return &UnresolvedError{
					Table:     t,
					User:      v.user.Name,
					Principal: c.principals[p],
					Reason:    c.unresolved[p],
					Detail:    fmt.Sprintf("the table has rules for role %q, which may be granted through it", c.principals[e.pid].Name),
				}
			}
		}
	}
	return nil
}

// probed counts n probes and, once they have cost as much as merging the
// pinned indexes would, merges them.
func (v *fileView) probed(n int) {
	m := v.merge
	v.mu.Lock()
	m.probes += n
	start := !m.started && m.probes >= int(v.mergeCost)
	if start {
		m.started = true
	}
	v.mu.Unlock()
	if start {
		m.merged.Store(v.merge1())
		v.c.counters.merged()
	}
}

// merge builds one index over the View's pins: per resource, what the
// active pins allow and the rules that apply (every rule of active pins,
// the deny and restricted rules of the others), in rule order.
func (v *fileView) merge1() *mergedIndex {
	c := v.c
	m := &mergedIndex{byRid: make(map[int32]int32, v.mergeCost)}
	for _, p := range v.pins {
		for _, ei := range c.entriesOf(p.pid) {
			e := &c.entries[ei]
			if !p.active && !e.takeAway {
				continue
			}
			i, ok := m.byRid[e.rid]
			if !ok {
				i = int32(len(m.entries))
				m.byRid[e.rid] = i
				m.entries = append(m.entries, mergedEntry{})
			}
			me := &m.entries[i]
			rs := c.refs[e.off : e.off+e.n]
			if p.active {
				me.allow |= e.allow
				me.refs = append(me.refs, rs...)
			} else {
				me.refs = c.appendTakeAway(me.refs, rs)
			}
		}
	}
	for i := range m.entries {
		me := &m.entries[i]
		slices.Sort(me.refs)
		me.refs = slices.Compact(me.refs)
	}
	return m
}
