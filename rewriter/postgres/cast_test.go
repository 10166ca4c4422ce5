package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// A comparison between columns of different type families casts one side,
// and the cast can fail on a value: the filtered table is then fenced, so
// that the comparison never sees a row the filter hides. Columns of one
// family compare without a cast that can fail, and the statement stays
// flat.
func TestComparisonsAcrossTypesAreFenced(t *testing.T) {
	col := func(n, typ string) rewriter.Column { return rewriter.Column{Name: n, DataType: typ, ColumnType: typ} }
	cat := testCatalog()
	cat.Tables["shop.measures"] = []rewriter.Column{
		col("id", "integer"), col("region", "character varying"), col("n", "numeric"), col("f", "double precision"),
		col("i", "integer"), col("big", "bigint"), col("d", "date"), col("ts", "timestamp without time zone"),
		col("label", "text"), col("code", "character varying"), col("kind", "user-defined"),
		{Name: "ci", DataType: "text", ColumnType: "text", Nondeterministic: true},
	}
	dec := map[string]*policy.Decision{"shop.measures": {
		Allowed:    dialecttest.AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}},
	}}
	for _, c := range []struct {
		sql    string
		fenced bool
	}{
		{"SELECT id FROM measures WHERE n = f", true},
		{"SELECT id FROM measures m WHERE m.f > m.n", true},
		{"SELECT id FROM measures WHERE n IN (f, 1)", true},
		{"SELECT id FROM measures WHERE n BETWEEN i AND f", true},
		{"SELECT id FROM measures WHERE d = ts", true},
		{"SELECT id FROM measures WHERE kind = kind", true},
		{"SELECT a.id FROM measures a JOIN measures b ON a.n = b.f", true},
		{"SELECT id FROM measures WHERE label LIKE 'a%'", false},
		{"SELECT id FROM measures WHERE i = big", false},
		{"SELECT id FROM measures WHERE n = i AND big < n", false},
		{"SELECT id FROM measures WHERE label = code", false},
		{"SELECT id FROM measures WHERE n = 1.5 AND f = 2 AND d = '2020-01-01'", false},
		{"SELECT a.id FROM measures a JOIN measures b ON a.i = b.big", false},
		{"SELECT a.id FROM measures a JOIN measures b ON a.d = b.d", false},
	} {
		req := request(c.sql, dec)
		req.Catalog = cat
		res, err := rewriteReq(t, req)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		// A single-table read guards the comparison by the filter instead.
		got := strings.Contains(res.SQL, "OFFSET 0") || strings.Contains(res.SQL, "WHERE CASE WHEN ") && strings.Contains(res.SQL, ".region = 'EU' THEN ")
		if got != c.fenced {
			t.Errorf("%s: fenced or guarded %v, want %v:\n%s", c.sql, got, c.fenced, res.SQL)
		}
	}
}

// LIKE on a column of a nondeterministic collation fails when the server
// plans it, on statistics of every row: refused on a filtered table.
func TestLikeOnNondeterministicCollationRefused(t *testing.T) {
	cat := testCatalog()
	cat.Tables["shop.names"] = []rewriter.Column{
		{Name: "id", DataType: "integer", ColumnType: "integer"},
		{Name: "region", DataType: "text", ColumnType: "text"},
		{Name: "ci", DataType: "text", ColumnType: "text", Nondeterministic: true},
	}
	filtered := map[string]*policy.Decision{"shop.names": {
		Allowed:    dialecttest.AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}},
	}}
	for _, q := range []string{
		"SELECT id FROM names WHERE ci LIKE 'a%'",
		"SELECT id FROM names n WHERE n.ci ILIKE 'a%' OR id = 1",
		"SELECT id FROM orders WHERE id IN (SELECT id FROM names WHERE ci SIMILAR TO 'a%')",
	} {
		req := request(q, filtered)
		req.Catalog = cat
		if _, err := rewriteReq(t, req); !errors.Is(err, rewriter.ErrUnsupported) || !strings.Contains(err.Error(), "nondeterministic") {
			t.Errorf("%s: want a refusal, got %v", q, err)
		}
	}
	// Without a filter nothing is hidden, and the server's own error is
	// the application's to see.
	req := request("SELECT id FROM names WHERE ci LIKE 'a%'", nil)
	req.Catalog = cat
	if _, err := rewriteReq(t, req); err != nil {
		t.Errorf("unfiltered: %v", err)
	}
}
