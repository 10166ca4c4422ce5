package rewriter

import (
	"context"

	"github.com/sqe-project/sqe/policy"
)

// RelationKind is what a relation other than a table is.
type RelationKind string

// The relation kinds a RelationFinder reports.
const (
	RelationIndex    RelationKind = "index"
	RelationSequence RelationKind = "sequence"
	RelationTable    RelationKind = "table" // a table, view or materialized view
	RelationOther    RelationKind = "other"
)

// Relation is a relation that a statement names by a name the server
// resolves (an index, a sequence), with the table it belongs to.
type Relation struct {
	// Name is the relation as the server resolved it: its schema (the
	// dialect's name for the connection's own temporary schema) and name.
	Name policy.TableName
	Kind RelationKind
	// Table is the table an index is on or a sequence is owned by; zero
	// when there is none.
	Table policy.TableName
}

// RelationFinder is implemented by catalogs that can resolve the name of
// a relation other than a table (indexes, sequences) as the server
// resolves it on the statement's connection. name is the name as written
// (one or two parts, the last the relation's). found is false when the
// server has no such relation.
type RelationFinder interface {
	FindRelation(ctx context.Context, name []string) (rel Relation, found bool, err error)
}

// RelationReader is implemented by dialects whose server resolves those
// names (see RelationFinder); q runs on the statement's connection.
type RelationReader interface {
	ReadRelation(ctx context.Context, q Query, name []string) (rel Relation, found bool, err error)
}

// FindRelation resolves name with the request's catalog (see
// RelationFinder). A catalog that cannot is an ErrUnsupported naming
// what. The rewrite then depends on more than the cache key, so the
// statement is not cached.
func (s *Statement[Ref]) FindRelation(name []string, what string) (Relation, bool, error) {
	s.uncacheable = true
	f, ok := s.Req.Catalog.(RelationFinder)
	if s.Req.Catalog == nil || !ok {
		return Relation{}, false, Unsupported("the catalog cannot resolve the name of %s", what)
	}
	rel, found, err := f.FindRelation(s.Ctx, name)
	if err != nil {
		return Relation{}, false, Unsupported("resolving the name of %s failed: %v", what, err)
	}
	return rel, found, nil
}
