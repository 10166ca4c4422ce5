package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Lint severities.
const (
	// LintError: the policy does not do what it says for some caller.
	LintError = "error"
	// LintWarning: the policy may not mean what it says; nothing fails.
	LintWarning = "warning"
)

// Finding is one problem Lint reports about a native policy file.
type Finding struct {
	Severity string // LintError or LintWarning
	Line     int    // 0 when unknown
	Path     string // the field, e.g. tables."shop.customers".masks[1]
	Message  string
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Line > 0 {
		fmt.Fprintf(&b, "%d: ", f.Line)
	}
	b.WriteString(f.Severity)
	b.WriteString(": ")
	if f.Path != "" {
		b.WriteString(f.Path)
		b.WriteString(": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// Lint reports what a policy file that parses may not mean, without a
// database or a parser (the driver's sqe lint adds the checks that need
// them: expressions, tables, columns and types):
//
//   - an allow rule that never grants: deny rules of the same table entry
//     deny every type it allows to every caller it matches;
//   - a mask that never applies: an earlier mask of the same table entry
//     on the same column already matches every caller it matches (masks
//     are first-match), or a restricted entry of the table entry removes
//     the column for all of them;
//   - a mapping row filter that checks written rows with its subquery,
//     which sqe cannot decide: its principals' writes are refused;
//   - a rule for a role that nothing in the file grants (no users or
//     groups entry grants it, directly or through a role that contains
//     it), when the file grants roles at all: only a session that lists
//     the role itself holds it (reported once per role).
//
// Principal coverage follows the role hierarchy: a rule for role:analyst
// matches every caller whose active roles include a role that contains
// analyst; public matches everyone.
func Lint(f *File) []Finding {
	var out []Finding
	closure := roleClosures(f)
	covers := func(earlier, later []Principal) bool {
		for _, p := range later {
			if !slices.ContainsFunc(earlier, func(e Principal) bool { return coversPrincipal(e, p, closure) }) {
				return false
			}
		}
		return true
	}
	for ti := range f.Tables {
		t := &f.Tables[ti]
		path := "tables." + pathKey(t.Key())
		name := func(n, section string, i int) string {
			if n == "" {
				return defaultName(t.Key(), section, i)
			}
			return n
		}
		for i := range t.Access {
			a := &t.Access[i]
			allow := bitsOf(a.Allow)
			if allow == 0 {
				continue
			}
			var denied accessBits
			var by []string
			for j := range t.Access {
				d := &t.Access[j]
				if b := bitsOf(d.Deny); b != 0 && b&allow != 0 && covers(d.Principals, a.Principals) {
					denied |= b
					by = append(by, fmt.Sprintf("%q (line %d)", name(d.Name, "access", j), d.Line))
				}
			}
			if allow&^denied == 0 {
				out = append(out, Finding{Severity: LintWarning, Line: a.Line, Path: elemPath(path+".access", i),
					Message: fmt.Sprintf("allow %q never grants: deny %s denies what it allows to every caller it matches (a deny wins whatever the order)",
						name(a.Name, "access", i), strings.Join(by, ", "))})
			}
		}
		for i := range t.RowFilters {
			r := &t.RowFilters[i]
			if r.Mapping != nil && !r.NoCheck && r.Check == "" {
				out = append(out, Finding{Severity: LintWarning, Line: r.Line, Path: elemPath(path+".row_filters", i),
					Message: fmt.Sprintf("row filter %q checks written rows with its mapping subquery, which sqe cannot decide from a statement's values: every INSERT, and every UPDATE of %s, is refused for its principals; give it check: false or a check expression over the row's columns",
						name(r.Name, "row_filters", i), r.Mapping.Key)})
			}
		}
		for i := range t.Masks {
			m := &t.Masks[i]
			for j := range i {
				e := &t.Masks[j]
				if e.Column == m.Column && covers(e.Principals, m.Principals) {
					out = append(out, Finding{Severity: LintWarning, Line: m.Line, Path: elemPath(path+".masks", i),
						Message: fmt.Sprintf("mask %q never applies: mask %q (line %d) on column %s comes first and matches every caller it matches",
							name(m.Name, "masks", i), name(e.Name, "masks", j), e.Line, m.Column)})
					break
				}
			}
			for j := range t.Restricted {
				r := &t.Restricted[j]
				if slices.Contains(r.Columns, m.Column) && covers(r.Principals, m.Principals) {
					out = append(out, Finding{Severity: LintWarning, Line: m.Line, Path: elemPath(path+".masks", i),
						Message: fmt.Sprintf("mask %q never applies: restricted entry %q (line %d) removes column %s for every caller it matches",
							name(m.Name, "masks", i), name(r.Name, "restricted", j), r.Line, m.Column)})
					break
				}
			}
		}
	}
	if len(f.Users)+len(f.Groups) == 0 {
		return out
	}
	granted := map[string]bool{}
	for _, gs := range [][]FileGrant{f.Users, f.Groups} {
		for _, g := range gs {
			for _, r := range g.Roles {
				for x := range closure[r] {
					granted[x] = true
				}
				granted[r] = true
			}
		}
	}
	reported := map[string]bool{}
	check := func(ps []Principal, line int, path string) {
		for _, p := range ps {
			if p.Kind != PrincipalRole || granted[p.Name] || reported[p.Name] {
				continue
			}
			reported[p.Name] = true
			out = append(out, Finding{Severity: LintWarning, Line: line, Path: path,
				Message: fmt.Sprintf("role %s is granted by no users or groups entry (nor contained in a granted role): only a session that lists it holds it", p.Name)})
		}
	}
	for ti := range f.Tables {
		t := &f.Tables[ti]
		path := "tables." + pathKey(t.Key())
		for i, r := range t.Access {
			check(r.Principals, r.Line, elemPath(path+".access", i))
		}
		for i, r := range t.RowFilters {
			check(r.Principals, r.Line, elemPath(path+".row_filters", i))
		}
		for i, r := range t.Masks {
			check(r.Principals, r.Line, elemPath(path+".masks", i))
		}
		for i, r := range t.Restricted {
			check(r.Principals, r.Line, elemPath(path+".restricted", i))
		}
	}
	for i, r := range f.TagMasks {
		check(r.Principals, r.Line, elemPath("tag_masks", i))
	}
	return out
}

// roleClosures maps each role the file's hierarchy names to the set of
// roles it contains, itself included.
func roleClosures(f *File) map[string]map[string]bool {
	contains := map[string][]string{}
	for _, r := range f.Roles {
		contains[r.Name] = append(contains[r.Name], r.Contains...)
	}
	out := map[string]map[string]bool{}
	var walk func(root, r string)
	walk = func(root, r string) {
		if out[root][r] {
			return
		}
		out[root][r] = true
		for _, x := range contains[r] {
			walk(root, x)
		}
	}
	names := map[string]bool{}
	for _, r := range f.Roles {
		names[r.Name] = true
		for _, x := range r.Contains {
			names[x] = true
		}
	}
	for _, gs := range [][]FileGrant{f.Users, f.Groups} {
		for _, g := range gs {
			for _, r := range g.Roles {
				names[r] = true
			}
		}
	}
	for r := range names {
		out[r] = map[string]bool{}
		walk(r, r)
	}
	return out
}

// coversPrincipal reports whether a rule for e matches every caller a rule
// for p matches.
func coversPrincipal(e, p Principal, closure map[string]map[string]bool) bool {
	switch {
	case e.Kind == PrincipalPublic:
		return true
	case e == p:
		return true
	case e.Kind == PrincipalRole && p.Kind == PrincipalRole:
		return closure[p.Name][e.Name]
	}
	return false
}
