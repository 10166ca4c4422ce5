package sqe_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

const sqlmockPolicy = `version: 1
default: deny
tables:
  shop.customers:
    access:
      - {name: read, principals: [public], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-null, principals: [role:support], column: ssn, type: MASK_NULL}
      - {name: email-domain, principals: [role:support], column: email, type: CUSTOM, expr: "CONCAT('***', SUBSTRING({col}, LOCATE('@', {col})))"}
    restricted:
      - {name: no-salary, principals: [role:support], columns: [salary]}
  shop.orders:
    access:
      - {name: read, principals: [public], allow: [select]}
`

func sqlmockCatalog() *rewriter.StaticCatalog {
	return &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
		"shop.customers": {
			{Name: "id", DataType: "int", ColumnType: "int"},
			{Name: "region", DataType: "varchar", ColumnType: "varchar(8)"},
			{Name: "ssn", DataType: "varchar", ColumnType: "varchar(11)"},
			{Name: "email", DataType: "varchar", ColumnType: "varchar(60)"},
			{Name: "salary", DataType: "int", ColumnType: "int"},
		},
		"shop.orders": {{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "total", DataType: "int", ColumnType: "int"}},
	}}
}

// The documented rewrites: what reaches the inner driver for each
// statement and user. These are the forms sqe produces; a change here is a
// change of behaviour to review.
var documentedRewrites = []struct {
	name string
	user session.User
	sql  string
	want string
}{
	{"a table without filter or mask is only qualified", session.User{Name: "u"},
		"SELECT id, total FROM orders WHERE id = ?",
		"select `id`, `total` from `shop`.`orders` where `id` = ?"},
	{"a filtered single-table select gets the filter ANDed", session.User{Name: "a", Roles: []string{"analyst"}},
		"SELECT id FROM customers WHERE id = ?",
		"select `id` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and `id` = ?"},
	{"a masked single-table select reads masks in place", session.User{Name: "s", Roles: []string{"support"}},
		"SELECT * FROM customers WHERE id = ?",
		"select `shop`.`customers`.`id`, `shop`.`customers`.`region`, convert(null using utf8mb4) collate utf8mb4_bin as `ssn`, CONCAT('***', substr(`shop`.`customers`.`email`, locate('@', `shop`.`customers`.`email`))) as `email` from `shop`.`customers` where `id` = ?"},
	{"in a join, the table becomes the policy's derived table", session.User{Name: "a", Roles: []string{"analyst"}},
		"SELECT c.id FROM customers c JOIN orders o ON o.id = c.id WHERE c.id = ?",
		"select `c`.`id` from (select `shop`.`customers`.`id` as `id`, `shop`.`customers`.`region` as `region`, `shop`.`customers`.`ssn` as `ssn`, `shop`.`customers`.`email` as `email`, `shop`.`customers`.`salary` as `salary` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU') as `c` join `shop`.`orders` as `o` on `o`.`id` = `c`.`id` where `c`.`id` = ?"},
	{"masks and restricted columns are applied inside it", session.User{Name: "s", Roles: []string{"support"}},
		"SELECT * FROM customers c JOIN orders o ON o.id = c.id",
		"select * from (select `shop`.`customers`.`id` as `id`, `shop`.`customers`.`region` as `region`, convert(null using utf8mb4) collate utf8mb4_bin as `ssn`, CONCAT('***', substr(`shop`.`customers`.`email`, locate('@', `shop`.`customers`.`email`))) as `email` from `shop`.`customers`) as `c` join `shop`.`orders` as `o` on `o`.`id` = `c`.`id`"},
	{"UPDATE gets the row filter ANDed", session.User{Name: "a", Roles: []string{"analyst"}},
		"UPDATE customers SET email = ? WHERE id = ?",
		"update `shop`.`customers` set `email` = ? where `shop`.`customers`.`region` = 'EU' and `id` = ?"},
	{"current_user() is inlined as a literal", session.User{Name: "o'brien"},
		"SELECT id FROM orders WHERE CURRENT_USER() = 'x'",
		"select `id` from `shop`.`orders` where 'o''brien' = 'x'"},
}

func TestRewrittenSQLReachesInnerDriver(t *testing.T) {
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(sqlmockPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	mockDB, mock, err := sqlmock.NewWithDSN("sqe-documented-rewrites", sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	defer mockDB.Close()
	db, err := sqe.Open("sqlmock", "sqe-documented-rewrites",
		sqe.WithPolicyFile(policyFile), sqe.WithDialect("mysql"), sqe.WithCatalog(sqlmockCatalog()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range documentedRewrites {
		t.Run(c.name, func(t *testing.T) {
			ctx := session.NewContext(context.Background(), c.user)
			if c.sql[0] == 'U' {
				mock.ExpectExec(c.want).WillReturnResult(sqlmock.NewResult(0, 1))
				if _, err := db.ExecContext(ctx, c.sql, "x", 1); err != nil {
					t.Fatal(err)
				}
			} else {
				mock.ExpectQuery(c.want).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1))
				args := []any{}
				if c.name != "masks and restricted columns are applied inside it" && c.name != "current_user() is inlined as a literal" {
					args = append(args, 1)
				}
				rows, err := db.QueryContext(ctx, c.sql, args...)
				if err != nil {
					t.Fatal(err)
				}
				rows.Close()
			}
			if err := mock.ExpectationsWereMet(); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A refused statement reaches the inner driver not at all.
	ctx := session.NewContext(context.Background(), session.User{Name: "s", Roles: []string{"support"}})
	if _, err := db.QueryContext(ctx, "SELECT salary FROM customers"); !errors.Is(err, sqe.ErrColumnDenied) {
		t.Fatalf("restricted column: %v", err)
	}
	if _, err := db.QueryContext(ctx, "SELEC 1"); !errors.Is(err, sqe.ErrUnsupported) {
		t.Fatalf("unparseable: %v", err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}
