package policy

import (
	"fmt"
	"regexp"
	"strings"
)

// MappingFilter is a row filter through a mapping table (an entitlement
// table): a row is visible when the mapping table has a row whose Column
// equals the row's Key and whose MatchColumn holds the caller's session
// value. It compiles to a semi-join,
//
//	key IN (SELECT sqe_map.column FROM map_schema.map_table sqe_map WHERE <match>)
//
// (the servers plan it as they plan the equivalent EXISTS; the IN form
// names the filtered table's column at the filter's top level, where the
// rewriter qualifies it with whatever the statement calls the table, so
// it holds in the flattened and the derived forms and for wildcard table
// entries alike)
// where <match> is, for Match
//
//	role            is_role_in_session(sqe_map.match_column)  (any active role, with its hierarchy)
//	primary_role    sqe_map.match_column = invoker_role()
//	user            sqe_map.match_column = current_user
//	group           is_group_in_session(sqe_map.match_column)
//	attribute:NAME  sqe_map.match_column = session_attribute('NAME')
//
// The session values are inlined as literals when a statement is
// rewritten. The spellings are the ones both dialects parse: PostgreSQL
// has no current_user() or current_role() with parentheses (they are
// keywords there), so the user is the bare keyword current_user, which
// MySQL and MariaDB accept too, and the primary role is sqe's
// invoker_role(), which is a plain function call on both. The mapping table is itself under policy like any table (its
// own row filter applies inside the EXISTS), and an index on (column,
// match_column) lets both databases answer the semi-join from the index.
// Names must be plain lower-case SQL identifiers.
type MappingFilter struct {
	Table       TableName // the mapping table
	Column      string    // the mapping table's column that holds the key
	Key         string    // the filtered table's column it must equal
	Match       string    // role, primary_role, user, group or attribute:NAME
	MatchColumn string    // the mapping table's column that holds the session value
}

// mappingAlias is the mapping table's alias in the compiled filter.
const mappingAlias = "sqe_map"

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// check reports a MappingFilter that cannot be compiled; field names the
// offending field.
func (m *MappingFilter) check() (field string, err error) {
	for _, x := range []struct{ field, v string }{
		{"table", m.Table.Schema}, {"table", m.Table.Table}, {"column", m.Column},
		{"key", m.Key}, {"match_column", m.MatchColumn},
	} {
		if !plainIdent.MatchString(x.v) {
			return x.field, fmt.Errorf("%q is not a plain lower-case SQL identifier", x.v)
		}
	}
	kind, name, hasName := strings.Cut(m.Match, ":")
	switch {
	case kind == "attribute" && hasName && name != "" && strings.TrimSpace(name) == name && !strings.ContainsAny(name, "'\\"):
	case !hasName && (kind == "role" || kind == "primary_role" || kind == "user" || kind == "group"):
	default:
		return "match", fmt.Errorf("bad match %q: want role, primary_role, user, group or attribute:NAME", m.Match)
	}
	return "", nil
}

// filterSQL returns the filter's SQL.
func (m *MappingFilter) filterSQL() (string, error) {
	if _, err := m.check(); err != nil {
		return "", err
	}
	mc := mappingAlias + "." + m.MatchColumn
	var match string
	kind, name, _ := strings.Cut(m.Match, ":")
	switch kind {
	case "role":
		match = "is_role_in_session(" + mc + ")"
	case "primary_role":
		match = mc + " = invoker_role()"
	case "user":
		match = mc + " = current_user"
	case "group":
		match = "is_group_in_session(" + mc + ")"
	case "attribute":
		match = mc + " = session_attribute('" + name + "')"
	}
	return m.Key + " IN (SELECT " + mappingAlias + "." + m.Column + " FROM " + m.Table.Schema + "." + m.Table.Table +
		" " + mappingAlias + " WHERE " + match + ")", nil
}

// filterText is the SQL of a row filter rule: its Filter, or its Mapping
// compiled.
func filterText(r *FilterRule) string {
	if r.Mapping == nil || r.Filter != "" {
		return r.Filter
	}
	s, err := r.Mapping.filterSQL()
	if err != nil {
		return ""
	}
	return s
}
