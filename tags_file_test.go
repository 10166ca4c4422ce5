package sqe_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

// tagFilePolicy tags columns in the policy file and binds the tags to
// masks for the support role.
const tagFilePolicy = `version: 1
default: allow
tags:
  %[1]s.staff.email: [EMAIL]
  %[1]s.staff.salary: [MONEY_TEXT]
  %[1]s.staff.note: [EMAIL]
  %[1]s.staff.secret: [EMAIL]
  %[1]s.contacts: [PERSONAL]
tag_masks:
  - {name: email-first2, principals: [role:support], tag: EMAIL, type: MASK_SHOW_FIRST_N, args: ["2"]}
  - {name: money-last4, principals: [role:support], tag: MONEY_TEXT, type: MASK_SHOW_LAST_4}
  - {name: personal-null, principals: [role:support], tag: PERSONAL, type: MASK_NULL}
  - {name: comment-pii, principals: [role:support], tag: PII, type: REDACT, args: ["[pii]"]}
tables:
  %[1]s.staff:
    masks:
      - {name: note-own, principals: [role:support], column: note, type: MASK}
    restricted:
      - {name: no-secret, principals: [role:support], columns: [secret]}
`

var (
	tagSupport = session.User{Name: "sup", Roles: []string{"support"}}
	tagAdmin   = session.User{Name: "adm"}
)

func hive(t *testing.T, typ string, args []string, v string) string {
	t.Helper()
	out, err := udf.Apply(typ, args, "", v)
	if err != nil {
		t.Fatal(err)
	}
	return out.(string)
}

// TestTagMasksFromPolicyFile: tags assigned in the policy file select the
// masks bound to them; the column's own mask wins, restricted stays
// restricted, a binding the column's type cannot take restricts the
// column, and a table's tags reach every column, including one created
// later, with no policy change.
func TestTagMasksFromPolicyFile(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, tagFilePolicy)
			testdb.Exec(t, e.raw,
				"CREATE TABLE staff (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(40), salary DECIMAL(10,2), note VARCHAR(20), secret VARCHAR(20))",
				"INSERT INTO staff VALUES (1, 'Ann', 'ann@corp.test', 51000.00, 'Note', 'S3CRET-CANARY')",
				"CREATE TABLE contacts (id INT PRIMARY KEY, phone VARCHAR(20))",
				"INSERT INTO contacts VALUES (1, '555-0100')")
			rows, cols, err := query(as(tagSupport), e.db, "SELECT * FROM staff")
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"id", "name", "email", "note"}; !reflect.DeepEqual(cols, want) {
				t.Fatalf("columns %v, want %v (secret restricted, salary's binding cannot be computed for DECIMAL)", cols, want)
			}
			want := [][]string{r("1", "Ann", hive(t, "MASK_SHOW_FIRST_N", []string{"2"}, "ann@corp.test"), hive(t, "MASK", nil, "Note"))}
			if !reflect.DeepEqual(rows, want) {
				t.Fatalf("rows %v, want %v", rows, want)
			}
			for _, q := range []string{"SELECT salary FROM staff", "SELECT secret FROM staff"} {
				if _, _, err := query(as(tagSupport), e.db, q); err == nil || strings.Contains(err.Error(), "CANARY") || strings.Contains(err.Error(), "51000") {
					t.Fatalf("%s: want a column error without the value, got %v", q, err)
				}
			}
			// The masked value in a condition: the mask, not the raw value.
			if rows, _, err := query(as(tagSupport), e.db, "SELECT id FROM staff WHERE email = 'ann@corp.test'"); err != nil || len(rows) != 0 {
				t.Fatalf("condition on the raw value of a tag-masked column: %v %v", rows, err)
			}
			// The admin has no binding: raw values.
			if rows, _, err := query(as(tagAdmin), e.db, "SELECT email, secret FROM staff"); err != nil || !reflect.DeepEqual(rows, [][]string{r("ann@corp.test", "S3CRET-CANARY")}) {
				t.Fatalf("admin: %v %v", rows, err)
			}
			// Policy simulation names the bindings behind the tag masks.
			ex, err := sqe.Explain(context.Background(), e.db, tagSupport, "SELECT * FROM staff")
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Tables) != 1 || ex.Tables[0].Masks["email"].Policy != "email-first2" || ex.Tables[0].Masks["note"].Policy != "note-own" ||
				ex.Tables[0].Restricted["salary"] != "money-last4" || ex.Tables[0].Restricted["secret"] != "no-secret" {
				t.Fatalf("explained: %+v", ex.Tables)
			}
			// Table-level tag: every column, and a column added later.
			if rows, _, err := query(as(tagSupport), e.db, "SELECT id, phone FROM contacts"); err != nil || !reflect.DeepEqual(rows, [][]string{r("NULL", "NULL")}) {
				t.Fatalf("table-level tag: %v %v", rows, err)
			}
			if _, err := e.db.ExecContext(as(tagAdmin), "ALTER TABLE contacts ADD COLUMN mobile VARCHAR(20)"); err != nil {
				t.Fatal(err)
			}
			testdb.Exec(t, e.raw, "UPDATE contacts SET mobile = '555-0199'")
			if rows, _, err := query(as(tagSupport), e.db, "SELECT mobile FROM contacts"); err != nil || !reflect.DeepEqual(rows, [][]string{r("NULL")}) {
				t.Fatalf("column added later: %v %v", rows, err)
			}
		})
	}
}

// TestColumnCommentChangeThroughSqe: a comment changed through sqe (ALTER
// … COMMENT on MySQL, COMMENT ON COLUMN on PostgreSQL) changes the tags
// from the next statement on; a caller under a tag mask cannot drop a tag.
func TestColumnCommentChangeThroughSqe(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, tagFilePolicy)
			create := []string{"CREATE TABLE tagged (id INT PRIMARY KEY, email VARCHAR(40) COMMENT 'tags: PII', phone VARCHAR(20))"}
			strip := "ALTER TABLE tagged MODIFY email VARCHAR(40) COMMENT 'no tags'"
			tag := "ALTER TABLE tagged MODIFY phone VARCHAR(20) COMMENT 'tags: PII'"
			if b.name == "postgres" {
				create = []string{"CREATE TABLE tagged (id INT PRIMARY KEY, email VARCHAR(40), phone VARCHAR(20))",
					"COMMENT ON COLUMN tagged.email IS 'tags: PII'"}
				strip = "COMMENT ON COLUMN tagged.email IS 'no tags'"
				tag = "COMMENT ON COLUMN tagged.phone IS 'tags: PII'"
			}
			testdb.Exec(t, e.raw, append(create, "INSERT INTO tagged VALUES (1, 'ann@corp.test', '555-0100')")...)
			read := func() [][]string {
				t.Helper()
				rows, _, err := query(as(tagSupport), e.db, "SELECT email, phone FROM tagged")
				if err != nil {
					t.Fatal(err)
				}
				return rows
			}
			if got := read(); !reflect.DeepEqual(got, [][]string{r("[pii]", "555-0100")}) {
				t.Fatalf("before: %v", got)
			}
			if _, err := e.db.ExecContext(as(tagSupport), strip); err == nil {
				t.Fatal("a caller under the tag's mask dropped the tag")
			}
			if got := read(); !reflect.DeepEqual(got, [][]string{r("[pii]", "555-0100")}) {
				t.Fatalf("after the refused change: %v", got)
			}
			for _, q := range []string{strip, tag} {
				if _, err := e.db.ExecContext(as(tagAdmin), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if got := read(); !reflect.DeepEqual(got, [][]string{r("ann@corp.test", "[pii]")}) {
				t.Fatalf("after the admin's change: %v", got)
			}
		})
	}
}

// mapTagSource is a TagSource whose tags a test changes.
type mapTagSource struct {
	mu      sync.Mutex
	tags    map[string]map[string][]string
	err     error
	version atomic.Uint64
}

func (s *mapTagSource) TableTags(_ context.Context, t policy.TableName) (map[string][]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return s.tags[t.Key()], nil
}

func (s *mapTagSource) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	s.version.Add(1)
}

func (s *mapTagSource) TagVersion() uint64 { return s.version.Load() }

func (s *mapTagSource) set(key string, cols map[string][]string) {
	s.mu.Lock()
	s.tags = map[string]map[string][]string{key: cols}
	s.mu.Unlock()
	s.version.Add(1)
}

// TestTagSourceOption: tags from a TagSource given to the driver select
// masks, and a change of the source's version takes effect at once (the
// rewrite cache is keyed on it).
func TestTagSourceOption(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, tagFilePolicy)
			testdb.Exec(t, e.raw, "CREATE TABLE staff (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(40), salary DECIMAL(10,2), note VARCHAR(20), secret VARCHAR(20))",
				"INSERT INTO staff VALUES (1, 'Annabel', 'ann@corp.test', 1, 'n', 's')")
			src := &mapTagSource{}
			src.set(e.schema+".staff", map[string][]string{"name": {"email"}})
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(e.policy), sqe.WithTagSource(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			name := func() string {
				t.Helper()
				rows, _, err := query(as(tagSupport), db, "SELECT name FROM staff")
				if err != nil || len(rows) != 1 {
					t.Fatalf("%v %v", rows, err)
				}
				return rows[0][0]
			}
			if got, want := name(), hive(t, "MASK_SHOW_FIRST_N", []string{"2"}, "Annabel"); got != want {
				t.Fatalf("tagged by the source: %q, want %q", got, want)
			}
			src.set(e.schema+".staff", nil)
			if got := name(); got != "Annabel" {
				t.Fatalf("after the source dropped the tag: %q", got)
			}
			// A source that fails fails the statement (a tag it would have
			// reported could select a mask), without the value.
			src.fail(errors.New("catalog unreachable"))
			rows, _, err := query(as(tagSupport), db, "SELECT name FROM staff")
			if !errors.Is(err, sqe.ErrUnsupported) || len(rows) != 0 || strings.Contains(err.Error(), "Annabel") {
				t.Fatalf("failing tag source: %v %v", rows, err)
			}
		})
	}
}

// TestRangerTagsAsTagSource: Ranger's tag download, given as a TagSource,
// tags columns for the native file's tag masks; the native precedence
// applies (the column's own mask wins).
func TestRangerTagsAsTagSource(t *testing.T) {
	const pol = `version: 1
default: allow
tag_masks:
  - {name: pii-redact, principals: [role:support], tag: PII, type: REDACT, args: ["[pii]"]}
tables:
  %[1]s.customers:
    masks:
      - {name: own-null, principals: [role:support], column: name, type: MASK_NULL}
`
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, pol)
			testdb.Exec(t, e.raw, "DROP TABLE orders", "DROP TABLE customers",
				"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), phone VARCHAR(20))",
				"INSERT INTO customers VALUES (1, 'Ada', 'PHONE-CANARY-1')")
			tags, err := ranger.LoadBundle("ranger/testdata/shop_bundle.json", ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicyFile(e.policy), sqe.WithTagSource(tags.(policy.TagSource)), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rows, _, err := query(as(tagSupport), db, "SELECT id, name, phone FROM customers")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("1", "NULL", "[pii]")}) {
				t.Fatalf("support: %v %v", rows, err)
			}
			if rows, _, err := query(as(tagAdmin), db, "SELECT phone FROM customers"); err != nil || !reflect.DeepEqual(rows, [][]string{r("PHONE-CANARY-1")}) {
				t.Fatalf("admin: %v %v", rows, err)
			}
		})
	}
}
