package sqe_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// mappingPolicy filters sales through a mapping table of (role, region)
// entitlements and docs through one of (group, doc); the role mapping
// table is itself under a filter.
const mappingPolicy = `version: 1
default: allow
roles:
  emea_lead: {contains: [eu_sales]}
tables:
  %[1]s.sales:
    row_filters:
      - name: sales-by-role
        principals: [public]
        mapping: {table: %[1]s.region_roles, column: region, key: region, match: role, match_column: role_name}
  %[1]s.region_roles:
    row_filters:
      - {name: no-hidden, principals: [public], filter: "role_name <> 'hidden'"}
  %[1]s.docs:
    row_filters:
      - name: docs-by-group
        principals: [public]
        mapping: {table: %[1]s.doc_groups, column: doc_id, key: id, match: group, match_column: group_name}
      - name: docs-by-tenant
        principals: [public]
        mapping: {table: %[1]s.doc_tenants, column: doc_id, key: id, match: "attribute:tenant", match_column: tenant}
`

// oddRole is a role name with a quote, a backslash and non-ASCII letters.
const oddRole = `o'hara\ü`

func mappingSchema() []string {
	return []string{
		"CREATE TABLE sales (id INT PRIMARY KEY, region VARCHAR(8), amount INT)",
		"INSERT INTO sales VALUES (1, 'EU', 10), (2, 'EU', 20), (3, 'US', 30), (4, 'APAC', 40), (5, 'HID', 50)",
		"CREATE TABLE region_roles (role_name VARCHAR(40), region VARCHAR(8))",
		"CREATE INDEX region_roles_idx ON region_roles (region, role_name)",
		"CREATE TABLE docs (id INT PRIMARY KEY, title VARCHAR(20))",
		"INSERT INTO docs VALUES (1, 'd-ops'), (2, 'd-dev'), (3, 'd-none')",
		"CREATE TABLE doc_groups (doc_id INT, group_name VARCHAR(20))",
		"INSERT INTO doc_groups VALUES (1, 'ops'), (2, 'dev')",
		"CREATE TABLE doc_tenants (doc_id INT, tenant VARCHAR(20))",
		"INSERT INTO doc_tenants VALUES (1, 't1'), (2, 't1'), (3, 't2')",
	}
}

// TestMappingTableFilter: the mapping-table form of a row filter admits
// the rows the mapping grants to the session's active roles (with their
// hierarchy), groups or attributes; the mapping table's own policy applies;
// and the semi-join is answered from the mapping table's index.
func TestMappingTableFilter(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, mappingPolicy)
			testdb.Exec(t, e.raw, mappingSchema()...)
			lit := strings.ReplaceAll(oddRole, "'", "''")
			if b.name == "mysql" {
				lit = strings.ReplaceAll(lit, `\`, `\\`)
			}
			var rows []string
			for i := 0; i < 3000; i++ {
				rows = append(rows, fmt.Sprintf("('filler%d', 'F%d')", i, i))
			}
			testdb.Exec(t, e.raw,
				"INSERT INTO region_roles VALUES ('eu_sales', 'EU'), ('us_sales', 'US'), ('"+lit+"', 'APAC'), ('hidden', 'HID'), "+strings.Join(rows, ", "))
			if b.name == "postgres" {
				testdb.Exec(t, e.raw, "ANALYZE region_roles", "ANALYZE sales")
			} else {
				testdb.Exec(t, e.raw, "ANALYZE TABLE region_roles", "ANALYZE TABLE sales")
			}
			ids := func(u session.User, q string) string {
				t.Helper()
				rows, _, err := query(as(u), e.db, q)
				if err != nil {
					t.Fatalf("%s as %+v: %v", q, u, err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r[0])
				}
				return strings.Join(out, ",")
			}
			for _, tc := range []struct {
				name string
				u    session.User
				want string
			}{
				{"granted role", session.User{Name: "a", Roles: []string{"eu_sales"}}, "1,2"},
				{"contained role", session.User{Name: "b", Roles: []string{"emea_lead"}}, "1,2"},
				{"two roles", session.User{Name: "c", Roles: []string{"eu_sales", "us_sales"}}, "1,2,3"},
				{"secondary roles off", session.User{Name: "d", Roles: []string{"eu_sales", "us_sales"}, PrimaryRole: "us_sales", SecondaryRoles: []string{}}, "3"},
				{"quoted role name", session.User{Name: "e", Roles: []string{oddRole}}, "4"},
				{"mapping row hidden by the mapping table's policy", session.User{Name: "f", Roles: []string{"hidden"}}, ""},
				{"no role", session.User{Name: "g"}, ""},
			} {
				if got := ids(tc.u, "SELECT id FROM sales ORDER BY id"); got != tc.want {
					t.Errorf("%s: ids %q, want %q", tc.name, got, tc.want)
				}
			}
			// A condition of the application's own, and an alias.
			two := session.User{Name: "a", Roles: []string{"eu_sales", "us_sales"}}
			if got := ids(two, "SELECT id FROM sales WHERE amount > 15 ORDER BY id"); got != "2,3" {
				t.Errorf("with a condition: %q", got)
			}
			if got := ids(two, "SELECT s.id FROM sales s WHERE s.amount > 15 ORDER BY s.id"); got != "2,3" {
				t.Errorf("aliased: %q", got)
			}
			if got := ids(two, "SELECT s.id FROM sales s JOIN sales t ON t.id = s.id + 1 ORDER BY s.id"); got != "1,2" {
				t.Errorf("self-join: %q", got)
			}
			for _, tc := range []struct {
				u    session.User
				want string
			}{
				{session.User{Name: "h", Groups: []string{"ops"}, Attributes: map[string]string{"tenant": "t1"}}, "1"},
				{session.User{Name: "i", Groups: []string{"ops", "dev"}, Attributes: map[string]string{"tenant": "t1"}}, "1,2"},
				{session.User{Name: "j", Groups: []string{"ops", "dev"}, Attributes: map[string]string{"tenant": "t2"}}, ""},
				{session.User{Name: "k", Groups: []string{"ops", "dev"}}, ""},
			} {
				if got := ids(tc.u, "SELECT id FROM docs ORDER BY id"); got != tc.want {
					t.Errorf("docs as %+v: %q, want %q", tc.u, got, tc.want)
				}
			}

			// The rewritten point select uses the mapping table's index.
			ex, err := sqe.Explain(as(session.User{}), e.db, session.User{Name: "a", Roles: []string{"eu_sales"}}, "SELECT id, amount FROM sales WHERE id = 2")
			if err != nil {
				t.Fatal(err)
			}
			plan, _, err := query(as(session.User{}), e.raw, "EXPLAIN "+ex.SQL)
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", ex.SQL, err)
			}
			var text []string
			for _, r := range plan {
				text = append(text, strings.Join(r, " "))
			}
			if !strings.Contains(strings.Join(text, "\n"), "region_roles_idx") {
				t.Fatalf("the mapping table's index is not used:\n%s\nfor\n%s", strings.Join(text, "\n"), ex.SQL)
			}
			var policies []string
			for _, te := range ex.Tables {
				for _, f := range te.RowFilters {
					policies = append(policies, te.Table.Table+":"+f.Policy)
				}
			}
			slices.Sort(policies)
			if want := []string{"region_roles:no-hidden", "sales:sales-by-role"}; !reflect.DeepEqual(policies, want) {
				t.Fatalf("explained filters %v, want %v", policies, want)
			}
		})
	}
}

// mappingKindsPolicy filters one table per match kind through one mapping
// table of (session value, doc) pairs.
const mappingKindsPolicy = `version: 1
default: allow
roles:
  lead: {contains: [staff]}
tables:
  %[1]s.doc_by_role:
    row_filters:
      - {name: by-role, principals: [public], mapping: {table: %[1]s.doc_grants, column: doc_id, key: id, match: role, match_column: who}}
  %[1]s.doc_by_primary:
    row_filters:
      - {name: by-primary, principals: [public], mapping: {table: %[1]s.doc_grants, column: doc_id, key: id, match: primary_role, match_column: who}}
  %[1]s.doc_by_user:
    row_filters:
      - {name: by-user, principals: [public], mapping: {table: %[1]s.doc_grants, column: doc_id, key: id, match: user, match_column: who}}
  %[1]s.doc_by_group:
    row_filters:
      - {name: by-group, principals: [public], mapping: {table: %[1]s.doc_grants, column: doc_id, key: id, match: group, match_column: who}}
  %[1]s.doc_by_attr:
    row_filters:
      - {name: by-attr, principals: [public], mapping: {table: %[1]s.doc_grants, column: doc_id, key: id, match: "attribute:team", match_column: who}}
`

// TestMappingFilterEveryMatchKind: each match kind of a mapping-table
// filter (role, primary_role, user, group, attribute:NAME) admits exactly
// the rows the mapping grants to the session value, on both servers, with
// the same policy text.
func TestMappingFilterEveryMatchKind(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, mappingKindsPolicy)
			var ddl []string
			for _, tbl := range []string{"doc_by_role", "doc_by_primary", "doc_by_user", "doc_by_group", "doc_by_attr"} {
				ddl = append(ddl, "CREATE TABLE "+tbl+" (id INT PRIMARY KEY, title VARCHAR(20))",
					"INSERT INTO "+tbl+" VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')")
			}
			lit := strings.ReplaceAll(oddRole, "'", "''")
			if b.name == "mysql" {
				lit = strings.ReplaceAll(lit, `\`, `\\`)
			}
			ddl = append(ddl, "CREATE TABLE doc_grants (who VARCHAR(40), doc_id INT)",
				"INSERT INTO doc_grants VALUES ('staff', 1), ('lead', 2), ('alice', 3), ('ops', 4), ('red', 2), ('"+lit+"', 4)")
			testdb.Exec(t, e.raw, ddl...)
			ids := func(u session.User, table string) string {
				t.Helper()
				rows, _, err := query(as(u), e.db, "SELECT id FROM "+table+" ORDER BY id")
				if err != nil {
					t.Fatalf("%s as %+v: %v", table, u, err)
				}
				var out []string
				for _, r := range rows {
					out = append(out, r[0])
				}
				return strings.Join(out, ",")
			}
			for _, tc := range []struct {
				name, table string
				u           session.User
				want        string
			}{
				{"role: contained role", "doc_by_role", session.User{Name: "x", Roles: []string{"lead"}}, "1,2"},
				{"role: none", "doc_by_role", session.User{Name: "x"}, ""},
				{"primary_role: staff", "doc_by_primary", session.User{Name: "x", Roles: []string{"lead"}, PrimaryRole: "staff"}, "1"},
				{"primary_role: lead", "doc_by_primary", session.User{Name: "x", Roles: []string{"lead"}, PrimaryRole: "lead"}, "2"},
				{"primary_role: quoted name", "doc_by_primary", session.User{Name: "x", Roles: []string{oddRole}, PrimaryRole: oddRole}, "4"},
				{"primary_role: none set", "doc_by_primary", session.User{Name: "x", Roles: []string{"staff"}}, ""},
				{"user: alice", "doc_by_user", session.User{Name: "alice"}, "3"},
				{"user: quoted name", "doc_by_user", session.User{Name: oddRole}, "4"},
				{"user: bob", "doc_by_user", session.User{Name: "bob", Roles: []string{"lead"}}, ""},
				{"group: ops", "doc_by_group", session.User{Name: "x", Groups: []string{"ops"}}, "4"},
				{"group: none", "doc_by_group", session.User{Name: "alice"}, ""},
				{"attribute: red", "doc_by_attr", session.User{Name: "x", Attributes: map[string]string{"team": "red"}}, "2"},
				{"attribute: unset", "doc_by_attr", session.User{Name: "x"}, ""},
			} {
				if got := ids(tc.u, tc.table); got != tc.want {
					t.Errorf("%s: ids %q, want %q", tc.name, got, tc.want)
				}
			}
		})
	}
}
