package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sqe-project/sqe/session"
)

// Reasons recorded in Decision.DeniedBy when no deny rule matched.
const (
	// ReasonNoAllow: the table has allow rules, none of which matched.
	ReasonNoAllow = "no allow rule"
	// ReasonDefaultDeny: no allow rule governs the table and the file's
	// default is deny.
	ReasonDefaultDeny = "default: deny"
)

// RoleView is implemented by Views that resolve a role hierarchy (the
// native file's Views do). The slices are sorted and must not be modified.
type RoleView interface {
	View
	// HeldRoles returns every role the user holds: the granted roles and
	// every role they contain (current_available_roles()).
	HeldRoles() []string
	// ActiveRoles returns the roles active in the session: the primary role,
	// the active secondary roles and every role they contain.
	ActiveRoles() []string
}

// maxCachedDecisions bounds the per-View decision cache.
const maxCachedDecisions = 256

// pin is one of the View's principals with its compiled index. Rules that
// grant (allow, row filters, masks) apply only from active pins; rules that
// take away (deny, restricted) from every pin.
type pin struct {
	ix     *pindex
	active bool
}

type fileView struct {
	c      *Compiled
	user   session.User
	held   []string
	active []string
	pins   []pin
	fp     string

	mu    sync.Mutex
	cache map[TableName]*Decision
}

var _ RoleView = (*fileView)(nil)

// View resolves u's principals against the snapshot: held roles are the
// closure of u.Roles, the file's roles for u.Name and for each of u.Groups;
// active roles follow u.PrimaryRole and u.SecondaryRoles. A primary or
// secondary role the user does not hold is an error wrapping
// ErrAccessDenied.
//
// The View is safe for concurrent use. Decide caches its answers: the
// *Decision it returns is shared by later calls for the same table and must
// not be modified (use Decision.Clone for a private copy).
func (c *Compiled) View(u session.User) (View, error) {
	u = u.Clone()
	held := map[string]bool{}
	grant := func(r string) {
		if r == "" {
			return
		}
		for _, x := range c.closureOf(r) {
			held[x] = true
		}
	}
	for _, r := range u.Roles {
		grant(r)
	}
	if u.Name != "" {
		for _, r := range c.userRoles[u.Name] {
			grant(r)
		}
	}
	groups := sortedUnique(u.Groups)
	for _, g := range groups {
		for _, r := range c.groupRoles[g] {
			grant(r)
		}
	}
	heldList := sortedKeys(held)

	activeList := heldList
	if !u.AllSecondary() {
		for _, r := range u.SecondaryRoles {
			if r != "" && !held[r] {
				return nil, fmt.Errorf("%w: secondary role %q is not granted to user %q", ErrAccessDenied, r, u.Name)
			}
		}
	}
	if u.PrimaryRole != "" {
		if !held[u.PrimaryRole] {
			return nil, fmt.Errorf("%w: primary role %q is not granted to user %q", ErrAccessDenied, u.PrimaryRole, u.Name)
		}
		if !u.AllSecondary() {
			active := map[string]bool{}
			for _, x := range c.closureOf(u.PrimaryRole) {
				active[x] = true
			}
			for _, r := range u.SecondaryRoles {
				if r == "" {
					continue
				}
				for _, x := range c.closureOf(r) {
					active[x] = true
				}
			}
			activeList = sortedKeys(active)
		}
	}

	v := &fileView{c: c, user: u, held: heldList, active: activeList}
	add := func(k pkey, active bool) {
		if ix := c.index[k]; ix != nil {
			v.pins = append(v.pins, pin{ix: ix, active: active})
		}
	}
	if u.Name != "" {
		add(pkey{PrincipalUser, u.Name}, true)
	}
	for _, g := range groups {
		add(pkey{PrincipalGroup, g}, true)
	}
	add(pkey{kind: PrincipalPublic}, true)
	for _, r := range heldList {
		_, active := slices.BinarySearch(activeList, r)
		add(pkey{PrincipalRole, r}, active)
	}
	v.fp = fingerprint(c.version, &u, groups, heldList, activeList)
	return v, nil
}

func sortedUnique(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fingerprint encodes everything a View's decisions and the session's
// context functions depend on. Every string is length-prefixed and every
// list counted, so distinct inputs give distinct fingerprints.
func fingerprint(version uint64, u *session.User, groups, held, active []string) string {
	var b strings.Builder
	str := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	list := func(tag byte, l []string) {
		b.WriteByte(tag)
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte('[')
		for _, s := range l {
			str(s)
		}
		b.WriteByte(']')
	}
	b.WriteString("v")
	b.WriteString(strconv.FormatUint(version, 10))
	b.WriteString(";u")
	str(u.Name)
	list('g', groups)
	list('h', held)
	list('a', active)
	b.WriteString("p")
	str(u.PrimaryRole)
	// As given: current_secondary_roles() reports them in this order.
	list('s', u.SecondaryRoles)
	keys := make([]string, 0, len(u.Attributes))
	for k := range u.Attributes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString("t")
	b.WriteString(strconv.Itoa(len(keys)))
	b.WriteByte('[')
	for _, k := range keys {
		str(k)
		b.WriteByte('=')
		str(u.Attributes[k])
	}
	b.WriteByte(']')
	return b.String()
}

func (v *fileView) Fingerprint() string { return v.fp }

// User returns a copy of the session user the View was built for.
func (v *fileView) User() session.User { return v.user.Clone() }

func (v *fileView) HeldRoles() []string   { return v.held }
func (v *fileView) ActiveRoles() []string { return v.active }

// Decide returns the caller's Decision for t. The result is cached and
// shared: callers must not modify it.
func (v *fileView) Decide(t TableName) (*Decision, error) {
	v.mu.Lock()
	d, ok := v.cache[t]
	v.mu.Unlock()
	if ok {
		return d, nil
	}
	d = v.decide(t)
	v.mu.Lock()
	if prev, ok := v.cache[t]; ok {
		d = prev
	} else if len(v.cache) < maxCachedDecisions {
		if v.cache == nil {
			v.cache = make(map[TableName]*Decision, 4)
		}
		v.cache[t] = d
	}
	v.mu.Unlock()
	return d, nil
}

func bySeq(a, b *crule) int { return a.seq - b.seq }

func ordered(rs []*crule) []*crule {
	if len(rs) > 1 {
		slices.SortFunc(rs, bySeq)
		rs = slices.Compact(rs)
	}
	return rs
}

func (v *fileView) decide(t TableName) *Decision {
	k := tkey{strings.ToLower(t.Schema), strings.ToLower(t.Table)}
	var allow, deny, filter, mask, restrict []*crule
	collect := func(b *bucket, active bool) {
		deny = append(deny, b.deny...)
		restrict = append(restrict, b.restrict...)
		if active {
			allow = append(allow, b.allow...)
			filter = append(filter, b.filter...)
			mask = append(mask, b.mask...)
		}
	}
	for _, p := range v.pins {
		if b := p.ix.exact[k]; b != nil {
			collect(b, p.active)
		}
		for _, w := range p.ix.wild {
			if w.pat.match(k) {
				collect(w.b, p.active)
			}
		}
	}
	allow, deny, filter, mask, restrict = ordered(allow), ordered(deny), ordered(filter), ordered(mask), ordered(restrict)

	c := v.c
	governed := c.governed[k]
	for _, pat := range c.governedWild {
		if governed {
			break
		}
		governed = pat.match(k)
	}

	d := &Decision{Table: t, Allowed: make(map[Access]bool, len(Accesses)+1)}
	var allowed accessBits
	for _, r := range allow {
		allowed |= r.allow
	}
	for i, a := range Accesses {
		bit := accessBits(1) << i
		reason := ""
		for _, r := range deny {
			if r.deny&bit != 0 {
				reason = r.name
				break
			}
		}
		if reason == "" {
			switch {
			case governed && allowed&bit == 0:
				reason = ReasonNoAllow
			case !governed && !c.defaultAllow:
				reason = ReasonDefaultDeny
			}
		}
		if reason == "" {
			d.Allowed[a] = true
			continue
		}
		if d.DeniedBy == nil {
			d.DeniedBy = make(map[Access]string, len(Accesses)+1)
			d.DeniedBy[All] = reason
		}
		d.DeniedBy[a] = reason
	}
	if d.DeniedBy == nil {
		d.Allowed[All] = true
	}

	for _, r := range filter {
		d.RowFilters = append(d.RowFilters, RowFilter{Expr: r.filter, Policy: r.name})
	}
	for _, r := range restrict {
		for _, col := range r.columns {
			if _, ok := d.Restricted[col]; ok {
				continue
			}
			if d.Restricted == nil {
				d.Restricted = map[string]string{}
			}
			d.Restricted[col] = r.name
		}
	}
	for _, r := range mask {
		if _, ok := d.Masks[r.column]; ok {
			continue
		}
		if _, ok := d.Restricted[r.column]; ok {
			continue
		}
		if d.Masks == nil {
			d.Masks = map[string]Mask{}
		}
		d.Masks[r.column] = r.mask
	}
	return d
}
