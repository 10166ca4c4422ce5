package sqe

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/internal/fakedriver"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

func memoFile(t *testing.T, filter string) *policy.File {
	t.Helper()
	f, err := policy.Parse("memo.yaml", []byte(`version: 1
default: allow
tables:
  shop.customers:
    row_filters:
      - {name: f, principals: [group:ops], filter: "`+filter+`"}
`))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFingerprintMemoFollowsCallerAndSnapshot: a connection remembers the
// last caller's fingerprint to skip building a View for a cached rewrite;
// a new snapshot, another caller, or the same User value changed in place
// must each get their own rewrite.
func TestFingerprintMemoFollowsCallerAndSnapshot(t *testing.T) {
	src := policy.NewMemorySource()
	if _, err := src.Publish(memoFile(t, "region = 'EU'")); err != nil {
		t.Fatal(err)
	}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{"shop.customers": {
		{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"}}}}
	fdb := fakedriver.New(fakedriver.AllFlags())
	c, err := newConnector(fdb.Connector("fake"), []Option{WithPolicy(src), WithDialect("mysql"), WithCatalog(cat), WithoutAudit()})
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	db.SetMaxOpenConns(1)
	u := session.User{Name: "ann", Groups: []string{"ops"}}
	st, err := db.PrepareContext(session.NewContext(context.Background(), u), "SELECT id FROM customers WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	last := func(ctx context.Context) string {
		t.Helper()
		rows, err := st.QueryContext(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sqls := fdb.SQL()
		for i := len(sqls) - 1; i >= 0; i-- {
			if strings.Contains(sqls[i], "customers") {
				return sqls[i]
			}
		}
		return "(no statement reached the driver)"
	}
	ctx := session.NewContext(context.Background(), u)
	if got := last(ctx); !strings.Contains(got, "'EU'") {
		t.Fatalf("first: %s", got)
	}
	if _, err := src.Publish(memoFile(t, "region = 'US'")); err != nil {
		t.Fatal(err)
	}
	if got := last(ctx); !strings.Contains(got, "'US'") {
		t.Fatalf("after a new snapshot: %s", got)
	}
	// The same name with other groups is another caller.
	if got := last(session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"sales"}})); strings.Contains(got, "'US'") {
		t.Fatalf("after the caller's groups changed: %s", got)
	}
	// A change of the caller's User after the context was made does not
	// reach the context (session.NewContext copies it).
	u.Groups[0] = "sales"
	if got := last(ctx); !strings.Contains(got, "'US'") {
		t.Fatalf("the context's caller: %s", got)
	}
	if got := last(session.NewContext(context.Background(), session.User{Name: "bob"})); strings.Contains(got, "'US'") {
		t.Fatalf("another caller: %s", got)
	}
	if got := last(ctx); !strings.Contains(got, "'US'") {
		t.Fatalf("the first caller again: %s", got)
	}
	// The memo compares the caller field by field, not by pointer: even a
	// User changed in place through session.Peek is another caller, on
	// the prepared path and on the direct one.
	direct := func(ctx context.Context) string {
		t.Helper()
		rows, err := db.QueryContext(ctx, "SELECT id FROM customers WHERE id = ?", 1)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sqls := fdb.SQL()
		return sqls[len(sqls)-1]
	}
	if got := direct(ctx); !strings.Contains(got, "'US'") {
		t.Fatalf("direct, the first caller: %s", got)
	}
	shared, _ := session.Peek(ctx)
	shared.Groups = []string{"sales"}
	if got := direct(ctx); strings.Contains(got, "'US'") {
		t.Fatalf("direct, the caller changed in place: %s", got)
	}
	shared.Groups = []string{"ops"}
	if got := direct(ctx); !strings.Contains(got, "'US'") {
		t.Fatalf("direct, the caller changed back: %s", got)
	}
	shared.Groups = []string{"sales"}
	if got := last(ctx); strings.Contains(got, "'US'") {
		t.Fatalf("prepared, the caller changed in place: %s", got)
	}
}
