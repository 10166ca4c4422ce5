package sqe_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// sharedMasksPolicy masks accounts with a built-in mask (rewritten once and
// shared by every statement) and with one that reads the caller (rewritten
// for each), under a simple row filter; visits are filtered by the caller;
// ledger has a built-in mask under a simple filter of each caller's own.
const sharedMasksPolicy = `version: 1
default: deny
tables:
  %[1]s.accounts:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: eu, principals: [public], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [public], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-caller, principals: [public], column: email, type: CUSTOM, expr: "concat(left({col}, 2), '/', current_user)"}
  %[1]s.visits:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: own, principals: [public], filter: "note = current_user"}
  %[1]s.ledger:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: alice-eu, principals: ["user:alice"], filter: "region = 'EU'"}
      - {name: bob-us, principals: ["user:bob"], filter: "region = 'US'"}
    masks:
      - {name: ledger-ssn, principals: [public], column: ssn, type: MASK_SHOW_LAST_4}
`

// TestSharedMasksServeEveryCaller: statements that miss the rewrite cache
// (a new literal each time), from callers taking turns, in the shapes
// whose masks are shared between statements (a flattened read, a join of
// read forms, a mask in a condition and in an expression, a flattened
// read's guarded masks and a join's read form under each caller's own
// filter): each caller gets
// the built-in mask, its own name where the mask reads the caller, its
// own rows, and never the hidden row.
func TestSharedMasksServeEveryCaller(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, sharedMasksPolicy)
			testdb.Exec(t, e.raw,
				"CREATE TABLE accounts (id INT PRIMARY KEY, owner VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60))",
				"CREATE TABLE visits (id INT PRIMARY KEY, account_id INT, note VARCHAR(40))",
				"INSERT INTO accounts VALUES (1, 'alice', 'EU', '123-45-6789', 'alice@x.org'), "+
					"(2, 'bob', 'EU', '987-65-4321', 'bob@y.org'), (3, 'carol', 'US', '555-12-1289', 'hidden-carol@z.org')",
				"INSERT INTO visits VALUES (1, 1, 'alice'), (2, 2, 'bob'), (3, 1, 'bob'), (4, 3, 'alice')",
				"CREATE TABLE ledger (id INT PRIMARY KEY, region VARCHAR(8), ssn VARCHAR(11))",
				"INSERT INTO ledger VALUES (1, 'EU', '111-22-3301'), (2, 'US', '444-55-6602')")
			shapes := []struct {
				sql  string
				want func(user string) [][]string
			}{
				{"SELECT id, ssn, email FROM accounts WHERE id <> %d ORDER BY id", func(u string) [][]string {
					return [][]string{r("1", "xxx-xx-6789", "al/"+u), r("2", "xxx-xx-4321", "bo/"+u)}
				}},
				{"SELECT a.id, a.ssn, a.email, v.note FROM accounts a JOIN visits v ON v.account_id = a.id WHERE v.id <> %d ORDER BY v.id", func(u string) [][]string {
					if u == "alice" {
						return [][]string{r("1", "xxx-xx-6789", "al/alice", "alice")}
					}
					return [][]string{r("2", "xxx-xx-4321", "bo/bob", "bob"), r("1", "xxx-xx-6789", "al/bob", "bob")}
				}},
				{"SELECT upper(email) AS e FROM accounts WHERE ssn LIKE '%%89' AND id <> %d", func(u string) [][]string {
					return [][]string{r("AL/" + strings.ToUpper(u))}
				}},
				{"SELECT id, ssn FROM ledger WHERE id <> %d ORDER BY id", func(u string) [][]string {
					if u == "alice" {
						return [][]string{r("1", "xxx-xx-3301")}
					}
					return [][]string{r("2", "xxx-xx-6602")}
				}},
				{"SELECT l.id, l.ssn, v.note FROM ledger l JOIN visits v ON v.account_id = l.id WHERE v.id <> %d ORDER BY l.id", func(u string) [][]string {
					if u == "alice" {
						return [][]string{r("1", "xxx-xx-3301", "alice")}
					}
					return [][]string{r("2", "xxx-xx-6602", "bob")}
				}},
				{"SELECT a.email FROM accounts a LEFT JOIN visits v ON v.account_id = a.id AND v.id <> %d WHERE v.id IS NULL ORDER BY a.id", func(u string) [][]string {
					if u == "alice" {
						return [][]string{r("bo/alice")}
					}
					return nil
				}},
			}
			literal := 1000
			for round := range 4 {
				for _, user := range []string{"alice", "bob", "alice"} {
					u := session.User{Name: user}
					for _, s := range shapes {
						literal++
						q := fmt.Sprintf(s.sql, literal)
						rows, _, err := query(as(u), e.db, q)
						if err != nil {
							t.Fatalf("round %d, %s: %s: %v", round, user, q, err)
						}
						for _, row := range rows {
							for _, cell := range row {
								if strings.Contains(cell, "carol") || strings.Contains(cell, "1289") || strings.Contains(cell, "@") ||
									strings.Contains(cell, "111-22") || strings.Contains(cell, "444-55") {
									t.Fatalf("round %d, %s: %s returned a protected value %q", round, user, q, cell)
								}
							}
						}
						if want := s.want(user); !reflect.DeepEqual(rows, want) {
							t.Fatalf("round %d, %s: %s\ngot  %v\nwant %v", round, user, q, rows, want)
						}
					}
				}
			}
		})
	}
}
