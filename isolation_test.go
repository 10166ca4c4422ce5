package sqe_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// TestPreparedStatementIsBoundToTheCaller: database/sql reuses one driver
// statement across callers on a pooled connection; a statement prepared
// for the admin and executed for support must give support support's view.
func TestPreparedStatementIsBoundToTheCaller(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			e.db.SetMaxOpenConns(1)
			e.db.SetMaxIdleConns(1)
			q := "SELECT ssn FROM customers WHERE id = ?"
			if b.name == "postgres" {
				q = "SELECT ssn FROM customers WHERE id = $1"
			}
			stmt, err := e.db.PrepareContext(as(admin), q)
			if err != nil {
				t.Fatal(err)
			}
			defer stmt.Close()
			want := map[string]string{"ann": "111-22-9999", "sam": "xxx-xx-9999", "eve": "111-22-9999"}
			for i, u := range []session.User{admin, support, admin, support, analyst, support} {
				var ssn string
				if err := stmt.QueryRowContext(as(u), 1).Scan(&ssn); err != nil {
					t.Fatalf("step %d as %s: %v", i, u.Name, err)
				}
				if ssn != want[u.Name] {
					t.Fatalf("step %d as %s: got %q, want %q", i, u.Name, ssn, want[u.Name])
				}
			}
			// A user without a grant gets nothing from the admin's statement.
			if err := stmt.QueryRowContext(as(nobody), 1).Scan(new(string)); err == nil {
				t.Fatal("nobody read through the admin's prepared statement")
			}
		})
	}
}

// TestConcurrentUsersOnOnePool: 32 goroutines with mixed users on a small
// pool, each seeing exactly its own view on every statement.
func TestConcurrentUsersOnOnePool(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			e.db.SetMaxOpenConns(4)
			users := []session.User{admin, analyst, support}
			want := map[string][][]string{}
			q := "SELECT c.id, c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY c.id"
			for _, u := range users {
				rows, _, err := query(as(u), e.db, q)
				if err != nil {
					t.Fatal(err)
				}
				want[u.Name] = rows
			}
			if reflect.DeepEqual(want["ann"], want["sam"]) || reflect.DeepEqual(want["ann"], want["eve"]) {
				t.Fatal("the fixture must give each user a different result")
			}
			var wg sync.WaitGroup
			errs := make(chan error, 32)
			for g := 0; g < 32; g++ {
				wg.Add(1)
				go func(seed int64) {
					defer wg.Done()
					rnd := rand.New(rand.NewSource(seed))
					for i := 0; i < 25; i++ {
						u := users[rnd.Intn(len(users))]
						ctx := as(u)
						var got [][]string
						var err error
						if rnd.Intn(2) == 0 {
							got, _, err = query(ctx, e.db, q)
						} else {
							got, err = queryInTx(ctx, e, q)
						}
						if err != nil {
							errs <- fmt.Errorf("%s: %v", u.Name, err)
							return
						}
						if !reflect.DeepEqual(got, want[u.Name]) {
							errs <- fmt.Errorf("%s got another view: %v", u.Name, got)
							return
						}
					}
				}(int64(g))
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func queryInTx(ctx context.Context, e *env, q string) ([][]string, error) {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, _, err := query(ctx, tx, q)
	return rows, err
}
