package sqe_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

const examplePolicy = `version: 1
default: deny
tables:
  shop.orders:
    access:
      - {name: support-read, principals: [role:support], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [role:support], filter: "region = 'EU'"}
    masks:
      - {name: email-tail, principals: [public], column: email, type: CUSTOM, expr: "CONCAT('***', RIGHT({col}, 4))"}
`

// exampleOptions are a policy, the table metadata sqlmock cannot supply and
// the dialect of the (pretend) database.
func exampleOptions() []sqe.Option {
	f, err := policy.Parse("policy.yaml", []byte(examplePolicy))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := policy.Compile(f, policy.NextVersion())
	if err != nil {
		log.Fatal(err)
	}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
		"shop.orders": {
			{Name: "id", DataType: "int", ColumnType: "int"},
			{Name: "email", DataType: "varchar", ColumnType: "varchar(100)"},
			{Name: "region", DataType: "varchar", ColumnType: "varchar(10)"},
		},
	}}
	return []sqe.Option{
		sqe.WithPolicy(policy.NewStaticSource(snap)),
		sqe.WithCatalog(cat),
		sqe.WithDialect("mysql"),
	}
}

// printSQL is a sqlmock matcher that reports what reaches the database:
// the application's statement, rewritten with the row filter and the mask.
var printSQL = sqlmock.QueryMatcherFunc(func(_, actual string) error {
	fmt.Println("row filter applied:", strings.Contains(actual, "'EU'"))
	fmt.Println("email masked:", strings.Contains(actual, "CONCAT('***'"))
	return nil
})

func ExampleOpen() {
	// A mock database stands in for MySQL here; with a real one this is
	// sqe.Open("mysql", "app:pw@tcp(127.0.0.1:3306)/shop", ...).
	mockDB, mock, err := sqlmock.NewWithDSN("example-open", sqlmock.QueryMatcherOption(printSQL))
	if err != nil {
		log.Fatal(err)
	}
	defer mockDB.Close()
	mock.ExpectQuery("").WillReturnRows(sqlmock.NewRows([]string{"id", "email"}).AddRow(1, "***.com"))

	db, err := sqe.Open("sqlmock", "example-open", exampleOptions()...)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	// The caller's identity travels on the context.
	ctx := session.NewContext(context.Background(), session.User{Name: "sam", Roles: []string{"support"}})
	var (
		id    int
		email string
	)
	if err := db.QueryRowContext(ctx, "SELECT id, email FROM orders").Scan(&id, &email); err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, email)

	// A caller without access is refused before anything is sent.
	ctx = session.NewContext(context.Background(), session.User{Name: "eve"})
	_, err = db.QueryContext(ctx, "SELECT id, email FROM orders")
	fmt.Println(errors.Is(err, sqe.ErrAccessDenied))
	if err := mock.ExpectationsWereMet(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// row filter applied: true
	// email masked: true
	// 1 ***.com
	// true
}

// mockConnector is the connector of a driver that has none of its own.
// With go-sql-driver/mysql this is mysql.NewConnector(cfg); with pgx,
// stdlib.GetConnector(cfg).
type mockConnector struct {
	drv driver.Driver
	dsn string
}

func (c mockConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c mockConnector) Driver() driver.Driver                        { return c.drv }

func ExampleNewConnector() {
	mockDB, mock, err := sqlmock.NewWithDSN("example-connector", sqlmock.QueryMatcherOption(printSQL))
	if err != nil {
		log.Fatal(err)
	}
	defer mockDB.Close()
	mock.ExpectQuery("").WithArgs(7).WillReturnRows(sqlmock.NewRows([]string{"email"}).AddRow("***.com"))

	base := mockConnector{drv: mockDB.Driver(), dsn: "example-connector"}
	connector, err := sqe.NewConnector(base, exampleOptions()...)
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	// Support may read orders (the arguments reach the database unchanged)
	// but not change them.
	ctx := session.NewContext(context.Background(), session.User{Name: "sam", Roles: []string{"support"}})
	var email string
	if err := db.QueryRowContext(ctx, "SELECT email FROM orders WHERE id = ?", 7).Scan(&email); err != nil {
		log.Fatal(err)
	}
	fmt.Println(email)
	_, err = db.ExecContext(ctx, "UPDATE orders SET email = ? WHERE id = ?", "a@example.com", 7)
	fmt.Println(errors.Is(err, sqe.ErrAccessDenied))
	if err := mock.ExpectationsWereMet(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// row filter applied: true
	// email masked: true
	// ***.com
	// true
}
