package mysql

import (
	"context"
	"strings"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// serverIdentity names the running server instance. The start time is
// computed from the uptime, so it may differ by a second between
// connections; that costs a second probe, never a wrong answer.
const serverIdentity = "SELECT @@hostname, @@port, UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS SIGNED) " +
	"FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'"

// namedClasses reports whether the MariaDB server behind q classifies
// every BMP character as Go's tables do (rewriter.NamedClasses), the
// answer kept per server instance.
func namedClasses(ctx context.Context, q rewriter.Query, version string) bool {
	key := ""
	if rows, err := q(ctx, serverIdentity); err == nil && len(rows) == 1 && len(rows[0]) == 3 {
		key = strings.Join([]string{"mysql", version, rewriter.Text(rows[0][0]), rewriter.Text(rows[0][1]), rewriter.Text(rows[0][2])}, "\x00")
	}
	return rewriter.NamedClasses(ctx, q, udf.MySQL, key)
}
