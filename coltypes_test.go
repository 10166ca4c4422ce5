package sqe_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// columnTypes describes a result's columns as database/sql reports them:
// name, database type name, length, precision and scale, nullability.
func columnTypes(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cts))
	for i, ct := range cts {
		l, lok := ct.Length()
		p, s, dok := ct.DecimalSize()
		n, nok := ct.Nullable()
		out[i] = fmt.Sprintf("%s %s len=%d/%v dec=%d,%d/%v null=%v/%v scan=%v",
			ct.Name(), ct.DatabaseTypeName(), l, lok, p, s, dok, n, nok, ct.ScanType())
	}
	return out, nil
}

// TestResultColumnTypesAreTheServers is the differential of
// TestResultColumnNamesAreTheServers for Rows.ColumnTypes: for every user
// — no policy, a row filter and a restriction, masks that keep the
// column's type (support's MASK_SHOW_LAST_4 of a VARCHAR(11), MASK_NULL)
// — every column reports the type, length, precision, nullability and
// scan type the server gives the application's own statement.
// TestMaskedColumnTypesAreTheColumns covers each mask and type.
func TestResultColumnTypesAreTheServers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			for _, q := range columnNameCorpus {
				want, err := columnTypes(as(admin), e.raw, q)
				if err != nil {
					t.Fatalf("%s raw: %v", q, err)
				}
				for _, u := range []session.User{admin, analyst, support} {
					got, err := columnTypes(as(u), e.db, q)
					if err != nil {
						t.Errorf("%s as %s: %v", q, u.Name, err)
						continue
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						for i := range got {
							if i < len(want) && got[i] != want[i] {
								t.Errorf("%s as %s: column %d is\n\t%s\nthe server's is\n\t%s", q, u.Name, i, got[i], want[i])
							}
						}
					}
				}
			}
		})
	}
}
