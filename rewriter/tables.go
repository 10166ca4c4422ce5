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

// MaxListedTables bounds the tables whose policies a column listing reads.
const MaxListedTables = 20000

// RestrictedColumn is one column a policy restricts for the caller; the
// column name is lower-cased, schema and table as the catalog lists them
// (lower-cased too when RestrictedColumns is asked to fold names).
type RestrictedColumn struct{ Schema, Table, Column string }

// RestrictedColumns lists the caller's restricted columns of every table
// the catalog lists, sorted, for the dialects' rewrites of the server's
// column listings. Restrictions a tag binding adds (a tag mask that cannot
// be computed for the column) count too. Anything that keeps sqe from
// knowing a table's restrictions — no table listing, a decision or a plan
// that fails — fails the whole listing closed.
func RestrictedColumns(ctx context.Context, req *Request, foldNames bool) ([]RestrictedColumn, error) {
	lister, ok := req.Catalog.(TableLister)
	if req.Catalog == nil || !ok {
		return nil, Unsupported("the catalog cannot list tables, so the column listings cannot hide restricted columns")
	}
	tables, err := lister.ListTables(ctx)
	if err != nil {
		return nil, Unsupported("listing tables failed: %v", err)
	}
	if len(tables) > MaxListedTables {
		return nil, Unsupported("too many tables (%d) to hide restricted columns from the column listings", len(tables))
	}
	var out []RestrictedColumn
	for _, t := range tables {
		d, err := DecideTable(ctx, req, t)
		if err != nil {
			return nil, err
		}
		restricted := d.Restricted
		if len(d.TagMasks) > 0 {
			p, err := PlanTable(ctx, req, t, policy.Select)
			if err != nil {
				return nil, err
			}
			restricted = p.Decision.Restricted
		}
		schema, table := t.Schema, t.Table
		if foldNames {
			schema, table = strings.ToLower(schema), strings.ToLower(table)
		}
		for c := range restricted {
			out = append(out, RestrictedColumn{schema, table, strings.ToLower(c)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Schema != b.Schema {
			return a.Schema < b.Schema
		}
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		return a.Column < b.Column
	})
	return out, nil
}

// UnpolicedTables lists the tables of schema (compared case-insensitively
// when foldSchema) that the caller may read and reads under no policy at
// all, as the catalog lists them: the tables whose row statistics the
// server's listings may show the caller. The rewrite then depends on the
// list of tables, so it is not cached.
func (s *Statement[Ref]) UnpolicedTables(schema string, foldSchema bool) ([]policy.TableName, error) {
	s.uncacheable = true
	lister, ok := s.Req.Catalog.(TableLister)
	if s.Req.Catalog == nil || !ok {
		return nil, Unsupported("the catalog cannot list tables, so the listing cannot tell whose statistics it may show")
	}
	tables, err := lister.ListTables(s.Ctx)
	if err != nil {
		return nil, Unsupported("listing tables failed: %v", err)
	}
	if len(tables) > MaxListedTables {
		return nil, Unsupported("too many tables (%d) to decide whose statistics a listing may show", len(tables))
	}
	var out []policy.TableName
	for _, t := range tables {
		if t.Schema != schema && (!foldSchema || !strings.EqualFold(t.Schema, schema)) {
			continue
		}
		d, err := DecideTable(s.Ctx, s.Req, t)
		if err != nil {
			return nil, err
		}
		if d.Allows(policy.Select) && d.Passthrough() {
			out = append(out, t)
		}
	}
	return out, nil
}
