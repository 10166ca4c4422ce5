package postgres

//go:generate go run ../../internal/gen/pgtree -o tree_gen.go

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// visitor is called for every parse-tree message under a walk, parent
// first. wrapper is the Node that holds m, or nil when m sits directly in
// a typed field (InsertStmt.Relation, SelectStmt.Larg, …); a visitor may
// replace what the wrapper holds. It returns whether to walk m's children.
type visitor func(m proto.Message, wrapper *pg.Node) (descend bool, err error)

// walk visits m and everything under it, in the order the fields are
// declared in pg_query.proto. The walk is generated from pg_query_go's
// protobuf descriptors (tree_gen.go): it has a case for every message type
// and visits every field that holds a message, so no node type can hide
// from it (TestWalkCoversEveryMessageType). A message type it does not know
// is a panic, which the rewrite turns into a refusal.
//
// A field is read when the walk reaches it, so a visitor may replace what
// a later sibling holds and the walk sees the replacement.
func walk(m proto.Message, fn visitor) error {
	if m == nil {
		return nil
	}
	return walkMessage(m, nil, fn)
}

// walkFields visits the children of m, except the fields whose
// pg_query.proto names are in skip ("with_clause", "larg", …).
func walkFields(m proto.Message, fn visitor, skip ...string) error {
	if m == nil {
		return nil
	}
	return walkChildren(m, fn, skip)
}

// skipped reports whether the field named name is in skip.
func skipped(skip []string, name string) bool {
	return len(skip) > 0 && slices.Contains(skip, name)
}

// rangeVars lists every RangeVar under m.
func rangeVars(m proto.Message) []*pg.RangeVar {
	var out []*pg.RangeVar
	_ = walk(m, func(m proto.Message, _ *pg.Node) (bool, error) {
		if rv, ok := m.(*pg.RangeVar); ok {
			out = append(out, rv)
		}
		return true, nil
	})
	return out
}

// nodeName is the type name of the node a Node holds ("SelectStmt", …).
func nodeName(n *pg.Node) string {
	if name := nodeTypeName(n); name != "" {
		return name
	}
	return "unknown"
}
