// Command pgx shows sqe over pgx's database/sql driver (pgx/v5/stdlib):
// PostgreSQL arrays, []int64 arguments, JSONB and pgtype values, the
// simple protocol (pgx writes the arguments into the rewritten SQL on the
// client), and sql.Conn.Raw, which sqe refuses unless the connector was
// built with sqe.WithRawConnAccess.
//
// It needs SQE_POSTGRES_DSN, creates a customers table in that database
// and drops it at the end. It exits with status 1 when a user sees
// something the policy says they must not.
//
//	SQE_POSTGRES_DSN='postgres://app:pw@127.0.0.1:5432/scratch' go run ./pgx
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sqe-project/sqe"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the PostgreSQL dialect
	"github.com/sqe-project/sqe/session"
)

//go:embed policy.yaml
var defaultPolicy []byte

var (
	erin = session.User{Name: "erin", Roles: []string{"analyst"}} // EU customers only
	sam  = session.User{Name: "sam", Roles: []string{"support"}}  // masked SSN, tags and prefs
)

var setup = []string{
	`CREATE TABLE customers (id int PRIMARY KEY, name text, region text, ssn text, tags text[], prefs jsonb)`,
	`INSERT INTO customers VALUES
		(1, 'Ada Lovelace', 'EU', '123-45-6789', '{vip,engine}', '{"theme": "dark", "newsletter": true}'),
		(2, 'Grace Hopper', 'US', '987-65-4321', '{compiler}', '{"theme": "light"}'),
		(3, 'Alan Turing', 'EU', '555-12-3456', '{vip}', '{"theme": "dark"}')`,
}

func main() {
	policyFile := flag.String("policy", "", "policy file (default: the example's policy.yaml)")
	flag.Parse()
	dsn := os.Getenv("SQE_POSTGRES_DSN")
	if dsn == "" {
		fmt.Fprintln(os.Stderr, "set SQE_POSTGRES_DSN to a postgres:// URL of an empty scratch database")
		os.Exit(2)
	}
	path := *policyFile
	if path == "" {
		dir, err := os.MkdirTemp("", "sqe-example")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "policy.yaml")
		if err := os.WriteFile(path, defaultPolicy, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	failed, err := run(dsn, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if failed > 0 {
		fmt.Printf("\n%d check(s) FAILED\n", failed)
		os.Exit(1)
	}
	fmt.Println("\nall checks passed")
}

// open builds the pool the way a pgx service does, with sqe's connector
// around pgx's.
func open(dsn, policyFile string, opts ...sqe.Option) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	c, err := sqe.NewConnector(stdlib.GetConnector(*cfg), append([]sqe.Option{sqe.WithPolicyFile(policyFile), sqe.WithoutAudit()}, opts...)...)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func run(dsn, policyFile string) (failed int, err error) {
	owner, err := sql.Open("pgx", dsn)
	if err != nil {
		return 0, err
	}
	defer owner.Close()
	if _, err := owner.Exec(setup[0]); err != nil {
		return 0, fmt.Errorf("%w (the example needs a database without a customers table)", err)
	}
	defer func() { _, _ = owner.Exec("DROP TABLE customers") }()
	if _, err := owner.Exec(setup[1]); err != nil {
		return 0, err
	}

	db, err := open(dsn, policyFile)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	c := &checker{}
	as := func(u session.User) context.Context { return session.NewContext(context.Background(), u) }
	m := pgtype.NewMap()

	// Arrays: a []int64 argument, text[] scanned into []string.
	fmt.Println("== arrays and JSONB")
	for _, u := range []session.User{erin, sam} {
		rows, err := db.QueryContext(as(u), "SELECT id, ssn, tags, prefs FROM customers WHERE id = ANY($1) ORDER BY id", []int64{1, 2, 3})
		if err != nil {
			return 0, err
		}
		var ids []int64
		var ssns []string
		var allTags [][]string
		var prefs []map[string]any
		for rows.Next() {
			var id int64
			var ssn string
			var tags []string
			var raw []byte // jsonb arrives as JSON text
			if err := rows.Scan(&id, &ssn, m.SQLScanner(&tags), &raw); err != nil {
				return 0, err
			}
			var p map[string]any
			if raw != nil {
				if err := json.Unmarshal(raw, &p); err != nil {
					return 0, err
				}
			}
			fmt.Printf("  %s: %d %s %v %v\n", u.Name, id, ssn, tags, p)
			ids, ssns, allTags, prefs = append(ids, id), append(ssns, ssn), append(allTags, tags), append(prefs, p)
		}
		if err := rows.Close(); err != nil {
			return 0, err
		}
		switch u.Name {
		case "erin":
			c.expect(slices.Equal(ids, []int64{1, 3}), "erin sees the EU customers 1 and 3: %v", ids)
			c.expect(len(prefs) == 2 && prefs[0]["theme"] == "dark", "erin sees JSONB preferences")
		case "sam":
			c.expect(len(ids) == 3 && ssns[0] == "xxx-xx-6789", "sam sees every customer, SSNs masked: %v", ssns)
			c.expect(len(allTags) == 3 && slices.Equal(allTags[0], []string{"engine"}) && len(allTags[2]) == 0, "sam's tags have no vip: %v", allTags)
			c.expect(len(prefs) == 3 && prefs[0] == nil, "sam's preferences are NULL")
		}
	}
	// Predicates see the masked values: sam finds no vip, no dark theme.
	var n int
	err = db.QueryRowContext(as(sam), "SELECT count(*) FROM customers WHERE 'vip' = ANY(tags) OR prefs->>'theme' = $1", "dark").Scan(&n)
	c.expect(err == nil && n == 0, "sam cannot select by the masked tags or preferences: %d %v", n, err)

	// pgtype values as arguments and scan targets.
	var name pgtype.Text
	err = db.QueryRowContext(as(erin), "SELECT name FROM customers WHERE id = $1", pgtype.Int4{Int32: 3, Valid: true}).Scan(&name)
	c.expect(err == nil && name.String == "Alan Turing", "pgtype arguments and results: %v %v", name, err)

	// The simple protocol: pgx interpolates the arguments into the SQL sqe
	// rewrote. Filters and masks apply all the same.
	fmt.Println("== simple protocol")
	simple, err := open(dsn+sep(dsn)+"default_query_exec_mode=simple_protocol", policyFile)
	if err != nil {
		return 0, err
	}
	defer simple.Close()
	var ssn string
	err = simple.QueryRowContext(as(sam), "SELECT ssn FROM customers WHERE name = $1", "Grace Hopper").Scan(&ssn)
	c.expect(err == nil && ssn == "xxx-xx-4321", "sam over the simple protocol: %q %v", ssn, err)
	err = simple.QueryRowContext(as(erin), "SELECT ssn FROM customers WHERE name = $1", "Grace Hopper").Scan(&ssn)
	c.expect(errors.Is(err, sql.ErrNoRows), "erin over the simple protocol does not see Grace: %v", err)
	// The mode can also be chosen per statement, as the first argument.
	err = db.QueryRowContext(as(sam), "SELECT ssn FROM customers WHERE id = $1", pgx.QueryExecModeSimpleProtocol, 1).Scan(&ssn)
	c.expect(err == nil && ssn == "xxx-xx-6789", "QueryExecModeSimpleProtocol as an argument: %q %v", ssn, err)

	// sql.Conn.Raw hands out sqe's connection, and sqe refuses to unwrap
	// it: code holding pgx's own connection would bypass every policy.
	fmt.Println("== sql.Conn.Raw")
	err = rawSalaryOfGrace(db)
	c.expect(errors.Is(err, sqe.ErrAccessDenied), "Raw is refused by default: %v", err)
	trusted, err := open(dsn, policyFile, sqe.WithRawConnAccess())
	if err != nil {
		return 0, err
	}
	defer trusted.Close()
	err = rawSalaryOfGrace(trusted)
	c.expect(err == nil, "Raw works with sqe.WithRawConnAccess (for trusted code only): %v", err)
	return c.failed, nil
}

// rawSalaryOfGrace uses pgx's native API through sql.Conn.Raw.
func rawSalaryOfGrace(db *sql.DB) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		// dc is *sqe.Conn: its Unwrap gives pgx's *stdlib.Conn, when allowed.
		inner, err := dc.(interface{ Unwrap() (driver.Conn, error) }).Unwrap()
		if err != nil {
			return err
		}
		var ssn string
		return inner.(*stdlib.Conn).Conn().QueryRow(ctx, "SELECT ssn FROM customers WHERE id = 2").Scan(&ssn)
	})
}

func sep(dsn string) string {
	if strings.Contains(dsn, "?") {
		return "&"
	}
	return "?"
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
