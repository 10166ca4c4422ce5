package mysql

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// checkedDecision is the customers decision whose filters check written rows.
func checkedDecision(filters ...policy.RowFilter) map[string]*policy.Decision {
	d := dialecttest.CustomersDecision()
	d.RowFilters = filters
	d.Restricted = nil
	return map[string]*policy.Decision{"shop.customers": d}
}

var args = dialecttest.Args

func TestWriteChecks(t *testing.T) {
	eu := policy.RowFilter{Expr: "region = 'EU'", Policy: "eu-only", Check: "region = 'EU'"}
	own := policy.RowFilter{Expr: "name = current_user()", Policy: "own", Check: "name = current_user()"}
	ids := policy.RowFilter{Expr: "id BETWEEN 10 AND 20 OR id IN (1, 2)", Policy: "ids", Check: "id BETWEEN 10 AND 20 OR id IN (1, 2)"}
	mapped := policy.RowFilter{Expr: "region IN (SELECT region FROM shop.region_map)", Policy: "mapped", Check: "region IN (SELECT region FROM shop.region_map)"}
	unchecked := policy.RowFilter{Expr: "region = 'EU'", Policy: "reads-only"}
	tests := []struct {
		name    string
		filters []policy.RowFilter
		sql     string
		args    []driver.NamedValue
		want    string // "" passes; "fails" or "cannot prove"
	}{
		{"literal passes", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'EU')", nil, ""},
		{"literal fails", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'US')", nil, "does not satisfy"},
		{"second row fails", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'EU'), (2, 'US')", nil, "row 2 written"},
		{"placeholder passes", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (?, ?)", args(int64(1), "EU"), ""},
		{"placeholder fails", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (?, ?)", args(int64(1), "US"), "does not satisfy"},
		{"bytes placeholder", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (?, ?)", args(int64(1), []byte("EU")), ""},
		{"null fails", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, NULL)", nil, "does not satisfy"},
		{"case may collate equal", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'eu')", nil, "cannot prove"},
		{"trailing space", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'EU ')", nil, "cannot prove"},
		{"non-ascii", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'ÉU')", nil, "cannot prove"},
		{"too long for the column", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (?, ?)", args(int64(1), "EUROPE-WEST"), "cannot prove"},
		{"column not given", []policy.RowFilter{eu}, "INSERT INTO customers (id, name) VALUES (1, 'x')", nil, "cannot prove"},
		{"expression value", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, CONCAT('E', 'U'))", nil, "cannot prove"},
		{"context value", []policy.RowFilter{own}, "INSERT INTO customers (id, name) VALUES (1, current_user())", nil, ""},
		{"own name", []policy.RowFilter{own}, "INSERT INTO customers (id, name) VALUES (1, ?)", args("someone"), "does not satisfy"},
		{"insert set form", []policy.RowFilter{eu}, "INSERT INTO customers SET id = 1, region = 'US'", nil, "does not satisfy"},
		{"insert set form passes", []policy.RowFilter{eu}, "INSERT INTO customers SET id = ?, region = ?", args(int64(1), "EU"), ""},
		{"no column list", []policy.RowFilter{eu}, "INSERT INTO customers VALUES (1, 'n', 'EU', 's', 'e', 3)", nil, ""},
		{"insert select constant", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) SELECT id, 'EU' FROM orders", nil, ""},
		{"insert select column", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) SELECT id, 'EU' FROM orders UNION SELECT 1, 'US'", nil, "cannot prove"},
		{"range passes", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (?)", args(int64(15)), ""},
		{"list passes", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (2)", nil, ""},
		{"range fails", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (?)", args(int64(21)), "does not satisfy"},
		{"string number", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (?)", args("15"), ""},
		{"float number", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (?)", args(15.5), "cannot prove"},
		{"out of range", []policy.RowFilter{ids}, "INSERT INTO customers (id) VALUES (?)", args(int64(1) << 40), "cannot prove"},
		{"subquery filter", []policy.RowFilter{mapped}, "INSERT INTO customers (id, region) VALUES (1, 'EU')", nil, "cannot prove"},
		{"reads-only filter", []policy.RowFilter{unchecked}, "INSERT INTO customers (id, region) VALUES (1, 'US')", nil, ""},
		{"update other column", []policy.RowFilter{eu, mapped}, "UPDATE customers SET name = ? WHERE id = 1", args("x"), ""},
		{"update moves row", []policy.RowFilter{eu}, "UPDATE customers SET region = 'US' WHERE id = 1", nil, "does not satisfy"},
		{"update keeps row", []policy.RowFilter{eu}, "UPDATE customers SET region = ? WHERE id = 1", args("EU"), ""},
		{"update to itself", []policy.RowFilter{eu}, "UPDATE customers SET region = region, name = 'x' WHERE id = 1", nil, ""},
		{"update to another column", []policy.RowFilter{eu}, "UPDATE customers SET region = name WHERE id = 1", nil, "cannot prove"},
		{"update by expression", []policy.RowFilter{eu}, "UPDATE customers SET region = LOWER(region) WHERE id = 1", nil, "cannot prove"},
		{"update twice", []policy.RowFilter{eu}, "UPDATE customers SET region = 'EU', region = 'US' WHERE id = 1", nil, "cannot prove"},
		{"multi-table update", []policy.RowFilter{eu}, "UPDATE customers c JOIN orders o ON o.customer_id = c.id SET c.region = 'US', o.total = 1", nil, "does not satisfy"},
		{"custom check", []policy.RowFilter{{Expr: "region = 'EU'", Policy: "c", Check: "region IN ('EU', 'UK')"}}, "INSERT INTO customers (id, region) VALUES (1, 'UK')", nil, ""},
		{"custom check on update of another column", []policy.RowFilter{{Expr: "region = 'EU'", Policy: "c", Check: "id > 0"}}, "UPDATE customers SET name = 'x'", nil, "cannot prove"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Dialect{}.Rewrite(context.Background(), request(tc.sql, checkedDecision(tc.filters...)))
			if err != nil {
				t.Fatalf("rewrite: %v", err)
			}
			dialecttest.WriteCheckVerdict(t, res, tc.args, tc.want, "'US'", "UK", "someone", "EUROPE")
		})
	}
}

// BenchmarkVerifyWriteChecks is the check's own cost per execution: one
// row, and 1,000 rows of placeholders, against a tenant filter.
func BenchmarkVerifyWriteChecks(b *testing.B) {
	eu := policy.RowFilter{Expr: "region = 'EU' AND id > 0", Policy: "eu-only", Check: "region = 'EU' AND id > 0"}
	for _, rows := range []int{1, 1000} {
		b.Run(strconv.Itoa(rows), func(b *testing.B) {
			q := "INSERT INTO customers (id, name, region) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", rows), ", ")
			res, err := Dialect{}.Rewrite(context.Background(), request(q, checkedDecision(eu)))
			if err != nil {
				b.Fatal(err)
			}
			var vs []any
			for r := 0; r < rows; r++ {
				vs = append(vs, int64(r+1), "name", "EU")
			}
			a := args(vs...)
			for b.Loop() {
				if err := rewriter.VerifyAll(res.WriteChecks, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
