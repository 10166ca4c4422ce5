package sqe_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

// The people fixture for conditional masks: row 1 is public (the
// condition is false: raw values), row 2 private (masked), row 3 has no
// visibility (the condition is unknown: masked), row 4 is hidden by the
// row filter. secret is restricted for the masked users and read only by
// the condition of hint's mask; its values are canaries.
var whenFixture = []string{
	"CREATE TABLE people (id INT PRIMARY KEY, visibility VARCHAR(10), email VARCHAR(60), phone CHAR(12), code VARCHAR(20), " +
		"name VARCHAR(40), note VARCHAR(40), nick VARCHAR(20), born DATE, pin INT, city VARCHAR(20), zip VARCHAR(10), " +
		"label VARCHAR(20), refc VARCHAR(20), memo VARCHAR(40), area VARCHAR(10), secret VARCHAR(40), hint VARCHAR(20), tagged VARCHAR(20))",
	"INSERT INTO people VALUES " +
		"(1, 'public', 'ada@one.test', 'PH-1234-5678', 'Code-77', 'Ada Name', 'note one', 'nick1', '1985-03-14', 123456, 'Berlin', 'Z-12345', 'label one', 'ref-123', 'memo1', 'AR-1001', 'open-CANARY-1', 'Hint-One', 'Tag-One'), " +
		"(2, 'private', 'bea@two.test', 'PH-2222-3333', 'Code-88', 'Bea Name', 'note two', 'nick2', '1990-07-21', 654321, 'Paris', 'Z-67890', 'label two', 'ref-456', 'memo2', 'AR-2002', 'shut-CANARY-2', 'Hint-Two', 'Tag-Two'), " +
		"(3, NULL, 'cy@three.test', 'PH-4444-5555', 'Code-99', 'Cy Name', 'note three', 'nick3', '2001-12-01', 777888, 'Rome', 'Z-11111', 'label three', 'ref-789', 'memo3', 'AR-3003', NULL, 'Hint-Three', 'Tag-Three'), " +
		"(4, 'public', 'HIDDEN-CANARY', 'HIDDEN-CANA', 'HIDDEN-CANARY', 'HIDDEN-CANARY', 'HIDDEN-CANARY', 'HIDDEN-CANARY', '1970-01-01', 999999, 'HIDDEN-CANARY', 'HIDDEN-CAN', 'HIDDEN-CANARY', 'HIDDEN-CANARY', 'HIDDEN-CANARY', 'HIDDEN-CAN', 'HIDDEN-CANARY', 'HIDDEN-CANARY', 'HIDDEN-CANARY')",
}

// whenMasks are the masks of the fixture, every built-in type: the
// conditional user's carry when, the plain user's are the same masks
// without it.
var whenMasks = []struct{ column, typ, args, expr string }{
	{"email", "MASK_SHOW_LAST_4", "", ""},
	{"phone", "MASK_SHOW_FIRST_4", "", ""},
	{"code", "MASK", "", ""},
	{"name", "MASK_HASH", "", ""},
	{"note", "MASK_NULL", "", ""},
	{"nick", "MASK_NONE", "", ""},
	{"born", "MASK_DATE_SHOW_YEAR", "", ""},
	{"pin", "MASK_SHOW_LAST_N", `["2"]`, ""},
	{"city", "MASK_SHOW_FIRST_N", `["2"]`, ""},
	{"zip", "MASK_LAST_N", `["2"]`, ""},
	{"area", "MASK_FIRST_N", `["2"]`, ""},
	{"label", "REDACT", "", ""},
	{"refc", "REGEXP_REPLACE", `["[0-9]", "#"]`, ""},
	{"memo", "CUSTOM", "", "CONCAT('***', {col})"},
}

func whenPolicy() string {
	var b strings.Builder
	b.WriteString(`version: 1
default: deny
tags:
  %[1]s.people.tagged: [PII]
tag_masks:
  - {name: pii-when, principals: [role:support], tag: PII, type: MASK, when: "visibility <> 'public'"}
  - {name: pii, principals: [role:plain], tag: PII, type: MASK}
tables:
  %[1]s.people:
    access:
      - {name: rw, principals: [role:admin, role:support, role:plain], allow: [select, update]}
    row_filters:
      - {name: not-4, principals: [role:support, role:plain], filter: "id <> 4"}
    restricted:
      - {name: no-secret, principals: [role:support, role:plain], columns: [secret]}
    masks:
      - {name: hint-when, principals: [role:support], column: hint, type: MASK, when: "secret <> 'open-CANARY-1'"}
      - {name: hint, principals: [role:plain], column: hint, type: MASK}
`)
	for _, m := range whenMasks {
		extra := ""
		if m.args != "" {
			extra += ", args: " + m.args
		}
		if m.expr != "" {
			extra += fmt.Sprintf(", expr: %q", m.expr)
		}
		fmt.Fprintf(&b, "      - {name: %s-when, principals: [role:support], column: %s, type: %s%s, when: \"visibility <> 'public'\"}\n", m.column, m.column, m.typ, extra)
		fmt.Fprintf(&b, "      - {name: %s, principals: [role:plain], column: %s, type: %s%s}\n", m.column, m.column, m.typ, extra)
	}
	return b.String()
}

var plainUser = session.User{Name: "pia", Roles: []string{"plain"}}

// typedQuery is query with the columns' database type names.
func typedQuery(ctx context.Context, db *sql.DB, q string) ([][]string, []string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	cts, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return nil, nil, err
	}
	types := make([]string, len(cts))
	for i, ct := range cts {
		types[i] = ct.DatabaseTypeName()
	}
	out, _, err := query(ctx, db, q)
	return out, types, err
}

func assertNoWhenCanary(t *testing.T, what string, rows [][]string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "CANARY") {
		t.Fatalf("%s: error names a protected value: %v", what, err)
	}
	for _, r := range rows {
		for _, c := range r {
			if strings.Contains(c, "CANARY") {
				t.Fatalf("%s: protected value %q in the result", what, c)
			}
		}
	}
}

// TestConditionalMasks: a mask with when applies where the condition
// holds or is unknown and shows the raw value where it is false, for
// every built-in mask type and a tag mask, keeping the plain mask's
// type; its condition reads raw values (also of a restricted column)
// without leaking them; statement conditions and writes see the masked
// value.
func TestConditionalMasks(t *testing.T) {
	cols := []string{"id"}
	for _, m := range whenMasks {
		cols = append(cols, m.column)
	}
	cols = append(cols, "hint", "tagged")
	sel := "SELECT " + strings.Join(cols, ", ") + " FROM people ORDER BY id"
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, "version: 1\ndefault: allow\n# %[1]s\n")
			testdb.Exec(t, e.raw, whenFixture...)
			path := filepath.Join(t.TempDir(), "when.yaml")
			if err := os.WriteFile(path, []byte(fmt.Sprintf(whenPolicy(), e.schema)), 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(path), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()

			raw, rawTypes, err := typedQuery(as(admin), db, sel)
			if err != nil {
				t.Fatal(err)
			}
			cond, condTypes, err := typedQuery(as(support), db, sel)
			assertNoWhenCanary(t, "conditional", cond, err)
			if err != nil {
				t.Fatal(err)
			}
			plain, plainTypes, err := typedQuery(as(plainUser), db, sel)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != 4 || len(cond) != 3 || len(plain) != 3 {
				t.Fatalf("rows: admin %d, conditional %d, plain %d", len(raw), len(cond), len(plain))
			}
			for i, c := range cols {
				if condTypes[i] != plainTypes[i] {
					t.Errorf("column %s: type %s with when, %s without (raw %s)", c, condTypes[i], plainTypes[i], rawTypes[i])
				}
			}
			for i := 1; i < len(cols); i++ {
				c := cols[i]
				// Row 1: the condition is false, the raw value is seen.
				if cond[0][i] != raw[0][i] {
					t.Errorf("%s, public row: %q, want the raw %q", c, cond[0][i], raw[0][i])
				}
				// The plain mask changes the value (but MASK_NONE's).
				if c != "nick" && plain[0][i] == raw[0][i] {
					t.Errorf("%s: the plain mask leaves %q as it is", c, raw[0][i])
				}
				// Rows 2 (condition true) and 3 (unknown: NULL): masked.
				for row := 1; row <= 2; row++ {
					if cond[row][i] != plain[row][i] {
						t.Errorf("%s, row %s: %q, want the mask's %q", c, cond[row][0], cond[row][i], plain[row][i])
					}
				}
			}

			// A condition of the statement compares the value the caller sees.
			for _, tc := range []struct {
				q    string
				want int
			}{
				{"SELECT id FROM people WHERE email = 'ada@one.test'", 1},
				{"SELECT id FROM people WHERE email = 'bea@two.test'", 0},
				{"SELECT id FROM people WHERE code LIKE 'Code%' ORDER BY id", 1},
				{"SELECT id FROM people WHERE hint = 'Hint-Two'", 0},
				{"SELECT id FROM people WHERE hint = 'Hint-One'", 1},
			} {
				rows, _, err := query(as(support), db, tc.q)
				assertNoWhenCanary(t, tc.q, rows, err)
				if err != nil || len(rows) != tc.want {
					t.Errorf("%s: rows %v, err %v; want %d", tc.q, rows, err, tc.want)
				}
			}
			// A condition on the restricted column itself is refused.
			if _, _, err := query(as(support), db, "SELECT id FROM people WHERE secret = 'x'"); !errors.Is(err, sqe.ErrColumnDenied) {
				t.Errorf("condition on the restricted column: %v", err)
			}

			// Explain shows the condition with the mask and the CASE.
			ex, err := sqe.Explain(as(admin), db, support, "SELECT email FROM people")
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Tables) != 1 || ex.Tables[0].Masks["email"].When != "visibility <> 'public'" ||
				ex.Tables[0].Masks["email"].Policy != "email-when" || !strings.Contains(strings.ToLower(ex.SQL), "is false then") {
				t.Errorf("explain: %+v\n%s", ex.Tables, ex.SQL)
			}

			// A write reads a masked column masked: the same CASE.
			if _, err := db.ExecContext(as(support), "UPDATE people SET nick = email WHERE id IN (1, 2, 3, 4)"); err != nil {
				t.Fatal(err)
			}
			got, _, err := query(as(admin), db, "SELECT id, nick FROM people ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			want := [][]string{{"1", "ada@one.test"}, {"2", plain[1][1]}, {"3", plain[2][1]}, {"4", "HIDDEN-CANARY"}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after UPDATE nick = email: %v, want %v", got, want)
			}
		})
	}
}

// TestConditionalMaskPolicyErrors: a when that reads another table or a
// subquery fails the open with file, line and field; one that names a
// column the table lacks fails every caller's statements on the table.
func TestConditionalMaskPolicyErrors(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, "version: 1\ndefault: allow\n# %[1]s\n")
			testdb.Exec(t, e.raw, whenFixture...)
			dir := t.TempDir()
			for i, when := range []string{
				"EXISTS (SELECT 1 FROM %[1]s.orders)",
				"orders.total > 1",
				"visibility = = 'x'",
			} {
				body := fmt.Sprintf("version: 1\ndefault: allow\ntables:\n  %[1]s.people:\n    masks:\n"+
					"      - {name: bad, principals: [public], column: email, type: MASK, when: %q}\n", e.schema, fmt.Sprintf(when, e.schema))
				path := filepath.Join(dir, fmt.Sprintf("bad%d.yaml", i))
				if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
				db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(path), sqe.WithoutAudit())
				if err == nil {
					db.Close()
					t.Fatalf("when %q: the open succeeded", when)
				}
				want := fmt.Sprintf("bad%d.yaml:6: tables.%q.masks[0].when: rule \"bad\": mask condition (when)", i, e.schema+".people")
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("when %q: %v\nwant %s", when, err, want)
				}
			}

			body := fmt.Sprintf("version: 1\ndefault: allow\ntables:\n  %[1]s.people:\n    masks:\n"+
				"      - {name: typo, principals: [role:support], column: email, type: MASK, when: \"visibilty <> 'public'\"}\n", e.schema)
			path := filepath.Join(dir, "typo.yaml")
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(path), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, u := range []session.User{admin, support} {
				for _, q := range []string{"SELECT id FROM people", "UPDATE people SET nick = 'x' WHERE id = 1"} {
					_, _, err := query(as(u), db, q)
					if !errors.Is(err, sqe.ErrPolicy) || !strings.Contains(err.Error(), "typo") || !strings.Contains(err.Error(), "visibilty") {
						t.Fatalf("%s as %s: want a policy error naming the rule and the column, got %v", q, u.Name, err)
					}
				}
			}
		})
	}
}
