package sqe

import (
	"context"
	"fmt"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

var _ rewriter.TableLister = (*connCatalog)(nil)

// ListTables lists the tables and views the connection sees outside the
// server's own schemas, read through the statement's own connection (so
// that it sees its temporary tables and transaction). The dialects use it
// to hide restricted columns from the server's column listings; it is not
// cached, and the rewrites that use it are not either.
func (c *connCatalog) ListTables(ctx context.Context) ([]policy.TableName, error) {
	var q string
	switch c.cache.dialect {
	case "mysql":
		q = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES " +
			"WHERE TABLE_SCHEMA NOT IN ('information_schema', 'mysql', 'performance_schema', 'sys')"
	case "postgres":
		q = "SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
			"WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"
	default:
		return nil, fmt.Errorf("no table listing for dialect %q", c.cache.dialect)
	}
	rows, err := queryInner(ctx, c.conn, q)
	if err != nil {
		return nil, err
	}
	out := make([]policy.TableName, 0, len(rows))
	for _, r := range rows {
		out = append(out, policy.TableName{Schema: asString(r[0]), Table: asString(r[1])})
	}
	return out, nil
}
