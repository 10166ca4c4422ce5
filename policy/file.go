package policy

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrInvalidFile is wrapped by every error that reports a malformed policy
// file (use errors.Is). The individual problems are *FileError values.
var ErrInvalidFile = errors.New("sqe: invalid policy file")

// FileError is one problem in a policy file. Its message names the file, the
// line and the field path, e.g.
//
//	policy.yaml:14: tables."shop.customers".masks[1].type: unknown mask type "MASK_FOO"
type FileError struct {
	File   string // the file name given to Parse or LoadFile
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Path   string // the field path, e.g. tables."shop.customers".masks[1].type
	Msg    string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrInvalidFile.
func (e *FileError) Unwrap() error { return ErrInvalidFile }

// File is a parsed native policy file (format version 1). Parse and LoadFile
// return a File that has passed every check; a File built in code is checked
// again by Compile. Names of tables and columns are lower-cased; principal
// and role names are kept as written.
type File struct {
	// Name is the file name that errors use.
	Name    string
	Version int
	// DefaultAllow is the access for tables that no allow rule governs
	// ("default: allow" or "default: deny").
	DefaultAllow bool
	Roles        []FileRole  // role hierarchy, in file order
	Groups       []FileGrant // roles granted to groups, in file order
	Users        []FileGrant // roles granted to users, in file order
	Tables       []FileTable // in file order
	// Tags assigns tags to tables and columns; TagMasks binds tags to
	// masks (see TagSource).
	Tags     []FileTag
	TagMasks []TagMaskRule
	// Unresolved lists principals whose definition could not be read
	// (ParsePartial records malformed roles, groups and users entries
	// here). Compile marks them unresolved in the snapshot: a View holding
	// one fails closed on the decisions that depend on it.
	Unresolved []Unresolved
	// AllowedFunctions are the application's own functions its SQL may
	// call besides the dialect's built-ins (functions: allow:), "name" or
	// "schema.name"; see the Functions section of docs/security.md.
	AllowedFunctions []string
}

// FileRole is a role and the roles it contains: holding the role means
// holding every contained role, transitively.
type FileRole struct {
	Name     string
	Contains []string
	Line     int
}

// FileGrant grants roles to a group or a user.
type FileGrant struct {
	Name  string
	Roles []string
	Line  int
}

// FileTable holds the rules for the tables that Schema.Table matches. Schema
// and Table are lower-cased; either may contain the wildcards * (any run of
// characters) and ? (one character).
type FileTable struct {
	Schema     string
	Table      string
	Line       int
	Access     []AccessRule
	RowFilters []FilterRule
	Masks      []MaskRule
	Restricted []RestrictRule
}

// Key returns the table pattern as "schema.table".
func (t *FileTable) Key() string { return t.Schema + "." + t.Table }

// Wildcard reports whether the pattern contains a wildcard.
func (t *FileTable) Wildcard() bool {
	return strings.ContainsAny(t.Schema, "*?") || strings.ContainsAny(t.Table, "*?")
}

// AccessRule allows or denies access types to its principals. Exactly one of
// Allow and Deny is non-empty.
type AccessRule struct {
	Name        string
	Description string
	Principals  []Principal
	// Priority orders rules for sources that have priorities (the native
	// file has none: 0): see Compile.
	Priority int
	Allow    []Access
	Deny     []Access
	Line     int
}

// FilterRule is a row filter for its principals.
type FilterRule struct {
	Name        string
	Description string
	Principals  []Principal
	// Priority orders rules for sources that have priorities (the native
	// file has none: 0): see Compile.
	Priority int
	Filter   string // a boolean SQL expression over the table's raw columns
	// Mapping, when set, is the filter's mapping-table form; Filter is
	// then empty or the mapping compiled (Parse fills it in).
	Mapping *MappingFilter
	// Check is the condition rows the principals write must satisfy
	// (see RowFilter.Check): empty for the filter itself, the default;
	// NoCheck turns the check off (check: false).
	Check   string
	NoCheck bool
	Line    int
}

// CheckText is the condition the rule checks written rows with: Check,
// else the filter itself; "" when NoCheck.
func (r *FilterRule) CheckText() string {
	switch {
	case r.NoCheck:
		return ""
	case r.Check != "":
		return r.Check
	}
	return filterText(r)
}

// MaskRule masks one column for its principals.
type MaskRule struct {
	Name        string
	Description string
	Principals  []Principal
	// Priority orders rules for sources that have priorities (the native
	// file has none: 0): see Compile.
	Priority int
	Column   string // lower-cased
	Type     string // a mask type of package udf, upper-cased
	Args     []string
	Expr     string // the CUSTOM expression, {col} standing for the column
	// When, if not empty, is the condition on the row's raw columns under
	// which the mask applies (see Mask.When).
	When string
	Line int
}

// RestrictRule removes columns from its principals' view of the table.
type RestrictRule struct {
	Name        string
	Description string
	Principals  []Principal
	// Priority orders rules for sources that have priorities (the native
	// file has none: 0): see Compile.
	Priority int
	Columns  []string // lower-cased
	Line     int
}

// PrincipalKind is the kind of a Principal.
type PrincipalKind uint8

// Principal kinds.
const (
	PrincipalUser PrincipalKind = iota + 1
	PrincipalGroup
	PrincipalRole
	PrincipalPublic
)

// Principal is who a rule applies to: user:NAME, group:NAME, role:NAME or
// public (everyone).
type Principal struct {
	Kind PrincipalKind
	Name string // empty for public
}

func (p Principal) String() string {
	switch p.Kind {
	case PrincipalUser:
		return "user:" + p.Name
	case PrincipalGroup:
		return "group:" + p.Name
	case PrincipalRole:
		return "role:" + p.Name
	case PrincipalPublic:
		return "public"
	}
	return fmt.Sprintf("principal(%d):%s", p.Kind, p.Name)
}

// ParsePrincipal parses "user:NAME", "group:NAME", "role:NAME" or "public".
// The prefixes are lower case; names are case-sensitive and must not be
// empty or start or end with white space.
func ParsePrincipal(s string) (Principal, error) {
	if s == "public" {
		return Principal{Kind: PrincipalPublic}, nil
	}
	kind, name, ok := strings.Cut(s, ":")
	var p Principal
	switch kind {
	case "user":
		p.Kind = PrincipalUser
	case "group":
		p.Kind = PrincipalGroup
	case "role":
		p.Kind = PrincipalRole
	default:
		ok = false
	}
	if !ok {
		return Principal{}, fmt.Errorf("bad principal %q: want user:NAME, group:NAME, role:NAME or public", s)
	}
	if err := checkName(name); err != nil {
		return Principal{}, fmt.Errorf("bad principal %q: %v", s, err)
	}
	p.Name = name
	return p, nil
}

func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if strings.TrimSpace(name) != name {
		return errors.New("name starts or ends with white space")
	}
	return nil
}

func (p Principal) valid() error {
	switch p.Kind {
	case PrincipalPublic:
		if p.Name != "" {
			return fmt.Errorf("bad principal: public takes no name (got %q)", p.Name)
		}
		return nil
	case PrincipalUser, PrincipalGroup, PrincipalRole:
		if err := checkName(p.Name); err != nil {
			return fmt.Errorf("bad principal %q: %v", p.String(), err)
		}
		return nil
	}
	return fmt.Errorf("bad principal kind %d", p.Kind)
}

// LoadFile reads and parses the policy file at path. Errors name the path as
// given.
func LoadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sqe: policy file: %w", err)
	}
	return Parse(path, data)
}

// splitTableKey splits a lower-cased "schema.table" pattern.
func splitTableKey(key string) (schema, table string, err error) {
	schema, table, ok := strings.Cut(key, ".")
	switch {
	case !ok || strings.Contains(table, "."):
		return "", "", fmt.Errorf("table %q: want schema.table (exactly one dot; * and ? are wildcards)", key)
	case schema == "" || table == "":
		return "", "", fmt.Errorf("table %q: empty schema or table name", key)
	case strings.TrimSpace(schema) != schema || strings.TrimSpace(table) != table:
		return "", "", fmt.Errorf("table %q: schema or table name starts or ends with white space", key)
	}
	return schema, table, nil
}

// pathKey renders a user-chosen mapping key as a path element: bare when it
// is a plain identifier, quoted otherwise.
func pathKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(k)
		}
	}
	return k
}

func elemPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// splitTagKey splits a lower-cased "schema.table" or "schema.table.column"
// key of the tags section. Tags name exact tables and columns: no
// wildcards.
func splitTagKey(key string) (schema, table, column string, err error) {
	parts := strings.Split(key, ".")
	if len(parts) != 2 && len(parts) != 3 {
		return "", "", "", fmt.Errorf("tag key %q: want schema.table or schema.table.column", key)
	}
	for _, part := range parts {
		if part == "" || strings.TrimSpace(part) != part {
			return "", "", "", fmt.Errorf("tag key %q: empty name or name with surrounding white space", key)
		}
		if strings.ContainsAny(part, "*?") {
			return "", "", "", fmt.Errorf("tag key %q: tags name exact tables and columns (no wildcards)", key)
		}
	}
	schema, table = parts[0], parts[1]
	if len(parts) == 3 {
		column = parts[2]
	}
	return schema, table, column, nil
}
