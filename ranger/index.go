package ranger

import "slices"

// The per-principal index: every policy is filed under each principal its
// items name (user, group or role), or under "anyone" when an item names
// the public group, {USER} or {OWNER}, or the policy denies all else. Within
// a principal, policies are filed by literal database and table name, with
// lists for patterns. A View pins the buckets of the principals the caller
// has, so the policies a statement looks at are those of its principals on
// the tables it touches, whatever the size of the policy set.

// pbucket is one principal's part of the index.
type pbucket struct {
	// wild: per policy type, the resource policies whose database values
	// are patterns, excluded or dynamic
	wild [3][]*policyEval
	// tag policies: literal tag type -> policies, and patterns
	tagByType [3]map[string][]*policyEval
	tagWild   [3][]*policyEval
}

// dbKey files a principal's policies on one literal database whose table
// values are patterns, excluded or dynamic (or that have no table level);
// tableKey those on one literal database and table. Flat maps keep the
// index small when, as usual, most principals have policies on few tables.
type dbKey struct {
	b     *pbucket
	ptype uint8
	db    string
}

type tableKey struct {
	b         *pbucket
	ptype     uint8
	db, table string
}

type principalIndex struct {
	users   map[string]*pbucket
	groups  map[string]*pbucket
	roles   map[string]*pbucket
	anyone  *pbucket
	byDB    map[dbKey][]*policyEval
	byTable map[tableKey][]*policyEval
}

func newPrincipalIndex() *principalIndex {
	return &principalIndex{users: map[string]*pbucket{}, groups: map[string]*pbucket{}, roles: map[string]*pbucket{}, anyone: &pbucket{},
		byDB: map[dbKey][]*policyEval{}, byTable: map[tableKey][]*policyEval{}}
}

func bucketIn(m map[string]*pbucket, k string) *pbucket {
	b := m[k]
	if b == nil {
		b = &pbucket{}
		m[k] = b
	}
	return b
}

// principalBuckets returns the buckets a policy is filed under.
func (ix *principalIndex) principalBuckets(pe *policyEval) []*pbucket {
	var out []*pbucket
	if pe.hasPublic || pe.hasCur || pe.hasOwner || pe.denyAll {
		out = append(out, ix.anyone)
	}
	for _, u := range pe.users.list() {
		if u == userCurrent || u == resourceOwner {
			continue
		}
		out = append(out, bucketIn(ix.users, u))
	}
	for _, g := range pe.groups.list() {
		if g == groupPublic {
			continue
		}
		out = append(out, bucketIn(ix.groups, g))
	}
	for _, r := range pe.roles.list() {
		out = append(out, bucketIn(ix.roles, r))
	}
	return out
}

// literalValues returns the lower-cased values of a resource element when
// every value matches only itself, or ok=false.
func literalValues(m *resMatcher) ([]string, bool) {
	if m == nil || m.matchAny || m.excludes || m.dynamic || len(m.matchers) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(m.matchers))
	for _, vm := range m.matchers {
		if vm.kind != vmStr {
			return nil, false
		}
		out = append(out, lower(vm.value))
	}
	return out, true
}

func typeIndex(ptype int) int {
	if ptype < 0 || ptype > 2 {
		return -1
	}
	return ptype
}

func (ix *principalIndex) addResourcePolicy(pe *policyEval) {
	ti := typeIndex(pe.ptype)
	if ti < 0 {
		return
	}
	for _, b := range ix.principalBuckets(pe) {
		for _, m := range pe.matchers {
			if m.matchers == nil {
				continue
			}
			dbm := m.matchers.get("database")
			if dbm == nil {
				continue // not a database/table/column policy
			}
			dbs, ok := literalValues(dbm)
			if !ok {
				b.wild[ti] = append(b.wild[ti], pe)
				continue
			}
			tbl := m.matchers.get("table")
			tables, tok := literalValues(tbl)
			for _, d := range dbs {
				if tbl == nil || !tok {
					k := dbKey{b, uint8(ti), d}
					ix.byDB[k] = append(ix.byDB[k], pe)
					continue
				}
				for _, t := range tables {
					k := tableKey{b, uint8(ti), d, t}
					ix.byTable[k] = append(ix.byTable[k], pe)
				}
			}
		}
	}
}

func (ix *principalIndex) addTagPolicy(pe *policyEval) {
	ti := typeIndex(pe.ptype)
	if ti < 0 {
		return
	}
	for _, b := range ix.principalBuckets(pe) {
		for _, m := range pe.matchers {
			if m.matchers == nil {
				continue
			}
			tm := m.matchers.get("tag")
			vals, ok := []string(nil), false
			if tm != nil && !tm.matchAny && !tm.excludes && !tm.dynamic && len(tm.matchers) > 0 {
				ok = true
				for _, vm := range tm.matchers {
					if vm.kind != vmStr || vm.quoted {
						ok = false
						break
					}
					v := vm.value
					if vm.ci {
						v = lower(v)
					}
					vals = append(vals, v)
				}
			}
			if !ok {
				b.tagWild[ti] = append(b.tagWild[ti], pe)
				continue
			}
			if b.tagByType[ti] == nil {
				b.tagByType[ti] = map[string][]*policyEval{}
			}
			for _, v := range vals {
				b.tagByType[ti][v] = append(b.tagByType[ti][v], pe)
			}
		}
	}
}

// collector gathers candidate policies from pinned buckets, once each.
type collector struct {
	out []*policyEval
}

func (c *collector) add(l []*policyEval) { c.out = append(c.out, l...) }

// sorted puts the policies in Ranger's evaluation order, once each (a
// policy can be in several of the caller's buckets).
func (ix *principalIndex) sorted(l []*policyEval) []*policyEval {
	slices.SortFunc(l, func(a, b *policyEval) int { return a.seq - b.seq })
	return slices.Compact(l)
}

// resourceCandidates returns the policies of the pinned buckets that may
// apply to the database/table (table "" for a database-level request).
func (ix *principalIndex) resourceCandidates(pins []*pbucket, ptype int, db, table string) []*policyEval {
	ti := typeIndex(ptype)
	if ti < 0 {
		return nil
	}
	var c collector
	ldb, ltable := lower(db), lower(table)
	for _, b := range pins {
		c.add(b.wild[ti])
		c.add(ix.byDB[dbKey{b, uint8(ti), ldb}])
		if table != "" {
			c.add(ix.byTable[tableKey{b, uint8(ti), ldb, ltable}])
		}
	}
	return ix.sorted(c.out)
}

func (ix *principalIndex) tagCandidates(pins []*pbucket, ptype int, tagType string) []*policyEval {
	ti := typeIndex(ptype)
	if ti < 0 {
		return nil
	}
	var c collector
	for _, b := range pins {
		c.add(b.tagWild[ti])
		if m := b.tagByType[ti]; m != nil {
			c.add(m[tagType])
			if lt := lower(tagType); lt != tagType {
				c.add(m[lt])
			}
		}
	}
	return ix.sorted(c.out)
}

// pins returns the buckets of a caller's principals.
func (ix *principalIndex) pins(user string, groups []string, roles []string) []*pbucket {
	out := []*pbucket{ix.anyone}
	if b := ix.users[user]; b != nil {
		out = append(out, b)
	}
	for _, g := range groups {
		if b := ix.groups[g]; b != nil {
			out = append(out, b)
		}
	}
	for _, r := range roles {
		if b := ix.roles[r]; b != nil {
			out = append(out, b)
		}
	}
	return out
}
