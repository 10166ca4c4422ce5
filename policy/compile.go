package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqe-project/sqe/udf"
)

// accessBits is a set of access types (bit i = Accesses[i]).
type accessBits uint8

const allAccess accessBits = 1<<7 - 1

func bitsOf(as []Access) accessBits {
	var b accessBits
	for _, a := range as {
		if a == All {
			return allAccess
		}
		if i := slices.Index(Accesses, a); i >= 0 {
			b |= 1 << i
		}
	}
	return b
}

// tkey is a lower-cased (schema, table) pair.
type tkey struct{ schema, table string }

type ruleKind uint8

const (
	kindAllow ruleKind = iota + 1
	kindDeny
	kindFilter
	kindMask
	kindRestrict
)

// rule is one compiled rule. Its index in Compiled.rules is its place in
// first-match order: higher Priority first; then exact-table entries in
// file order, then wildcard entries in file order; within an entry access
// rules, row filters, masks and restricted entries, each in file order.
//
// A rule holds no pointers: its strings are spans of its resource's text
// (Compiled.text[rid]), so that the garbage collector need not scan the
// rules, however many there are.
type rule struct {
	rid  int32
	name span
	text span  // kindFilter: the expression; kindMask: the column
	cols span  // kindRestrict: lower-cased columns, in Compiled.cols; kindFilter: the check, when checkOther
	mask int32 // kindMask: the mask; kindFilter: how written rows are checked (checkItself, …)
	kind ruleKind
	bits accessBits // kindAllow, kindDeny
}

// How a filter rule checks written rows (rule.mask of a kindFilter rule).
const (
	checkItself int32 = iota // with the filter
	checkNone                // not at all (check: false)
	checkOther               // with the expression in rule.cols
)

// span is a piece of a resource's text (or of Compiled.cols).
type span struct{ off, n uint32 }

// ientry is what one principal has on one resource (a table entry of the
// policy set, exact or wildcard): the union of its allowed and denied access
// types and its rules there, in rule order.
type ientry struct {
	pid, rid int32
	off, n   int32 // Compiled.refs[off : off+n]
	allow    accessBits
	deny     accessBits
	takeAway bool // has deny or restricted rules (what held but inactive roles contribute)
}

// Compiled is an immutable, compiled native policy set; it implements
// Snapshot. It is safe for concurrent use.
//
// Principals (public, every role, and the users and groups the policy set
// names) are numbered; roles in name order. Resources (table entries) are
// numbered too. For each principal the snapshot holds its index: resource
// to entry, probed in one hash table shared by all principals (probe), and
// listed per principal (pidOff, pidEntries) for merging.
type Compiled struct {
	version      uint64
	name         string
	defaultAllow bool
	opts         options
	counters     *Counters
	// allowedFunctions: the file's functions: allow: list.
	allowedFunctions []string

	principals []Principal // by pid: 0 is public, 1..nRoles the roles
	nRoles     int32
	roles      map[string]int32
	users      map[string]int32
	groups     map[string]int32
	// edges of a pid: the roles a role contains, or the roles granted to
	// a user or group.
	edgeOff []int32
	edges   []int32

	unresolved     map[int32]string // pid -> reason
	unresolvedList []Unresolved

	rules   []rule
	text    []string // by resource: the names, filters and columns of its rules
	cols    []span   // restricted columns (spans of their resource's text)
	masks   []Mask
	refs    []int32
	entries []ientry // by resource, then principal
	ridOff  []int32  // entries of resource rid: entries[ridOff[rid]:ridOff[rid+1]]
	// entries of principal pid, by resource: pidEntries[pidOff[pid]:pidOff[pid+1]]
	pidOff     []int32
	pidEntries []int32
	probe      probeIndex

	exact    map[tkey]int32 // exact table entry -> resource
	wild     wildIndex
	governed []bool // by resource: the entry has an allow rule

	tags *tagIndex // the tags section and tag-mask bindings; nil when none
	// named holds, per exact table, the columns its rules name (see
	// View.NamedColumns); nil when no rule names one.
	named map[tkey][]ColumnRef
	// conds holds, per exact table, its masks' when conditions (see
	// MaskConditions).
	conds map[tkey][]MaskCondition
	exprs []Expression // the SQL texts of the rules (see Expressions)

	memo snapshotMemo // what the snapshot's Views resolve and decide, shared
}

var _ Snapshot = (*Compiled)(nil)

// Version returns the snapshot version given to Compile.
func (c *Compiled) Version() uint64 { return c.version }

// Name returns the name of the file the snapshot was compiled from.
func (c *Compiled) Name() string { return c.name }

// Unresolved returns the principals the snapshot could not resolve.
func (c *Compiled) Unresolved() []Unresolved { return slices.Clone(c.unresolvedList) }

// Counters returns the Counters the snapshot's Views record into.
func (c *Compiled) Counters() *Counters { return c.counters }

// Size reports the snapshot's principals, resources (table entries), rules
// and index entries.
func (c *Compiled) Size() (principals, resources, rules, entries int) {
	return len(c.principals), len(c.governed), len(c.rules), len(c.entries)
}

// Compile checks f and compiles it into an immutable Snapshot with the
// given version. Versions should differ between snapshots that may be live
// at the same time (they are part of View fingerprints); NextVersion hands
// out process-wide unique ones. Compile copies what it keeps: changing f
// afterwards does not change the snapshot.
//
// Rules with a Priority (sources that have priorities) come first in the
// first-match order (the deny named in DeniedBy, the mask that wins, the
// restriction named, the order of row filters), higher priority first; a
// deny wins over an allow whatever their priorities.
//
// Options: WithMergeBound, WithMergeMinPrincipals, WithDecisionCacheSize
// (for the snapshot's Views), WithMemoSize and WithCounters
// (default: the snapshot gets its own Counters).
func Compile(f *File, version uint64, opts ...Option) (*Compiled, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil file", ErrInvalidFile)
	}
	if err := checkFile(f); err != nil {
		return nil, err
	}
	o := buildOptions(defaultOptions(), opts)
	c := &Compiled{
		version:      version,
		name:         f.Name,
		defaultAllow: f.DefaultAllow,
		opts:         o,
		counters:     o.counters,

		allowedFunctions: slices.Clone(f.AllowedFunctions),
	}
	if c.counters == nil {
		c.counters = &Counters{}
	}
	c.internPrincipals(f)
	c.compileEdges(f)
	c.compileUnresolved(f)
	c.compileTables(f)
	c.tags = compileTags(f)
	c.compileNamedColumns(f)
	c.compileExpressions(f)
	c.memo = newSnapshotMemo(o.memoSize)
	return c, nil
}

// internPrincipals numbers public, the roles (in name order), then users
// and groups in order of appearance.
func (c *Compiled) internPrincipals(f *File) {
	roleSet := map[string]struct{}{}
	var users, groups []string
	c.users, c.groups = map[string]int32{}, map[string]int32{}
	seenUser, seenGroup := map[string]bool{}, map[string]bool{}
	addUser := func(n string) {
		if !seenUser[n] {
			seenUser[n] = true
			users = append(users, n)
		}
	}
	addGroup := func(n string) {
		if !seenGroup[n] {
			seenGroup[n] = true
			groups = append(groups, n)
		}
	}
	addPrincipal := func(p Principal) {
		switch p.Kind {
		case PrincipalRole:
			roleSet[p.Name] = struct{}{}
		case PrincipalUser:
			addUser(p.Name)
		case PrincipalGroup:
			addGroup(p.Name)
		}
	}
	for _, r := range f.Roles {
		roleSet[r.Name] = struct{}{}
		for _, x := range r.Contains {
			roleSet[x] = struct{}{}
		}
	}
	for _, g := range f.Users {
		addUser(g.Name)
		for _, x := range g.Roles {
			roleSet[x] = struct{}{}
		}
	}
	for _, g := range f.Groups {
		addGroup(g.Name)
		for _, x := range g.Roles {
			roleSet[x] = struct{}{}
		}
	}
	for i := range f.Tables {
		t := &f.Tables[i]
		for j := range t.Access {
			for _, p := range t.Access[j].Principals {
				addPrincipal(p)
			}
		}
		for j := range t.RowFilters {
			for _, p := range t.RowFilters[j].Principals {
				addPrincipal(p)
			}
		}
		for j := range t.Masks {
			for _, p := range t.Masks[j].Principals {
				addPrincipal(p)
			}
		}
		for j := range t.Restricted {
			for _, p := range t.Restricted[j].Principals {
				addPrincipal(p)
			}
		}
	}
	for i := range f.TagMasks {
		for _, p := range f.TagMasks[i].Principals {
			addPrincipal(p)
		}
	}
	for _, u := range f.Unresolved {
		addPrincipal(u.Principal)
	}
	roleNames := make([]string, 0, len(roleSet))
	for r := range roleSet {
		roleNames = append(roleNames, r)
	}
	slices.Sort(roleNames)
	c.principals = make([]Principal, 0, 1+len(roleNames)+len(users)+len(groups))
	c.principals = append(c.principals, Principal{Kind: PrincipalPublic})
	c.roles = make(map[string]int32, len(roleNames))
	for _, r := range roleNames {
		c.roles[r] = int32(len(c.principals))
		c.principals = append(c.principals, Principal{Kind: PrincipalRole, Name: r})
	}
	c.nRoles = int32(len(roleNames))
	for _, u := range users {
		c.users[u] = int32(len(c.principals))
		c.principals = append(c.principals, Principal{Kind: PrincipalUser, Name: u})
	}
	for _, g := range groups {
		c.groups[g] = int32(len(c.principals))
		c.principals = append(c.principals, Principal{Kind: PrincipalGroup, Name: g})
	}
}

func (c *Compiled) isRole(pid int32) bool { return pid >= 1 && pid <= c.nRoles }

// pidOf returns the pid of a principal the snapshot knows.
func (c *Compiled) pidOf(p Principal) (int32, bool) {
	var pid int32
	var ok bool
	switch p.Kind {
	case PrincipalPublic:
		return 0, true
	case PrincipalRole:
		pid, ok = c.roles[p.Name]
	case PrincipalUser:
		pid, ok = c.users[p.Name]
	case PrincipalGroup:
		pid, ok = c.groups[p.Name]
	}
	return pid, ok
}

// compileEdges stores role containment and role grants as one adjacency
// list per pid.
func (c *Compiled) compileEdges(f *File) {
	n := len(c.principals)
	type edge struct{ from, to int32 }
	var es []edge
	for _, r := range f.Roles {
		from := c.roles[r.Name]
		for _, x := range r.Contains {
			es = append(es, edge{from, c.roles[x]})
		}
	}
	for _, g := range f.Users {
		from := c.users[g.Name]
		for _, x := range g.Roles {
			es = append(es, edge{from, c.roles[x]})
		}
	}
	for _, g := range f.Groups {
		from := c.groups[g.Name]
		for _, x := range g.Roles {
			es = append(es, edge{from, c.roles[x]})
		}
	}
	slices.SortFunc(es, func(a, b edge) int {
		if a.from != b.from {
			return cmp.Compare(a.from, b.from)
		}
		return cmp.Compare(a.to, b.to)
	})
	es = slices.Compact(es)
	c.edgeOff = make([]int32, n+1)
	c.edges = make([]int32, len(es))
	for i, e := range es {
		c.edgeOff[e.from+1]++
		c.edges[i] = e.to
	}
	for i := 1; i <= n; i++ {
		c.edgeOff[i] += c.edgeOff[i-1]
	}
}

func (c *Compiled) edgesOf(pid int32) []int32 { return c.edges[c.edgeOff[pid]:c.edgeOff[pid+1]] }

func (c *Compiled) compileUnresolved(f *File) {
	for _, u := range f.Unresolved {
		pid, _ := c.pidOf(u.Principal)
		if c.unresolved == nil {
			c.unresolved = map[int32]string{}
		}
		if prev, dup := c.unresolved[pid]; dup {
			c.unresolved[pid] = prev + "; " + u.Reason
			continue
		}
		c.unresolved[pid] = u.Reason
	}
	for pid := range c.principals {
		if r, ok := c.unresolved[int32(pid)]; ok {
			c.unresolvedList = append(c.unresolvedList, Unresolved{Principal: c.principals[pid], Reason: r})
		}
	}
}

// compileTables numbers the table entries (exact ones first, then wildcard
// ones, each in file order), compiles their rules and builds every
// principal's entries.
func (c *Compiled) compileTables(f *File) {
	order := make([]*FileTable, 0, len(f.Tables))
	for i := range f.Tables {
		if !f.Tables[i].Wildcard() {
			order = append(order, &f.Tables[i])
		}
	}
	nExact := len(order)
	for i := range f.Tables {
		if f.Tables[i].Wildcard() {
			order = append(order, &f.Tables[i])
		}
	}
	nRules := 0
	for _, t := range order {
		nRules += len(t.Access) + len(t.RowFilters) + len(t.Masks) + len(t.Restricted)
	}
	c.rules = make([]rule, 0, nRules)
	c.exact = make(map[tkey]int32, nExact)
	c.governed = make([]bool, len(order))
	c.ridOff = make([]int32, len(order)+1)
	c.entries = make([]ientry, 0, nRules)
	c.refs = make([]int32, 0, nRules)

	var prio []int // by rule, only when some rule has a priority
	type pair struct{ pid, rule int32 }
	var pairs []pair
	var maskRules []int32
	c.text = make([]string, len(order))
	var text strings.Builder
	str := func(s string) span {
		sp := span{uint32(text.Len()), uint32(len(s))}
		text.WriteString(s)
		return sp
	}
	for rid, t := range order {
		rid := int32(rid)
		if rid < int32(nExact) {
			c.exact[tkey{t.Schema, t.Table}] = rid
		} else {
			c.wild.add(t.Schema, t.Table, rid)
		}
		pairs = pairs[:0]
		text.Reset()
		text.Grow(textSize(t))
		add := func(r rule, name string, priority int, ps []Principal, section string, i int) {
			r.rid = rid
			if name == "" {
				name = defaultName(t.Key(), section, i)
			}
			r.name = str(name)
			idx := int32(len(c.rules))
			c.rules = append(c.rules, r)
			if priority != 0 && prio == nil {
				prio = make([]int, idx, cap(c.rules))
			}
			if prio != nil {
				prio = append(prio, priority)
			}
			for _, p := range ps {
				pid, _ := c.pidOf(p)
				pairs = append(pairs, pair{pid, idx})
			}
		}
		for i := range t.Access {
			a := &t.Access[i]
			if b := bitsOf(a.Allow); b != 0 {
				c.governed[rid] = true
				add(rule{kind: kindAllow, bits: b}, a.Name, a.Priority, a.Principals, "access", i)
			} else {
				add(rule{kind: kindDeny, bits: bitsOf(a.Deny)}, a.Name, a.Priority, a.Principals, "access", i)
			}
		}
		for i := range t.RowFilters {
			r := &t.RowFilters[i]
			fr := rule{kind: kindFilter, text: str(filterText(r))}
			switch {
			case r.NoCheck:
				fr.mask = checkNone
			case r.Check != "":
				fr.mask, fr.cols = checkOther, str(r.Check)
			}
			add(fr, r.Name, r.Priority, r.Principals, "row_filters", i)
		}
		maskRules = maskRules[:0]
		for i := range t.Masks {
			m := &t.Masks[i]
			c.masks = append(c.masks, Mask{
				Type: strings.ToUpper(m.Type),
				Args: slices.Clone(m.Args),
				Expr: m.Expr,
				When: m.When,
			})
			maskRules = append(maskRules, int32(len(c.rules)))
			add(rule{kind: kindMask, text: str(strings.ToLower(m.Column)), mask: int32(len(c.masks) - 1)}, m.Name, m.Priority, m.Principals, "masks", i)
		}
		for i := range t.Restricted {
			r := &t.Restricted[i]
			cols := span{uint32(len(c.cols)), uint32(len(r.Columns))}
			for _, col := range r.Columns {
				c.cols = append(c.cols, str(strings.ToLower(col)))
			}
			add(rule{kind: kindRestrict, cols: cols}, r.Name, r.Priority, r.Principals, "restricted", i)
		}
		c.text[rid] = text.String()
		// A mask names its policy: the rule's name, in the resource's text.
		for _, ri := range maskRules {
			r := &c.rules[ri]
			c.masks[r.mask].Policy = c.ruleName(r)
		}
		// One entry per principal, its rules in order.
		slices.SortFunc(pairs, func(a, b pair) int {
			if a.pid != b.pid {
				return cmp.Compare(a.pid, b.pid)
			}
			return cmp.Compare(a.rule, b.rule)
		})
		for i := 0; i < len(pairs); {
			pid := pairs[i].pid
			e := ientry{pid: pid, rid: rid, off: int32(len(c.refs))}
			for ; i < len(pairs) && pairs[i].pid == pid; i++ {
				ri := pairs[i].rule
				if n := len(c.refs); n > int(e.off) && c.refs[n-1] == ri {
					continue // the principal is listed twice on the rule
				}
				c.refs = append(c.refs, ri)
				e.addRule(&c.rules[ri])
			}
			e.n = int32(len(c.refs)) - e.off
			c.entries = append(c.entries, e)
		}
		c.ridOff[rid+1] = int32(len(c.entries))
	}
	if prio != nil {
		c.applyPriorities(prio)
	}

	// Per-principal lists and the probe index.
	c.pidOff = make([]int32, len(c.principals)+1)
	for i := range c.entries {
		c.pidOff[c.entries[i].pid+1]++
	}
	for i := 1; i < len(c.pidOff); i++ {
		c.pidOff[i] += c.pidOff[i-1]
	}
	c.pidEntries = make([]int32, len(c.entries))
	fill := slices.Clone(c.pidOff[:len(c.principals)])
	c.probe = newProbeIndex(len(c.entries))
	for i := range c.entries {
		e := &c.entries[i]
		c.pidEntries[fill[e.pid]] = int32(i)
		fill[e.pid]++
		c.probe.put(e.pid, e.rid, int32(i))
	}
}

func (e *ientry) addRule(r *rule) {
	switch r.kind {
	case kindAllow:
		e.allow |= r.bits
	case kindDeny:
		e.deny |= r.bits
		e.takeAway = true
	case kindRestrict:
		e.takeAway = true
	}
}

// textSize is the length of the text a table entry's rules keep.
func textSize(t *FileTable) int {
	n := 0
	for i := range t.Access {
		n += len(t.Access[i].Name)
	}
	for i := range t.RowFilters {
		n += len(t.RowFilters[i].Name) + len(filterText(&t.RowFilters[i])) + len(t.RowFilters[i].Check)
	}
	for i := range t.Masks {
		n += len(t.Masks[i].Name) + len(t.Masks[i].Column)
	}
	for i := range t.Restricted {
		n += len(t.Restricted[i].Name)
		for _, col := range t.Restricted[i].Columns {
			n += len(col)
		}
	}
	return n
}

// str returns a span of a resource's text.
func (c *Compiled) str(rid int32, s span) string { return c.text[rid][s.off : s.off+s.n] }

// ruleName returns a rule's name.
func (c *Compiled) ruleName(r *rule) string { return c.str(r.rid, r.name) }

// applyPriorities renumbers the rules so that higher priorities come first
// (keeping the default order among equal priorities).
func (c *Compiled) applyPriorities(prio []int) {
	perm := make([]int32, len(c.rules)) // new position -> old index
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(prio[b], prio[a]) })
	newIdx := make([]int32, len(perm))
	rules := make([]rule, len(c.rules))
	for pos, old := range perm {
		newIdx[old] = int32(pos)
		rules[pos] = c.rules[old]
	}
	c.rules = rules
	for i := range c.refs {
		c.refs[i] = newIdx[c.refs[i]]
	}
	for i := range c.entries {
		e := &c.entries[i]
		slices.Sort(c.refs[e.off : e.off+e.n])
	}
}

// resolve appends the resources that apply to k: the exact table entry and
// every matching wildcard entry.
func (c *Compiled) resolve(k tkey, out []int32) []int32 {
	if rid, ok := c.exact[k]; ok {
		out = append(out, rid)
	}
	return c.wild.match(k, out, nil)
}

func (c *Compiled) entriesOf(pid int32) []int32 {
	return c.pidEntries[c.pidOff[pid]:c.pidOff[pid+1]]
}

// checkFile validates a File that may have been built in code. Parse has
// already reported these problems with line numbers.
func checkFile(f *File) error {
	fail := func(line int, path, format string, args ...any) error {
		return &FileError{File: f.Name, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	if f.Version != FileVersion {
		return fail(0, "version", "unsupported version %d (want %d)", f.Version, FileVersion)
	}
	for _, r := range f.Roles {
		if err := checkName(r.Name); err != nil {
			return fail(r.Line, "roles", "bad role name %q: %v", r.Name, err)
		}
		for _, c := range r.Contains {
			if err := checkName(c); err != nil {
				return fail(r.Line, "roles."+pathKey(r.Name)+".contains", "bad role name %q: %v", c, err)
			}
		}
	}
	for _, sec := range []struct {
		name string
		gs   []FileGrant
	}{{"groups", f.Groups}, {"users", f.Users}} {
		for _, g := range sec.gs {
			if err := checkName(g.Name); err != nil {
				return fail(g.Line, sec.name, "bad name %q: %v", g.Name, err)
			}
			for _, r := range g.Roles {
				if err := checkName(r); err != nil {
					return fail(g.Line, sec.name+"."+pathKey(g.Name)+".roles", "bad role name %q: %v", r, err)
				}
			}
		}
	}
	for i, u := range f.Unresolved {
		if err := u.Principal.valid(); err != nil {
			return fail(0, elemPath("unresolved", i), "%v", err)
		}
	}
	seen := make(map[tkey]int, len(f.Tables))
	// Paths are only built for the error.
	type maskKey struct{ typ, args, expr string }
	validMasks := map[maskKey]bool{}
	for ti := range f.Tables {
		t := &f.Tables[ti]
		path := func() string { return "tables." + pathKey(t.Key()) }
		s, tb, err := splitTableKey(strings.ToLower(t.Key()))
		if err != nil {
			return fail(t.Line, path(), "%v", err)
		}
		if s != t.Schema || tb != t.Table {
			return fail(t.Line, path(), "table names must be lower case")
		}
		k := tkey{t.Schema, t.Table}
		if line, dup := seen[k]; dup {
			return fail(t.Line, path(), "duplicate entry %q (first at line %d)", t.Key(), line)
		}
		seen[k] = t.Line
		rpath := func(section string, i int) string { return elemPath(path()+"."+section, i) }
		principals := func(section string, i, line int, ps []Principal) error {
			if len(ps) == 0 {
				return fail(line, rpath(section, i)+".principals", "must not be empty")
			}
			for _, p := range ps {
				if err := p.valid(); err != nil {
					return fail(line, rpath(section, i)+".principals", "%v", err)
				}
			}
			return nil
		}
		for i := range t.Access {
			a := &t.Access[i]
			if err := principals("access", i, a.Line, a.Principals); err != nil {
				return err
			}
			if (len(a.Allow) == 0) == (len(a.Deny) == 0) {
				return fail(a.Line, rpath("access", i), "an access rule has exactly one of allow and deny")
			}
			for _, list := range [][]Access{a.Allow, a.Deny} {
				for _, x := range list {
					if _, ok := ParseAccess(string(x)); !ok || Access(strings.ToLower(string(x))) != x {
						return fail(a.Line, rpath("access", i), "unknown access type %q", x)
					}
				}
			}
		}
		for i := range t.RowFilters {
			r := &t.RowFilters[i]
			if err := principals("row_filters", i, r.Line, r.Principals); err != nil {
				return err
			}
			if r.Mapping != nil {
				want, err := r.Mapping.filterSQL()
				if err != nil {
					return fail(r.Line, rpath("row_filters", i)+".mapping", "%v", err)
				}
				if r.Filter != "" && r.Filter != want {
					return fail(r.Line, rpath("row_filters", i), "a row filter has filter or mapping, not both")
				}
			} else if strings.TrimSpace(r.Filter) == "" {
				return fail(r.Line, rpath("row_filters", i)+".filter", "row filter must not be empty")
			}
		}
		for i := range t.Masks {
			m := &t.Masks[i]
			if err := principals("masks", i, m.Line, m.Principals); err != nil {
				return err
			}
			if err := checkColumn(m.Column); err != nil {
				return fail(m.Line, rpath("masks", i)+".column", "%v", err)
			}
			typ := strings.ToUpper(m.Type)
			if (typ == udf.TypeCustom) != (strings.TrimSpace(m.Expr) != "") {
				return fail(m.Line, rpath("masks", i)+".expr", "a CUSTOM mask, and only a CUSTOM mask, has a non-empty expr")
			}
			if m.When != "" && strings.TrimSpace(m.When) == "" {
				return fail(m.Line, rpath("masks", i)+".when", "when must not be blank")
			}
			mk := maskKey{typ: typ, expr: m.Expr}
			if len(m.Args) > 0 {
				var b strings.Builder
				for _, a := range m.Args {
					b.WriteString(strconv.Itoa(len(a)))
					b.WriteByte(':')
					b.WriteString(a)
				}
				mk.args = b.String()
			}
			if !validMasks[mk] {
				if err := udf.ValidateMask(typ, m.Args, m.Expr); err != nil {
					return fail(m.Line, rpath("masks", i)+".type", "%v", err)
				}
				validMasks[mk] = true
			}
		}
		for i := range t.Restricted {
			r := &t.Restricted[i]
			if err := principals("restricted", i, r.Line, r.Principals); err != nil {
				return err
			}
			if len(r.Columns) == 0 {
				return fail(r.Line, rpath("restricted", i)+".columns", "must not be empty")
			}
			for _, col := range r.Columns {
				if err := checkColumn(col); err != nil {
					return fail(r.Line, rpath("restricted", i)+".columns", "%v", err)
				}
			}
		}
	}
	if err := checkTags(f, fail); err != nil {
		return err
	}
	return checkRoleCycles(f)
}

// checkTags checks the tags section and the tag-mask bindings of a File
// built in code (Parse has checked a parsed one already).
func checkTags(f *File, fail func(line int, path, format string, args ...any) error) error {
	for _, t := range f.Tags {
		key := t.Schema + "." + t.Table
		if t.Column != "" {
			key += "." + t.Column
		}
		path := "tags." + pathKey(key)
		s, tb, col, err := splitTagKey(key)
		if err != nil {
			return fail(t.Line, path, "%v", err)
		}
		if s != strings.ToLower(s) || tb != strings.ToLower(tb) || col != strings.ToLower(col) {
			return fail(t.Line, path, "table and column names must be lower case")
		}
		if len(t.Tags) == 0 {
			return fail(t.Line, path, "want a non-empty list of tags")
		}
		for _, tag := range t.Tags {
			if err := checkTag(tag); err != nil || tag != strings.ToUpper(tag) {
				return fail(t.Line, path, "bad tag %q: tags are upper case, without white space or , ; :", tag)
			}
		}
	}
	for i := range f.TagMasks {
		r := &f.TagMasks[i]
		path := elemPath("tag_masks", i)
		if len(r.Principals) == 0 {
			return fail(r.Line, path+".principals", "must not be empty")
		}
		for _, p := range r.Principals {
			if err := p.valid(); err != nil {
				return fail(r.Line, path+".principals", "%v", err)
			}
		}
		if err := checkTag(r.Tag); err != nil || r.Tag != strings.ToUpper(r.Tag) {
			return fail(r.Line, path+".tag", "bad tag %q: tags are upper case, without white space or , ; :", r.Tag)
		}
		if err := validTagMask(r); err != nil {
			return fail(r.Line, path+".type", "%v", err)
		}
	}
	return nil
}
