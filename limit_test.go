package sqe_test

import (
	"fmt"
	"testing"
)

// LIMIT ? OFFSET ? (GORM's pagination) and LIMIT ?, ? keep their
// arguments' order on MySQL, with the server's own answer, also under a
// row filter.
func TestLimitOffsetPlaceholders(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			for _, c := range []struct {
				q    string
				args []any
			}{
				{"SELECT id FROM customers ORDER BY id LIMIT ? OFFSET ?", []any{2, 1}},
				{"SELECT id FROM customers ORDER BY id LIMIT ?, ?", []any{1, 2}},
				{"SELECT id FROM customers WHERE id > ? ORDER BY id LIMIT ? OFFSET ?", []any{0, 1, 1}},
				{"SELECT id FROM customers ORDER BY id LIMIT 1 OFFSET ?", []any{1}},
				{"SELECT id FROM customers ORDER BY id LIMIT ? OFFSET 1", []any{1}},
			} {
				want, _, err := query(as(admin), e.raw, c.q, c.args...)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := query(as(admin), e.db, c.q, c.args...)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s %v: %v %v, the server says %v", c.q, c.args, got, err, want)
				}
			}
			// The analyst sees customers 1 and 2 (EU): the second of them.
			got, _, err := query(as(analyst), e.db, "SELECT id FROM customers ORDER BY id LIMIT ? OFFSET ?", 5, 1)
			if err != nil || fmt.Sprint(got) != "[[2]]" {
				t.Fatalf("the analyst's second page: %v %v", got, err)
			}
		})
	}
}
