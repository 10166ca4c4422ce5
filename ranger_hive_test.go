package sqe_test

import (
	"database/sql"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/session"
)

// hiveBundle is the shop bundle with policies for group staff written in
// Hive SQL: select and update on shop.notes, shop.board and shop.vault;
// the row filter owner = logged_in_user() on notes (policy 101), the
// CUSTOM mask of board.body that shows the caller's own (policy 102), and
// on vault a row filter calling in_file, a Hive function with no MySQL or
// PostgreSQL meaning (policy 103).
func hiveBundle(t *testing.T) *ranger.Bundle {
	t.Helper()
	data, err := os.ReadFile("ranger/testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := ranger.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	item := func() *ranger.PolicyItem {
		return &ranger.PolicyItem{Accesses: []ranger.ItemAccess{{Type: "select"}}, Groups: []string{"staff"}}
	}
	table := func(name string) map[string]*ranger.PolicyResource {
		return map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{name}}}
	}
	access := item()
	access.Accesses = append(access.Accesses, ranger.ItemAccess{Type: "update"})
	own, mask, vault := item(), item(), item()
	own.RowFilterInfo = &ranger.RowFilterInfo{FilterExpr: "owner = logged_in_user()"}
	mask.DataMaskInfo = &ranger.DataMaskInfo{DataMaskType: "CUSTOM", ValueExpr: "CASE WHEN owner = logged_in_user() THEN {col} ELSE 'hidden' END"}
	vault.RowFilterInfo = &ranger.RowFilterInfo{FilterExpr: "id > 0 AND in_file(secret, '/etc/passwd')"}
	board := table("board")
	board["column"] = &ranger.PolicyResource{Values: []string{"body"}}
	bundle.Policies = append(bundle.Policies,
		&ranger.Policy{ID: 100, Name: "staff notes", PolicyItems: []*ranger.PolicyItem{access},
			Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{"notes", "board", "vault"}}, "column": {Values: []string{"*"}}}},
		&ranger.Policy{ID: 101, Name: "own notes", PolicyType: ranger.PolicyTypeRowFilter, RowFilterPolicyItems: []*ranger.PolicyItem{own}, Resources: table("notes")},
		&ranger.Policy{ID: 102, Name: "own bodies", PolicyType: ranger.PolicyTypeDataMask, DataMaskPolicyItems: []*ranger.PolicyItem{mask}, Resources: board},
		&ranger.Policy{ID: 103, Name: "vault by file", PolicyType: ranger.PolicyTypeRowFilter, RowFilterPolicyItems: []*ranger.PolicyItem{vault}, Resources: table("vault")},
	)
	return bundle
}

// TestRangerHiveFunctionsEndToEnd: on both servers, the Ranger row filter
// owner = logged_in_user() admits exactly the caller's rows (the rewriter
// renames the Hive call on the dialect's tree and inlines the caller's
// name; a row whose owner is the text 'logged_in_user()' is nobody
// else's), a CUSTOM mask comparing with logged_in_user() shows each
// caller their own values, and with write checks the filter refuses a
// row written for another. A row filter calling a Hive-only function
// fails closed: reads and writes of its table are refused with a policy
// error naming the policy and the function, and nothing reaches the
// server.
func TestRangerHiveFunctionsEndToEnd(t *testing.T) {
	bundle := hiveBundle(t)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			testdb.Exec(t, e.raw,
				"CREATE TABLE notes (id INT PRIMARY KEY, owner VARCHAR(40), body VARCHAR(40))",
				"CREATE TABLE board (id INT PRIMARY KEY, owner VARCHAR(40), body VARCHAR(40))",
				"CREATE TABLE vault (id INT PRIMARY KEY, secret VARCHAR(40))",
				"INSERT INTO notes VALUES (1, 'ann', 'A1'), (2, 'bob', 'B2'), (3, 'ann', 'A3'), (4, 'O''Hara', 'O4'), (5, 'logged_in_user()', 'L5')",
				"INSERT INTO board VALUES (1, 'ann', 'A1'), (2, 'bob', 'B2')",
				"INSERT INTO vault VALUES (1, 'VAULT-CANARY')")
			src, err := ranger.NewStatic(bundle, ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}), ranger.WithWriteChecks())
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			staff := func(name string) session.User { return session.User{Name: name, Groups: []string{"staff"}} }

			// One statement text for every caller, twice round (the second
			// time from the caches).
			for round := 0; round < 2; round++ {
				for name, want := range map[string][][]string{
					"ann":              {r("1", "A1"), r("3", "A3")},
					"bob":              {r("2", "B2")},
					"O'Hara":           {r("4", "O4")},
					"logged_in_user()": {r("5", "L5")},
					"carol":            nil,
				} {
					rows, _, err := query(as(staff(name)), db, "SELECT id, body FROM notes ORDER BY id")
					if err != nil || !reflect.DeepEqual(rows, want) {
						t.Fatalf("round %d, %s's notes: %v %v, want %v", round, name, rows, err, want)
					}
				}
				rows, _, err := query(as(staff("bob")), db, "SELECT id, body FROM board ORDER BY id")
				if want := [][]string{r("1", "hidden"), r("2", "B2")}; err != nil || !reflect.DeepEqual(rows, want) {
					t.Fatalf("round %d, bob's board: %v %v, want %v", round, rows, err, want)
				}
			}
			ph := "?, ?, ?"
			if b.name == "postgres" {
				ph = "$1, $2, $3"
			}
			if _, err := db.ExecContext(as(staff("ann")), "INSERT INTO notes VALUES ("+ph+")", 6, "ann", "A6"); err != nil {
				t.Fatalf("ann writing her own note: %v", err)
			}
			if _, err := db.ExecContext(as(staff("ann")), "INSERT INTO notes VALUES ("+ph+")", 7, "bob", "forged"); !errors.Is(err, sqe.ErrCheckViolation) {
				t.Fatalf("ann writing bob's note: %v", err)
			}
			if _, err := db.ExecContext(as(staff("ann")), "UPDATE notes SET owner = 'bob' WHERE id = 1"); !errors.Is(err, sqe.ErrCheckViolation) {
				t.Fatalf("ann giving her note to bob: %v", err)
			}
			var owners []string
			for _, id := range []int{1, 6, 7} {
				var o sql.NullString
				_ = e.raw.QueryRow(map[string]string{"mysql": "SELECT owner FROM notes WHERE id = ?", "postgres": "SELECT owner FROM notes WHERE id = $1"}[b.name], id).Scan(&o)
				owners = append(owners, o.String)
			}
			if !reflect.DeepEqual(owners, []string{"ann", "ann", ""}) {
				t.Fatalf("owners of notes 1, 6, 7 after the writes: %q", owners)
			}

			// The Hive-only function: refused before anything is sent.
			needle := "sqe_hive_" + testdb.UniqueName("n")
			mark := e.mark(t)
			for _, q := range []string{
				"SELECT id, secret AS " + needle + " FROM vault",
				"SELECT COUNT(*) AS " + needle + " FROM vault",
				"INSERT INTO vault (id, secret) VALUES (2, '" + needle + "')",
				"UPDATE vault SET secret = '" + needle + "'",
			} {
				_, err := db.ExecContext(as(staff("ann")), q)
				if !errors.Is(err, sqe.ErrPolicy) || !strings.Contains(err.Error(), "ranger policy 103") ||
					!strings.Contains(err.Error(), "in_file()") || strings.Contains(err.Error(), "VAULT-CANARY") {
					t.Fatalf("%s: want a policy error naming ranger policy 103 and in_file(), got %v", q, err)
				}
			}
			if mark.Executed(needle) || mark.Contains("in_file") {
				t.Fatalf("a statement under the refused filter reached the server:\n%s", mark.Text())
			}
		})
	}
}
