package rewriter

import (
	"context"
	"sync"

	"github.com/sqe-project/sqe/udf"
)

// classProbes keeps the answer of udf.ClassProbe per server instance:
// the classification belongs to the server's regular-expression and
// Unicode libraries, which only a restart changes, and the probe costs a
// fraction of a second of the server's time.
var classProbes struct {
	sync.Mutex
	named map[string]bool
}

// maxClassProbes bounds classProbes; past it, each connection probes.
const maxClassProbes = 64

// NamedClasses reports whether the server behind q classifies every BMP
// character as Go's tables do (udf.ClassProbe for dialect d), so that
// masks may name the classes (udf.Target.NamedClasses). instance names
// the running server (its address, start time and library versions);
// the answer is kept per instance, and "" means unknown: probe every
// time. Any doubt (an error, an unexpected answer) is false: the masks
// then list the classes' code points.
func NamedClasses(ctx context.Context, q Query, d udf.Dialect, instance string) bool {
	if instance != "" {
		classProbes.Lock()
		named, known := classProbes.named[instance]
		classProbes.Unlock()
		if known {
			return named
		}
	}
	query, want, ok := udf.ClassProbe(d)
	if !ok {
		return false
	}
	rows, err := q(ctx, query)
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		return false
	}
	named := Text(rows[0][0]) == want
	if instance != "" {
		classProbes.Lock()
		if classProbes.named == nil {
			classProbes.named = map[string]bool{}
		}
		if len(classProbes.named) < maxClassProbes {
			classProbes.named[instance] = named
		}
		classProbes.Unlock()
	}
	return named
}
