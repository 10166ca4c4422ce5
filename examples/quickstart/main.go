// Command quickstart is sqe in one file: it starts an in-process
// MySQL-compatible server (github.com/dolthub/go-mysql-server), opens it
// through sqe with policy.yaml, and runs the same query as three users.
// Nothing needs to be installed:
//
//	go run ./quickstart
//
// It exits with status 1 when a user sees something the policy says they
// must not.
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gmssql "github.com/dolthub/go-mysql-server/sql"
	"github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

//go:embed policy.yaml
var policyYAML []byte

func main() {
	policyFile := flag.String("policy", "", "policy file (default: the quickstart's policy.yaml)")
	flag.Parse()
	if err := run(*policyFile); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(policyFile string) error {
	addr, stop, err := startServer()
	if err != nil {
		return err
	}
	defer stop()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", addr, "root", "shop"
	dsn := cfg.FormatDSN()
	if err := seed(dsn); err != nil {
		return err
	}
	if policyFile == "" {
		dir, err := os.MkdirTemp("", "sqe-quickstart")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		policyFile = filepath.Join(dir, "policy.yaml")
		if err := os.WriteFile(policyFile, policyYAML, 0o600); err != nil {
			return err
		}
	}

	// 1. Open the database through sqe instead of directly.
	db, err := sqe.Open("mysql", dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutAudit())
	if err != nil {
		return err
	}
	defer db.Close()

	// 2. Put the caller on the context; 3. run the application's SQL.
	const query = "SELECT id, name, ssn FROM customers ORDER BY id"
	want := map[string][][]string{
		"ann": {{"1", "Ada", "123-45-6789"}, {"2", "Grace", "987-65-4321"}, {"3", "Alan", "555-12-3456"}},
		"eve": {{"1", "Ada", "123-45-6789"}, {"3", "Alan", "555-12-3456"}},
		"sam": {{"1", "Ada", "xxx-xx-6789"}, {"2", "Grace", "xxx-xx-4321"}, {"3", "Alan", "xxx-xx-3456"}},
	}
	var failures []string
	fmt.Println(query)
	for _, u := range []session.User{
		{Name: "ann", Roles: []string{"admin"}},
		{Name: "eve", Roles: []string{"analyst"}},
		{Name: "sam", Roles: []string{"support"}},
	} {
		ctx := session.NewContext(context.Background(), u)
		got, err := rows(ctx, db, query)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Name, err)
		}
		fmt.Printf("\n%s (%s):\n", u.Name, u.Roles[0])
		for _, r := range got {
			fmt.Printf("  %v\n", r)
		}
		if !reflect.DeepEqual(got, want[u.Name]) {
			failures = append(failures, fmt.Sprintf("%s got %v, want %v", u.Name, got, want[u.Name]))
		}
		// Naming a restricted column is refused before anything is sent.
		_, err = rows(ctx, db, "SELECT name, salary FROM customers")
		if restricted := u.Name != "ann"; restricted != errors.Is(err, sqe.ErrColumnDenied) {
			failures = append(failures, fmt.Sprintf("%s reading salaries: %v", u.Name, err))
		} else if restricted {
			fmt.Printf("  salary: %v\n", err)
		}
	}
	// No user on the context: nothing runs.
	if _, err := rows(context.Background(), db, query); !errors.Is(err, sqe.ErrNoSession) {
		failures = append(failures, fmt.Sprintf("no user on the context: %v", err))
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d check(s) failed:\n  %v", len(failures), failures)
	}
	fmt.Println("\nall checks passed")
	return nil
}

func rows(ctx context.Context, db *sql.DB, query string) ([][]string, error) {
	rs, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]string
	for rs.Next() {
		var id, name, ssn string
		if err := rs.Scan(&id, &name, &ssn); err != nil {
			return nil, err
		}
		out = append(out, []string{id, name, ssn})
	}
	return out, rs.Err()
}

// seed creates the shop's table as its owner, without sqe.
func seed(dsn string) error {
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer raw.Close()
	for _, stmt := range []string{
		"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), salary INT)",
		"INSERT INTO customers VALUES (1, 'Ada', 'EU', '123-45-6789', 91000), (2, 'Grace', 'US', '987-65-4321', 97000), (3, 'Alan', 'EU', '555-12-3456', 88000)",
	} {
		if _, err := raw.Exec(stmt); err != nil {
			return err
		}
	}
	return nil
}

// startServer starts go-mysql-server on a loopback port with an empty
// database "shop".
func startServer() (string, func(), error) {
	logrus.SetLevel(logrus.ErrorLevel)
	db := memory.NewDatabase("shop")
	db.BaseDatabase.EnablePrimaryKeyIndexes()
	pro := memory.NewDBProvider(db)
	engine := gms.NewDefault(pro)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv, err := server.NewServer(server.Config{Protocol: "tcp", Listener: l}, engine, gmssql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		l.Close()
		return "", nil, err
	}
	go func() { _ = srv.Start() }()
	return l.Addr().String(), func() { _ = srv.Close() }, nil
}
