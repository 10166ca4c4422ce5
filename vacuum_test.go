package sqe_test

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/session"
)

const vacuumPolicy = `version: 1
default: deny
tables:
  %[1]s.orders:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
  %[1]s.customers:
    access:
      - {name: maint, principals: [role:maint], allow: [all]}
    row_filters:
      - {name: eu-only, principals: [role:maint], filter: "region = 'EU'"}
`

// TestVacuumAndAnalyzeOnPostgres: VACUUM and ANALYZE of a table the
// caller may alter and reads without policy run on the server; VERBOSE
// (row counts of every row) and a table under a read policy are refused.
func TestVacuumAndAnalyzeOnPostgres(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		e := newEnv(t, b, vacuumPolicy)
		ctx := as(session.User{Name: "mo", Roles: []string{"maint"}})
		for _, q := range []string{"VACUUM orders", "ANALYZE orders", "VACUUM (ANALYZE) orders", "ANALYZE orders (total)"} {
			if _, err := e.db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for _, q := range []string{"ANALYZE VERBOSE orders", "VACUUM (VERBOSE) orders", "ANALYZE customers", "VACUUM", "ANALYZE orders, secrets"} {
			if _, err := e.db.ExecContext(ctx, q); !errors.Is(err, sqe.ErrUnsupported) && !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("%s: %v, want a refusal", q, err)
			}
		}
	}
}
