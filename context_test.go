package sqe_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// Names that break naive quoting: quotes, backslashes, non-ASCII letters.
var awkwardNames = []string{`o'hara`, `back\slash`, `qu"ote`, `ünï\'cødé`, `\'; DROP TABLE x; --`}

const contextPolicy = `version: 1
default: deny
roles:
  lead: {contains: [member]}
tables:
  %[1]s.notes:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: own-rows, principals: [role:member], filter: "owner = current_user OR is_role_in_session('lead')"}
  %[1]s.role_notes:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: primary-role-rows, principals: [public], filter: "role_name = invoker_role()"}
`

// TestContextFunctionsWithAwkwardNames: current_user, is_role_in_session,
// is_group_in_session and session_attribute in a row filter and in the
// application's SQL, for names that need quoting, under each server's
// quoting modes.
func TestContextFunctionsWithAwkwardNames(t *testing.T) {
	for _, b := range backends() {
		for _, mode := range []string{"default", "backslash-literal"} {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				e := newEnv(t, b, contextPolicy)
				testdb.Exec(t, e.raw, "CREATE TABLE notes (id INT PRIMARY KEY, owner VARCHAR(40), body VARCHAR(40))",
					"CREATE TABLE role_notes (id INT PRIMARY KEY, role_name VARCHAR(40))")
				ph := func(i int) string {
					if b.name == "postgres" {
						return fmt.Sprintf("$%d", i)
					}
					return "?"
				}
				for i, n := range awkwardNames {
					if _, err := e.raw.Exec("INSERT INTO notes VALUES ("+ph(1)+", "+ph(2)+", "+ph(3)+")", i+1, n, "note of "+n); err != nil {
						t.Fatal(err)
					}
					if _, err := e.raw.Exec("INSERT INTO role_notes VALUES ("+ph(1)+", "+ph(2)+")", i+1, n); err != nil {
						t.Fatal(err)
					}
				}
				dsn := e.dsn
				switch {
				case mode == "backslash-literal" && b.name == "mysql":
					cfg, err := mysql.ParseDSN(dsn)
					if err != nil {
						t.Fatal(err)
					}
					cfg.Params = map[string]string{"sql_mode": "'NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES'"}
					dsn = cfg.FormatDSN()
				case mode == "backslash-literal" && b.name == "postgres":
					u, err := url.Parse(dsn)
					if err != nil {
						t.Fatal(err)
					}
					q := u.Query()
					q.Set("standard_conforming_strings", "off")
					u.RawQuery = q.Encode()
					dsn = u.String()
				case mode == "backslash-literal":
					t.Fatal("no such mode")
				}
				if mode == "default" && b.name == "postgres" {
					// PostgreSQL's default is standard_conforming_strings = on,
					// where a backslash is literal: test the escaping mode too.
					u, _ := url.Parse(dsn)
					q := u.Query()
					q.Set("standard_conforming_strings", "on")
					u.RawQuery = q.Encode()
					dsn = u.String()
				}
				db, err := sqe.Open(b.driver, dsn, sqe.WithPolicyFile(e.policy))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				for i, n := range awkwardNames {
					u := session.User{Name: n, Roles: []string{"member"}}
					rows, _, err := query(as(u), db, "SELECT id, owner, body, current_user FROM notes ORDER BY id")
					if err != nil {
						t.Fatalf("%q: %v", n, err)
					}
					want := [][]string{r(fmt.Sprint(i+1), n, "note of "+n, n)}
					if !reflect.DeepEqual(rows, want) {
						t.Fatalf("%q sees %v, want %v", n, rows, want)
					}
					// The lead role, held through the hierarchy, sees every row.
					lead := session.User{Name: n, Roles: []string{"lead"}}
					rows, _, err = query(as(lead), db, "SELECT COUNT(*) FROM notes WHERE is_role_in_session('lead')")
					if err != nil || !reflect.DeepEqual(rows, [][]string{r(fmt.Sprint(len(awkwardNames)))}) {
						t.Fatalf("%q as lead: %v %v", n, rows, err)
					}
					// The role functions, with the name as the primary role.
					withRole := session.User{Name: n, Roles: []string{n, "member"}, PrimaryRole: n, SecondaryRoles: []string{session.AllSecondaryRoles}}
					roleQ := "SELECT current_role(), invoker_role(), current_available_roles(), current_secondary_roles(), CURRENT_USER, USER(), SESSION_USER()"
					if b.name == "postgres" {
						roleQ = "SELECT current_role, invoker_role(), current_available_roles(), current_secondary_roles(), current_user, session_user, user"
					}
					held := []string{n, "member"}
					slices.Sort(held)
					available, _ := json.Marshal(held)
					secondary, _ := json.Marshal(map[string]string{"roles": "member", "value": "ALL"})
					rows, _, err = query(as(withRole), db, roleQ)
					if want := [][]string{r(n, n, string(available), string(secondary), n, n, n)}; err != nil || !reflect.DeepEqual(rows, want) {
						t.Fatalf("%q role functions: %v %v, want %v", n, rows, err, want)
					}
					rows, _, err = query(as(withRole), db, "SELECT id FROM role_notes")
					if want := [][]string{r(fmt.Sprint(i + 1))}; err != nil || !reflect.DeepEqual(rows, want) {
						t.Fatalf("%q primary role in a row filter: %v %v, want %v", n, rows, err, want)
					}
					// Groups and attributes with the same names.
					grouped := session.User{Name: "lead", Roles: []string{"lead"}, Groups: []string{n, "other"}, Attributes: map[string]string{"k": n}}
					rows, _, err = query(as(grouped), db, "SELECT id, session_attribute('k') FROM notes WHERE is_group_in_session(owner)")
					if want := [][]string{r(fmt.Sprint(i+1), n)}; err != nil || !reflect.DeepEqual(rows, want) {
						t.Fatalf("%q as a group and an attribute: %v %v, want %v", n, rows, err, want)
					}
				}
			})
		}
	}
}

// TestConditionalMask: a mask whose result depends on another column of
// the same row (Snowflake's conditional masking policy), in the derived and
// the flattened forms.
func TestConditionalMask(t *testing.T) {
	policy := `version: 1
default: deny
tables:
  %[1]s.people:
    access:
      - {name: read, principals: [public], allow: [select]}
    masks:
      - name: email-if-public
        principals: [public]
        column: email
        type: CUSTOM
        expr: "CASE WHEN visibility = 'public' THEN {col} ELSE '***' END"
`
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, policy)
			testdb.Exec(t, e.raw, "CREATE TABLE people (id INT PRIMARY KEY, email VARCHAR(40), visibility VARCHAR(10))",
				"INSERT INTO people VALUES (1, 'pub@x.test', 'public'), (2, 'HIDDEN-CANARY@x.test', 'private')")
			want := [][]string{r("1", "pub@x.test"), r("2", "***")}
			for _, q := range []string{
				"SELECT id, email FROM people ORDER BY id",
				"SELECT p.id, p.email FROM people p JOIN people q ON q.id = p.id ORDER BY p.id",
			} {
				rows, _, err := query(as(support), e.db, q)
				if err != nil || !reflect.DeepEqual(rows, want) {
					t.Fatalf("%s: %v %v", q, rows, err)
				}
			}
			rows, _, err := query(as(support), e.db, "SELECT id FROM people WHERE email LIKE 'HIDDEN%'")
			if err != nil || len(rows) != 0 {
				t.Fatalf("a predicate on the conditionally masked column is an oracle: %v %v", rows, err)
			}
		})
	}
}
