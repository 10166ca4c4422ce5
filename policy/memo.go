package policy

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/sqe-project/sqe/session"
)

// snapshotMemo keeps what the snapshot's Views resolve and decide, for
// later Views to share: the callers' principals, and the contents of the
// Decisions.
//
// What a View resolves from its caller (viewPrincipals) depends on nothing
// but the snapshot and the caller, so a View for a caller the memo knows
// (the same user name, lists, roles and attributes) shares the principals
// an earlier View resolved (callers). Resolutions that fail are not kept.
//
// What a Decision holds besides its Table is a function of three things
// the evaluation finds: the access types the active principals allow,
// whether an allow rule governs the table, and the rules that apply, in
// rule order. Two Decides that find the same three, for whichever callers
// and tables, get Decisions of their own whose read-only maps and row
// filters are the memo's (bodies, keyed by those three).
//
// And what the evaluation finds is a function of the table name and of the
// View's pins (the principals it holds that have rules, and which of them
// are active). So when an evaluation finds a body that is in the memo
// already, the memo also remembers, per pins and table name, that body
// (a hit, with the Decision for that name), and a later Decide that finds
// its pins and table there skips the evaluation and returns the hit's
// Decision, shared and read-only. Views that hold an
// unresolved principal do not use hits: their Decides also check what the
// snapshot does not know.
//
// Callers and bodies are kept the second time they are seen (a caller
// or a body seen once costs nothing but its hash), hits when they are
// found. Callers, bodies and hits are each kept in a fixed number of slots
// (WithMemoSize), each slot holding one immutable entry, published
// with an atomic store; a key may sit in two neighbouring slots, and a new
// entry replaces one of them. Memory is bounded by the slot count, and no
// lock is taken.
type snapshotMemo struct {
	seed    maphash.Seed
	callers []atomic.Pointer[viewPrincipals]
	bodies  []atomic.Pointer[memoEntry]
	hits    []atomic.Pointer[memoHit]
	// The hashes of the callers and bodies last seen but not kept, by
	// home slot: what is seen a second time is kept.
	callersSeen []atomic.Uint64
	bodiesSeen  []atomic.Uint64
}

// memoEntry is one memoized Decision body. It is never changed once
// stored.
type memoEntry struct {
	hash     uint64
	allow    accessBits
	governed bool
	refs     []int32
	d        Decision // Table unset
	filters  [2]RowFilter
	refBuf   [8]int32
}

// memoHit records the body a View's pins found for a table name, and the
// Decision for that name, which every View that finds the hit returns (a
// returned Decision is read-only). It is never changed once stored.
type memoHit struct {
	hash   uint64
	table  TableName // as the caller named it (a private copy)
	pins   []pin
	body   *memoEntry
	d      Decision // body.d with Table set
	pinBuf [6]pin
}

// newSnapshotMemo returns a memo of at least n slots per kind (a power of
// two); none when n <= 0.
func newSnapshotMemo(n int) snapshotMemo {
	if n <= 0 {
		return snapshotMemo{}
	}
	size := 2
	for size < n && size < 1<<30 {
		size <<= 1
	}
	return snapshotMemo{
		seed:        maphash.MakeSeed(),
		callers:     make([]atomic.Pointer[viewPrincipals], size),
		bodies:      make([]atomic.Pointer[memoEntry], size),
		hits:        make([]atomic.Pointer[memoHit], size),
		callersSeen: make([]atomic.Uint64, size),
		bodiesSeen:  make([]atomic.Uint64, size),
	}
}

const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// mix64 finishes a hash, so that its low bits (the slot) and top bit (the
// slot's neighbour) depend on every input bit.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// bodyHash hashes a body's key.
func bodyHash(allow accessBits, governed bool, refs []int32) uint64 {
	h := uint64(fnvOffset) ^ uint64(allow)<<1
	if governed {
		h ^= 1
	}
	for _, r := range refs {
		h ^= uint64(uint32(r))
		h *= fnvPrime
	}
	return mix64(h)
}

// hitHash hashes a hit's key.
func (m *snapshotMemo) hitHash(pins []pin, t TableName) uint64 {
	h := uint64(fnvOffset)
	for _, p := range pins {
		x := uint64(uint32(p.pid)) << 1
		if p.active {
			x |= 1
		}
		h ^= x
		h *= fnvPrime
	}
	h ^= maphash.String(m.seed, t.Schema)
	h *= fnvPrime
	h ^= maphash.String(m.seed, t.Table)
	return mix64(h)
}

// memoSlots returns the two slots a hash may sit in: its home slot and the
// neighbour, in the order memoPut prefers them.
func memoSlots(h uint64, n int) (home, other uint64) {
	home = h & uint64(n-1)
	return home, home ^ 1
}

func (m *snapshotMemo) body(h uint64, allow accessBits, governed bool, refs []int32) *memoEntry {
	a, b := memoSlots(h, len(m.bodies))
	for _, i := range [2]uint64{a, b} {
		e := m.bodies[i].Load()
		if e != nil && e.hash == h && e.allow == allow && e.governed == governed && slices.Equal(e.refs, refs) {
			return e
		}
	}
	return nil
}

func (m *snapshotMemo) hit(h uint64, pins []pin, t TableName) *memoHit {
	a, b := memoSlots(h, len(m.hits))
	for _, i := range [2]uint64{a, b} {
		e := m.hits[i].Load()
		if e != nil && e.hash == h && e.table == t && slices.Equal(e.pins, pins) {
			return e
		}
	}
	return nil
}

// memoPut puts e in one of the two slots of hash h: an empty one if there is
// one, else the one the hash's top bit picks.
func memoPut[T any](s []atomic.Pointer[T], h uint64, e *T) {
	a, b := memoSlots(h, len(s))
	switch {
	case s[a].Load() == nil:
	case s[b].Load() == nil || h>>63 != 0:
		a = b
	}
	s[a].Store(e)
}

// copyOf returns a new Decision for t with the body's contents.
func (e *memoEntry) copyOf(t TableName) *Decision {
	d := new(Decision)
	*d = e.d
	d.Table = t
	return d
}

// memoized returns the memo's Decision for t when the memo knows what the
// View's pins find for t (shared, read-only: a statement's Decide then
// allocates nothing); nil when it does not.
func (v *fileView) memoized(t TableName) *Decision {
	m := &v.c.memo
	if len(m.hits) == 0 || len(v.unresolved()) > 0 {
		return nil
	}
	if e := m.hit(m.hitHash(v.pins, t), v.pins, t); e != nil {
		return &e.d
	}
	return nil
}

// decisionFor returns a new Decision for t from what the View's evaluation
// found (see evaluate), with the memo's contents when it has them, and
// records them for the View's pins and t.
func (v *fileView) decisionFor(t TableName, allow accessBits, governed bool, refs []int32) *Decision {
	c := v.c
	allow &= allAccess
	if !governed {
		// Without an allow rule on the table, what the principals allow
		// does not matter.
		allow = 0
	}
	m := &c.memo
	if len(m.bodies) == 0 {
		return c.decision(t, allow, governed, refs)
	}
	h := bodyHash(allow, governed, refs)
	if e := m.body(h, allow, governed, refs); e != nil {
		// The body is in use: remember it for the pins and t, so that
		// the next Decide for them skips the evaluation.
		if len(v.unresolved()) == 0 {
			m.addHit(v.pins, t, e)
		}
		return e.copyOf(t)
	}
	if !seen(m.bodiesSeen, h) {
		return c.decision(t, allow, governed, refs)
	}
	// The key, the body and (up to two) row filters in one allocation.
	e := &memoEntry{hash: h, allow: allow, governed: governed}
	if len(refs) <= len(e.refBuf) {
		e.refs = append(e.refBuf[:0:len(refs)], refs...)
	} else {
		e.refs = slices.Clone(refs)
	}
	c.fillDecision(&e.d, e.filters[:0], allow, governed, refs)
	memoPut(m.bodies, h, e)
	return e.copyOf(t)
}

// addHit records that pins find body e for t.
func (m *snapshotMemo) addHit(pins []pin, t TableName, e *memoEntry) {
	h := m.hitHash(pins, t)
	hit := &memoHit{hash: h, body: e}
	// The table name is copied (in one allocation): it may be part of a
	// longer string, the statement, that the memo should not keep alive.
	name := t.Schema + t.Table
	hit.table = TableName{name[:len(t.Schema)], name[len(t.Schema):]}
	hit.d = e.d
	hit.d.Table = hit.table
	if len(pins) <= len(hit.pinBuf) {
		hit.pins = append(hit.pinBuf[:0:len(pins)], pins...)
	} else {
		hit.pins = slices.Clone(pins)
	}
	memoPut(m.hits, h, hit)
}

// callerHash hashes a caller: its name, lists and attributes.
func (m *snapshotMemo) callerHash(u *session.User) uint64 {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(u.Name)
	h.WriteByte(0)
	h.WriteString(u.PrimaryRole)
	for _, l := range [3][]string{u.Groups, u.Roles, u.SecondaryRoles} {
		h.WriteByte(1)
		for _, s := range l {
			h.WriteString(s)
			h.WriteByte(0)
		}
	}
	if u.Attributes != nil {
		// In no particular order: a sum of the pairs' hashes.
		var sum uint64
		for k, v := range u.Attributes {
			sum += mix64(maphash.String(m.seed, k) ^ bits.RotateLeft64(maphash.String(m.seed, v), 31))
		}
		var buf [9]byte
		buf[0] = 2
		binary.LittleEndian.PutUint64(buf[1:], sum)
		h.Write(buf[:])
	}
	return mix64(h.Sum64())
}

// seen reports whether h is the hash last seen at its home slot, and
// records it there.
func seen(s []atomic.Uint64, h uint64) bool {
	i := h & uint64(len(s)-1)
	if s[i].Load() == h {
		return true
	}
	s[i].Store(h)
	return false
}

// seenCaller reports whether the memo should keep the principals of a
// caller it does not have (see seen).
func (m *snapshotMemo) seenCaller(h uint64) bool { return seen(m.callersSeen, h) }

// caller returns the principals resolved for u, if the memo has them.
func (m *snapshotMemo) caller(h uint64, u *session.User) *viewPrincipals {
	a, b := memoSlots(h, len(m.callers))
	for _, i := range [2]uint64{a, b} {
		p := m.callers[i].Load()
		if p != nil && p.hash == h && p.sameCaller(u) {
			return p
		}
	}
	return nil
}

// addCaller keeps p (built with its hash) for later Views of its caller.
// Its strings are copied first, in one allocation: they may be parts of
// longer strings of the caller's that the memo should not keep alive.
func (m *snapshotMemo) addCaller(p *viewPrincipals) {
	p.detach()
	memoPut(m.callers, p.hash, p)
}

// sameCaller reports whether u is the caller p was resolved for (nil and
// empty lists and attributes told apart, as User returns them).
func (p *viewPrincipals) sameCaller(u *session.User) bool {
	q := &p.user
	if q.Name != u.Name || q.PrimaryRole != u.PrimaryRole ||
		!sameList(q.Groups, u.Groups) || !sameList(q.Roles, u.Roles) || !sameList(q.SecondaryRoles, u.SecondaryRoles) {
		return false
	}
	if (p.attrs == nil) != (u.Attributes == nil) || len(p.attrs) != 2*len(u.Attributes) {
		return false
	}
	for i := 0; i < len(p.attrs); i += 2 {
		if v, ok := u.Attributes[p.attrs[i]]; !ok || v != p.attrs[i+1] {
			return false
		}
	}
	return true
}

func sameList(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

// detach points every string p holds (the caller's name, lists and
// attributes, its groups and the held and active roles the snapshot does
// not know) into one new string.
func (p *viewPrincipals) detach() {
	each := func(f func(*string)) {
		f(&p.user.Name)
		f(&p.user.PrimaryRole)
		for _, l := range [...][]string{p.user.Groups, p.user.Roles, p.user.SecondaryRoles, p.attrs, p.groups} {
			for i := range l {
				f(&l[i])
			}
		}
		if x := p.extra; x != nil {
			for _, l := range [...][]string{x.extraHeld, x.extraActive} {
				for i := range l {
					f(&l[i])
				}
			}
		}
	}
	n := 0
	each(func(s *string) { n += len(*s) })
	if n == 0 {
		return
	}
	var b strings.Builder
	b.Grow(n)
	each(func(s *string) { b.WriteString(*s) })
	all := b.String()
	off := 0
	each(func(s *string) {
		l := len(*s)
		*s = all[off : off+l]
		off += l
	})
}
