package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/sqe-project/sqe/udf"
)

// FileVersion is the policy file format version this package reads.
const FileVersion = 1

const maxFileErrors = 50

// Parse parses a native policy file. name is used in error messages (the
// path, usually). Every problem found is reported: the error is a
// *FileError, or an errors.Join of several, and wraps ErrInvalidFile.
func Parse(name string, data []byte) (*File, error) { return parse(name, data, false) }

// ParsePartial parses a native policy file like Parse, except for problems
// confined to one entry of the roles, groups or users section (a malformed
// entry, a duplicate key, a role on a cycle): such an entry is left out and
// the principal it defines (role:NAME, group:NAME or user:NAME) is listed in
// File.Unresolved with the problem, instead of failing the file. Compiled,
// the principal is unresolved: decisions that depend on it fail closed,
// every other decision is made normally. Every other problem is an error,
// as with Parse, and so is a file with more than 50 problems. FileSource
// reads files this way unless WithPartialLoads(false) is given.
func ParsePartial(name string, data []byte) (*File, error) { return parse(name, data, true) }

func parse(name string, data []byte, partial bool) (*File, error) {
	p := &parser{file: name, partial: partial}
	f := p.parse(data)
	if len(p.errs) == 0 {
		for {
			fe, cycle := roleCycle(f)
			if fe == nil {
				break
			}
			if !partial {
				p.errs = append(p.errs, fe)
				break
			}
			// Every role on the cycle is unresolved.
			for _, r := range cycle[:len(cycle)-1] {
				f.Unresolved = append(f.Unresolved, Unresolved{Principal: Principal{PrincipalRole, r}, Reason: fe.Error()})
			}
			f.Roles = slices.DeleteFunc(f.Roles, func(r FileRole) bool { return slices.Contains(cycle, r.Name) })
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return f, nil
}

type parser struct {
	file    string
	partial bool // ParsePartial: demote errors of hierarchy entries
	errs    []error
	budget  int // node visits left; bounds alias expansion
	aborted bool
}

func (p *parser) parse(data []byte) *File {
	f := &File{Name: p.file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			p.fail(nil, "", "empty policy file (want version: %d)", FileVersion)
		} else {
			p.yamlError(err)
		}
		return f
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.fail(&extra, "", "more than one YAML document")
		return f
	} else if err != io.EOF {
		p.yamlError(err)
		return f
	}
	p.budget = 1<<20 + 16*countNodes(&doc)
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			p.fail(root, "", "empty policy file (want version: %d)", FileVersion)
			return f
		}
		root = root.Content[0]
	}
	p.file1(root, f)
	return f
}

// yamlError records an error of the YAML decoder: a syntax error at the
// position the decoder reports, with the construct it was reading when
// that began elsewhere.
func (p *parser) yamlError(err error) {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		p.errs = append(p.errs, &FileError{File: p.file, Msg: "YAML: " + err.Error()})
		return
	}
	msg := "YAML syntax: " + le.Message
	if le.ContextMsg != "" && le.ContextMark.Line > 0 && le.ContextMark.Line != le.Mark.Line {
		msg += fmt.Sprintf(" (%s from line %d)", le.ContextMsg, le.ContextMark.Line)
	}
	p.errs = append(p.errs, &FileError{File: p.file, Line: le.Mark.Line, Column: le.Mark.Column, Msg: msg})
}

func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

func (p *parser) fail(n *yaml.Node, path, format string, args ...any) {
	if p.aborted {
		return
	}
	if len(p.errs) >= maxFileErrors {
		p.errs = append(p.errs, &FileError{File: p.file, Msg: "too many errors"})
		p.aborted = true
		return
	}
	e := &FileError{File: p.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// node follows aliases and charges the visit to the budget.
func (p *parser) node(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	p.budget--
	if p.budget < 0 && !p.aborted {
		p.fail(n, "", "document too large (alias expansion)")
		p.aborted = true
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func describe(n *yaml.Node) string {
	if isNull(n) {
		return "null"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "an unexpected node"
}

type field struct {
	key, val *yaml.Node
}

// fields checks that n is a mapping (null counts as empty) whose keys are
// among allowed, and returns its entries by key.
func (p *parser) fields(n *yaml.Node, path string, allowed ...string) map[string]field {
	out := map[string]field{}
	n = p.node(n)
	if p.aborted || isNull(n) {
		return out
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "expected a mapping, got %s", describe(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.node(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.fail(k, path, "expected a field name, got %s", describe(k))
			continue
		}
		fp := joinPath(path, k.Value)
		known := false
		for _, a := range allowed {
			if a == k.Value {
				known = true
				break
			}
		}
		if !known {
			p.fail(k, fp, "unknown field %q (want %s)", k.Value, strings.Join(allowed, ", "))
			continue
		}
		if prev, dup := out[k.Value]; dup {
			p.fail(k, fp, "duplicate field (first at line %d)", prev.key.Line)
			continue
		}
		out[k.Value] = field{key: k, val: v}
	}
	return out
}

type entry struct {
	name     string
	key, val *yaml.Node
}

// entries returns a user-keyed mapping's entries in order (null counts as
// empty), rejecting non-string and duplicate keys. norm maps a key to its
// comparison form.
func (p *parser) entries(n *yaml.Node, path string, norm func(string) string) []entry {
	n = p.node(n)
	if p.aborted || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "expected a mapping, got %s", describe(n))
		return nil
	}
	var out []entry
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := p.node(n.Content[i])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.fail(k, path, "expected a name, got %s", describe(k))
			continue
		}
		name := k.Value
		if norm != nil {
			name = norm(name)
		}
		if line, dup := seen[name]; dup {
			p.fail(k, path+"."+pathKey(k.Value), "duplicate entry %q (first at line %d)", k.Value, line)
			continue
		}
		seen[name] = k.Line
		out = append(out, entry{name: name, key: k, val: n.Content[i+1]})
	}
	return out
}

func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// str returns a scalar's value; any non-null scalar is accepted as a string.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	n = p.node(n)
	if p.aborted {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.fail(n, path, "expected a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// strList returns a list of strings (null counts as empty). Elements that
// are not strings are reported and left out.
func (p *parser) strList(n *yaml.Node, path string) ([]string, []*yaml.Node) {
	n = p.node(n)
	if p.aborted || isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, path, "expected a list, got %s", describe(n))
		return nil, nil
	}
	out := make([]string, 0, len(n.Content))
	nodes := make([]*yaml.Node, 0, len(n.Content))
	for i, c := range n.Content {
		c = p.node(c)
		if s, ok := p.str(c, elemPath(path, i)); ok {
			out = append(out, s)
			nodes = append(nodes, c)
		}
	}
	return out, nodes
}

// list returns a list's elements (null counts as empty).
func (p *parser) list(n *yaml.Node, path string) []*yaml.Node {
	n = p.node(n)
	if p.aborted || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, path, "expected a list, got %s", describe(n))
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = p.node(c)
	}
	return out
}

func (p *parser) file1(root *yaml.Node, f *File) {
	root = p.node(root)
	if isNull(root) {
		p.fail(root, "", "empty policy file (want version: %d)", FileVersion)
		return
	}
	if root.Kind != yaml.MappingNode {
		p.fail(root, "", "expected a mapping at the top level, got %s", describe(root))
		return
	}
	fs := p.fields(root, "", "version", "default", "roles", "groups", "users", "tables", "tags", "tag_masks", "functions")

	if v, ok := fs["version"]; !ok {
		p.fail(root, "version", "required (want version: %d)", FileVersion)
	} else {
		n := p.node(v.val)
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!str" {
			p.fail(n, "version", "expected the number %d, got %s", FileVersion, describe(n))
		} else if n.Value != strconv.Itoa(FileVersion) {
			p.fail(n, "version", "unsupported version %s (want %d)", n.Value, FileVersion)
		} else {
			f.Version = FileVersion
		}
	}

	if d, ok := fs["default"]; !ok {
		p.fail(root, "default", "required: allow or deny")
	} else if s, ok := p.str(d.val, "default"); ok {
		switch strings.ToLower(s) {
		case "allow":
			f.DefaultAllow = true
		case "deny":
		default:
			p.fail(p.node(d.val), "default", "want allow or deny, got %q", s)
		}
	}

	if r, ok := fs["roles"]; ok {
		before := len(p.errs)
		for _, e := range p.entries(r.val, "roles", nil) {
			path := "roles." + pathKey(e.name)
			if err := checkName(e.name); err != nil {
				p.fail(e.key, path, "bad role name: %v", err)
			}
			rf := p.fields(p.node(e.val), path, "contains")
			role := FileRole{Name: e.name, Line: e.key.Line}
			if c, ok := rf["contains"]; ok {
				role.Contains = p.roleNames(c.val, path+".contains")
			}
			f.Roles = append(f.Roles, role)
		}
		if bad := p.demote(f, "roles", PrincipalRole, before); bad != nil {
			f.Roles = slices.DeleteFunc(f.Roles, func(r FileRole) bool { return bad[r.Name] })
		}
	}
	before := len(p.errs)
	f.Groups = p.grants(fs, "groups")
	if bad := p.demote(f, "groups", PrincipalGroup, before); bad != nil {
		f.Groups = slices.DeleteFunc(f.Groups, func(g FileGrant) bool { return bad[g.Name] })
	}
	before = len(p.errs)
	f.Users = p.grants(fs, "users")
	if bad := p.demote(f, "users", PrincipalUser, before); bad != nil {
		f.Users = slices.DeleteFunc(f.Users, func(g FileGrant) bool { return bad[g.Name] })
	}

	if t, ok := fs["tables"]; ok {
		for _, e := range p.entries(t.val, "tables", strings.ToLower) {
			f.Tables = append(f.Tables, p.table(e))
		}
	}
	if t, ok := fs["tags"]; ok {
		for _, e := range p.entries(t.val, "tags", strings.ToLower) {
			f.Tags = append(f.Tags, p.fileTag(e))
		}
	}
	if t, ok := fs["tag_masks"]; ok {
		for i, n := range p.list(t.val, "tag_masks") {
			f.TagMasks = append(f.TagMasks, p.tagMaskRule(n, elemPath("tag_masks", i), elemPath("tag_masks", i)))
		}
	}
	if fn, ok := fs["functions"]; ok {
		f.AllowedFunctions = p.allowedFunctions(fn.val)
	}
}

// allowedFunctions reads the functions section: allow lists the
// application's own functions, "name" or "schema.name".
func (p *parser) allowedFunctions(n *yaml.Node) []string {
	ff := p.fields(p.node(n), "functions", "allow")
	a, ok := ff["allow"]
	if !ok {
		return nil
	}
	names, nodes := p.strList(a.val, "functions.allow")
	for i, name := range names {
		if !functionName.MatchString(name) {
			p.fail(nodes[i], elemPath("functions.allow", i), "want a function name or schema.name, got %q", name)
		}
	}
	return names
}

var functionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$`)

// fileTag reads one entry of the tags section: schema.table or
// schema.table.column to a list of tags.
func (p *parser) fileTag(e entry) FileTag {
	path := "tags." + pathKey(e.key.Value)
	t := FileTag{Line: e.key.Line}
	var err error
	t.Schema, t.Table, t.Column, err = splitTagKey(e.name)
	if err != nil {
		p.fail(e.key, path, "%v", err)
	}
	tags, nodes := p.strList(e.val, path)
	if len(tags) == 0 {
		p.fail(p.node(e.val), path, "want a non-empty list of tags")
	}
	for i, tag := range tags {
		tag = strings.ToUpper(tag)
		if err := checkTag(tag); err != nil {
			p.fail(nodes[i], elemPath(path, i), "%v", err)
			continue
		}
		t.Tags = append(t.Tags, tag)
	}
	return t
}

func (p *parser) tagMaskRule(n *yaml.Node, path, def string) TagMaskRule {
	r := TagMaskRule{Line: n.Line}
	fs, ok := p.ruleFields(n, path, "name", "description", "principals", "tag", "type", "args", "expr", "when")
	if !ok {
		return r
	}
	r.Name, r.Description, r.Principals = p.common(n, path, fs, def)
	if v, ok := fs["tag"]; !ok {
		p.fail(n, path+".tag", "required")
	} else if s, ok := p.str(v.val, path+".tag"); ok {
		r.Tag = strings.ToUpper(s)
		if err := checkTag(r.Tag); err != nil {
			p.fail(p.node(v.val), path+".tag", "%v", err)
		}
	}
	r.Type, r.Args, r.Expr = p.maskSpec(n, path, fs)
	r.When = p.when(path, fs)
	return r
}

// demote, in partial mode, turns the errors recorded since index from that
// lie inside one entry of section into Unresolved principals, and returns
// the names of those entries. Errors about the section as a whole, and
// about entries whose name is itself bad, stay errors.
func (p *parser) demote(f *File, section string, kind PrincipalKind, from int) map[string]bool {
	if !p.partial || len(p.errs) == from {
		return nil
	}
	var bad map[string]bool
	kept := p.errs[:from]
	var order []string
	reasons := map[string][]string{}
	for _, err := range p.errs[from:] {
		fe, ok := err.(*FileError)
		name, inEntry := "", false
		if ok {
			name, inEntry = entryName(section, fe.Path)
		}
		if !inEntry || checkName(name) != nil {
			kept = append(kept, err)
			continue
		}
		if bad == nil {
			bad = map[string]bool{}
		}
		if !bad[name] {
			order = append(order, name)
		}
		bad[name] = true
		reasons[name] = append(reasons[name], fe.Error())
	}
	p.errs = kept
	for _, name := range order {
		f.Unresolved = append(f.Unresolved, Unresolved{
			Principal: Principal{Kind: kind, Name: name},
			Reason:    strings.Join(reasons[name], "; "),
		})
	}
	return bad
}

// entryName returns the entry name of a field path inside section
// ("roles.admin.contains[0]" -> "admin"), undoing pathKey's quoting.
func entryName(section, path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, section+".")
	if !ok || rest == "" {
		return "", false
	}
	var name, tail string
	if rest[0] == '"' {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", false
		}
		name, _ = strconv.Unquote(q)
		tail = rest[len(q):]
	} else {
		i := strings.IndexAny(rest, ".[")
		if i < 0 {
			i = len(rest)
		}
		name, tail = rest[:i], rest[i:]
	}
	if tail != "" && tail[0] != '.' && tail[0] != '[' {
		return "", false
	}
	return name, true
}

func (p *parser) roleNames(n *yaml.Node, path string) []string {
	names, nodes := p.strList(n, path)
	for i, s := range names {
		if err := checkName(s); err != nil {
			p.fail(nodes[i], elemPath(path, i), "bad role name: %v", err)
		}
	}
	return names
}

func (p *parser) grants(fs map[string]field, section string) []FileGrant {
	g, ok := fs[section]
	if !ok {
		return nil
	}
	var out []FileGrant
	for _, e := range p.entries(g.val, section, nil) {
		path := section + "." + pathKey(e.name)
		if err := checkName(e.name); err != nil {
			p.fail(e.key, path, "bad name: %v", err)
		}
		gf := p.fields(p.node(e.val), path, "roles")
		grant := FileGrant{Name: e.name, Line: e.key.Line}
		if r, ok := gf["roles"]; ok {
			grant.Roles = p.roleNames(r.val, path+".roles")
		}
		out = append(out, grant)
	}
	return out
}

func (p *parser) table(e entry) FileTable {
	path := "tables." + pathKey(e.key.Value)
	t := FileTable{Line: e.key.Line}
	var err error
	t.Schema, t.Table, err = splitTableKey(e.name)
	if err != nil {
		p.fail(e.key, path, "%v", err)
	}
	tf := p.fields(p.node(e.val), path, "access", "row_filters", "masks", "restricted")
	key := e.name
	if a, ok := tf["access"]; ok {
		for i, n := range p.list(a.val, path+".access") {
			t.Access = append(t.Access, p.accessRule(n, elemPath(path+".access", i), defaultName(key, "access", i)))
		}
	}
	if a, ok := tf["row_filters"]; ok {
		for i, n := range p.list(a.val, path+".row_filters") {
			t.RowFilters = append(t.RowFilters, p.filterRule(n, elemPath(path+".row_filters", i), defaultName(key, "row_filters", i)))
		}
	}
	if a, ok := tf["masks"]; ok {
		for i, n := range p.list(a.val, path+".masks") {
			t.Masks = append(t.Masks, p.maskRule(n, elemPath(path+".masks", i), defaultName(key, "masks", i)))
		}
	}
	if a, ok := tf["restricted"]; ok {
		for i, n := range p.list(a.val, path+".restricted") {
			t.Restricted = append(t.Restricted, p.restrictRule(n, elemPath(path+".restricted", i), defaultName(key, "restricted", i)))
		}
	}
	return t
}

// defaultName names a rule that has no name: "shop.customers/masks[1]".
func defaultName(tableKey, section string, i int) string {
	return elemPath(tableKey+"/"+section, i)
}

// common reads the fields every rule has: name, description, principals.
func (p *parser) common(n *yaml.Node, path string, fs map[string]field, def string) (name, desc string, ps []Principal) {
	name = def
	if v, ok := fs["name"]; ok {
		if s, ok := p.str(v.val, path+".name"); ok {
			if err := checkName(s); err != nil {
				p.fail(p.node(v.val), path+".name", "bad rule name: %v", err)
			} else {
				name = s
			}
		}
	}
	if v, ok := fs["description"]; ok {
		desc, _ = p.str(v.val, path+".description")
	}
	v, ok := fs["principals"]
	if !ok {
		p.fail(n, path+".principals", "required: a list of user:NAME, group:NAME, role:NAME or public")
		return
	}
	if isEmptyList(p.node(v.val)) {
		p.fail(p.node(v.val), path+".principals", "must not be empty")
		return
	}
	strs, nodes := p.strList(v.val, path+".principals")
	for i, s := range strs {
		pr, err := ParsePrincipal(s)
		if err != nil {
			p.fail(nodes[i], elemPath(path+".principals", i), "%v", err)
			continue
		}
		ps = append(ps, pr)
	}
	return
}

func (p *parser) accessList(fs map[string]field, key, path string) []Access {
	v, ok := fs[key]
	if !ok {
		return nil
	}
	strs, nodes := p.strList(v.val, path)
	if len(strs) == 0 && isEmptyList(p.node(v.val)) {
		p.fail(p.node(v.val), path, "must not be empty")
	}
	var out []Access
	for i, s := range strs {
		a, ok := ParseAccess(s)
		if !ok || strings.TrimSpace(s) != s {
			p.fail(nodes[i], elemPath(path, i), "unknown access type %q (want select, update, create, drop, alter, index, lock or all)", s)
			continue
		}
		out = append(out, a)
	}
	return out
}

func isEmptyList(n *yaml.Node) bool {
	return isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0
}

// ruleFields is fields for a list element that must be a mapping.
func (p *parser) ruleFields(n *yaml.Node, path string, allowed ...string) (map[string]field, bool) {
	if isNull(n) || n.Kind != yaml.MappingNode {
		p.fail(n, path, "expected a mapping, got %s", describe(n))
		return nil, false
	}
	return p.fields(n, path, allowed...), true
}

func (p *parser) accessRule(n *yaml.Node, path, def string) AccessRule {
	r := AccessRule{Line: n.Line}
	fs, ok := p.ruleFields(n, path, "name", "description", "principals", "allow", "deny")
	if !ok {
		return r
	}
	r.Name, r.Description, r.Principals = p.common(n, path, fs, def)
	r.Allow = p.accessList(fs, "allow", path+".allow")
	r.Deny = p.accessList(fs, "deny", path+".deny")
	_, hasAllow := fs["allow"]
	_, hasDeny := fs["deny"]
	switch {
	case hasAllow && hasDeny:
		p.fail(fs["deny"].key, path+".deny", "an access rule has allow or deny, not both (write two rules)")
	case !hasAllow && !hasDeny:
		p.fail(n, path, "an access rule needs allow: [...] or deny: [...]")
	}
	return r
}

func (p *parser) filterRule(n *yaml.Node, path, def string) FilterRule {
	r := FilterRule{Line: n.Line}
	fs, ok := p.ruleFields(n, path, "name", "description", "principals", "filter", "mapping", "check")
	if !ok {
		return r
	}
	r.Name, r.Description, r.Principals = p.common(n, path, fs, def)
	if c, ok := fs["check"]; ok {
		p.check(&r, c.val, path+".check")
	}
	v, hasFilter := fs["filter"]
	mv, hasMapping := fs["mapping"]
	switch {
	case hasFilter && hasMapping:
		p.fail(mv.key, path+".mapping", "a row filter has filter or mapping, not both")
		return r
	case hasMapping:
		r.Mapping = p.mapping(mv.val, path+".mapping")
		if r.Mapping != nil {
			s, err := r.Mapping.filterSQL()
			if err != nil {
				p.fail(mv.key, path+".mapping", "%v", err)
			}
			r.Filter = s
		}
		return r
	case !hasFilter:
		p.fail(n, path+".filter", "required: a boolean SQL expression (or mapping: a mapping table)")
		return r
	}
	if s, ok := p.str(v.val, path+".filter"); ok {
		if strings.TrimSpace(s) == "" {
			p.fail(p.node(v.val), path+".filter", "row filter must not be empty")
		}
		r.Filter = s
	}
	return r
}

// check reads a row filter's check: true (the filter checks written rows,
// the default), false (it does not) or a boolean SQL expression written
// rows must satisfy instead.
func (p *parser) check(r *FilterRule, n *yaml.Node, path string) {
	n = p.node(n)
	if p.aborted {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		switch strings.ToLower(n.Value) {
		case "true":
			return
		case "false":
			r.NoCheck = true
			return
		}
	}
	s, ok := p.str(n, path)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" {
		p.fail(n, path, "check must be true, false or a boolean SQL expression")
		return
	}
	r.Check = s
}

// mapping reads a row filter's mapping-table form.
func (p *parser) mapping(n *yaml.Node, path string) *MappingFilter {
	n = p.node(n)
	fs, ok := p.ruleFields(n, path, "table", "column", "key", "match", "match_column")
	if !ok {
		return nil
	}
	m := &MappingFilter{}
	get := func(field string) string {
		v, ok := fs[field]
		if !ok {
			p.fail(n, path+"."+field, "required")
			return ""
		}
		s, _ := p.str(v.val, path+"."+field)
		return s
	}
	if tk := strings.ToLower(get("table")); tk != "" {
		var err error
		if m.Table.Schema, m.Table.Table, err = splitTableKey(tk); err != nil {
			p.fail(p.node(fs["table"].val), path+".table", "%v", err)
			return nil
		}
	}
	m.Column = strings.ToLower(get("column"))
	m.Key = strings.ToLower(get("key"))
	m.Match = get("match")
	m.MatchColumn = strings.ToLower(get("match_column"))
	if len(fs) < 5 {
		return nil
	}
	if field, err := m.check(); err != nil {
		p.fail(p.node(fs[field].val), path+"."+field, "%v", err)
		return nil
	}
	return m
}

func (p *parser) maskRule(n *yaml.Node, path, def string) MaskRule {
	r := MaskRule{Line: n.Line}
	fs, ok := p.ruleFields(n, path, "name", "description", "principals", "column", "type", "args", "expr", "when")
	if !ok {
		return r
	}
	r.Name, r.Description, r.Principals = p.common(n, path, fs, def)
	if v, ok := fs["column"]; !ok {
		p.fail(n, path+".column", "required")
	} else if s, ok := p.str(v.val, path+".column"); ok {
		if err := checkColumn(s); err != nil {
			p.fail(p.node(v.val), path+".column", "%v", err)
		}
		r.Column = strings.ToLower(s)
	}
	r.Type, r.Args, r.Expr = p.maskSpec(n, path, fs)
	r.When = p.when(path, fs)
	return r
}

// when reads a mask's condition: a non-blank SQL text (it is parsed,
// with the other expressions, when the snapshot is validated).
func (p *parser) when(path string, fs map[string]field) string {
	v, ok := fs["when"]
	if !ok {
		return ""
	}
	s, ok := p.str(v.val, path+".when")
	if !ok {
		return ""
	}
	if strings.TrimSpace(s) == "" {
		p.fail(p.node(v.val), path+".when", "when must not be empty: a boolean SQL expression over the row's columns")
		return ""
	}
	return s
}

// maskSpec reads and checks a mask's type, args and expr.
func (p *parser) maskSpec(n *yaml.Node, path string, fs map[string]field) (typ string, args []string, expr string) {
	if v, ok := fs["args"]; ok {
		args, _ = p.strList(v.val, path+".args")
	}
	if v, ok := fs["expr"]; ok {
		expr, _ = p.str(v.val, path+".expr")
	}
	v, ok := fs["type"]
	if !ok {
		p.fail(n, path+".type", "required: a mask type (MASK, MASK_SHOW_LAST_4, MASK_HASH, CUSTOM, ...)")
		return
	}
	s, ok := p.str(v.val, path+".type")
	if !ok {
		return
	}
	typ = strings.ToUpper(s)
	switch {
	case typ == udf.TypeCustom && strings.TrimSpace(expr) == "":
		at, fp := n, path+".expr"
		if e, ok := fs["expr"]; ok {
			at = p.node(e.val)
		}
		p.fail(at, fp, "a CUSTOM mask needs a non-empty expr")
	case typ != udf.TypeCustom && expr != "":
		p.fail(fs["expr"].key, path+".expr", "expr is only for type CUSTOM (type is %s)", typ)
	default:
		if err := udf.ValidateMask(typ, args, expr); err != nil {
			// A known type's complaint is about its arguments.
			at, fp := p.node(v.val), path+".type"
			if a, ok := fs["args"]; ok && slices.Contains(knownMaskTypes, typ) {
				at, fp = p.node(a.val), path+".args"
			}
			p.fail(at, fp, "%s", strings.TrimPrefix(err.Error(), "udf: "))
		}
	}
	return
}

// knownMaskTypes only steers which field a udf.ValidateMask error is
// reported on; udf.ValidateMask decides what is valid.
var knownMaskTypes = []string{
	udf.TypeMask, udf.TypeShowLast4, udf.TypeShowFirst4, udf.TypeHash, udf.TypeNull,
	udf.TypeNone, udf.TypeDateShowYear, udf.TypeCustom, udf.TypeShowFirstN,
	udf.TypeShowLastN, udf.TypeFirstN, udf.TypeLastN, udf.TypeRedact, udf.TypeRegexpReplace,
}

func checkColumn(s string) error {
	if s == "" {
		return errors.New("empty column name")
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("column %q starts or ends with white space", s)
	}
	return nil
}

func (p *parser) restrictRule(n *yaml.Node, path, def string) RestrictRule {
	r := RestrictRule{Line: n.Line}
	fs, ok := p.ruleFields(n, path, "name", "description", "principals", "columns")
	if !ok {
		return r
	}
	r.Name, r.Description, r.Principals = p.common(n, path, fs, def)
	v, ok := fs["columns"]
	if !ok {
		p.fail(n, path+".columns", "required: a list of column names")
		return r
	}
	cols, nodes := p.strList(v.val, path+".columns")
	if len(cols) == 0 && isEmptyList(p.node(v.val)) {
		p.fail(p.node(v.val), path+".columns", "must not be empty")
	}
	for i, c := range cols {
		if err := checkColumn(c); err != nil {
			p.fail(nodes[i], elemPath(path+".columns", i), "%v", err)
		}
		r.Columns = append(r.Columns, strings.ToLower(c))
	}
	return r
}

// checkRoleCycles reports a role that contains itself, directly or through
// other roles.
func checkRoleCycles(f *File) error {
	if fe, _ := roleCycle(f); fe != nil {
		return fe
	}
	return nil
}

// roleCycle finds a role cycle: the error, and the roles on the cycle (the
// first repeated at the end).
func roleCycle(f *File) (*FileError, []string) {
	byName := make(map[string]*FileRole, len(f.Roles))
	for i := range f.Roles {
		byName[f.Roles[i].Name] = &f.Roles[i]
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make(map[string]int, len(f.Roles))
	var stack []string
	var visit func(name string) (*FileError, []string)
	visit = func(name string) (*FileError, []string) {
		switch state[name] {
		case done:
			return nil, nil
		case visiting:
			start := 0
			for i, s := range stack {
				if s == name {
					start = i
				}
			}
			cycle := append(append([]string(nil), stack[start:]...), name)
			r := byName[stack[len(stack)-1]]
			return &FileError{File: f.Name, Line: r.Line, Path: "roles." + pathKey(r.Name) + ".contains",
				Msg: "role cycle: " + strings.Join(cycle, " -> ")}, cycle
		}
		r := byName[name]
		if r == nil {
			state[name] = done
			return nil, nil
		}
		state[name] = visiting
		stack = append(stack, name)
		for _, c := range r.Contains {
			if fe, cycle := visit(c); fe != nil {
				return fe, cycle
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = done
		return nil, nil
	}
	for _, r := range f.Roles {
		if fe, cycle := visit(r.Name); fe != nil {
			return fe, cycle
		}
	}
	return nil, nil
}
