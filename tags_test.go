package sqe_test

import (
	"reflect"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// tagSnapshot is a policy snapshot whose one table binds tags to masks.
type tagSnapshot struct{}

func (tagSnapshot) Version() uint64 { return 1 }
func (tagSnapshot) View(u session.User) (policy.View, error) {
	return tagView{u: u}, nil
}

type tagView struct {
	policy.BaseView
	u session.User
}

var _ policy.View = tagView{}

func (v tagView) Fingerprint() string     { return "tags:" + v.u.Name }
func (v tagView) User() session.User      { return v.u }
func (v tagView) SnapshotVersion() uint64 { return 1 }
func (v tagView) Decide(t policy.TableName) (*policy.Decision, error) {
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{}}
	for _, a := range policy.Accesses {
		d.Allowed[a] = true
	}
	if t.Table == "people" {
		d.Masks = map[string]policy.Mask{"note": {Type: "MASK", Policy: "note-own-mask"}}
		d.Restricted = map[string]string{"secret": "no-secret"}
		d.TagMasks = map[string]policy.Mask{
			"PII":      {Type: "MASK_NULL", Policy: "pii-null"},
			"EMAIL":    {Type: "MASK_HASH", Policy: "email-hash"},
			"PII_TEXT": {Type: "MASK_SHOW_LAST_4", Policy: "pii-text"},
		}
	}
	return d, nil
}

// TestTagMasksFromColumnComments: tags written in the database's column
// comments select masks bound once to the tag; the column's own mask wins,
// restricted stays restricted, a binding that cannot be computed for the
// column's type restricts the column, and a tagged column added later is
// masked with no policy change.
func TestTagMasksFromColumnComments(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			create := "CREATE TABLE people (id INT PRIMARY KEY, email VARCHAR(40) COMMENT 'tags: PII, EMAIL', " +
				"phone VARCHAR(20) COMMENT 'tags: PII', note VARCHAR(20) COMMENT 'tags: PII', " +
				"secret VARCHAR(20) COMMENT 'tags: EMAIL', amount DECIMAL(10,2) COMMENT 'tags: PII_TEXT', plain VARCHAR(10))"
			comments := []string{}
			if b.name == "postgres" {
				create = "CREATE TABLE people (id INT PRIMARY KEY, email VARCHAR(40), phone VARCHAR(20), note VARCHAR(20), " +
					"secret VARCHAR(20), amount DECIMAL(10,2), plain VARCHAR(10))"
				comments = []string{
					"COMMENT ON COLUMN people.email IS 'tags: PII, EMAIL'", "COMMENT ON COLUMN people.phone IS 'tags: PII'",
					"COMMENT ON COLUMN people.note IS 'tags: PII'", "COMMENT ON COLUMN people.secret IS 'tags: EMAIL'",
					"COMMENT ON COLUMN people.amount IS 'tags: PII_TEXT'",
				}
			}
			testdb.Exec(t, e.raw, append(append([]string{create}, comments...),
				"INSERT INTO people VALUES (1, 'ann@x.test', '555-0100', 'Note', 'S3CRET', 12.50, 'ok')")...)
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(policy.NewStaticSource(tagSnapshot{})))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			u := session.User{Name: "tagged"}
			rows, cols, err := query(as(u), db, "SELECT * FROM people")
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"id", "email", "phone", "note", "plain"}; !reflect.DeepEqual(cols, want) {
				t.Fatalf("columns %v, want %v (secret restricted, amount's tag mask cannot be computed for DECIMAL)", cols, want)
			}
			if want := [][]string{r("1", "NULL", "NULL", "Xxxx", "ok")}; !reflect.DeepEqual(rows, want) {
				t.Fatalf("rows %v, want %v", rows, want)
			}
			// A tagged column added later is masked at once, with no policy
			// change. (PostgreSQL: sqe refuses ALTER TABLE on a table under a
			// read policy, so the column comes from outside and the next DDL
			// through sqe refreshes the metadata.)
			if b.name == "mysql" {
				if _, err := db.ExecContext(as(u), "ALTER TABLE people ADD COLUMN ssn VARCHAR(11) COMMENT 'tags: PII'"); err != nil {
					t.Fatal(err)
				}
			} else {
				testdb.Exec(t, e.raw, "ALTER TABLE people ADD COLUMN ssn VARCHAR(11)", "COMMENT ON COLUMN people.ssn IS 'tags: PII'")
				if _, err := db.ExecContext(as(u), "CREATE TABLE refresh_marker (x INT)"); err != nil {
					t.Fatal(err)
				}
			}
			testdb.Exec(t, e.raw, "UPDATE people SET ssn = '123-45-6789'")
			rows, _, err = query(as(u), db, "SELECT ssn FROM people")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("NULL")}) {
				t.Fatalf("new tagged column: %v %v", rows, err)
			}
		})
	}
}
