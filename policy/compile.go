package policy

import (
	"fmt"
	"slices"
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

// pkey identifies a principal in the index.
type pkey struct {
	kind PrincipalKind
	name string
}

// tkey is a lower-cased (schema, table) pair.
type tkey struct{ schema, table string }

// crule is one compiled rule. seq orders rules for first-match semantics:
// exact-table entries in file order, then wildcard entries in file order,
// each entry's rules in file order.
type crule struct {
	seq     int
	name    string
	allow   accessBits
	deny    accessBits
	filter  string
	column  string
	mask    Mask
	columns []string
}

// bucket holds one principal's rules on one table entry, by kind, in seq order.
type bucket struct {
	allow, deny, filter, mask, restrict []*crule
}

// wildBucket is a bucket for a wildcard table entry.
type wildBucket struct {
	pat *tablePattern
	b   *bucket
}

type tablePattern struct {
	schema, table glob
}

func (p *tablePattern) match(k tkey) bool { return p.schema.match(k.schema) && p.table.match(k.table) }

// pindex is one principal's compiled rules: a map for exact tables and a
// short list for wildcard entries.
type pindex struct {
	exact map[tkey]*bucket
	wild  []wildBucket
}

// Compiled is an immutable, compiled native policy set; it implements
// Snapshot. It is safe for concurrent use.
type Compiled struct {
	version      uint64
	name         string
	defaultAllow bool

	closure    map[string][]string // declared role -> sorted closure (itself included)
	userRoles  map[string][]string
	groupRoles map[string][]string

	index map[pkey]*pindex

	// governed holds the exact tables that carry at least one allow rule;
	// governedWild the wildcard entries that do.
	governed     map[tkey]bool
	governedWild []*tablePattern
}

var _ Snapshot = (*Compiled)(nil)

// Version returns the snapshot version given to Compile.
func (c *Compiled) Version() uint64 { return c.version }

// Name returns the name of the file the snapshot was compiled from.
func (c *Compiled) Name() string { return c.name }

// Compile checks f and compiles it into an immutable Snapshot with the
// given version. Versions should differ between snapshots that may be live
// at the same time (they are part of View fingerprints); NextVersion hands
// out process-wide unique ones.
func Compile(f *File, version uint64) (*Compiled, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil file", ErrInvalidFile)
	}
	if err := check(f); err != nil {
		return nil, err
	}
	c := &Compiled{
		version:      version,
		name:         f.Name,
		defaultAllow: f.DefaultAllow,
		closure:      map[string][]string{},
		userRoles:    map[string][]string{},
		groupRoles:   map[string][]string{},
		index:        map[pkey]*pindex{},
		governed:     map[tkey]bool{},
	}

	contains := map[string][]string{}
	for _, r := range f.Roles {
		contains[r.Name] = append(contains[r.Name], r.Contains...)
	}
	var expand func(string, map[string]bool)
	expand = func(r string, into map[string]bool) {
		if into[r] {
			return
		}
		into[r] = true
		for _, s := range contains[r] {
			expand(s, into)
		}
	}
	for r := range contains {
		set := map[string]bool{}
		expand(r, set)
		c.closure[r] = sortedKeys(set)
	}
	for _, g := range f.Users {
		c.userRoles[g.Name] = append(c.userRoles[g.Name], g.Roles...)
	}
	for _, g := range f.Groups {
		c.groupRoles[g.Name] = append(c.groupRoles[g.Name], g.Roles...)
	}

	// Exact entries first, then wildcard entries, each in file order.
	order := make([]*FileTable, 0, len(f.Tables))
	for i := range f.Tables {
		if !f.Tables[i].Wildcard() {
			order = append(order, &f.Tables[i])
		}
	}
	for i := range f.Tables {
		if f.Tables[i].Wildcard() {
			order = append(order, &f.Tables[i])
		}
	}
	seq := 0
	for _, t := range order {
		k := tkey{t.Schema, t.Table}
		var pat *tablePattern
		if t.Wildcard() {
			pat = &tablePattern{glob(t.Schema), glob(t.Table)}
		}
		add := func(ps []Principal, r *crule, slot func(*bucket) *[]*crule) {
			r.seq = seq
			seq++
			for _, p := range ps {
				s := slot(c.bucket(pkey{p.Kind, p.Name}, k, pat))
				// A principal listed twice reaches the same bucket, where
				// r is then the last rule.
				if n := len(*s); n > 0 && (*s)[n-1] == r {
					continue
				}
				*s = append(*s, r)
			}
		}
		hasAllow := false
		for _, a := range t.Access {
			r := &crule{name: a.Name, allow: bitsOf(a.Allow), deny: bitsOf(a.Deny)}
			if r.allow != 0 {
				hasAllow = true
				add(a.Principals, r, func(b *bucket) *[]*crule { return &b.allow })
			}
			if r.deny != 0 {
				add(a.Principals, r, func(b *bucket) *[]*crule { return &b.deny })
			}
		}
		if hasAllow {
			if pat != nil {
				c.governedWild = append(c.governedWild, pat)
			} else {
				c.governed[k] = true
			}
		}
		for _, fr := range t.RowFilters {
			add(fr.Principals, &crule{name: fr.Name, filter: fr.Filter}, func(b *bucket) *[]*crule { return &b.filter })
		}
		for _, m := range t.Masks {
			r := &crule{name: m.Name, column: strings.ToLower(m.Column), mask: Mask{
				Type:   strings.ToUpper(m.Type),
				Args:   slices.Clone(m.Args),
				Expr:   m.Expr,
				Policy: m.Name,
			}}
			add(m.Principals, r, func(b *bucket) *[]*crule { return &b.mask })
		}
		for _, rr := range t.Restricted {
			cols := make([]string, len(rr.Columns))
			for i, col := range rr.Columns {
				cols[i] = strings.ToLower(col)
			}
			add(rr.Principals, &crule{name: rr.Name, columns: cols}, func(b *bucket) *[]*crule { return &b.restrict })
		}
	}
	return c, nil
}

// bucket returns (creating) the principal's bucket for a table entry. Rules
// arrive in seq order, so a wildcard entry's bucket is the last one if any.
func (c *Compiled) bucket(p pkey, k tkey, pat *tablePattern) *bucket {
	ix := c.index[p]
	if ix == nil {
		ix = &pindex{}
		c.index[p] = ix
	}
	if pat == nil {
		if ix.exact == nil {
			ix.exact = map[tkey]*bucket{}
		}
		b := ix.exact[k]
		if b == nil {
			b = &bucket{}
			ix.exact[k] = b
		}
		return b
	}
	if n := len(ix.wild); n > 0 && ix.wild[n-1].pat == pat {
		return ix.wild[n-1].b
	}
	b := &bucket{}
	ix.wild = append(ix.wild, wildBucket{pat: pat, b: b})
	return b
}

// closureOf returns the role and every role it contains.
func (c *Compiled) closureOf(r string) []string {
	if cl, ok := c.closure[r]; ok {
		return cl
	}
	return []string{r}
}

// check validates a File that may have been built in code. Parse has
// already reported these problems with line numbers.
func check(f *File) error {
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
	seen := map[tkey]int{}
	for ti := range f.Tables {
		t := &f.Tables[ti]
		path := "tables." + pathKey(t.Key())
		s, tb, err := splitTableKey(strings.ToLower(t.Key()))
		if err != nil {
			return fail(t.Line, path, "%v", err)
		}
		if s != t.Schema || tb != t.Table {
			return fail(t.Line, path, "table names must be lower case")
		}
		k := tkey{s, tb}
		if line, dup := seen[k]; dup {
			return fail(t.Line, path, "duplicate entry %q (first at line %d)", t.Key(), line)
		}
		seen[k] = t.Line
		principals := func(rpath string, line int, ps []Principal) error {
			if len(ps) == 0 {
				return fail(line, rpath+".principals", "must not be empty")
			}
			for _, p := range ps {
				if err := p.valid(); err != nil {
					return fail(line, rpath+".principals", "%v", err)
				}
			}
			return nil
		}
		for i, a := range t.Access {
			rp := index(path+".access", i)
			if err := principals(rp, a.Line, a.Principals); err != nil {
				return err
			}
			if (len(a.Allow) == 0) == (len(a.Deny) == 0) {
				return fail(a.Line, rp, "an access rule has exactly one of allow and deny")
			}
			for _, x := range append(slices.Clone(a.Allow), a.Deny...) {
				if _, ok := ParseAccess(string(x)); !ok || Access(strings.ToLower(string(x))) != x {
					return fail(a.Line, rp, "unknown access type %q", x)
				}
			}
		}
		for i, r := range t.RowFilters {
			rp := index(path+".row_filters", i)
			if err := principals(rp, r.Line, r.Principals); err != nil {
				return err
			}
			if strings.TrimSpace(r.Filter) == "" {
				return fail(r.Line, rp+".filter", "row filter must not be empty")
			}
		}
		for i, m := range t.Masks {
			rp := index(path+".masks", i)
			if err := principals(rp, m.Line, m.Principals); err != nil {
				return err
			}
			if err := checkColumn(m.Column); err != nil {
				return fail(m.Line, rp+".column", "%v", err)
			}
			typ := strings.ToUpper(m.Type)
			if (typ == udf.TypeCustom) != (strings.TrimSpace(m.Expr) != "") {
				return fail(m.Line, rp+".expr", "a CUSTOM mask, and only a CUSTOM mask, has a non-empty expr")
			}
			if err := udf.ValidateMask(typ, m.Args, m.Expr); err != nil {
				return fail(m.Line, rp+".type", "%v", err)
			}
		}
		for i, r := range t.Restricted {
			rp := index(path+".restricted", i)
			if err := principals(rp, r.Line, r.Principals); err != nil {
				return err
			}
			if len(r.Columns) == 0 {
				return fail(r.Line, rp+".columns", "must not be empty")
			}
			for _, col := range r.Columns {
				if err := checkColumn(col); err != nil {
					return fail(r.Line, rp+".columns", "%v", err)
				}
			}
		}
	}
	return checkRoleCycles(f)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
