package sqltest_test

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/sqltest"
)

// t stands for the *testing.T of the test the examples are written in.
var t *testing.T

func ExampleNewMock() {
	db, mock := sqltest.NewMock(t,
		sqltest.PolicyYAML(`version: 1
default: deny
tables:
  shop.orders:
    access:
      - {name: read, principals: [role:support], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [role:support], filter: "region = 'EU'"}
`),
		sqltest.Schema("CREATE TABLE shop.orders (id INT, region VARCHAR(8), total INT)"),
	)
	// The expectation is the statement sqe sends for the user: the
	// application's SQL with the user's row filter.
	mock.ExpectQuery("select `id`, `total` from `shop`.`orders` where `shop`.`orders`.`region` = 'EU' and `id` = ?").
		WithArgs(7).
		WillReturnRows(sqlmock.NewRows([]string{"id", "total"}).AddRow(7, 120))

	ctx := session.NewContext(t.Context(), session.User{Name: "sam", Roles: []string{"support"}})
	var id, total int
	if err := db.QueryRowContext(ctx, "SELECT id, total FROM shop.orders WHERE id = ?", 7).Scan(&id, &total); err != nil {
		t.Fatal(err)
	}
}

func ExampleGolden() {
	db, _ := sqltest.NewMock(t, sqltest.PolicyFile("../policy.yaml"), sqltest.Schema(`CREATE DATABASE shop;
CREATE TABLE customers (id INT, region VARCHAR(8), ssn VARCHAR(11), salary INT)`))
	users := []session.User{
		{Name: "ann", Roles: []string{"admin"}},
		{Name: "eve", Roles: []string{"analyst"}},
		{Name: "sam", Roles: []string{"support"}},
	}
	// go test -run TestPolicy -update writes testdata/customers.golden;
	// later runs fail with a diff when a policy change alters a rewrite.
	sqltest.Golden(t, db, users, []string{
		"SELECT * FROM customers WHERE id = ?",
		"UPDATE customers SET region = ? WHERE id = ?",
	}, "testdata/customers.golden")
}
