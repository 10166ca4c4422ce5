package compat_test

import (
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/examples/internal/testenv"
	"github.com/sqe-project/sqe/session"
)

// customerRow is a struct the way sqlx users write them. Salary has a
// field, but the restricted column is not in SELECT * for support and
// analysts, so it keeps its zero value for them.
type customerRow struct {
	ID        int            `db:"id"`
	Name      string         `db:"name"`
	Region    string         `db:"region"`
	SSN       string         `db:"ssn"`
	Email     sql.NullString `db:"email"`
	Salary    sql.NullInt64  `db:"salary"`
	BirthDate time.Time      `db:"birth_date"`
	CreatedAt time.Time      `db:"created_at"`
}

// openSQLX opens the shop through sqe and wraps it in sqlx. The driver name
// given to sqlx.NewDb selects its bind variables: it is the inner driver's
// name ("mysql" → ?, "pgx" → $1), not "sqe".
func openSQLX(t *testing.T, dialect string) (*testenv.Env, *sqlx.DB) {
	t.Helper()
	e := testenv.New(t, dialect, testenv.Policy, testenv.Shop(dialect)...)
	return e, sqlx.NewDb(e.Open(t), e.Driver)
}

func TestSQLXSelectAndGet(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			_, db := openSQLX(t, d)
			for _, c := range []struct {
				u     session.User
				ids   []int
				ssn   string
				email bool
				birth string
			}{
				{testenv.Admin, []int{1, 2, 3}, "111-22-9999", true, "1985-03-14"},
				{testenv.Analyst, []int{1, 2}, "111-22-9999", true, "1985-03-14"},
				{testenv.Support, []int{1, 2, 3}, "xxx-xx-9999", false, "1985-01-01"},
			} {
				ctx := testenv.As(c.u)
				var rows []customerRow
				if err := db.SelectContext(ctx, &rows, "SELECT * FROM customers ORDER BY id"); err != nil {
					t.Fatalf("Select as %s: %v", c.u.Name, err)
				}
				testenv.NoCanary(t, c.u, "Select", rows)
				var ids []int
				for _, r := range rows {
					ids = append(ids, r.ID)
				}
				if !reflect.DeepEqual(ids, c.ids) {
					t.Fatalf("ids as %s: %v, want %v", c.u.Name, ids, c.ids)
				}
				r := rows[0]
				if r.SSN != c.ssn || r.Email.Valid != c.email || r.BirthDate.Format(time.DateOnly) != c.birth ||
					r.Salary.Valid != (c.u.Name == testenv.Admin.Name) || r.CreatedAt.Year() != 2024 {
					t.Fatalf("customer 1 as %s: %+v", c.u.Name, r)
				}

				var one customerRow
				err := db.GetContext(ctx, &one, db.Rebind("SELECT id, name, ssn FROM customers WHERE id = ?"), 3)
				if c.u.Name == testenv.Analyst.Name {
					if !errors.Is(err, sql.ErrNoRows) {
						t.Fatalf("Get(3) as analyst: want sql.ErrNoRows, got %v %+v", err, one)
					}
				} else if err != nil || one.Name != "Cy-US-CANARY" {
					t.Fatalf("Get(3) as %s: %v %+v", c.u.Name, err, one)
				}
				testenv.NoCanary(t, c.u, "Get", one)

				var n int
				if err := db.GetContext(ctx, &n, db.Rebind("SELECT COUNT(*) FROM customers WHERE ssn = ?"), "555-55-5555"); err != nil {
					t.Fatal(err)
				}
				if want := map[string]int{"ann": 1, "eve": 0, "sam": 0}[c.u.Name]; n != want {
					t.Fatalf("count by raw SSN as %s: %d, want %d", c.u.Name, n, want)
				}
			}
			var pays []int
			err := db.SelectContext(testenv.As(testenv.Support), &pays, "SELECT salary FROM customers")
			if !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("salary as support: %v", err)
			}
			var notes []string
			if err := db.SelectContext(testenv.As(testenv.Analyst), &notes, "SELECT note FROM secrets"); !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("secrets as analyst: %v", err)
			}
		})
	}
}

func TestSQLXIn(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			_, db := openSQLX(t, d)
			// sqlx.In expands the slice into one placeholder per element
			// and Rebind turns them into the driver's bind variables: sqe
			// sees (and rewrites) the expanded statement.
			q, args, err := sqlx.In("SELECT id, ssn FROM customers WHERE id IN (?) AND region IN (?) ORDER BY id", []int{1, 2, 3}, []string{"EU", "US"})
			if err != nil {
				t.Fatal(err)
			}
			q = db.Rebind(q)
			for _, c := range []struct {
				u    session.User
				want []string
			}{
				{testenv.Admin, []string{"111-22-9999", "999-00-1111", "555-55-5555"}},
				{testenv.Analyst, []string{"111-22-9999", "999-00-1111"}},
				{testenv.Support, []string{"xxx-xx-9999", "xxx-xx-1111", "xxx-xx-5555"}},
			} {
				var got []struct {
					ID  int    `db:"id"`
					SSN string `db:"ssn"`
				}
				if err := db.SelectContext(testenv.As(c.u), &got, q, args...); err != nil {
					t.Fatalf("In as %s: %v", c.u.Name, err)
				}
				var ssns []string
				for _, g := range got {
					ssns = append(ssns, g.SSN)
				}
				if !reflect.DeepEqual(ssns, c.want) {
					t.Fatalf("In as %s: %v, want %v", c.u.Name, ssns, c.want)
				}
			}
			// sqlx.Named + In: named arguments with a slice.
			q, args, err = sqlx.Named("SELECT id FROM orders WHERE customer_id IN (:ids) AND total >= :min ORDER BY id", map[string]any{"ids": []int{1, 3}, "min": 0})
			if err == nil {
				q, args, err = sqlx.In(q, args...)
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []int
			if err := db.SelectContext(testenv.As(testenv.Analyst), &ids, db.Rebind(q), args...); err != nil || !reflect.DeepEqual(ids, []int{10, 12}) {
				t.Fatalf("Named+In as analyst: %v %v", ids, err)
			}
		})
	}
}

func TestSQLXNamed(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, db := openSQLX(t, d)
			admin, analyst, support := testenv.As(testenv.Admin), testenv.As(testenv.Analyst), testenv.As(testenv.Support)
			type order struct {
				ID         int `db:"id"`
				CustomerID int `db:"customer_id"`
				Total      int `db:"total"`
			}
			// NamedExec with a slice is a batch insert.
			batch := []order{{20, 1, 5}, {21, 2, 6}, {22, 3, 7}}
			if _, err := db.NamedExecContext(analyst, "INSERT INTO orders (id, customer_id, total) VALUES (:id, :customer_id, :total)", batch); err != nil {
				t.Fatalf("batch NamedExec as analyst: %v", err)
			}
			// UPDATE through the analyst's filter touches EU customers only.
			res, err := db.NamedExecContext(analyst, "UPDATE customers SET name = :name WHERE id >= :min", map[string]any{"name": "renamed", "min": 1})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 2 {
				t.Fatalf("analyst's named UPDATE affected %d rows", n)
			}
			if got := e.Strings(t, "SELECT name FROM customers ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"renamed"}, {"renamed"}, {"Cy-US-CANARY"}}) {
				t.Fatalf("after the named UPDATE: %v", got)
			}
			// Writing a restricted column is refused.
			if _, err := db.NamedExecContext(support, "UPDATE customers SET salary = :s WHERE id = :id", map[string]any{"s": 1, "id": 1}); !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("named UPDATE of salary as support: %v", err)
			}
			// NamedQuery and a prepared named statement shared by users.
			rows, err := db.NamedQueryContext(support, "SELECT id, ssn FROM customers WHERE region = :region ORDER BY id", map[string]any{"region": "EU"})
			if err != nil {
				t.Fatal(err)
			}
			var ssns []string
			for rows.Next() {
				var r struct {
					ID  int    `db:"id"`
					SSN string `db:"ssn"`
				}
				if err := rows.StructScan(&r); err != nil {
					t.Fatal(err)
				}
				ssns = append(ssns, r.SSN)
			}
			rows.Close()
			if !reflect.DeepEqual(ssns, []string{"xxx-xx-9999", "xxx-xx-1111"}) {
				t.Fatalf("NamedQuery as support: %v", ssns)
			}
			stmt, err := db.PrepareNamedContext(admin, "SELECT ssn FROM customers WHERE id = :id")
			if err != nil {
				t.Fatal(err)
			}
			defer stmt.Close()
			for _, c := range []struct {
				u    session.User
				want string
			}{{testenv.Support, "xxx-xx-9999"}, {testenv.Admin, "111-22-9999"}, {testenv.Analyst, "111-22-9999"}, {testenv.Support, "xxx-xx-9999"}} {
				var ssn string
				if err := stmt.GetContext(testenv.As(c.u), &ssn, map[string]any{"id": 1}); err != nil || ssn != c.want {
					t.Fatalf("prepared named statement as %s: %q %v, want %q", c.u.Name, ssn, err, c.want)
				}
			}
			// Transactions.
			tx, err := db.BeginTxx(analyst, nil)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := tx.GetContext(analyst, &n, "SELECT COUNT(*) FROM customers"); err != nil || n != 2 {
				t.Fatalf("count in a transaction as analyst: %d %v", n, err)
			}
			if _, err := tx.ExecContext(analyst, "DELETE FROM customers"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if got := e.Strings(t, "SELECT COUNT(*) FROM customers"); got[0][0] != "3" {
				t.Fatalf("after the rollback: %v", got)
			}
		})
	}
}
