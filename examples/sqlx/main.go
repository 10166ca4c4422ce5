// Command sqlx shows sqe under github.com/jmoiron/sqlx: Select, Get,
// NamedExec and sqlx.In work unchanged, and every result carries the
// caller's row filter and masks.
//
// It runs against MariaDB/MySQL when SQE_MYSQL_DSN is set and against
// PostgreSQL when SQE_POSTGRES_DSN is set (both, when both are), creates
// its two tables in that database, and drops them at the end. It exits
// with status 1 when a user sees something the policy says they must not.
//
//	SQE_MYSQL_DSN='app:pw@tcp(127.0.0.1:3306)/scratch?parseTime=true' go run ./sqlx
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
	"github.com/jmoiron/sqlx"

	"github.com/sqe-project/sqe"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the PostgreSQL dialect
	"github.com/sqe-project/sqe/session"
)

//go:embed policy.yaml
var defaultPolicy []byte

var (
	erin = session.User{Name: "erin", Roles: []string{"analyst"}} // EU customers only
	sam  = session.User{Name: "sam", Roles: []string{"support"}}  // masked SSN and e-mail
	nick = session.User{Name: "nick"}                             // no role: nothing
)

var schema = []string{
	"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT)",
	"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)",
}

var seed = []string{
	"INSERT INTO customers VALUES (1, 'Ada Lovelace', 'EU', '123-45-6789', 'ada@example.org', 91000), " +
		"(2, 'Grace Hopper', 'US', '987-65-4321', 'grace@example.com', 97000), " +
		"(3, 'Alan Turing', 'EU', '555-12-3456', 'alan@example.net', 88000)",
	"INSERT INTO orders VALUES (10, 1, 120), (11, 2, 75), (12, 3, 300), (13, 1, 42)",
}

// Customer is scanned by sqlx. Salary is restricted for every user here:
// it is not part of SELECT * for them, and the field keeps its zero value.
type Customer struct {
	ID     int    `db:"id"`
	Name   string `db:"name"`
	Region string `db:"region"`
	SSN    string `db:"ssn"`
	Email  string `db:"email"`
	Salary int    `db:"salary"`
}

func main() {
	policyFile := flag.String("policy", "", "policy file (default: the example's policy.yaml)")
	flag.Parse()
	targets := map[string]string{"mysql": os.Getenv("SQE_MYSQL_DSN"), "pgx": os.Getenv("SQE_POSTGRES_DSN")}
	if targets["mysql"] == "" && targets["pgx"] == "" {
		fmt.Fprintln(os.Stderr, "set SQE_MYSQL_DSN (go-sql-driver/mysql DSN) and/or SQE_POSTGRES_DSN (postgres:// URL) to an empty scratch database")
		os.Exit(2)
	}
	path, cleanup, err := policyPath(*policyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer cleanup()
	failed := 0
	for _, driver := range []string{"mysql", "pgx"} {
		if targets[driver] == "" {
			continue
		}
		n, err := run(driver, targets[driver], path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", driver, err)
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

// policyPath returns the policy file to use: the flag's, or the embedded
// policy.yaml written to a temporary file.
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

func run(driver, dsn, policyFile string) (failed int, err error) {
	fmt.Printf("== sqlx over sqe over %s\n", driver)
	// The database owner creates and fills the tables, without sqe.
	owner, err := sql.Open(driver, dsn)
	if err != nil {
		return 0, err
	}
	defer owner.Close()
	for i, stmt := range schema {
		if _, err := owner.Exec(stmt); err != nil {
			return 0, fmt.Errorf("%w (the example needs a database without tables named customers and orders)", err)
		}
		table := []string{"customers", "orders"}[i]
		defer func() { _, _ = owner.Exec("DROP TABLE " + table) }()
	}
	for _, stmt := range seed {
		if _, err := owner.Exec(stmt); err != nil {
			return 0, err
		}
	}

	// The service: the only change for sqe is this Open. sqlx is told the
	// inner driver's name, which selects its bind variables (? or $1).
	// (sqe also writes one audit record per statement through log/slog;
	// the example turns that off to keep its output short.)
	sqeDB, err := sqe.Open(driver, dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutAudit())
	if err != nil {
		return 0, err
	}
	defer sqeDB.Close()
	db := sqlx.NewDb(sqeDB, driver)

	c := &checker{}
	as := func(u session.User) context.Context { return session.NewContext(context.Background(), u) }

	// Select: struct scanning, as each user.
	for _, u := range []session.User{erin, sam} {
		var cs []Customer
		err := db.SelectContext(as(u), &cs, "SELECT * FROM customers ORDER BY id")
		c.expect(err == nil, "%s: Select customers: %v", u.Name, err)
		fmt.Printf("  %s sees:\n", u.Name)
		for _, x := range cs {
			fmt.Printf("    %d %-13s %-3s %-12s %-18s salary=%d\n", x.ID, x.Name, x.Region, x.SSN, x.Email, x.Salary)
		}
		var ids []int
		salaries := 0
		for _, x := range cs {
			ids = append(ids, x.ID)
			salaries += x.Salary
		}
		c.expect(salaries == 0, "%s sees no salary", u.Name)
		switch u.Name {
		case "erin":
			c.expect(slices.Equal(ids, []int{1, 3}), "erin sees the EU customers 1 and 3: %v", ids)
			c.expect(len(cs) > 0 && cs[0].SSN == "123-45-6789", "erin sees full SSNs")
		case "sam":
			c.expect(slices.Equal(ids, []int{1, 2, 3}), "sam sees every customer: %v", ids)
			c.expect(len(cs) > 0 && cs[0].SSN == "xxx-xx-6789", "sam sees the last 4 digits of an SSN: %q", cs[0].SSN)
			c.expect(len(cs) > 0 && cs[0].Email == "xxx@xxxxxxx.xxx", "sam sees masked e-mails: %q", cs[0].Email)
		}
	}

	// Get: one row; the hidden US customer is "no rows" for erin.
	var grace Customer
	err = db.GetContext(as(erin), &grace, db.Rebind("SELECT id, name FROM customers WHERE id = ?"), 2)
	c.expect(errors.Is(err, sql.ErrNoRows), "erin cannot Get customer 2 (US): %v", err)

	// A predicate on a masked column sees the masked value: no oracle.
	var n int
	err = db.GetContext(as(sam), &n, db.Rebind("SELECT COUNT(*) FROM customers WHERE ssn LIKE ?"), "123%")
	c.expect(err == nil && n == 0, "sam cannot find customers by SSN prefix: %d %v", n, err)

	// sqlx.In expands the slice; Rebind gives the driver's bind variables.
	q, args, err := sqlx.In("SELECT o.id, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.customer_id IN (?) ORDER BY o.id", []int{1, 2, 3})
	if err != nil {
		return 0, err
	}
	var orders []struct {
		ID    int `db:"id"`
		Total int `db:"total"`
	}
	err = db.SelectContext(as(erin), &orders, db.Rebind(q), args...)
	var orderIDs []int
	for _, o := range orders {
		orderIDs = append(orderIDs, o.ID)
	}
	c.expect(err == nil && slices.Equal(orderIDs, []int{10, 12, 13}), "erin's join sees orders of EU customers only: %v %v", orderIDs, err)

	// NamedExec: support may update, analysts may not.
	_, err = db.NamedExecContext(as(sam), "UPDATE customers SET email = :email WHERE id = :id", map[string]any{"email": "ada@example.com", "id": 1})
	c.expect(err == nil, "sam updates an e-mail: %v", err)
	_, err = db.NamedExecContext(as(erin), "UPDATE customers SET email = :email WHERE id = :id", map[string]any{"email": "x@example.com", "id": 1})
	c.expect(errors.Is(err, sqe.ErrAccessDenied), "erin may not update: %v", err)

	// Refusals: a restricted column, a user without access, no user.
	var salaries []int
	err = db.SelectContext(as(sam), &salaries, "SELECT salary FROM customers")
	c.expect(errors.Is(err, sqe.ErrColumnDenied), "sam may not read salaries: %v", err)
	var cs []Customer
	err = db.SelectContext(as(nick), &cs, "SELECT * FROM customers")
	c.expect(errors.Is(err, sqe.ErrAccessDenied), "nick may read nothing: %v", err)
	err = db.SelectContext(context.Background(), &cs, "SELECT * FROM customers")
	c.expect(errors.Is(err, sqe.ErrNoSession), "a context without a user runs nothing: %v", err)
	return c.failed, nil
}

// checker prints each check and counts the failures.
type checker struct{ failed int }

func (c *checker) expect(ok bool, format string, args ...any) {
	if ok {
		fmt.Printf("  ok    "+format+"\n", args...)
		return
	}
	c.failed++
	fmt.Printf("  FAIL  "+format+"\n", args...)
}
