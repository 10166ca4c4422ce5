package sqe_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

// SHOW INDEX/KEYS runs for a caller who reads the table under no policy
// at all, with the server's own answer; a row filter, a mask or a
// restriction refuses it (its rows name every indexed column and estimate
// the raw values' distinct counts), and so does a WHERE, which could read
// other tables. SHOW CREATE DATABASE shows nothing of a table.
func TestShowIndexAndCreateDatabase(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			for _, q := range []string{"CREATE INDEX k_ssn ON customers (ssn)", "CREATE INDEX k_total ON orders (total)"} {
				if _, err := e.raw.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			same := func(u session.User, q string) {
				t.Helper()
				want, _, err := query(as(admin), e.raw, q)
				if err != nil {
					t.Fatalf("%s raw: %v", q, err)
				}
				got, _, err := query(as(u), e.db, q)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s as %s: %v %v, the server says %v", q, u.Name, got, err, want)
				}
			}
			for _, u := range []session.User{admin, analyst, support} {
				same(u, "SHOW INDEX FROM orders")
				same(u, "SHOW KEYS FROM orders")
				same(u, "SHOW INDEXES FROM orders FROM "+e.schema)
				same(u, "SHOW INDEX FROM "+e.schema+".orders")
				same(u, "SHOW CREATE DATABASE "+e.schema)
			}
			same(admin, "SHOW INDEX FROM customers")
			for _, c := range []struct {
				u    session.User
				q    string
				want error
			}{
				{analyst, "SHOW INDEX FROM customers", sqe.ErrUnsupported}, // row filter
				{support, "SHOW KEYS FROM customers", sqe.ErrUnsupported},  // mask, restriction
				{analyst, "SHOW INDEX FROM secrets", sqe.ErrAccessDenied},
				{admin, "SHOW INDEX FROM orders WHERE Key_name = (SELECT note FROM secrets)", sqe.ErrUnsupported},
				{support, "SHOW INDEX FROM orders WHERE Column_name IN (SELECT ssn FROM customers)", sqe.ErrUnsupported},
				{nobody, "SHOW INDEX FROM customers", sqe.ErrAccessDenied},
			} {
				if _, _, err := query(as(c.u), e.db, c.q); !errors.Is(err, c.want) {
					t.Errorf("%s as %s: %v, want %v", c.q, c.u.Name, err, c.want)
				}
			}
		})
	}
}
