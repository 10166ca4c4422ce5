package postgres

import (
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
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
	}
	dec := map[string]*policy.Decision{"shop.measures": {
		Allowed:    allAccess(),
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
		if got := strings.Contains(res.SQL, "OFFSET 0"); got != c.fenced {
			t.Errorf("%s: fenced %v, want %v:\n%s", c.sql, got, c.fenced, res.SQL)
		}
	}
}
