package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

func runExplain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	policyFile := fs.String("policy", "", "policy: a native file, a Ranger bundle, or a Rego bundle (directory, .tar.gz, .rego or bundle URL) (required)")
	dialect := fs.String("dialect", "", "SQL dialect: mysql or postgres (required without --dsn, which implies it)")
	user := fs.String("user", "", "user name (required)")
	roles := fs.String("roles", "", "comma-separated granted roles")
	groups := fs.String("groups", "", "comma-separated groups")
	primary := fs.String("primary-role", "", "the session's primary role")
	secondary := fs.String("secondary-roles", "", "secondary roles: ALL or a comma-separated list")
	schema := fs.String("schema", "", "file of CREATE TABLE statements describing the tables (instead of --dsn)")
	dsn := fs.String("dsn", "", "DSN of the database to read table metadata from (go-sql-driver/mysql or pgx form)")
	verbose := fs.Bool("v", false, "also list the filters, masks and restrictions applied per table, and with --run the audit record")
	runIt := fs.Bool("run", false, "also run the statement as the user (needs --dsn) and print what the user gets")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: sqe explain --policy FILE --user NAME [--roles r1,r2] [--groups g1]
                   [--primary-role r] [--secondary-roles ALL|r1,r2]
                   (--dialect mysql|postgres --schema DDL.sql | --dsn DSN [--run]) [-v] "SQL"

Prints the statement as sqe would send it for the user (exit 0), or the
reason sqe refuses it (exit 1, on stderr). Nothing is executed unless
--run is given, which also runs it through sqe as the user and prints the
rows (or rows affected) the user gets. The dialect follows from --dsn: a
postgres:// URL (or key=value DSN) is PostgreSQL, anything else MySQL.
Flags may also follow the SQL.`)
		fs.PrintDefaults()
	}
	positional, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if *dialect == "" && *dsn != "" {
		*dialect = dialectOfDSN(*dsn)
	}
	switch {
	case *policyFile == "":
		return usageError("--policy is required")
	case *dialect != "mysql" && *dialect != "postgres":
		return usageError("--dialect must be mysql or postgres")
	case *user == "":
		return usageError("--user is required")
	case len(positional) != 1:
		return usageError("give exactly one SQL statement (quote it)")
	case (*schema == "") == (*dsn == ""):
		return usageError("give either --schema or --dsn")
	case *runIt && *dsn == "":
		return usageError("--run needs --dsn")
	}
	u := session.User{Name: *user, Groups: splitList(*groups), Roles: splitList(*roles), PrimaryRole: *primary,
		SecondaryRoles: splitList(*secondary)}

	query := positional[0]
	// Audit records go to stderr with -v only: explain's output is the
	// statement and what the user gets.
	auditOpt := sqe.WithoutAudit()
	if *verbose {
		auditOpt = sqe.WithAudit(audit.NewSlogSink(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	db, err := explainDB(*dialect, *policyFile, *schema, *dsn, auditOpt)
	if err != nil {
		return err
	}
	defer db.Close()
	ex, err := sqe.Explain(context.Background(), db, u, query)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, ex.SQL)
	if *verbose {
		for _, t := range ex.Tables {
			fmt.Fprintf(stdout, "-- %s\n", t.Table)
			for _, f := range t.RowFilters {
				fmt.Fprintf(stdout, "--   row filter %q: %s\n", f.Policy, f.Expr)
				printRequestValues(stdout, f.Values)
				switch f.Check {
				case "":
					fmt.Fprintf(stdout, "--     written rows are not checked\n")
				case f.Expr:
					fmt.Fprintf(stdout, "--     written rows must satisfy it\n")
				default:
					fmt.Fprintf(stdout, "--     written rows must satisfy: %s\n", f.Check)
				}
			}
			cols := make([]string, 0, len(t.Masks))
			for c := range t.Masks {
				cols = append(cols, c)
			}
			sort.Strings(cols)
			for _, c := range cols {
				m := t.Masks[c]
				if m.When != "" {
					fmt.Fprintf(stdout, "--   mask %q on %s: %s when %s (raw where the condition is false)\n", m.Policy, c, m.Type, m.When)
					continue
				}
				fmt.Fprintf(stdout, "--   mask %q on %s: %s\n", m.Policy, c, m.Type)
				printRequestValues(stdout, m.Values)
			}
			for c, p := range t.Restricted {
				fmt.Fprintf(stdout, "--   restricted %q: %s\n", p, c)
			}
		}
	}
	if *runIt {
		return runAs(context.Background(), db, u, query, stdout)
	}
	return nil
}

// runAs runs query through sqe as u and prints what u gets.
func runAs(ctx context.Context, db *sql.DB, u session.User, query string, w io.Writer) error {
	ctx = session.NewContext(ctx, u)
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		fmt.Fprintln(w, "-- ok")
		return rows.Err()
	}
	table := [][]string{cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
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
		return err
	}
	for _, line := range renderTable(table) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "(%d rows)\n", len(table)-1)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// explainDB opens an sqe database for explaining: over the real database
// when a DSN is given, or over a connector that refuses every statement
// with the metadata taken from a schema file.
func explainDB(dialect, policyFile, schemaFile, dsn string, more ...sqe.Option) (*sql.DB, error) {
	pol, closePolicy, err := policyOption(policyFile)
	if err != nil {
		return nil, err
	}
	db, err := explainDBWith(dialect, pol, schemaFile, dsn, more...)
	if err != nil {
		closePolicy()
	}
	return db, err
}

func explainDBWith(dialect string, pol sqe.Option, schemaFile, dsn string, more ...sqe.Option) (*sql.DB, error) {
	// A one-shot explanation has no use for following the file.
	opts := append([]sqe.Option{pol, sqe.WithoutPolicyWatch(), sqe.WithDialect(dialect)}, more...)
	if dsn != "" {
		name := "mysql"
		if dialect == "postgres" {
			name = "pgx"
		}
		return sqe.Open(name, dsn, opts...)
	}
	ddl, err := os.ReadFile(schemaFile)
	if err != nil {
		return nil, err
	}
	d, ok := rewriter.Lookup(dialect)
	if !ok {
		return nil, fmt.Errorf("dialect %q is not linked", dialect)
	}
	dc, ok := d.(rewriter.DDLCataloger)
	if !ok {
		return nil, fmt.Errorf("dialect %q cannot read a schema file: use --dsn", dialect)
	}
	cat, err := dc.CatalogFromDDL(string(ddl))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", schemaFile, err)
	}
	conn, err := sqe.NewConnector(offlineConnector{}, append(opts, sqe.WithCatalog(cat))...)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// dialectOfDSN tells a PostgreSQL DSN (a postgres:// or postgresql://
// URL, or pgx's key=value form) from a go-sql-driver/mysql one
// (user:pass@tcp(host)/db). An explicit --dialect wins over it.
func dialectOfDSN(dsn string) string {
	lower := strings.ToLower(strings.TrimSpace(dsn))
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		return "postgres"
	}
	if keyValueDSN.MatchString(lower) {
		return "postgres" // host=… dbname=…
	}
	return "mysql"
}

var keyValueDSN = regexp.MustCompile(`^[a-z_]+\s*=`)

// offlineConnector stands in for a database when explaining from a schema
// file: connecting works, running anything fails.
type offlineConnector struct{}

func (offlineConnector) Connect(context.Context) (driver.Conn, error) { return offlineConn{}, nil }
func (offlineConnector) Driver() driver.Driver                        { return offlineDriver{} }

type offlineDriver struct{}

func (offlineDriver) Open(string) (driver.Conn, error) { return offlineConn{}, nil }

type offlineConn struct{}

var errOffline = errors.New("no database: sqe explain only rewrites")

func (offlineConn) Prepare(string) (driver.Stmt, error) { return nil, errOffline }
func (offlineConn) Close() error                        { return nil }
func (offlineConn) Begin() (driver.Tx, error)           { return nil, errOffline }

// printRequestValues lists the caller's request values an expression's
// markers stand for (policy.RequestValue).
func printRequestValues(w io.Writer, values []policy.RequestValue) {
	for i, v := range values {
		val := "NULL"
		if !v.Null {
			val = strconv.Quote(v.Value)
		}
		fmt.Fprintf(w, "--     %s = %s\n", policy.RequestValueMarker(i), val)
	}
}
