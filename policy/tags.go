package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/udf"
)

// TagSource tells which tags the columns of a table carry. Tags select tag
// masks (Decision.TagMasks): a mask bound once to a tag applies to every
// column that carries it, in every table, including columns created later.
//
// sqe reads tags from three kinds of source, merged per column:
//
//   - the policy source itself: the native file's tags section (Compiled
//     implements TagSource, and puts a table's tags in its Decisions'
//     ColumnTags), or Ranger's tag download (evaluated by the Ranger source
//     with Ranger's own precedence);
//   - the database's column comments ("tags: PII, EMAIL"), read with the
//     table's columns and refreshed after DDL sent through sqe;
//   - any other TagSource given to the driver (a data catalog, say).
//
// TableTags returns the lower-cased column name to upper-cased tags; the
// key "*" holds tags of the table itself, which every column inherits. A
// table with no tags returns nil and no error. An error fails the statement
// that needed the tags (fail closed).
type TagSource interface {
	TableTags(ctx context.Context, t TableName) (map[string][]string, error)
}

// FileTag assigns tags to a table (Column empty: every column inherits
// them) or to one column. Names are lower-cased, tags upper-cased.
type FileTag struct {
	Schema, Table, Column string
	Tags                  []string
	Line                  int
}

// TagMaskRule binds a tag to a mask for its principals: every column that
// carries the tag, in every table, gets the mask, unless the column has a
// mask of its own or is restricted.
type TagMaskRule struct {
	Name        string
	Description string
	Principals  []Principal
	Priority    int
	Tag         string // upper-cased
	Type        string // a mask type of package udf, upper-cased
	Args        []string
	Expr        string // the CUSTOM expression, {col} standing for the column
	When        string // the condition under which the mask applies (see Mask.When)
	Line        int
}

// checkTag reports a tag name sqe cannot store or compare: empty, with
// white space, or with the separators of a column comment's tag list.
func checkTag(s string) error {
	if s == "" {
		return errors.New("empty tag")
	}
	if strings.ContainsAny(s, " \t\r\n,;:") {
		return fmt.Errorf("tag %q contains white space, a comma, a semicolon or a colon", s)
	}
	return nil
}

// tagIndex is the compiled tags section and tag-mask bindings.
type tagIndex struct {
	// columns of a table key ("schema.table"): column -> tags, "*" the
	// table's own tags.
	columns map[string]map[string][]string
	rules   []tagRule // in file order
}

type tagRule struct {
	principals []Principal
	tag        string
	mask       Mask
}

func compileTags(f *File) *tagIndex {
	if len(f.Tags) == 0 && len(f.TagMasks) == 0 {
		return nil
	}
	ix := &tagIndex{columns: map[string]map[string][]string{}}
	for _, t := range f.Tags {
		key := t.Schema + "." + t.Table
		cols := ix.columns[key]
		if cols == nil {
			cols = map[string][]string{}
			ix.columns[key] = cols
		}
		col := t.Column
		if col == "" {
			col = "*"
		}
		for _, tag := range t.Tags {
			if !slices.Contains(cols[col], tag) {
				cols[col] = append(cols[col], tag)
			}
		}
	}
	for i := range f.TagMasks {
		r := &f.TagMasks[i]
		ix.rules = append(ix.rules, tagRule{
			principals: slices.Clone(r.Principals),
			tag:        r.Tag,
			mask:       Mask{Type: r.Type, Args: slices.Clone(r.Args), Expr: r.Expr, When: r.When, Policy: r.Name},
		})
	}
	return ix
}

// TableTags returns the tags the policy file's tags section gives t's
// columns ("*": the table's own). It implements TagSource.
func (c *Compiled) TableTags(_ context.Context, t TableName) (map[string][]string, error) {
	if c.tags == nil {
		return nil, nil
	}
	cols := c.tags.columns[t.Key()]
	if cols == nil {
		return nil, nil
	}
	out := make(map[string][]string, len(cols))
	for k, v := range cols {
		out[k] = slices.Clone(v)
	}
	return out, nil
}

// viewTags is a View's resolved tag bindings.
type viewTags struct {
	bound map[string]Mask
	err   error
}

// tagMasks returns the tag bindings that apply to the View's caller: for
// each tag, the first binding in file order whose principals include one
// the caller holds actively (public, the user, one of the session's
// groups, an active role). A binding for a role the caller might hold
// through an unresolved principal fails closed: the mask would be missed.
func (v *fileView) tagMasks() (map[string]Mask, error) {
	ix := v.c.tags
	if ix == nil || len(ix.rules) == 0 {
		return nil, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.tags != nil {
		return v.tags.bound, v.tags.err
	}
	v.tags = &viewTags{}
	var out map[string]Mask
	for i := range ix.rules {
		r := &ix.rules[i]
		if _, taken := out[r.tag]; taken {
			continue
		}
		applies := false
		for _, p := range r.principals {
			ok, err := v.appliesTo(p)
			if err != nil {
				v.tags.err = err
				return nil, err
			}
			if ok {
				applies = true
				break
			}
		}
		if !applies {
			continue
		}
		if out == nil {
			out = map[string]Mask{}
		}
		out[r.tag] = r.mask
	}
	v.tags.bound = out
	return out, nil
}

// appliesTo reports whether a rule for p applies to the View's caller
// (granting rules apply from active roles only).
func (v *fileView) appliesTo(p Principal) (bool, error) {
	switch p.Kind {
	case PrincipalPublic:
		return true, nil
	case PrincipalUser:
		return p.Name == v.user.Name, nil
	case PrincipalGroup:
		_, ok := slices.BinarySearch(v.groups, p.Name)
		return ok, nil
	case PrincipalRole:
		if pid, ok := v.c.roles[p.Name]; ok && v.holds(pid) {
			return v.activeRole(pid), nil
		}
		if un := v.unresolved(); len(un) > 0 {
			return false, &UnresolvedError{
				User:      v.user.Name,
				Principal: v.c.principals[un[0]],
				Reason:    v.c.unresolved[un[0]],
				Detail:    fmt.Sprintf("a tag mask for role %q may apply through it", p.Name),
			}
		}
	}
	return false, nil
}

// activeRole reports whether a held role is active in the session.
func (v *fileView) activeRole(pid int32) bool {
	if v.activeAll {
		return true
	}
	_, ok := slices.BinarySearch(v.extra.active, pid)
	return ok
}

// withTags adds the caller's tag bindings and the table's file tags to d.
func (v *fileView) withTags(d *Decision) (*Decision, error) {
	bound, err := v.tagMasks()
	if err != nil {
		var ue *UnresolvedError
		if errors.As(err, &ue) {
			c := *ue
			c.Table = d.Table
			return nil, &c
		}
		return nil, err
	}
	if len(bound) == 0 {
		return d, nil
	}
	// d may be shared (see memoized): the bindings go on a copy.
	c := *d
	c.TagMasks = bound
	c.ColumnTags = v.c.tags.columns[d.Table.Key()]
	return &c, nil
}

// validTagMask checks a binding's mask the way a column mask is checked.
func validTagMask(r *TagMaskRule) error {
	typ := strings.ToUpper(r.Type)
	if (typ == udf.TypeCustom) != (strings.TrimSpace(r.Expr) != "") {
		return errors.New("a CUSTOM mask, and only a CUSTOM mask, has a non-empty expr")
	}
	if r.When != "" && strings.TrimSpace(r.When) == "" {
		return errors.New("when must not be blank")
	}
	return udf.ValidateMask(typ, r.Args, r.Expr)
}
