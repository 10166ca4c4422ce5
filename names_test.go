package sqe_test

import (
	"fmt"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// A result column has the name the server gives the application's own
// statement, whoever runs it and whatever the policy does to the columns
// the expression reads: code that scans by name (sqlx, GORM,
// Rows.Columns) must not see sqe.
var columnNameCorpus = []string{
	"SELECT UPPER(name) FROM customers ORDER BY id",
	"SELECT id, ssn, CONCAT(name, ssn), ssn AS s, LENGTH( ssn ) FROM customers ORDER BY id",
	"SELECT COUNT(*), MAX(ssn), min( email ) FROM customers",
	"SELECT c.ssn, c.name, LOWER(c.email) FROM customers c ORDER BY c.id",
	"SELECT DISTINCT SUBSTR(ssn, 1, 3) FROM customers ORDER BY 1",
	"SELECT id, CASE WHEN ssn LIKE '9%' THEN 'nine' ELSE 'other' END FROM customers ORDER BY id",
	"SELECT id + 1, id * 2 AS twice, 'lit', 42, NULL FROM customers ORDER BY id",
	"SELECT COALESCE(email, 'none'), (SELECT MAX(total) FROM orders o WHERE o.customer_id = c.id) FROM customers c ORDER BY c.id",
	"SELECT UPPER(ssn) FROM customers UNION ALL SELECT LOWER(name) FROM customers",
	"WITH x AS (SELECT id, ssn FROM customers) SELECT id, REVERSE(ssn) FROM x ORDER BY id",
	"SELECT region, COUNT(*) FROM customers GROUP BY region ORDER BY region",
	"SELECT o.id, o.total, UPPER(c.name) FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id",
	"SELECT id, ROW_NUMBER() OVER (ORDER BY ssn) FROM customers ORDER BY id",
	"SELECT    TRIM(  name  ) ,  id FROM customers ORDER BY id",
}

func TestResultColumnNamesAreTheServers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			for _, q := range columnNameCorpus {
				_, want, err := query(as(admin), e.raw, q)
				if err != nil {
					t.Fatalf("%s raw: %v", q, err)
				}
				for _, u := range []session.User{admin, analyst, support} {
					_, got, err := query(as(u), e.db, q)
					if err != nil {
						t.Errorf("%s as %s: %v", q, u.Name, err)
						continue
					}
					if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
						t.Errorf("%s as %s: columns %q, the server names them %q", q, u.Name, got, want)
					}
				}
			}
		})
	}
}
