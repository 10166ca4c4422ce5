package sqe_test

import (
	"context"
	"fmt"
	"log"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/session"
)

// Explain shows what sqe would send for a user, and which policy produced
// each filter and mask, without running the statement.
func ExampleExplain() {
	mockDB, _, err := sqlmock.NewWithDSN("example-explain")
	if err != nil {
		log.Fatal(err)
	}
	defer mockDB.Close()
	db, err := sqe.Open("sqlmock", "example-explain", append(exampleOptions(), sqe.WithoutAudit())...)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ex, err := sqe.Explain(context.Background(), db, session.User{Name: "sam", Roles: []string{"support"}},
		"SELECT id, email FROM orders WHERE id = ?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ex.SQL)
	for _, t := range ex.Tables {
		for _, f := range t.RowFilters {
			fmt.Printf("%s: row filter %s (%s)\n", t.Table, f.Policy, f.Expr)
		}
		for col, m := range t.Masks {
			fmt.Printf("%s.%s: mask %s (%s)\n", t.Table, col, m.Policy, m.Type)
		}
	}
	// Output:
	// select `id`, case when `shop`.`orders`.`region` = 'EU' then CONCAT('***', right(`shop`.`orders`.`email`, 4)) end as `email` from `shop`.`orders` where `shop`.`orders`.`region` = 'EU' and `id` = ?
	// shop.orders: row filter eu-only (region = 'EU')
	// shop.orders.email: mask email-tail (CUSTOM)
}

// WithAudit receives one record per logical statement; StatsOf reads the
// connector's counters.
func ExampleWithAudit() {
	mockDB, mock, err := sqlmock.NewWithDSN("example-audit")
	if err != nil {
		log.Fatal(err)
	}
	defer mockDB.Close()
	records := make(chan *audit.Record, 10)
	sink := audit.SinkFunc(func(_ context.Context, r *audit.Record) { records <- r })
	db, err := sqe.Open("sqlmock", "example-audit", append(exampleOptions(), sqe.WithAudit(sink))...)
	if err != nil {
		log.Fatal(err)
	}
	ctx := session.NewContext(context.Background(), session.User{Name: "sam", Roles: []string{"support"}})
	mock.ExpectQuery("select").WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1))
	rows, err := db.QueryContext(ctx, "SELECT id FROM orders")
	if err != nil {
		log.Fatal(err)
	}
	rows.Close()
	_, err = db.QueryContext(session.NewContext(context.Background(), session.User{Name: "eve"}), "SELECT id FROM orders")
	fmt.Println("eve:", err)
	stats, _ := sqe.StatsOf(db)
	db.Close() // delivers the queued records
	for i := 0; i < 2; i++ {
		r := <-records
		fmt.Printf("%s %s allowed=%v tables=%d\n", r.User, r.Kind, r.Allowed, len(r.Tables))
	}
	fmt.Println("refused:", stats.FailClosed["access_denied"])
	// Output:
	// eve: sqe: access denied: select denied (table shop.orders, policy "no allow rule")
	// sam select allowed=true tables=1
	// eve select allowed=false tables=1
	// refused: 1
}

// Statements that differ only in values compared with columns share one
// rewrite: from the third of a shape on, a cache miss is filled in from
// its literal template (WithoutLiteralTemplates turns that off).
func ExampleWithoutLiteralTemplates() {
	mockDB, mock, err := sqlmock.NewWithDSN("example-templates")
	if err != nil {
		log.Fatal(err)
	}
	defer mockDB.Close()
	db, err := sqe.Open("sqlmock", "example-templates", append(exampleOptions(), sqe.WithoutAudit())...)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := session.NewContext(context.Background(), session.User{Name: "sam", Roles: []string{"support"}})
	for _, id := range []int{1, 2, 3, 4} {
		mock.ExpectQuery(fmt.Sprintf("`id` = %d$", id)).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(id))
		var got int
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT id FROM orders WHERE id = %d", id)).Scan(&got); err != nil {
			log.Fatal(err)
		}
	}
	st, _ := sqe.StatsOf(db)
	fmt.Println("misses:", st.RewriteCacheMisses, "served by a template:", st.RewriteTemplateHits)
	// Output:
	// misses: 4 served by a template: 2
}

// WithServerMasks has the string masks call the mask functions an
// administrator installed in the database (udf/native): the same values
// as the inline SQL, at a fraction of its cost on large scans. Every
// connection checks the functions first; without them its statements fail.
func ExampleWithServerMasks() {
	db, err := sqe.Open("pgx", "postgres://app@127.0.0.1:5432/shop",
		sqe.WithPolicyFile("policy.yaml"), sqe.WithServerMasks())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := session.NewContext(context.Background(), session.User{Name: "sam"})
	var ssn string
	if err := db.QueryRowContext(ctx, "SELECT ssn FROM customers WHERE id = $1", 42).Scan(&ssn); err != nil {
		log.Fatal(err)
	}
	fmt.Println(ssn) // e.g. xxx-xx-6789
}
