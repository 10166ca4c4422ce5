package main

import (
	"context"
	"database/sql"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gmssql "github.com/dolthub/go-mysql-server/sql"
	"github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

//go:embed demo_policy.yaml
var demoPolicy []byte

var demoSchema = []string{
	"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT)",
	"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT)",
	"INSERT INTO customers VALUES (1, 'Ada Lovelace', 'EU', '123-45-6789', 'ada@example.org', 91000), " +
		"(2, 'Grace Hopper', 'US', '987-65-4321', 'grace@example.com', 97000), " +
		"(3, 'Alan Turing', 'EU', '555-12-3456', 'alan@example.net', 88000), " +
		"(4, 'Edsger Dijkstra', 'EU', '444-33-2211', 'ewd@example.nl', 86000), " +
		"(5, 'Barbara Liskov', 'US', '222-11-0000', 'liskov@example.edu', 99000)",
	"INSERT INTO orders VALUES (10, 1, 120), (11, 2, 75), (12, 3, 300), (13, 1, 42), (14, 5, 18), (15, 4, 64)",
}

type demoUser struct {
	label string
	user  session.User
}

var demoUsers = []demoUser{
	{"admin (role admin)", session.User{Name: "root-admin", Roles: []string{"admin"}}},
	{"EU analyst (row filter)", session.User{Name: "erin", Roles: []string{"eu_analyst"}}},
	{"support (masked SSN/email)", session.User{Name: "sam", Roles: []string{"support"}}},
}

var demoQueries = []struct{ title, sql string }{
	{"Customers", "SELECT id, name, region, ssn FROM customers ORDER BY id"},
	{"Contact details", "SELECT name, email FROM customers WHERE id <= 3 ORDER BY id"},
	{"Revenue by region (join + GROUP BY)", "SELECT c.region, COUNT(*) AS orders, SUM(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY c.region"},
	{"A predicate on a masked column is no oracle", "SELECT name FROM customers WHERE ssn LIKE '123%'"},
	{"A restricted column", "SELECT name, salary FROM customers WHERE id = 1"},
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: sqe demo\n\nStarts an embedded MySQL-compatible server (go-mysql-server) with a small shop\ndatabase and runs the same queries through sqe as three users.")
	}
	positional, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("demo takes no arguments")
	}
	addr, stop, err := startEmbeddedServer()
	if err != nil {
		return fmt.Errorf("starting the embedded server: %w", err)
	}
	defer stop()

	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", addr, "root", "shop"
	dsn := cfg.FormatDSN()

	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer raw.Close()
	for _, stmt := range demoSchema {
		if _, err := raw.Exec(stmt); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
	}

	dir, err := os.MkdirTemp("", "sqe-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, demoPolicy, 0o600); err != nil {
		return err
	}
	db, err := sqe.Open("mysql", dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutAudit())
	if err != nil {
		return err
	}
	defer db.Close()

	fmt.Fprintln(stdout, "sqe demo: one shop database, three users, the same SQL.")
	fmt.Fprintln(stdout, "Policy: cmd/sqe/demo_policy.yaml. Server: go-mysql-server on "+addr+".")
	for _, q := range demoQueries {
		fmt.Fprintf(stdout, "\n== %s\n", q.title)
		for _, line := range wrapText(q.sql, demoWidth-3) {
			fmt.Fprintln(stdout, "   "+line)
		}
		fmt.Fprintln(stdout)
		var blocks [][]string
		for _, u := range demoUsers {
			ctx := session.NewContext(context.Background(), u.user)
			blocks = append(blocks, append([]string{u.label, strings.Repeat("-", len(u.label))}, queryBlock(ctx, db, q.sql)...))
		}
		for _, line := range sideBySideWithin(blocks, 3, demoWidth) {
			fmt.Fprintln(stdout, line)
		}
	}
	fmt.Fprintln(stdout, "\nTry your own: go run ./cmd/sqe explain --help")
	return nil
}

// queryBlock runs a query and renders its result (or error) as lines.
func queryBlock(ctx context.Context, db *sql.DB, query string) []string {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return wrapText("refused: "+shortError(err), 36)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	table := [][]string{cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return wrapText("error: "+err.Error(), 36)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		table = append(table, row)
	}
	if err := rows.Err(); err != nil {
		return wrapText("error: "+err.Error(), 36)
	}
	if len(table) == 1 {
		return append(renderTable(table), "(no rows)")
	}
	return renderTable(table)
}

func shortError(err error) string {
	return strings.TrimPrefix(err.Error(), "sqe: ")
}

func renderTable(table [][]string) []string {
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	var lines []string
	for r, row := range table {
		var b strings.Builder
		for i, cell := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(cell + strings.Repeat(" ", widths[i]-len([]rune(cell))))
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
		if r == 0 {
			var u strings.Builder
			for i, w := range widths {
				if i > 0 {
					u.WriteString("  ")
				}
				u.WriteString(strings.Repeat("·", w))
			}
			lines = append(lines, u.String())
		}
	}
	return lines
}

func wrapText(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// demoWidth is the width the demo's output fits in.
const demoWidth = 100

// sideBySideWithin lays text blocks out side by side, as many on a row as
// fit in width columns; the blocks that do not fit follow below, after a
// blank line.
func sideBySideWithin(blocks [][]string, gap, width int) []string {
	var out []string
	for len(blocks) > 0 {
		n, used := 0, 0
		for n < len(blocks) {
			w := blockWidth(blocks[n])
			if n > 0 {
				w += gap
			}
			if n > 0 && used+w > width {
				break
			}
			used += w
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, sideBySide(blocks[:n], gap)...)
		blocks = blocks[n:]
	}
	return out
}

func blockWidth(b []string) int {
	w := 0
	for _, l := range b {
		w = max(w, len([]rune(l)))
	}
	return w
}

// sideBySide lays text blocks out in columns, gap spaces apart.
func sideBySide(blocks [][]string, gap int) []string {
	widths := make([]int, len(blocks))
	height := 0
	for i, b := range blocks {
		for _, l := range b {
			widths[i] = max(widths[i], len([]rune(l)))
		}
		height = max(height, len(b))
	}
	var out []string
	for r := 0; r < height; r++ {
		var b strings.Builder
		for i, blk := range blocks {
			cell := ""
			if r < len(blk) {
				cell = blk[r]
			}
			b.WriteString(cell)
			if i < len(blocks)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(cell))+gap))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// startEmbeddedServer starts go-mysql-server on a loopback port with an
// empty database "shop" and returns its address.
func startEmbeddedServer() (string, func(), error) {
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
