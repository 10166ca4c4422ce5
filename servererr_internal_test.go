package sqe

import (
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestDriverErrorCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&pgconn.PgError{Code: "42P01"}, "42P01"},
		{fmt.Errorf("prepare: %w", &pgconn.PgError{Code: "42601"}), "42601"},
		{&mysql.MySQLError{Number: 1146}, "1146"},
		{fmt.Errorf("plain"), ""},
		{nil, ""},
	} {
		if got := driverErrorCode(c.err); got != c.want {
			t.Errorf("driverErrorCode(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
