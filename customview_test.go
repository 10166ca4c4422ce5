package sqe_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// euSnapshot is a policy written in code: customers are readable in the
// EU rows only, every other table is refused.
type euSnapshot struct{}

func (euSnapshot) Version() uint64 { return 7 }
func (euSnapshot) View(u session.User) (policy.View, error) {
	return euView{user: u}, nil
}

// euView is the smallest View there is: Decide, Fingerprint and User;
// BaseView answers the rest (no role hierarchy, version unknown, no
// named columns).
type euView struct {
	policy.BaseView
	user session.User
}

var _ policy.View = euView{}

func (v euView) Decide(t policy.TableName) (*policy.Decision, error) {
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{}, DeniedBy: map[policy.Access]string{}}
	for _, a := range policy.Accesses {
		d.DeniedBy[a] = "eu-policy"
	}
	if t.Key() == "shop.customers" {
		d.Allowed[policy.Select] = true
		d.RowFilters = []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}}
	}
	return d, nil
}
func (v euView) Fingerprint() string { return "eu;" + v.user.Name }
func (v euView) User() session.User  { return v.user.Clone() }

// TestCustomViewEndToEnd: a View that embeds BaseView and implements only
// Decide, Fingerprint and User drives the driver: its filter reaches the
// inner driver, its refusal sends nothing, and the audit record carries
// the version of the snapshot the View came from.
func TestCustomViewEndToEnd(t *testing.T) {
	mockDB, mock, err := sqlmock.NewWithDSN("sqe-custom-view", sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	defer mockDB.Close()
	var mu sync.Mutex
	var records []audit.Record
	sink := audit.SinkFunc(func(_ context.Context, r *audit.Record) {
		mu.Lock()
		defer mu.Unlock()
		records = append(records, *r)
	})
	db, err := sqe.Open("sqlmock", "sqe-custom-view", sqe.WithPolicy(policy.NewStaticSource(euSnapshot{})),
		sqe.WithDialect("mysql"), sqe.WithCatalog(sqlmockCatalog()), sqe.WithAudit(sink))
	if err != nil {
		t.Fatal(err)
	}
	ctx := session.NewContext(context.Background(), session.User{Name: "eve"})
	mock.ExpectQuery("select `id` from `shop`.`customers` where `shop`.`customers`.`region` = 'EU' and `id` = ?").
		WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1))
	var id int
	if err := db.QueryRowContext(ctx, "SELECT id FROM customers WHERE id = ?", 1).Scan(&id); err != nil || id != 1 {
		t.Fatalf("allowed read: %d %v", id, err)
	}
	if _, err := db.QueryContext(ctx, "SELECT id FROM orders"); !errors.Is(err, sqe.ErrAccessDenied) {
		t.Fatalf("refused read: %v", err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
	mock.ExpectClose()
	if err := db.Close(); err != nil { // delivers the queued audit records
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(records) != 2 {
		t.Fatalf("%d audit records, want 2: %+v", len(records), records)
	}
	for _, r := range records {
		if r.SnapshotVersion != 7 || r.User != "eve" || r.PolicyRevision != "" {
			t.Errorf("record %+v: want snapshot 7, user eve, no revision", r)
		}
	}
	if !records[0].Allowed || records[1].Allowed {
		t.Errorf("allowed %v, %v; want true, false", records[0].Allowed, records[1].Allowed)
	}
}
