package sqe_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

// The analytics benchmark compares sqe with what a user would pick
// instead for the same policy: an analyst sees the EU customers only, the
// SSN with all but its last four characters masked and the e-mail masked.
// On PostgreSQL the alternative is a row-level security policy USING
// (region = 'EU') and a security_barrier view (security_invoker, so that
// the policy applies to the caller) computing the same masks; on MariaDB a
// view with the same filter and mask expressions. The mask expressions of
// both views are sqe's own (udf.MaskSQL), so every path returns the same
// rows, which the benchmark checks before it times anything.
//
// The data set (SQE_BENCH_CUSTOMERS customers, 1,000,000 by default, a
// fifth of them in the EU, and twice as many orders) is loaded once into
// the database sqe_bench_analytics of each test server and kept there
// while the servers run; it is loaded again when its size differs.
//
//	COUNT=5 ./scripts/bench.sh -bench BenchmarkAnalytics -benchtime 5x .
const analyticsPolicy = `version: 1
default: deny
tables:
  %[1]s.customers:
    access:
      - {name: read, principals: [role:analyst], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: ssn-last4, principals: [role:analyst], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: email-mask, principals: [role:analyst], column: email, type: MASK}
  %[1]s.orders:
    access:
      - {name: read, principals: [role:analyst], allow: [select]}
`

const (
	analyticsDatabase = "sqe_bench_analytics"
	analyticsRole     = "sqe_bench_native"
	analyticsPassword = "sqe-bench-native"
)

// analyticsQuery is one of the compared statements; {customers} is the
// table the path reads (the base table for sqe, the view for the native
// alternative).
type analyticsQuery struct {
	name           string
	mysql, postgre string
	// point: the statement takes one argument, the id of an EU customer.
	point bool
}

var analyticsQueries = []analyticsQuery{
	{name: "a-point-select",
		mysql:   "SELECT id, name, email, ssn FROM {customers} WHERE id = ?",
		postgre: "SELECT id, name, email, ssn FROM {customers} WHERE id = $1",
		point:   true},
	{name: "b-month-totals",
		mysql:   "SELECT EXTRACT(YEAR_MONTH FROM created_at) AS m, COUNT(*), SUM(balance) FROM {customers} GROUP BY m ORDER BY m",
		postgre: "SELECT date_trunc('month', created_at) AS m, count(*), sum(balance) FROM {customers} GROUP BY m ORDER BY m"},
	{name: "c-like-limit",
		mysql:   "SELECT id, name, ssn FROM {customers} WHERE ssn LIKE '%12%' ORDER BY id LIMIT 100",
		postgre: "SELECT id, name, ssn FROM {customers} WHERE ssn LIKE '%12%' ORDER BY id LIMIT 100"},
	{name: "d-join-month",
		mysql: "SELECT EXTRACT(YEAR_MONTH FROM o.created_at) AS m, COUNT(*), SUM(o.amount) FROM {customers} c " +
			"JOIN orders o ON o.customer_id = c.id GROUP BY m ORDER BY m",
		postgre: "SELECT date_trunc('month', o.created_at) AS m, count(*), sum(o.amount) FROM {customers} c " +
			"JOIN orders o ON o.customer_id = c.id GROUP BY m ORDER BY m"},
	// A join with a condition that can fail on a value (a function): sqe
	// guards it with the filter (PostgreSQL) or fences the table (MySQL).
	{name: "e-join-function-limit",
		mysql: "SELECT o.id, c.name, o.amount FROM {customers} c JOIN orders o ON o.customer_id = c.id " +
			"WHERE upper(c.name) LIKE 'NAME1%' ORDER BY o.id LIMIT 100",
		postgre: "SELECT o.id, c.name, o.amount FROM {customers} c JOIN orders o ON o.customer_id = c.id " +
			"WHERE upper(c.name) LIKE 'NAME1%' ORDER BY o.id LIMIT 100"},
}

// BenchmarkAnalytics runs each query through the native alternative, the
// raw driver sending the SQL sqe rewrites it to, and sqe, interleaved
// (see interleave), and reports native/sqe (above 1: sqe is faster than
// the database's own policy) and rewritten/sqe (what sqe itself costs on
// top of the SQL it sends).
func BenchmarkAnalytics(b *testing.B) {
	customers := 1_000_000
	if v := os.Getenv("SQE_BENCH_CUSTOMERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			b.Fatalf("SQE_BENCH_CUSTOMERS=%q: want a number of at least 100", v)
		}
		customers = n
	}
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			data := loadAnalytics(b, be, customers)
			policyFile := filepath.Join(b.TempDir(), "policy.yaml")
			if err := os.WriteFile(policyFile, []byte(fmt.Sprintf(analyticsPolicy, data.schema)), 0o600); err != nil {
				b.Fatal(err)
			}
			viaSqe, err := sqe.Open(be.driver, data.dsn, sqe.WithPolicyFile(policyFile), sqe.WithoutAudit())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { viaSqe.Close() })
			native := openDriver(b, be, data.nativeDSN)
			rewritten := openDriver(b, be, data.dsn)
			for _, db := range []*sql.DB{native, rewritten, viaSqe} {
				db.SetMaxOpenConns(1)
				db.SetMaxIdleConns(1)
			}
			u := session.User{Name: "ana", Roles: []string{"analyst"}}
			ctx := session.NewContext(context.Background(), u)
			for _, q := range analyticsQueries {
				text := q.mysql
				if be.name == "postgres" {
					text = q.postgre
				}
				own := strings.ReplaceAll(text, "{customers}", "customers")
				view := strings.ReplaceAll(text, "{customers}", "customers_masked")
				ex, err := sqe.Explain(ctx, viaSqe, u, own)
				if err != nil {
					b.Fatalf("%s: explain: %v", q.name, err)
				}
				var args []any
				if q.point {
					args = []any{customers / 2 / 5 * 5}
				}
				paths := []struct {
					db    *sql.DB
					query string
				}{{native, view}, {rewritten, ex.SQL}, {viaSqe, own}}
				b.Run(q.name, func(b *testing.B) {
					var want []string
					for k, p := range paths {
						got := analyticsRows(b, ctx, p.db, p.query, args)
						if k == 0 {
							want = got
							if len(want) == 0 {
								b.Fatalf("%s: the native path returned no rows", q.name)
							}
						} else if !slices.Equal(got, want) {
							b.Fatalf("%s: path %d returned %d rows that differ from the native path's %d", q.name, k, len(got), len(want))
						}
					}
					elapsed := interleave(b, len(paths), func(k int) { analyticsRows(b, ctx, paths[k].db, paths[k].query, args) })
					nat, rw, viaSqe := elapsed[0], elapsed[1], elapsed[2]
					b.ReportMetric(float64(nat.Nanoseconds())/float64(b.N), "native-ns/op")
					b.ReportMetric(float64(rw.Nanoseconds())/float64(b.N), "rewritten-ns/op")
					b.ReportMetric(float64(viaSqe.Nanoseconds())/float64(b.N), "sqe-ns/op")
					b.ReportMetric(float64(nat)/float64(viaSqe), "native/sqe")
					b.ReportMetric(float64(rw)/float64(viaSqe), "rewritten/sqe")
				})
			}
		})
	}
}

// analyticsRows runs q and returns its rows, each as one string.
func analyticsRows(b *testing.B, ctx context.Context, db *sql.DB, q string, args []any) []string {
	rows, _, err := query(ctx, db, q, args...)
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

func openDriver(b *testing.B, be backend, dsn string) *sql.DB {
	if be.name == "postgres" {
		return testdb.OpenPostgres(b, dsn)
	}
	return testdb.OpenMySQL(b, dsn)
}

// analyticsData is the loaded data set of one server.
type analyticsData struct {
	dsn       string // the owner's: sqe and the rewritten SQL
	nativeDSN string // the native alternative's caller
	schema    string
}

// loadAnalytics makes sure the server holds the data set at the size,
// loading it when it does not.
func loadAnalytics(b *testing.B, be backend, customers int) *analyticsData {
	b.Helper()
	if be.name == "postgres" {
		return loadAnalyticsPostgres(b, customers)
	}
	return loadAnalyticsMySQL(b, customers)
}

// analyticsMasks returns the two masks' SQL over the columns, as sqe
// computes them.
func analyticsMasks(b *testing.B, dialect, quote string, ssnType, emailType string) (ssn, email string) {
	b.Helper()
	base := func(t string) string { return strings.SplitN(t, "(", 2)[0] }
	var err error
	ssn, err = udf.MaskSQL(udf.Target{Dialect: udf.Dialect(dialect), Column: quote + "ssn" + quote,
		DataType: base(ssnType), ColumnType: ssnType}, "MASK_SHOW_LAST_4", nil, "")
	if err != nil {
		b.Fatal(err)
	}
	email, err = udf.MaskSQL(udf.Target{Dialect: udf.Dialect(dialect), Column: quote + "email" + quote,
		DataType: base(emailType), ColumnType: emailType}, "MASK", nil, "")
	if err != nil {
		b.Fatal(err)
	}
	return ssn, email
}

func loadAnalyticsMySQL(b *testing.B, customers int) *analyticsData {
	admin := testdb.OpenMySQL(b, testdb.MySQLAdminDSN(b))
	mustExec(b, admin, "CREATE DATABASE IF NOT EXISTS "+analyticsDatabase+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.DBName = analyticsDatabase
	data := &analyticsData{dsn: cfg.FormatDSN(), nativeDSN: cfg.FormatDSN(), schema: analyticsDatabase}
	db := testdb.OpenMySQL(b, data.dsn)
	if loadedSize(db) == customers {
		return data
	}
	start := time.Now()
	ssn, email := analyticsMasks(b, "mysql", "`", "varchar(11)", "varchar(60)")
	n := strconv.Itoa(customers)
	mustExec(b, db,
		"DROP VIEW IF EXISTS customers_masked",
		"DROP TABLE IF EXISTS bench_meta, orders, customers",
		"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(60), ssn VARCHAR(11), "+
			"region VARCHAR(8), created_at DATETIME, balance DECIMAL(10,2))",
		"CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount DECIMAL(10,2), created_at DATETIME, KEY (customer_id))",
		"INSERT INTO customers SELECT seq, CONCAT('name', seq), CONCAT('user', seq, '@example.com'), "+
			"CONCAT(LPAD(seq * 7919 % 1000, 3, '0'), '-', LPAD(seq % 100, 2, '0'), '-', LPAD(seq * 31 % 10000, 4, '0')), "+
			"IF(seq % 5 = 0, 'EU', 'US'), '2024-01-01' + INTERVAL (seq % 730) DAY, seq % 1000 FROM seq_1_to_"+n,
		"INSERT INTO orders SELECT seq, (seq * 31) % "+n+" + 1, seq % 500, '2024-01-01' + INTERVAL (seq % 730) DAY "+
			"FROM seq_1_to_"+strconv.Itoa(2*customers),
		"ANALYZE TABLE customers, orders",
		"CREATE VIEW customers_masked AS SELECT id, name, "+email+" AS email, "+ssn+" AS ssn, region, created_at, balance "+
			"FROM customers WHERE region = 'EU'",
		"CREATE TABLE bench_meta (customers INT)",
		"INSERT INTO bench_meta VALUES ("+n+")")
	b.Logf("mysql: loaded %d customers and %d orders in %s", customers, 2*customers, time.Since(start).Round(time.Second))
	return data
}

func loadAnalyticsPostgres(b *testing.B, customers int) *analyticsData {
	adminURL, err := url.Parse(testdb.PostgresAdminDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	admin := testdb.OpenPostgres(b, adminURL.String())
	var exists bool
	if err := admin.QueryRow("SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", analyticsDatabase).Scan(&exists); err != nil {
		b.Fatal(err)
	}
	if !exists {
		mustExec(b, admin, "CREATE DATABASE "+analyticsDatabase)
	}
	mustExec(b, admin, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"+analyticsRole+"') THEN "+
		"CREATE ROLE "+analyticsRole+" LOGIN PASSWORD '"+analyticsPassword+"'; END IF; END $$")
	owner, err := url.Parse(testdb.PostgresDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	owner.Path = "/" + analyticsDatabase
	nativeURL := *owner
	nativeURL.User = url.UserPassword(analyticsRole, analyticsPassword)
	data := &analyticsData{dsn: owner.String(), nativeDSN: nativeURL.String(), schema: "public"}
	db := testdb.OpenPostgres(b, data.dsn)
	if loadedSize(db) == customers {
		return data
	}
	start := time.Now()
	ssn, email := analyticsMasks(b, "postgres", `"`, "character varying(11)", "character varying(60)")
	n := strconv.Itoa(customers)
	mustExec(b, db,
		"DROP VIEW IF EXISTS customers_masked",
		"DROP TABLE IF EXISTS bench_meta, orders, customers",
		"CREATE TABLE customers (id int PRIMARY KEY, name varchar(40), email varchar(60), ssn varchar(11), "+
			"region varchar(8), created_at timestamp, balance numeric(10,2))",
		"CREATE TABLE orders (id int PRIMARY KEY, customer_id int, amount numeric(10,2), created_at timestamp)",
		"CREATE INDEX ON orders (customer_id)",
		"INSERT INTO customers SELECT g, 'name' || g, 'user' || g || '@example.com', "+
			"lpad(((g::bigint * 7919) % 1000)::text, 3, '0') || '-' || lpad((g % 100)::text, 2, '0') || '-' || lpad(((g::bigint * 31) % 10000)::text, 4, '0'), "+
			"CASE WHEN g % 5 = 0 THEN 'EU' ELSE 'US' END, timestamp '2024-01-01' + (g % 730) * interval '1 day', g % 1000 "+
			"FROM generate_series(1, "+n+") g",
		"INSERT INTO orders SELECT g, (g::bigint * 31) % "+n+" + 1, g % 500, timestamp '2024-01-01' + (g % 730) * interval '1 day' "+
			"FROM generate_series(1, "+strconv.Itoa(2*customers)+") g",
		"VACUUM ANALYZE customers",
		"VACUUM ANALYZE orders",
		"ALTER TABLE customers ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY eu_only ON customers FOR SELECT TO "+analyticsRole+" USING (region = 'EU')",
		"CREATE VIEW customers_masked WITH (security_barrier, security_invoker) AS SELECT id, name, "+email+" AS email, "+
			ssn+" AS ssn, region, created_at, balance FROM customers",
		"GRANT SELECT ON customers, orders, customers_masked TO "+analyticsRole,
		"CREATE TABLE bench_meta (customers int)",
		"INSERT INTO bench_meta VALUES ("+n+")")
	b.Logf("postgres: loaded %d customers and %d orders in %s", customers, 2*customers, time.Since(start).Round(time.Second))
	return data
}

// loadedSize is the number of customers the loaded data set has (0 when
// there is none).
func loadedSize(db *sql.DB) int {
	var n int
	if err := db.QueryRow("SELECT customers FROM bench_meta").Scan(&n); err != nil {
		return 0
	}
	return n
}

func mustExec(b *testing.B, db *sql.DB, stmts ...string) {
	b.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			b.Fatalf("%.80s: %v", s, err)
		}
	}
}
