package mysql

import (
	"context"
	"strings"
	"sync"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// classProbes keeps the answer of udf.ClassProbe per server instance
// (version, host, port and start time): the classification belongs to the
// server's regular-expression library, which only a restart changes, and
// the probe costs a fraction of a second of the server's time.
var classProbes struct {
	sync.Mutex
	named map[string]bool
}

// maxClassProbes bounds classProbes; past it, each connection probes.
const maxClassProbes = 64

// serverIdentity names the running server instance. The start time is
// computed from the uptime, so it may differ by a second between
// connections; that costs a second probe, never a wrong answer.
const serverIdentity = "SELECT @@hostname, @@port, UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS SIGNED) " +
	"FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'"

// namedClasses reports whether the MariaDB server behind q classifies
// every BMP character as Go's tables do (udf.ClassProbe), so that masks
// may name the classes. Any doubt (an error, an unexpected answer) is
// false: the masks then list the classes' code points.
func namedClasses(ctx context.Context, q rewriter.Query, version string) bool {
	key := ""
	if rows, err := q(ctx, serverIdentity); err == nil && len(rows) == 1 && len(rows[0]) == 3 {
		key = strings.Join([]string{version, rewriter.Text(rows[0][0]), rewriter.Text(rows[0][1]), rewriter.Text(rows[0][2])}, "\x00")
	}
	if key != "" {
		classProbes.Lock()
		named, known := classProbes.named[key]
		classProbes.Unlock()
		if known {
			return named
		}
	}
	query, want, ok := udf.ClassProbe(udf.MySQL)
	if !ok {
		return false
	}
	rows, err := q(ctx, query)
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		return false
	}
	named := rewriter.Text(rows[0][0]) == want
	if key != "" {
		classProbes.Lock()
		if classProbes.named == nil {
			classProbes.named = map[string]bool{}
		}
		if len(classProbes.named) < maxClassProbes {
			classProbes.named[key] = named
		}
		classProbes.Unlock()
	}
	return named
}
