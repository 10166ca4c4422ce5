package rewriter

import (
	"context"
	"sort"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// TableLister is implemented by catalogs that can list the tables and
// views the connection sees (outside the server's own schemas). The
// dialects use it to hide a caller's restricted columns from the server's
// column listings (information_schema.COLUMNS, pg_attribute, …), which
// need every table's decision; a catalog without it makes those listings
// fail closed.
type TableLister interface {
	ListTables(ctx context.Context) ([]policy.TableName, error)
}

// ListTables implements TableLister: the catalog's tables, sorted.
func (c *StaticCatalog) ListTables(context.Context) ([]policy.TableName, error) {
	out := make([]policy.TableName, 0, len(c.Tables))
	for k := range c.Tables {
		i := strings.IndexByte(k, '.')
		if i < 0 {
			continue
		}
		out = append(out, policy.TableName{Schema: k[:i], Table: k[i+1:]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}
