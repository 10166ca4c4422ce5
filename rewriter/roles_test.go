package rewriter_test

import (
	"slices"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/rewriter/postgres"
	"github.com/sqe-project/sqe/session"
)

// TestParseRoleStatement reads role statements with each dialect's own
// scanner: names bare (as written, hyphens and dots included) or quoted,
// comments where the grammar allows them, and anything else after the
// name a malformed role statement, never a statement to send.
func TestParseRoleStatement(t *testing.T) {
	type want struct {
		primary   string
		secondary []string
		none      bool
	}
	ok := func(w want) *want { return &w }
	cases := []struct {
		sql     string
		dialect string // "" both
		want    *want  // nil: malformed
		notRole bool
	}{
		{sql: "USE ROLE analyst", want: ok(want{primary: "analyst"})},
		{sql: "  use role eu-analyst;", want: ok(want{primary: "eu-analyst"})},
		{sql: "USE ROLE Team.Lead", want: ok(want{primary: "Team.Lead"})},
		{sql: "USE ROLE analyste_été", dialect: "postgres", want: ok(want{primary: "analyste_été"})},
		// The MySQL parser reads unquoted names in ASCII only.
		{sql: "USE ROLE analyste_été", dialect: "mysql"},
		{sql: `USE ROLE "analyste_été"`, want: ok(want{primary: "analyste_été"})},
		{sql: `USE ROLE "Mixed ""Case"""`, want: ok(want{primary: `Mixed "Case"`})},
		{sql: "USE ROLE `back``tick`", dialect: "mysql", want: ok(want{primary: "back`tick"})},
		{sql: "USE ROLE analyst -- why\n", want: ok(want{primary: "analyst"})},
		{sql: "USE /* c */ ROLE analyst", want: ok(want{primary: "analyst"})},
		{sql: "USE SECONDARY ROLES ALL", want: ok(want{secondary: []string{session.AllSecondaryRoles}})},
		{sql: "use secondary role none;", want: ok(want{none: true})},
		{sql: `USE SECONDARY ROLES a, "b c", eu-x`, want: ok(want{secondary: []string{"a", "b c", "eu-x"}})},
		{sql: "USE SECONDARY ROLES all, x", want: ok(want{secondary: []string{"all", "x"}})},
		{sql: "USE ROLE"},
		{sql: "USE ROLE a b"},
		{sql: "USE ROLE 'a'"},
		{sql: "USE ROLE a; SELECT 1"},
		{sql: "USE ROLE a;;"},
		{sql: "USE ROLE eu /*x*/-analyst"},
		{sql: "USE ROLE eu-/*x*/analyst"},
		{sql: "USE ROLE eu -analyst"},
		{sql: "USE ROLE -a"},
		{sql: "USE SECONDARY ROLES a,"},
		{sql: "USE SECONDARY ROLES a b"},
		{sql: "USE SECONDARY ROLES"},
		{sql: "USE shop", notRole: true},
		{sql: "SELECT 1", notRole: true},
		{sql: "/* c */ USE ROLE a", notRole: true},
		{sql: "USEROLE a", notRole: true},
		{sql: "USE ROLES a", notRole: true},
		{sql: "USE rolex a", notRole: true},
		{sql: "USE `role` a", dialect: "mysql", notRole: true},
		{sql: `USE "role" a`, notRole: true},
	}
	for _, d := range []rewriter.Dialect{mysql.Dialect{}, postgres.Dialect{}} {
		for _, c := range cases {
			if c.dialect != "" && c.dialect != d.Name() {
				continue
			}
			st, isRole, err := rewriter.ParseRoleStatement(d, c.sql)
			switch {
			case c.notRole:
				if isRole {
					t.Errorf("%s: %q read as a role statement: %+v %v", d.Name(), c.sql, st, err)
				}
			case c.want == nil:
				if !isRole || err == nil {
					t.Errorf("%s: %q: role statement %v, %+v, %v; want a malformed role statement", d.Name(), c.sql, isRole, st, err)
				}
			default:
				got := want{primary: st.Primary, secondary: st.Secondary, none: st.None}
				if !isRole || err != nil || got.primary != c.want.primary || !slices.Equal(got.secondary, c.want.secondary) ||
					got.none != c.want.none || st.IsPrimary != (c.want.primary != "") {
					t.Errorf("%s: %q: %v %+v %v; want %+v", d.Name(), c.sql, isRole, st, err, *c.want)
				}
			}
		}
	}
}

// TestUnreadableRoleStatementIsNeverSent: a role statement the scanner
// cannot read to its end is a malformed role statement or no role
// statement at all (then the dialect's parser refuses it), never one
// that is accepted.
func TestUnreadableRoleStatementIsNeverSent(t *testing.T) {
	for _, d := range []rewriter.Dialect{mysql.Dialect{}, postgres.Dialect{}} {
		for _, sql := range []string{"USE ROLE 'x", `USE ROLE "x`, "USE ROLE x /* open", `USE ROLE ""`} {
			if st, isRole, err := rewriter.ParseRoleStatement(d, sql); isRole && err == nil {
				t.Errorf("%s: %q accepted: %+v", d.Name(), sql, st)
			}
		}
	}
}
