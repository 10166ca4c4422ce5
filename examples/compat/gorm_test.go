package compat_test

import (
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gmysql "gorm.io/driver/mysql"
	gpostgres "gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/examples/internal/testenv"
	"github.com/sqe-project/sqe/session"
)

// The GORM models of the shop fixture.
type Customer struct {
	ID        int64
	Name      string  `gorm:"size:40"`
	Region    string  `gorm:"size:8"`
	SSN       string  `gorm:"column:ssn;size:11"`
	Email     *string `gorm:"size:60"`
	Salary    int
	BirthDate *time.Time `gorm:"type:date"`
	Orders    []Order
}

type Order struct {
	ID         int64
	CustomerID int64
	Customer   *Customer
	Total      int
}

// CustomerCard is a narrower model of the customers table: the fields
// support and analysts may read. An application whose users have
// restricted columns reads through such a model wherever GORM names every
// field of the model (Joins, Select of a struct, Save).
type CustomerCard struct {
	ID     int64
	Name   string
	Region string
	SSN    string `gorm:"column:ssn"`
}

func (CustomerCard) TableName() string { return "customers" }

type OrderWithCard struct {
	ID         int64
	CustomerID int64
	Customer   *CustomerCard `gorm:"foreignKey:CustomerID"`
	Total      int
}

func (OrderWithCard) TableName() string { return "orders" }

// A model no one but the admin may create.
type Invoice struct {
	ID    int64
	Total int
}

type InvoiceLine struct {
	ID        int64
	InvoiceID int64
	Invoice   *Invoice
	Amount    int
}

// gormPolicy adds to the suites' policy what GORM's migrator reads (the
// information_schema and pg_catalog relations it queries, for the admin
// role only) and a builder role that may create invoices but not their
// lines.
const gormPolicy = testenv.Policy + `  {{schema}}.invoices:
    access:
      - {name: admin-all, principals: [role:admin], allow: [all]}
      - {name: builder-create, principals: [role:builder], allow: [select, create, alter]}
  {{schema}}.invoice_lines:
    access:
      - {name: admin-all, principals: [role:admin], allow: [all]}
` + gormMetadataPolicy

// gormMetadataPolicy grants the catalog relations GORM's migrators read to
// the roles that run migrations (see docs/orm.md).
const gormMetadataPolicy = `  information_schema.schemata:           {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  information_schema.tables:             {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  information_schema.columns:            {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  information_schema.statistics:         {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  information_schema.table_constraints:  {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  information_schema.constraint_column_usage: {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_attribute:   {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_class:       {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_constraint:  {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_description: {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_index:       {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_indexes:     {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_namespace:   {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
  pg_catalog.pg_type:        {access: [{name: gorm-migrate, principals: [role:admin, role:builder, role:analyst], allow: [select]}]}
`

var builder = session.User{Name: "bob", Roles: []string{"builder"}}

// openGORM opens GORM over an sqe *sql.DB, the way a service adopts sqe:
// only the *sql.DB changes.
func openGORM(t *testing.T, e *testenv.Env, db *sql.DB, cfg *gorm.Config) *gorm.DB {
	t.Helper()
	var d gorm.Dialector
	switch e.Dialect {
	case "mysql":
		// GORM's MySQL dialector reads the server's version while opening
		// (which needs no user) and on MariaDB ≥ 10.5 then writes
		// INSERT … RETURNING: its defaults, as a service would have them.
		d = gmysql.New(gmysql.Config{Conn: db})
	case "postgres":
		d = gpostgres.New(gpostgres.Config{Conn: db})
	}
	if cfg == nil {
		cfg = &gorm.Config{}
	}
	if cfg.Logger == nil {
		cfg.Logger = logger.Discard
	}
	g, err := gorm.Open(d, cfg)
	if err != nil {
		t.Fatalf("gorm.Open: %v", err)
	}
	return g
}

func ptr[T any](v T) *T { return &v }

func date(y int, m time.Month, d int) *time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return &t
}

// gormEnv migrates and seeds the shop through GORM as the admin.
func gormEnv(t *testing.T, dialect string, cfg *gorm.Config) (*testenv.Env, *gorm.DB) {
	t.Helper()
	e := testenv.New(t, dialect, gormPolicy)
	g := openGORM(t, e, e.Open(t), cfg)
	admin := g.WithContext(testenv.As(testenv.Admin))
	if err := admin.AutoMigrate(&Customer{}, &Order{}); err != nil {
		t.Fatalf("AutoMigrate as admin: %v", err)
	}
	customers := []Customer{
		{Name: "Ada", Region: "EU", SSN: "111-22-9999", Email: ptr("ada@eu.test"), Salary: 51000, BirthDate: date(1985, 3, 14)},
		{Name: "Bea", Region: "EU", SSN: "999-00-1111", Email: ptr("bea@eu.test"), Salary: 52000, BirthDate: date(1990, 7, 1)},
		{Name: "Cy-US-CANARY", Region: "US", SSN: "555-55-5555", Email: ptr("cy@us.test"), Salary: 99999, BirthDate: date(1975, 12, 24)},
	}
	// A batch insert: one INSERT with three rows; the generated keys come
	// back (RETURNING on PostgreSQL, LAST_INSERT_ID on MySQL).
	if err := admin.CreateInBatches(customers, 10).Error; err != nil {
		t.Fatalf("batch insert as admin: %v", err)
	}
	for i, c := range customers {
		if c.ID != int64(i+1) {
			t.Fatalf("generated key of customer %d: %d", i, c.ID)
		}
	}
	orders := []Order{{CustomerID: 1, Total: 100}, {CustomerID: 2, Total: 200}, {CustomerID: 3, Total: 300}}
	if err := admin.Create(&orders).Error; err != nil {
		t.Fatalf("insert orders as admin: %v", err)
	}
	return e, g
}

func names(cs []Customer) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestGORMMigrate(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, g := gormEnv(t, d, nil)
			// A second run finds the schema in place and changes nothing
			// it should not (GORM reads information_schema / pg_catalog).
			if err := g.WithContext(testenv.As(testenv.Admin)).AutoMigrate(&Customer{}, &Order{}); err != nil {
				t.Fatalf("second AutoMigrate: %v", err)
			}
			// The analyst may read the catalog but not create tables: the
			// migration fails with ErrAccessDenied and creates nothing.
			err := g.WithContext(testenv.As(testenv.Analyst)).AutoMigrate(&Invoice{}, &InvoiceLine{})
			if !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("AutoMigrate as analyst: want ErrAccessDenied, got %v", err)
			}
			if n := tableCount(t, e, "invoices", "invoice_lines"); n != 0 {
				t.Fatalf("a denied migration left %d tables", n)
			}
			// Without a session nothing runs at all.
			if err := g.AutoMigrate(&Invoice{}); !errors.Is(err, sqe.ErrNoSession) {
				t.Fatalf("AutoMigrate without a session: %v", err)
			}
			if d == "postgres" {
				// The builder may create invoices but not invoice_lines. On
				// PostgreSQL DDL is transactional: run the migration in a
				// transaction and a refusal rolls back what it did so far.
				err := g.WithContext(testenv.As(builder)).Transaction(func(tx *gorm.DB) error {
					return tx.AutoMigrate(&Invoice{}, &InvoiceLine{})
				})
				if !errors.Is(err, sqe.ErrAccessDenied) || !strings.Contains(err.Error(), "invoice_lines") {
					t.Fatalf("AutoMigrate as builder: want ErrAccessDenied on invoice_lines, got %v", err)
				}
				if n := tableCount(t, e, "invoices", "invoice_lines"); n != 0 {
					t.Fatalf("a refused migration in a transaction left %d tables", n)
				}
			}
			if err := g.WithContext(testenv.As(testenv.Admin)).AutoMigrate(&Invoice{}, &InvoiceLine{}); err != nil {
				t.Fatalf("AutoMigrate of invoices as admin: %v", err)
			}
			if n := tableCount(t, e, "invoices", "invoice_lines"); n != 2 {
				t.Fatalf("admin's migration created %d of 2 tables", n)
			}
		})
	}
}

func tableCount(t *testing.T, e *testenv.Env, tables ...string) int {
	t.Helper()
	var n int
	q := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name IN (?, ?)"
	args := []any{e.Schema, tables[0], tables[1]}
	if e.Dialect == "postgres" {
		q = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ($2, $3)"
	}
	if err := e.Raw.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGORMReads(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			_, g := gormEnv(t, d, nil)
			type want struct {
				names []string
				ssn   string // of customer 1
				email bool   // e-mail visible
				pay   int    // salary of customer 1
			}
			for _, c := range []struct {
				u session.User
				want
			}{
				{testenv.Admin, want{[]string{"Ada", "Bea", "Cy-US-CANARY"}, "111-22-9999", true, 51000}},
				{testenv.Analyst, want{[]string{"Ada", "Bea"}, "111-22-9999", true, 0}},
				{testenv.Support, want{[]string{"Ada", "Bea", "Cy-US-CANARY"}, "xxx-xx-9999", false, 0}},
			} {
				ctx := testenv.As(c.u)
				var cs []Customer
				if err := g.WithContext(ctx).Order("id").Find(&cs).Error; err != nil {
					t.Fatalf("Find as %s: %v", c.u.Name, err)
				}
				testenv.NoCanary(t, c.u, "Find", cs)
				if got := names(cs); !slices.Equal(got, c.names) {
					t.Fatalf("Find as %s: %v, want %v", c.u.Name, got, c.names)
				}
				// The restricted salary is not in SELECT *: the field keeps its
				// zero value. The masked SSN and NULL e-mail scan as usual.
				if cs[0].SSN != c.ssn || (cs[0].Email != nil) != c.email || cs[0].Salary != c.pay {
					t.Fatalf("customer 1 as %s: %+v", c.u.Name, cs[0])
				}
				// A date masked to its year still scans as a date.
				wantBirth := "1985-03-14"
				if c.u.Name == testenv.Support.Name {
					wantBirth = "1985-01-01"
				}
				if cs[0].BirthDate == nil || cs[0].BirthDate.Format(time.DateOnly) != wantBirth {
					t.Fatalf("birth date of customer 1 as %s: %v, want %s", c.u.Name, cs[0].BirthDate, wantBirth)
				}

				var one Customer
				err := g.WithContext(ctx).First(&one, 3).Error
				if c.u.Name == testenv.Analyst.Name {
					if !errors.Is(err, gorm.ErrRecordNotFound) {
						t.Fatalf("First(3) as analyst: want ErrRecordNotFound, got %v %+v", err, one)
					}
				} else if err != nil || one.Name != "Cy-US-CANARY" {
					t.Fatalf("First(3) as %s: %v %+v", c.u.Name, err, one)
				}

				var n int64
				if err := g.WithContext(ctx).Model(&Customer{}).Where("ssn = ?", "555-55-5555").Count(&n).Error; err != nil {
					t.Fatal(err)
				}
				if want := map[string]int64{"ann": 1, "eve": 0, "sam": 0}[c.u.Name]; n != want {
					t.Fatalf("count by raw SSN as %s: %d, want %d (a masked column is no oracle)", c.u.Name, n, want)
				}
				var ssns []string
				if err := g.WithContext(ctx).Model(&Customer{}).Order("id").Pluck("ssn", &ssns).Error; err != nil {
					t.Fatal(err)
				}
				testenv.NoCanary(t, c.u, "Pluck", ssns)
			}

			// Naming the restricted column is refused before anything is sent.
			var pays []int
			err := g.WithContext(testenv.As(testenv.Support)).Model(&Customer{}).Pluck("salary", &pays).Error
			if !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("Pluck(salary) as support: %v", err)
			}
			var cs []Customer
			if err := g.WithContext(testenv.As(testenv.Nobody)).Find(&cs).Error; !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("Find as nobody: %v", err)
			}
			if err := g.Find(&cs).Error; !errors.Is(err, sqe.ErrNoSession) {
				t.Fatalf("Find without a session: %v", err)
			}
		})
	}
}

func TestGORMPreloadAndJoins(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			_, g := gormEnv(t, d, nil)
			for _, u := range []session.User{testenv.Admin, testenv.Analyst, testenv.Support} {
				ctx := testenv.As(u)
				// has-many preload: one query per association, each under policy.
				var cs []Customer
				if err := g.WithContext(ctx).Preload("Orders").Order("id").Find(&cs).Error; err != nil {
					t.Fatalf("Preload(Orders) as %s: %v", u.Name, err)
				}
				testenv.NoCanary(t, u, "Preload", cs)
				for _, c := range cs {
					if len(c.Orders) != 1 || c.Orders[0].CustomerID != c.ID {
						t.Fatalf("orders of customer %d as %s: %+v", c.ID, u.Name, c.Orders)
					}
				}
				// belongs-to preload: the analyst's third order has no
				// visible customer.
				var os []Order
				if err := g.WithContext(ctx).Preload("Customer").Order("id").Find(&os).Error; err != nil {
					t.Fatalf("Preload(Customer) as %s: %v", u.Name, err)
				}
				testenv.NoCanary(t, u, "Preload", os)
				if len(os) != 3 || os[0].Customer == nil || (os[2].Customer == nil) != (u.Name == testenv.Analyst.Name) {
					t.Fatalf("orders with customers as %s: %+v", u.Name, os)
				}
				if u.Name == testenv.Support.Name && os[0].Customer.SSN != "xxx-xx-9999" {
					t.Fatalf("preloaded SSN as support: %q", os[0].Customer.SSN)
				}

				// Joins names every field of the joined model, the restricted
				// salary too: for users with restricted columns, join through
				// a model without them.
				var full []Order
				err := g.WithContext(ctx).Joins("Customer").Order("orders.id").Find(&full).Error
				if u.Name == testenv.Admin.Name {
					if err != nil || len(full) != 3 || full[2].Customer.Salary != 99999 {
						t.Fatalf("Joins as admin: %v %+v", err, full)
					}
				} else if !errors.Is(err, sqe.ErrColumnDenied) {
					t.Fatalf("Joins(Customer) with salary as %s: want ErrColumnDenied, got %v", u.Name, err)
				}
				var cards []OrderWithCard
				if err := g.WithContext(ctx).Joins("Customer").Order("orders.id").Find(&cards).Error; err != nil {
					t.Fatalf("Joins(Customer) as %s: %v", u.Name, err)
				}
				testenv.NoCanary(t, u, "Joins", cards)
				var got []string
				for _, o := range cards {
					if o.Customer == nil {
						got = append(got, "-")
					} else {
						got = append(got, o.Customer.SSN)
					}
				}
				want := map[string][]string{
					"ann": {"111-22-9999", "999-00-1111", "555-55-5555"},
					"eve": {"111-22-9999", "999-00-1111", "-"},
					"sam": {"xxx-xx-9999", "xxx-xx-1111", "xxx-xx-5555"},
				}[u.Name]
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("joined SSNs as %s: %v, want %v", u.Name, got, want)
				}

				// A hand-written join with an aggregate over the filtered rows.
				var sums []struct {
					Region string
					Total  int
				}
				err = g.WithContext(ctx).Table("orders").Select("customers.region, SUM(orders.total) AS total").
					Joins("JOIN customers ON customers.id = orders.customer_id").Group("customers.region").Order("customers.region").Scan(&sums).Error
				if err != nil {
					t.Fatalf("join + group as %s: %v", u.Name, err)
				}
				if wantN := map[string]int{"ann": 2, "eve": 1, "sam": 2}[u.Name]; len(sums) != wantN || sums[0].Total != 300 {
					t.Fatalf("revenue by region as %s: %+v", u.Name, sums)
				}
			}
		})
	}
}

func TestGORMWrites(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, g := gormEnv(t, d, nil)
			analyst := g.WithContext(testenv.As(testenv.Analyst))
			support := g.WithContext(testenv.As(testenv.Support))

			// UPDATE reaches only the rows the analyst's filter admits.
			res := analyst.Model(&Customer{}).Where("id > ?", 0).Update("name", "renamed")
			if res.Error != nil || res.RowsAffected != 2 {
				t.Fatalf("analyst's Update: %v, %d rows", res.Error, res.RowsAffected)
			}
			if got := e.Strings(t, "SELECT name FROM customers ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"renamed"}, {"renamed"}, {"Cy-US-CANARY"}}) {
				t.Fatalf("after the analyst's Update: %v", got)
			}
			// Updates of the fields one changed work for support; Save writes
			// every field, the restricted salary too, and is refused (which
			// also keeps it from writing the masked SSN back).
			var c Customer
			if err := support.First(&c, 1).Error; err != nil {
				t.Fatal(err)
			}
			if err := support.Model(&c).Update("region", "EU").Error; err != nil {
				t.Fatalf("support's Update: %v", err)
			}
			c.Name = "Ada"
			if err := support.Save(&c).Error; !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("support's Save: want ErrColumnDenied, got %v", err)
			}
			if err := support.Model(&c).Select("name").Updates(&c).Error; err != nil {
				t.Fatalf("support's Select(name).Updates: %v", err)
			}
			if got := e.Strings(t, "SELECT name, ssn FROM customers WHERE id = 1"); !reflect.DeepEqual(got, [][]string{{"Ada", "111-22-9999"}}) {
				t.Fatalf("customer 1 after support's updates: %v", got)
			}
			// A WHERE on the raw SSN matches nothing for support.
			res = support.Where("customer_id IN (?)", support.Model(&Customer{}).Select("id").Where("ssn = ?", "555-55-5555")).Delete(&Order{})
			if res.Error != nil || res.RowsAffected != 0 {
				t.Fatalf("support's delete by raw SSN: %v, %d rows", res.Error, res.RowsAffected)
			}
			// The analyst deletes every order it can see through the filter
			// on customers: the US customer's order stays.
			res = analyst.Where("customer_id IN (?)", analyst.Model(&Customer{}).Select("id")).Delete(&Order{})
			if res.Error != nil || res.RowsAffected != 2 {
				t.Fatalf("analyst's delete: %v, %d rows", res.Error, res.RowsAffected)
			}
			if got := e.Strings(t, "SELECT id FROM orders"); !reflect.DeepEqual(got, [][]string{{"3"}}) {
				t.Fatalf("orders after the analyst's delete: %v", got)
			}
			// A user without update access writes nothing.
			if err := g.WithContext(testenv.As(testenv.Nobody)).Create(&Order{CustomerID: 1, Total: 1}).Error; !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("Create as nobody: %v", err)
			}
		})
	}
}

func TestGORMReturning(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, g := gormEnv(t, d, nil)
			support := g.WithContext(testenv.As(testenv.Support))
			if d == "mysql" {
				// MariaDB returns from INSERT and DELETE (GORM writes
				// RETURNING for them on MariaDB ≥ 10.5): the caller's view.
				var orders []Order
				analyst := g.WithContext(testenv.As(testenv.Analyst))
				if err := analyst.Clauses(clause.Returning{}).Where("total >= ?", 100).Delete(&orders).Error; err != nil || len(orders) != 3 {
					t.Fatalf("DELETE orders … RETURNING as analyst: %v %+v", err, orders)
				}
				var gone []Customer
				if err := support.Clauses(clause.Returning{}).Where("region = ?", "US").Delete(&gone).Error; err != nil {
					t.Fatalf("DELETE … RETURNING as support: %v", err)
				}
				if len(gone) != 1 || gone[0].SSN != "xxx-xx-5555" || gone[0].Email != nil || gone[0].Salary != 0 {
					t.Fatalf("DELETE … RETURNING as support: %+v", gone)
				}
				testenv.NoCanary(t, testenv.Support, "RETURNING", gone)
				err := support.Clauses(clause.Returning{Columns: []clause.Column{{Name: "salary"}}}).Where("id = ?", 2).Delete(&Customer{}).Error
				if !errors.Is(err, sqe.ErrColumnDenied) {
					t.Fatalf("RETURNING salary as support: %v", err)
				}
				var gc []Customer
				if err := analyst.Clauses(clause.Returning{}).Where("id > 0").Delete(&gc).Error; err != nil || len(gc) != 2 {
					t.Fatalf("DELETE customers … RETURNING as analyst: %v %+v, want the two EU ones", err, gc)
				}
				testenv.NoCanary(t, testenv.Analyst, "RETURNING", gc)
				return
			}
			// RETURNING through sqe returns what the caller may see: the
			// masked SSN, no e-mail, and never the restricted salary.
			var changed []CustomerCard
			res := support.Model(&changed).Clauses(clause.Returning{Columns: []clause.Column{{Name: "id"}, {Name: "name"}, {Name: "region"}, {Name: "ssn"}}}).
				Where("region = ?", "US").Update("name", "Cy")
			if res.Error != nil || len(changed) != 1 || changed[0].SSN != "xxx-xx-5555" || changed[0].Name != "Cy" {
				t.Fatalf("UPDATE … RETURNING as support: %v %+v", res.Error, changed)
			}
			var all []Customer
			err := support.Model(&all).Clauses(clause.Returning{}).Where("id = ?", 2).Update("region", "EU").Error
			if err != nil || len(all) != 1 || all[0].SSN != "xxx-xx-1111" || all[0].Email != nil || all[0].Salary != 0 {
				t.Fatalf("UPDATE … RETURNING * as support: %v %+v", err, all)
			}
			testenv.NoCanary(t, testenv.Support, "RETURNING", changed, all)
			// RETURNING names the restricted column: refused.
			err = support.Model(&Customer{}).Clauses(clause.Returning{Columns: []clause.Column{{Name: "salary"}}}).Where("id = ?", 2).Update("region", "EU").Error
			if !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("RETURNING salary as support: %v", err)
			}
			// The analyst's DELETE … RETURNING only reaches admitted rows.
			var gone []Order
			analyst := g.WithContext(testenv.As(testenv.Analyst))
			if err := analyst.Clauses(clause.Returning{}).Where("total >= ?", 100).Delete(&gone).Error; err != nil {
				t.Fatalf("DELETE … RETURNING as analyst: %v", err)
			}
			if len(gone) != 3 {
				t.Fatalf("analyst deleted %+v (orders have no filter)", gone)
			}
			var gc []CustomerCard
			if err := analyst.Clauses(clause.Returning{}).Where("id > 0").Delete(&gc).Error; err != nil {
				t.Fatalf("DELETE customers … RETURNING as analyst: %v", err)
			}
			if len(gc) != 2 {
				t.Fatalf("analyst deleted customers %+v, want the two EU ones", gc)
			}
			if got := e.Strings(t, "SELECT name FROM customers"); !reflect.DeepEqual(got, [][]string{{"Cy"}}) {
				t.Fatalf("customers left: %v", got)
			}
		})
	}
}

func TestGORMTransactions(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, g := gormEnv(t, d, nil)
			analyst := g.WithContext(testenv.As(testenv.Analyst))
			innerErr := errors.New("roll the inner one back")
			// A nested transaction is a SAVEPOINT; rolling it back keeps the
			// outer transaction's work.
			err := analyst.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&Order{CustomerID: 1, Total: 7}).Error; err != nil {
					return err
				}
				if err := tx.Transaction(func(tx2 *gorm.DB) error {
					if err := tx2.Create(&Order{CustomerID: 2, Total: 8}).Error; err != nil {
						return err
					}
					return innerErr
				}); !errors.Is(err, innerErr) {
					return err
				}
				// A statement sqe refuses inside the transaction is never sent,
				// so even on PostgreSQL the transaction stays usable.
				var pays []int
				if err := tx.Model(&Customer{}).Pluck("salary", &pays).Error; !errors.Is(err, sqe.ErrColumnDenied) {
					t.Errorf("salary inside the transaction: %v", err)
				}
				// Inside the transaction the analyst still sees only EU rows.
				var n int64
				if err := tx.Model(&Customer{}).Count(&n).Error; err != nil || n != 2 {
					t.Errorf("count inside the transaction: %d %v", n, err)
				}
				return tx.Create(&Order{CustomerID: 1, Total: 9}).Error
			})
			if err != nil {
				t.Fatalf("transaction: %v", err)
			}
			if got := e.Strings(t, "SELECT total FROM orders WHERE id > 3 ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"7"}, {"9"}}) {
				t.Fatalf("orders after the transaction: %v", got)
			}
			// A refusal that the application returns rolls everything back.
			if err := g.WithContext(testenv.As(testenv.Admin)).AutoMigrate(&Invoice{}); err != nil {
				t.Fatal(err)
			}
			err = analyst.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&Order{CustomerID: 1, Total: 10}).Error; err != nil {
					return err
				}
				return tx.Create(&Invoice{Total: 1}).Error
			})
			if !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("transaction with a denied insert: %v", err)
			}
			if got := e.Strings(t, "SELECT COUNT(*) FROM orders"); got[0][0] != "5" {
				t.Fatalf("orders after the rolled-back transaction: %v", got)
			}
		})
	}
}

// TestGORMPreparedStatements: with PrepareStmt GORM keeps one prepared
// statement per SQL text and shares it between requests; each caller still
// gets its own rewrite.
func TestGORMPreparedStatements(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			_, g := gormEnv(t, d, &gorm.Config{PrepareStmt: true})
			for range 2 {
				for _, u := range []session.User{testenv.Support, testenv.Analyst, testenv.Admin} {
					var cs []Customer
					if err := g.WithContext(testenv.As(u)).Where("id > ?", 0).Order("id").Find(&cs).Error; err != nil {
						t.Fatalf("as %s: %v", u.Name, err)
					}
					testenv.NoCanary(t, u, "prepared Find", cs)
					if want := map[string]int{"ann": 3, "eve": 2, "sam": 3}[u.Name]; len(cs) != want {
						t.Fatalf("as %s: %d rows, want %d", u.Name, len(cs), want)
					}
					if u.Name == testenv.Admin.Name && cs[0].SSN != "111-22-9999" {
						t.Fatalf("admin after support on a shared prepared statement: %+v", cs[0])
					}
				}
			}
		})
	}
}

// TestGORMMySQLVersionDetection: gorm.Open asks SELECT VERSION() on a
// context without a user, which needs no user (it reads no table), so
// GORM opens with its defaults; it then detects MariaDB ≥ 10.5 and writes
// INSERT … RETURNING, which returns the generated key.
func TestGORMMySQLVersionDetection(t *testing.T) {
	e := testenv.New(t, "mysql", gormPolicy)
	g, err := gorm.Open(gmysql.New(gmysql.Config{Conn: e.Open(t)}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("gorm.Open with version detection: %v", err)
	}
	var version string
	if err := e.Raw.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if got := g.Dialector.(*gmysql.Dialector).ServerVersion; got != version {
		t.Fatalf("GORM read the server version %q, the server says %q", got, version)
	}
	// Anything that needs a user still does.
	var n int64
	if err := g.Model(&Order{}).Count(&n).Error; !errors.Is(err, sqe.ErrNoSession) {
		t.Fatalf("a count without a user: %v", err)
	}
	admin := g.WithContext(testenv.As(testenv.Admin))
	if err := admin.AutoMigrate(&Customer{}, &Order{}); err != nil {
		t.Fatal(err)
	}
	c := Customer{Name: "Ada", Region: "EU"}
	if err := admin.Create(&c).Error; err != nil {
		t.Fatalf("Create on %s: %v", version, err)
	}
	var id int64
	if err := e.Raw.QueryRow("SELECT MAX(id) FROM customers").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if c.ID == 0 || c.ID != id {
		t.Fatalf("Create on %s gave the key %d, the server has %d", version, c.ID, id)
	}
}

// TestGORMUpserts: clause.OnConflict on a table the caller reads under a
// row filter is refused (the update could reach a hidden row); on MySQL
// even DoNothing, which GORM writes as ON DUPLICATE KEY UPDATE id = id.
func TestGORMUpserts(t *testing.T) {
	for _, d := range testenv.Dialects {
		t.Run(d, func(t *testing.T) {
			e, g := gormEnv(t, d, nil)
			admin, analyst := g.WithContext(testenv.As(testenv.Admin)), g.WithContext(testenv.As(testenv.Analyst))
			upsert := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
			if err := admin.Clauses(upsert).Create(&CustomerCard{ID: 3, Name: "Cy", Region: "US"}).Error; err != nil {
				t.Fatalf("admin's upsert: %v", err)
			}
			if err := analyst.Clauses(upsert).Create(&CustomerCard{ID: 3, Name: "x", Region: "EU"}).Error; !errors.Is(err, sqe.ErrUnsupported) {
				t.Fatalf("analyst's upsert on a filtered table: %v", err)
			}
			err := analyst.Clauses(clause.OnConflict{DoNothing: true}).Create(&CustomerCard{ID: 3, Name: "x", Region: "EU"}).Error
			if d == "mysql" {
				if !errors.Is(err, sqe.ErrUnsupported) {
					t.Fatalf("analyst's DoNothing on MySQL: %v", err)
				}
			} else if err != nil {
				t.Fatalf("analyst's DO NOTHING on PostgreSQL: %v", err)
			}
			// Orders have no row filter: any upsert works.
			if err := analyst.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Order{ID: 1, CustomerID: 1, Total: 5}).Error; err != nil {
				t.Fatalf("analyst's upsert on orders: %v", err)
			}
			if got := e.Strings(t, "SELECT name FROM customers WHERE id = 3"); !reflect.DeepEqual(got, [][]string{{"Cy"}}) {
				t.Fatalf("customer 3: %v", got)
			}
		})
	}
}
