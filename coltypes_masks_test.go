package sqe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
)

const maskedTypesPolicy = fixturePolicy + `  %[1]s.typed:
    access:
      - {name: read, principals: [role:typer, role:ftyper], allow: [select]}
    row_filters:
      - {name: positive, principals: [role:ftyper], filter: "id > 0"}
    masks:
      - {name: code, principals: [role:typer, role:ftyper], column: code, type: MASK}
      - {name: label, principals: [role:typer, role:ftyper], column: label, type: MASK_SHOW_FIRST_4}
      - {name: note, principals: [role:typer, role:ftyper], column: note, type: MASK_SHOW_LAST_4}
      - {name: tag, principals: [role:typer, role:ftyper], column: tag, type: MASK_HASH}
      - {name: short, principals: [role:typer, role:ftyper], column: short, type: MASK_HASH}
      - {name: qty, principals: [role:typer, role:ftyper], column: qty, type: MASK}
      - {name: amount, principals: [role:typer, role:ftyper], column: amount, type: MASK_NULL}
      - {name: born, principals: [role:typer, role:ftyper], column: born, type: MASK_DATE_SHOW_YEAR}
      - {name: big, principals: [role:typer, role:ftyper], column: big, type: MASK_SHOW_LAST_4}
      - {name: other, principals: [role:typer, role:ftyper], column: other, type: MASK, args: ["X", "x", "n", "*"]}
`

var (
	typer = session.User{Name: "ty", Roles: []string{"typer"}}
	// ftyper has typer's masks under a row filter: the masks are then
	// computed only where the filter holds.
	ftyper = session.User{Name: "fty", Roles: []string{"ftyper"}}
)

// TestMaskedColumnTypesAreTheColumns: a mask that keeps the column's type
// — MASK and the show/mask first/last masks of a string whose other
// characters are kept (each character becomes one), MASK_HASH into a
// column long enough for the digest, MASK_NULL, the integer and date
// masks — reports the column's own type name, length, precision and
// scale through Rows.ColumnTypes, on both servers, as the raw column
// does. A mask whose result can be longer than the column (a digest
// longer than it; MASK with a replacement for other characters, which
// turns a character outside the BMP into two) reports its expression's
// type instead of a length that would cut the value.
//
// With WithServerMasks the string masks that call the server's function
// report the same.
func TestMaskedColumnTypesAreTheColumns(t *testing.T) {
	for _, b := range backends() {
		for _, server := range []bool{false, true} {
			name := b.name
			var opts []sqe.Option
			if server {
				name += "/server masks"
				opts = append(opts, sqe.WithServerMasks())
			}
			t.Run(name, func(t *testing.T) {
				e := newEnvWith(t, b, maskedTypesPolicy, opts...)
				if server {
					installServerMasks(t, e)
				}
				testdb.Exec(t, e.raw,
					"CREATE TABLE typed (id INT PRIMARY KEY, code CHAR(6) NOT NULL, label VARCHAR(20) NOT NULL, note VARCHAR(30), "+
						"tag VARCHAR(80), short VARCHAR(10), qty INT, amount DECIMAL(10,2), born DATE, big BIGINT NOT NULL, other VARCHAR(12))",
					"INSERT INTO typed VALUES (1, 'AB12', 'Grace Hopper', 'note 1234', 'tag', 'short', 42, 12.50, '1906-12-09', 1234567, 'a-b')")
				kept := []string{"id", "code", "label", "note", "tag", "qty", "amount", "born", "big"}
				q := "SELECT " + strings.Join(kept, ", ") + " FROM typed"
				want, err := columnTypes(as(admin), e.raw, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := columnTypes(as(typer), e.db, q)
				if err != nil {
					t.Fatal(err)
				}
				// Under a row filter, read flat and as a joined table's read
				// form, the masks report the same.
				filtered, err := columnTypes(as(ftyper), e.db, q)
				if err != nil {
					t.Fatal(err)
				}
				joined, err := columnTypes(as(ftyper), e.db, "SELECT "+strings.ReplaceAll(", "+strings.Join(kept, ", "), ", ", ", t.")[2:]+
					" FROM typed t JOIN typed u ON u.id = t.id")
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if filtered[i] != got[i] || joined[i] != got[i] {
						t.Errorf("masked column %s under a row filter reports\n\t%s (flat)\n\t%s (joined)\nwithout one\n\t%s", kept[i], filtered[i], joined[i], got[i])
					}
				}
				if b.name == "mysql" {
					// MariaDB has no expression of type CHAR nor a cast to
					// INT: a masked CHAR(n) reports VARCHAR, a masked INT
					// BIGINT (as wide as the value can be).
					for i, c := range kept {
						switch c {
						case "code":
							want[i] = strings.Replace(want[i], " CHAR ", " VARCHAR ", 1)
						case "qty":
							want[i] = strings.Replace(want[i], " INT ", " BIGINT ", 1)
						}
					}
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("masked column %s reports\n\t%s\nthe raw column\n\t%s", kept[i], got[i], want[i])
					}
				}
				// The masks' values are masked, as the same statement shows.
				rows, _, err := query(as(typer), e.db, "SELECT label, note, big FROM typed")
				if err != nil || len(rows) != 1 || rows[0][0] != "Gracx xxxxxx" || rows[0][1] != "xxxx 1234" {
					t.Fatalf("masked values %v %v", rows, err)
				}
				// Under the row filter the masks give the same values, read
				// flat, joined, and in a condition.
				all := "SELECT " + strings.Join(kept, ", ") + " FROM typed"
				want2, _, err := query(as(typer), e.db, all)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range []string{
					all,
					"SELECT " + strings.ReplaceAll(", "+strings.Join(kept, ", "), ", ", ", t.")[2:] + " FROM typed t JOIN typed u ON u.id = t.id",
					all + " WHERE label = 'Gracx xxxxxx' AND big IS NOT NULL AND code IS NOT NULL",
				} {
					got2, _, err := query(as(ftyper), e.db, q)
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(got2) != fmt.Sprint(want2) {
						t.Errorf("%s under the row filter gives %v, without it %v", q, got2, want2)
					}
				}
				// A NOT NULL column that an outer join extends with NULLs is
				// nullable there, raw and masked, and its masked value is
				// NULL where the raw one is.
				outer := "SELECT a.id, b.label, b.big FROM typed a LEFT JOIN typed b ON b.id = a.id + 1"
				want, err = columnTypes(as(admin), e.raw, outer)
				if err != nil {
					t.Fatal(err)
				}
				got, err = columnTypes(as(typer), e.db, outer)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("outer join: masked columns report\n\t%s\nthe raw ones\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
				}
				rows, _, err = query(as(typer), e.db, outer)
				if err != nil || len(rows) != 1 || rows[0][1] != "NULL" || rows[0][2] != "NULL" {
					t.Fatalf("outer join: masked values of a NULL-extended row %v %v", rows, err)
				}
				// Longer than the column: the expression's own type.
				for _, col := range []string{"short", "other"} {
					raw, err := columnTypes(as(admin), e.raw, "SELECT "+col+" FROM typed")
					if err != nil {
						t.Fatal(err)
					}
					got, err := columnTypes(as(typer), e.db, "SELECT "+col+" FROM typed")
					if err != nil {
						t.Fatal(err)
					}
					// (MariaDB's driver reports no length for a VARCHAR: a
					// longer value is VARCHAR there too, and reports no
					// length that would cut it.)
					if got[0] == raw[0] && !strings.Contains(raw[0], " len=0/false ") {
						t.Errorf("%s: %s, a masked value longer than the column cannot report the column's type", col, got[0])
					}
				}
			})
		}
	}
}
