// Command gorm shows sqe under GORM: gorm.io/driver/mysql and
// gorm.io/driver/postgres opened over an sqe *sql.DB run AutoMigrate,
// CRUD, preloads, joins and transactions unchanged, and every result
// carries the caller's row filter and masks.
//
// It runs against MariaDB/MySQL when SQE_MYSQL_DSN is set and against
// PostgreSQL when SQE_POSTGRES_DSN is set (both, when both are), migrates
// its two tables into that database, and drops them at the end. It exits
// with status 1 when a user sees something the policy says they must not.
//
//	SQE_POSTGRES_DSN='postgres://app:pw@127.0.0.1:5432/scratch' go run ./gorm
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	gmysql "gorm.io/driver/mysql"
	gpostgres "gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sqe-project/sqe"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the PostgreSQL dialect
	"github.com/sqe-project/sqe/session"
)

//go:embed policy.yaml
var defaultPolicy []byte

var (
	mia  = session.User{Name: "mia", Roles: []string{"migrator"}} // runs migrations, owns the data
	erin = session.User{Name: "erin", Roles: []string{"analyst"}} // EU customers only
	sam  = session.User{Name: "sam", Roles: []string{"support"}}  // masked SSN
)

type Customer struct {
	ID     int64
	Name   string `gorm:"size:40"`
	Region string `gorm:"size:8"`
	SSN    string `gorm:"column:ssn;size:11"`
	Salary int
	Orders []Order
}

type Order struct {
	ID         int64
	CustomerID int64
	Customer   *Customer
	Total      int
}

// CustomerCard reads the customers table without the salary. GORM's Joins
// names every field of the joined model, and naming a restricted column is
// refused, so users with restricted columns join through such a model.
type CustomerCard struct {
	ID     int64
	Name   string
	Region string
	SSN    string `gorm:"column:ssn"`
}

func (CustomerCard) TableName() string { return "customers" }

type OrderCard struct {
	ID         int64
	CustomerID int64
	Customer   *CustomerCard `gorm:"foreignKey:CustomerID"`
	Total      int
}

func (OrderCard) TableName() string { return "orders" }

func main() {
	policyFile := flag.String("policy", "", "policy file (default: the example's policy.yaml)")
	flag.Parse()
	targets := map[string]string{"mysql": os.Getenv("SQE_MYSQL_DSN"), "postgres": os.Getenv("SQE_POSTGRES_DSN")}
	if targets["mysql"] == "" && targets["postgres"] == "" {
		fmt.Fprintln(os.Stderr, "set SQE_MYSQL_DSN (go-sql-driver/mysql DSN, with parseTime=true) and/or SQE_POSTGRES_DSN (postgres:// URL) to an empty scratch database")
		os.Exit(2)
	}
	path, cleanup, err := policyPath(*policyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer cleanup()
	failed := 0
	for _, dialect := range []string{"mysql", "postgres"} {
		if targets[dialect] == "" {
			continue
		}
		n, err := run(dialect, targets[dialect], path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dialect, err)
			cleanup()
			os.Exit(2)
		}
		failed += n
	}
	if failed > 0 {
		fmt.Printf("\n%d check(s) FAILED\n", failed)
		cleanup()
		os.Exit(1)
	}
	fmt.Println("\nall checks passed")
}

func policyPath(flagValue string) (string, func(), error) {
	if flagValue != "" {
		return flagValue, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "sqe-example")
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, "policy.yaml")
	return path, func() { _ = os.RemoveAll(dir) }, os.WriteFile(path, defaultPolicy, 0o600)
}

// openGORM is the whole integration: open sqe over the usual driver and
// hand the *sql.DB to GORM.
func openGORM(dialect, dsn, policyFile string) (*gorm.DB, *sql.DB, error) {
	driver := map[string]string{"mysql": "mysql", "postgres": "pgx"}[dialect]
	db, err := sqe.Open(driver, dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutAudit())
	if err != nil {
		return nil, nil, err
	}
	var d gorm.Dialector
	if dialect == "mysql" {
		// GORM's defaults: the version query it runs while opening needs
		// no user, and MariaDB's RETURNING passes through sqe.
		d = gmysql.New(gmysql.Config{Conn: db})
	} else {
		d = gpostgres.New(gpostgres.Config{Conn: db})
	}
	g, err := gorm.Open(d, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return g, db, nil
}

func run(dialect, dsn, policyFile string) (failed int, err error) {
	fmt.Printf("== GORM over sqe over %s\n", dialect)
	g, db, err := openGORM(dialect, dsn, policyFile)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	as := func(u session.User) *gorm.DB { return g.WithContext(session.NewContext(context.Background(), u)) }
	c := &checker{}

	// Migrate and seed as the migrator, through sqe like every other user.
	if as(mia).Migrator().HasTable(&Customer{}) || as(mia).Migrator().HasTable(&Order{}) {
		return 0, errors.New("the example needs a database without tables named customers and orders")
	}
	if err := as(mia).AutoMigrate(&Customer{}, &Order{}); err != nil {
		return 0, fmt.Errorf("AutoMigrate: %w", err)
	}
	defer func() { _ = as(mia).Migrator().DropTable(&Order{}, &Customer{}) }()
	customers := []Customer{
		{Name: "Ada Lovelace", Region: "EU", SSN: "123-45-6789", Salary: 91000, Orders: []Order{{Total: 120}, {Total: 42}}},
		{Name: "Grace Hopper", Region: "US", SSN: "987-65-4321", Salary: 97000, Orders: []Order{{Total: 75}}},
		{Name: "Alan Turing", Region: "EU", SSN: "555-12-3456", Salary: 88000, Orders: []Order{{Total: 300}}},
	}
	if err := as(mia).Create(&customers).Error; err != nil { // a batch insert, with the orders
		return 0, fmt.Errorf("seeding: %w", err)
	}
	c.expect(customers[2].ID == 3 && customers[2].Orders[0].ID == 4, "the migrator's batch insert got the generated keys")

	// Find, as each user.
	for _, u := range []session.User{mia, erin, sam} {
		var cs []Customer
		err := as(u).Preload("Orders").Order("id").Find(&cs).Error
		c.expect(err == nil, "%s: Find customers with their orders: %v", u.Name, err)
		fmt.Printf("  %s sees:\n", u.Name)
		var names []string
		for _, x := range cs {
			fmt.Printf("    %d %-13s %-3s %-12s salary=%-6d orders=%d\n", x.ID, x.Name, x.Region, x.SSN, x.Salary, len(x.Orders))
			names = append(names, x.Name)
		}
		switch u.Name {
		case "mia":
			c.expect(len(cs) == 3 && cs[0].Salary == 91000, "mia sees everything")
		case "erin":
			c.expect(slices.Equal(names, []string{"Ada Lovelace", "Alan Turing"}), "erin sees the EU customers only: %v", names)
			c.expect(len(cs) == 2 && cs[0].Salary == 0 && cs[0].SSN == "123-45-6789", "erin sees SSNs but no salary")
		case "sam":
			c.expect(len(cs) == 3 && cs[0].SSN == "xxx-xx-6789" && cs[0].Salary == 0, "sam sees masked SSNs and no salary")
			c.expect(len(cs) == 3 && len(cs[0].Orders) == 2, "sam sees Ada's two orders")
		}
	}

	// First on a hidden row is ErrRecordNotFound.
	var grace Customer
	err = as(erin).First(&grace, 2).Error
	c.expect(errors.Is(err, gorm.ErrRecordNotFound), "erin cannot load customer 2 (US): %v", err)

	// Joins, through the model without the restricted column.
	var orders []OrderCard
	err = as(erin).Joins("Customer").Order("orders.id").Find(&orders).Error
	visible := 0
	for _, o := range orders {
		if o.Customer != nil {
			visible++
		}
	}
	c.expect(err == nil && len(orders) == 4 && visible == 3, "erin's join: 4 orders, 3 with a visible customer (%d, %d, %v)", len(orders), visible, err)
	var full []Order
	err = as(erin).Joins("Customer").Find(&full).Error
	c.expect(errors.Is(err, sqe.ErrColumnDenied), "a join naming the salary is refused for erin: %v", err)

	// A transaction with a nested one (a SAVEPOINT) that is rolled back.
	errRollback := errors.New("roll back")
	err = as(sam).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&Order{}).Where("id = ?", 1).Update("total", 121).Error; err != nil {
			return err
		}
		_ = tx.Transaction(func(tx2 *gorm.DB) error {
			if err := tx2.Model(&Order{}).Where("id = ?", 2).Update("total", 0).Error; err != nil {
				return err
			}
			return errRollback
		})
		return nil
	})
	var totals []int
	_ = as(mia).Model(&Order{}).Order("id").Pluck("total", &totals).Error
	c.expect(err == nil && slices.Equal(totals, []int{121, 42, 75, 300}), "sam's transaction kept the outer update and rolled back the nested one: %v %v", totals, err)

	// Writes: support updates through a map of the changed fields; Save
	// would write every field, the restricted salary too, and is refused.
	err = as(sam).Model(&Customer{ID: 3}).Updates(map[string]any{"name": "Alan M. Turing"}).Error
	c.expect(err == nil, "sam renames a customer: %v", err)
	var alan Customer
	_ = as(sam).First(&alan, 3).Error
	alan.Name = "A. M. Turing"
	err = as(sam).Save(&alan).Error
	c.expect(errors.Is(err, sqe.ErrColumnDenied), "sam's Save (which writes the salary) is refused: %v", err)
	err = as(erin).Model(&Customer{ID: 1}).Update("name", "x").Error
	c.expect(errors.Is(err, sqe.ErrAccessDenied), "erin may not update: %v", err)

	// A migration by a user without DDL access fails and changes nothing.
	type Invoice struct{ ID int64 }
	err = as(erin).AutoMigrate(&Invoice{})
	c.expect(errors.Is(err, sqe.ErrAccessDenied), "erin's AutoMigrate is refused: %v", err)
	return c.failed, nil
}

type checker struct{ failed int }

func (c *checker) expect(ok bool, format string, args ...any) {
	if ok {
		fmt.Printf("  ok    "+format+"\n", args...)
		return
	}
	c.failed++
	fmt.Printf("  FAIL  "+format+"\n", args...)
}
