package postgres

import (
	"context"
	"database/sql/driver"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

var args = dialecttest.Args

func TestWriteChecks(t *testing.T) {
	eu := policy.RowFilter{Expr: "region = 'EU'", Policy: "eu-only", Check: "region = 'EU'"}
	tenant := policy.RowFilter{Expr: "tenant = '6f1c2f3e-8f5e-4d7a-9a43-0e6a4c1b2d3f'::uuid", Policy: "tenant",
		Check: "tenant = '6f1c2f3e-8f5e-4d7a-9a43-0e6a4c1b2d3f'::uuid"}
	flag := policy.RowFilter{Expr: "published IS TRUE AND id <> 0", Policy: "published", Check: "published IS TRUE AND id <> 0"}
	mapped := policy.RowFilter{Expr: "region IN (SELECT region FROM shop.region_map)", Policy: "mapped", Check: "region IN (SELECT region FROM shop.region_map)"}
	const uuid = "6f1c2f3e-8f5e-4d7a-9a43-0e6a4c1b2d3f"
	tests := []struct {
		name    string
		table   string
		filters []policy.RowFilter
		sql     string
		args    []driver.NamedValue
		want    string
	}{
		{"literal passes", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'EU')", nil, ""},
		{"literal fails", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'US')", nil, "does not satisfy"},
		{"case differs", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'eu')", nil, "does not satisfy"},
		{"params", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES ($1, $2), ($3, $4)", args(int64(1), "EU", int64(2), "US"), "row 2 written"},
		{"params reordered", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (region, id) VALUES ($2, $1)", args(int64(1), "EU"), ""},
		{"default values", "customers", []policy.RowFilter{eu}, "INSERT INTO customers DEFAULT VALUES", nil, "cannot prove"},
		{"default keyword", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, DEFAULT)", nil, "cannot prove"},
		{"cast value", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, $1::text)", args("EU"), "cannot prove"},
		{"insert select", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) SELECT id, 'EU' FROM orders", nil, ""},
		{"insert select column", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) SELECT id, name FROM other.customers", nil, "cannot prove"},
		{"on conflict do nothing", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, 'US') ON CONFLICT DO NOTHING", nil, "does not satisfy"},
		{"subquery check", "customers", []policy.RowFilter{mapped}, "INSERT INTO customers (id, region) VALUES (1, 'EU')", nil, "cannot prove"},
		{"update other column", "customers", []policy.RowFilter{mapped}, "UPDATE customers SET name = 'x'", nil, ""},
		{"update moves row", "customers", []policy.RowFilter{eu}, "UPDATE customers SET region = $1 WHERE id = 1", args("US"), "does not satisfy"},
		{"update to itself", "customers", []policy.RowFilter{eu}, "UPDATE customers c SET region = c.region", nil, ""},
		{"update from another table", "customers", []policy.RowFilter{eu}, "UPDATE customers c SET region = o.name FROM other.customers o WHERE o.id = c.id", nil, "cannot prove"},
		{"update row constructor", "customers", []policy.RowFilter{eu}, "UPDATE customers SET (region, name) = ('EU', 'x')", nil, "cannot prove"},
		{"merge update", "customers", []policy.RowFilter{eu}, "MERGE INTO customers c USING orders o ON o.customer_id = c.id WHEN MATCHED THEN UPDATE SET region = 'US'", nil, "does not satisfy"},
		{"merge insert", "customers", []policy.RowFilter{eu}, "MERGE INTO customers c USING orders o ON o.customer_id = c.id WHEN NOT MATCHED THEN INSERT (id, region) VALUES (o.id, 'EU')", nil, ""},
		{"merge insert from source", "customers", []policy.RowFilter{eu}, "MERGE INTO customers c USING other.customers o ON o.id = c.id WHEN NOT MATCHED THEN INSERT (id, region) VALUES (o.id, o.name)", nil, "cannot prove"},
		{"pointer", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, $1)", args(ptr("EU")), ""},
		{"nil pointer", "customers", []policy.RowFilter{eu}, "INSERT INTO customers (id, region) VALUES (1, $1)", args((*string)(nil)), "does not satisfy"},
		{"insert in a CTE", "customers", []policy.RowFilter{eu}, "WITH w AS (INSERT INTO customers (id, region) VALUES (1, 'US') RETURNING id) SELECT id FROM w", nil, "does not satisfy"},
		{"update in a CTE", "customers", []policy.RowFilter{eu}, "WITH w AS (UPDATE customers SET region = 'US' RETURNING id) SELECT id FROM w", nil, "does not satisfy"},
		{"uuid passes", "docs", []policy.RowFilter{tenant}, "INSERT INTO docs (id, tenant) VALUES (1, $1)", args(uuid), ""},
		{"uuid upper case", "docs", []policy.RowFilter{tenant}, "INSERT INTO docs (id, tenant) VALUES (1, $1)", args(strings.ToUpper(uuid)), ""},
		{"uuid bytes", "docs", []policy.RowFilter{tenant}, "INSERT INTO docs (id, tenant) VALUES (1, $1)", args([16]byte{0x6f, 0x1c, 0x2f, 0x3e, 0x8f, 0x5e, 0x4d, 0x7a, 0x9a, 0x43, 0x0e, 0x6a, 0x4c, 0x1b, 0x2d, 0x3f}), ""},
		{"uuid other tenant", "docs", []policy.RowFilter{tenant}, "INSERT INTO docs (id, tenant) VALUES (1, '00000000-0000-0000-0000-000000000007')", nil, "does not satisfy"},
		{"bool passes", "docs", []policy.RowFilter{flag}, "INSERT INTO docs (id, published) VALUES ($1, $2)", args(int64(3), true), ""},
		{"bool fails", "docs", []policy.RowFilter{flag}, "INSERT INTO docs (id, published) VALUES (3, false)", nil, "does not satisfy"},
		{"bool null fails", "docs", []policy.RowFilter{flag}, "INSERT INTO docs (id, published) VALUES (3, NULL)", nil, "does not satisfy"},
		{"negative id", "docs", []policy.RowFilter{flag}, "INSERT INTO docs (id, published) VALUES (-3, true)", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := dialecttest.CustomersDecision()
			d.RowFilters, d.Restricted = tc.filters, nil
			req := request(tc.sql, map[string]*policy.Decision{"shop." + tc.table: d})
			req.Catalog.(*rewriter.StaticCatalog).Tables["shop.docs"] = []rewriter.Column{
				{Name: "id", DataType: "integer", ColumnType: "integer"},
				{Name: "tenant", DataType: "uuid", ColumnType: "uuid"},
				{Name: "published", DataType: "boolean", ColumnType: "boolean"},
			}
			res, err := Dialect{}.Rewrite(context.Background(), req)
			if err != nil {
				t.Fatalf("rewrite: %v", err)
			}
			dialecttest.WriteCheckVerdict(t, res, tc.args, tc.want, "US", "0007")
		})
	}
}

func ptr(s string) *string { return &s }
