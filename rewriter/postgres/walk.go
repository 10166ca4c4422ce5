package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// visitor is called for every parse-tree message under a walk, parent
// first. wrapper is the Node that holds m, or nil when m sits directly in
// a typed field (InsertStmt.Relation, SelectStmt.Larg, …); a visitor may
// replace what the wrapper holds. It returns whether to walk m's children.
type visitor func(m proto.Message, wrapper *pg.Node) (descend bool, err error)

// walk visits m and everything under it. The walk is generic (protobuf
// reflection over every message field), so no node type can hide from it.
func walk(m proto.Message, fn visitor) error {
	if m == nil {
		return nil
	}
	return walkMsg(m.ProtoReflect(), nil, fn)
}

// walkFields visits the children of m, except the fields named in skip.
func walkFields(m proto.Message, fn visitor, skip ...string) error {
	rm := m.ProtoReflect()
	var err error
	rm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		for _, s := range skip {
			if string(fd.Name()) == s {
				return true
			}
		}
		err = walkValue(fd, v, fn)
		return err == nil
	})
	return err
}

func walkMsg(rm protoreflect.Message, wrapper *pg.Node, fn visitor) error {
	if !rm.IsValid() {
		return nil
	}
	if n, ok := rm.Interface().(*pg.Node); ok {
		// A Node is a oneof of every node type: walk the one it holds.
		var err error
		rm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() != nil && !fd.IsList() {
				err = walkMsg(v.Message(), n, fn)
			}
			return false
		})
		return err
	}
	descend, err := fn(rm.Interface(), wrapper)
	if err != nil || !descend {
		return err
	}
	rm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		err = walkValue(fd, v, fn)
		return err == nil
	})
	return err
}

func walkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, fn visitor) error {
	if fd.Message() == nil || fd.IsMap() {
		return nil
	}
	if fd.IsList() {
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if err := walkMsg(l.Get(i).Message(), nil, fn); err != nil {
				return err
			}
		}
		return nil
	}
	return walkMsg(v.Message(), nil, fn)
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
	name := "unknown"
	if n == nil {
		return name
	}
	n.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() != nil {
			name = string(fd.Message().Name())
		}
		return false
	})
	return name
}
