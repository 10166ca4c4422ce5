package sqe_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

// tableStatusStatistics are the columns of SHOW TABLE STATUS that count
// rows; sqe shows them only for the tables the caller reads under no
// policy.
var tableStatusStatistics = []string{"Rows", "Avg_row_length", "Data_length", "Max_data_length", "Index_length",
	"Data_free", "Auto_increment", "Checksum"}

// SHOW TABLE STATUS answers as the server does — the same columns, rows
// and values — except that the statistics of a table the caller reads
// under a row filter, a mask or a restriction, or may not read at all,
// are NULL: they count the rows the filter hides.
func TestShowTableStatus(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		e := newEnv(t, b, fixturePolicy)
		analyzeFixture(t, e)
		open := map[string][]string{ // the tables each user reads under no policy
			"ann": {"customers", "orders", "secrets"},
			"eve": {"orders"},
			"sam": {"orders"},
			"nob": {"orders"},
		}
		for _, q := range []string{"SHOW TABLE STATUS", "SHOW TABLE STATUS FROM " + e.schema, "SHOW TABLE STATUS IN " + e.schema + " LIKE 'c%'",
			"SHOW TABLE STATUS WHERE Name <> 'orders'", "SHOW TABLE STATUS LIKE 'nothing%'"} {
			want, wantCols, err := query(as(admin), e.raw, q)
			if err != nil {
				t.Fatalf("%s raw: %v", q, err)
			}
			for _, u := range []session.User{admin, analyst, support, nobody} {
				got, cols, err := query(as(u), e.db, q)
				if err != nil {
					t.Fatalf("%s as %s: %v", q, u.Name, err)
				}
				if !slices.Equal(cols, wantCols) || len(got) != len(want) {
					t.Fatalf("%s as %s: columns %v rows %d, the server says %v rows %d", q, u.Name, cols, len(got), wantCols, len(want))
				}
				for i, row := range want {
					if row[0] == "customers" && row[4] == "NULL" {
						t.Fatalf("%s raw: no row count for customers: %v", q, row)
					}
					if got[i][0] != row[0] {
						t.Fatalf("%s as %s: row %d is %s, want %s", q, u.Name, i, got[i][0], row[0])
					}
					free := slices.Contains(open[u.Name], row[0])
					for j, c := range cols {
						w := row[j]
						if slices.Contains(tableStatusStatistics, c) && !free {
							w = "NULL"
						}
						if got[i][j] != w {
							t.Errorf("%s as %s: %s.%s = %s, want %s", q, u.Name, row[0], c, got[i][j], w)
						}
					}
				}
			}
		}
		for _, c := range []struct {
			u    session.User
			q    string
			want error
		}{
			{analyst, "SHOW TABLE STATUS FROM mysql", sqe.ErrUnsupported},
			{analyst, "SHOW TABLE STATUS FROM performance_schema", sqe.ErrUnsupported},
			{analyst, "SHOW TABLE STATUS WHERE Name IN (SELECT note FROM secrets)", sqe.ErrAccessDenied},
			{support, "SHOW TABLE STATUS WHERE Comment IN (SELECT ssn FROM customers)", nil},
		} {
			rows, _, err := query(as(c.u), e.db, c.q)
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("%s as %s: %v, want %v", c.q, c.u.Name, err, c.want)
			}
			assertNoCanary(t, c.u, c.q, rows, err)
		}
	}
}

// analyzeFixture makes the servers' row estimates exact and stable.
func analyzeFixture(t *testing.T, e *env) {
	t.Helper()
	for _, tb := range []string{"customers", "orders", "secrets"} {
		if _, _, err := query(as(admin), e.raw, fmt.Sprintf("ANALYZE TABLE %s", tb)); err != nil {
			t.Fatal(err)
		}
	}
}
