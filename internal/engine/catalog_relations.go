package engine

import (
	"context"

	"github.com/sqe-project/sqe/rewriter"
)

var _ rewriter.RelationFinder = (*connCatalog)(nil)

// FindRelation resolves an index or sequence name with the dialect's
// query on the statement's own connection (its search path, its
// temporary schema). It is not cached, and the rewrites that use it are
// not either.
func (c *connCatalog) FindRelation(ctx context.Context, name []string) (rewriter.Relation, bool, error) {
	rr, ok := c.dialect.(rewriter.RelationReader)
	if !ok {
		return rewriter.Relation{}, false, rewriter.Unsupported("the dialect does not resolve relation names")
	}
	return rr.ReadRelation(ctx, c.query, name)
}
