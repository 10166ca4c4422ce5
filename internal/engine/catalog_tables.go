package engine

import (
	"context"

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
	return c.dialect.Tables(ctx, c.query)
}
