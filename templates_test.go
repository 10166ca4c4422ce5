package sqe_test

import (
	"fmt"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

// TestLiteralTemplatesOnServers: statements that differ only in their
// literals, most of them served by a literal template, give every user
// exactly what the same statements rewritten one by one give
// (WithoutLiteralTemplates), and no protected value. Among them are
// values that are not plain literals (quotes, backslashes, the
// sentinels' look), which must never be filled into a template.
func TestLiteralTemplatesOnServers(t *testing.T) {
	shapes := []struct {
		format string
		values [][]any
	}{
		{"SELECT id, name, ssn, email FROM customers WHERE id = %s", [][]any{{"1"}, {"2"}, {"3"}, {"1"}, {"3"}, {"2"}}},
		{"SELECT id, ssn FROM customers WHERE ssn = %s", [][]any{{"'111-22-9999'"}, {"'xxx-xx-9999'"}, {"'555-55-5555'"},
			{"'xxx-xx-5555'"}, {"'999-00-1111'"}, {"'xxx-xx-1111'"}}},
		{"SELECT id FROM customers WHERE name = %s", [][]any{{"'Ada'"}, {"'Bea'"}, {"'Cy-US-CANARY'"},
			{"'x'' OR ''1''=''1'"}, {`'x\' OR 1=1 -- '`}, {"'qzsqe0xq'"}, {"'Cy-US-CANARY'"}}},
		{"SELECT c.name, c.email, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %s AND c.id IN (%s, %s)",
			[][]any{{"0", "1", "2"}, {"50", "2", "3"}, {"150", "3", "1"}, {"0", "3", "3"}, {"1357900000", "1", "3"}}},
		{"SELECT id, salary FROM customers WHERE id BETWEEN %s AND %s", [][]any{{"1", "1"}, {"1", "3"}, {"2", "3"}, {"3", "3"}}},
		{"SELECT name FROM customers WHERE region = %s AND id >= %s", [][]any{{"'EU'", "1"}, {"'US'", "1"}, {"'US'", "3"}, {"'EU'", "2"}}},
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			plain := newEnvWith(t, b, fixturePolicy, sqe.WithoutLiteralTemplates())
			for _, u := range []session.User{admin, analyst, support, nobody} {
				for _, s := range shapes {
					for _, v := range s.values {
						q := fmt.Sprintf(s.format, v...)
						got, _, err := query(as(u), e.db, q)
						want, _, wantErr := query(as(u), plain.db, q)
						if fmt.Sprint(got) != fmt.Sprint(want) || (err == nil) != (wantErr == nil) {
							t.Errorf("%s as %s: %v %v; rewritten on its own: %v %v", q, u.Name, got, err, want, wantErr)
						}
						assertNoCanary(t, u, q, got, err)
					}
				}
			}
			st, _ := sqe.StatsOf(e.db)
			if st.RewriteTemplateHits < 30 {
				t.Fatalf("only %d statements were served by a template", st.RewriteTemplateHits)
			}
			if st, _ := sqe.StatsOf(plain.db); st.RewriteTemplateHits != 0 {
				t.Fatalf("WithoutLiteralTemplates: %d statements were served by a template", st.RewriteTemplateHits)
			}
		})
	}
}
