package sqe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// TestInsertValuesThroughMySQLDialect: INSERT … VALUES, one row and
// several (GORM's Create and CreateInBatches, sqlx's batch NamedExec), is
// rewritten and sent. vitess's Values is a slice type, and the expression
// walker compared the node it started from with == (a runtime panic:
// comparing uncomparable type sqlparser.Values).
func TestInsertValuesThroughMySQLDialect(t *testing.T) {
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte("version: 1\ndefault: deny\ntables:\n  shop.orders:\n    access:\n"+
		"      - {name: write, principals: [role:writer], allow: [select, update]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mockDB, mock, err := sqlmock.NewWithDSN("sqe-insert-values", sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	defer mockDB.Close()
	db, err := sqe.Open("sqlmock", "sqe-insert-values", sqe.WithoutAudit(), sqe.WithDialect("mysql"), sqe.WithPolicyFile(policyFile),
		sqe.WithCatalog(&rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
			"shop.orders": {{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "total", DataType: "int", ColumnType: "int"}},
		}}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := session.NewContext(context.Background(), session.User{Name: "w", Roles: []string{"writer"}})
	for _, c := range []struct {
		sql, want string
		args      []any
	}{
		{"INSERT INTO orders (id, total) VALUES (?, ?)", "insert into `shop`.`orders`(`id`, `total`) values (?, ?)", []any{1, 2}},
		{"INSERT INTO orders (id, total) VALUES (?, ?), (?, ?)", "insert into `shop`.`orders`(`id`, `total`) values (?, ?), (?, ?)", []any{1, 2, 3, 4}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			mock.ExpectExec(c.want).WillReturnResult(sqlmock.NewResult(1, 1))
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = db.ExecContext(ctx, c.sql, c.args...)
				return err
			}()
			if err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if err := mock.ExpectationsWereMet(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
