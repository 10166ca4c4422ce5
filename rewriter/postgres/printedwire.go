package postgres

import (
	"strconv"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqe-project/sqe/rewriter"
)

// The printed statement's check (verifyPrinted) reads what it needs, the
// statement's kind and its relation references, straight from the parser's
// protobuf encoding of the parse tree, rather than decoding the whole tree
// into Go messages first and walking it. The parse is the same parser's
// (the server's grammar, in C); only the decoding differs, and it is
// driven by the same descriptors as the decoder, entering every field that
// holds a message: no node type can hide a relation from it.
//
// The parser writes each field of a message once. Were a message field
// written twice, protobuf's decoder would merge the two (or, for a Node,
// keep the last), while this scan reads both: it can then only find more
// relation references than the tree has, and the check fails. A Node
// holding two things, or a result with other than one statement, is
// refused outright.

// wireType is what scanning an encoded message needs of its type.
type wireType struct {
	name string
	// children is, by field number, the type of the message a field
	// holds (nil: the field holds no message).
	children []*wireType
	node     bool // a Node: a oneof of every node type
	rangeVar bool
}

func (t *wireType) child(n protowire.Number) *wireType {
	if n < 0 || int(n) >= len(t.children) {
		return nil
	}
	return t.children[n]
}

// rangeVarFields are the field numbers of what printed keeps of a RangeVar.
type rangeVarFields struct {
	catalog, schema, name, inh, persistence protowire.Number
}

// wireSchema is what the scan needs of pg_query's descriptors.
type wireSchema struct {
	types       map[protoreflect.FullName]*wireType // every type a parse result reaches
	raw         *wireType                           // RawStmt
	stmts, stmt protowire.Number                    // ParseResult.stmts, RawStmt.stmt
	rv          rangeVarFields
}

// wireTypes are the types of a parse result, from pg_query's descriptors.
var wireTypes = sync.OnceValue(func() *wireSchema {
	types := map[protoreflect.FullName]*wireType{}
	var build func(md protoreflect.MessageDescriptor) *wireType
	build = func(md protoreflect.MessageDescriptor) *wireType {
		if t, ok := types[md.FullName()]; ok {
			return t
		}
		t := &wireType{name: string(md.Name())}
		types[md.FullName()] = t
		t.node = md == (&pg.Node{}).ProtoReflect().Descriptor()
		t.rangeVar = md == (&pg.RangeVar{}).ProtoReflect().Descriptor()
		fds := md.Fields()
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Message() == nil {
				continue
			}
			for int(fd.Number()) >= len(t.children) {
				t.children = append(t.children, nil)
			}
			t.children[fd.Number()] = build(fd.Message())
		}
		return t
	}
	rv := (&pg.RangeVar{}).ProtoReflect().Descriptor().Fields()
	build((&pg.ParseResult{}).ProtoReflect().Descriptor())
	return &wireSchema{
		types: types,
		raw:   types[(&pg.RawStmt{}).ProtoReflect().Descriptor().FullName()],
		stmts: (&pg.ParseResult{}).ProtoReflect().Descriptor().Fields().ByName("stmts").Number(),
		stmt:  (&pg.RawStmt{}).ProtoReflect().Descriptor().Fields().ByName("stmt").Number(),
		rv: rangeVarFields{
			catalog:     rv.ByName("catalogname").Number(),
			schema:      rv.ByName("schemaname").Number(),
			name:        rv.ByName("relname").Number(),
			inh:         rv.ByName("inh").Number(),
			persistence: rv.ByName("relpersistence").Number(),
		},
	}
})

// maxWireDepth bounds the nesting the scan follows (protobuf's own
// decoder stops at the same depth).
const maxWireDepth = 10000

// errWire is the refusal for an encoding the scan does not read as the
// parser writes it.
var errWire = rewriter.Unsupported("the rewritten statement does not print faithfully")

// printedFromWire reads what printed keeps of the one statement of the
// encoded parse result b.
func printedFromWire(b []byte) (rewriter.Printed, error) {
	w := wireTypes()
	stmts, err := fieldValues(b, w.stmts)
	if err != nil || len(stmts) != 1 {
		return rewriter.Printed{}, errWire
	}
	if stmt, err := fieldValues(stmts[0], w.stmt); err != nil || len(stmt) != 1 {
		return rewriter.Printed{}, errWire
	}
	// RawStmt holds no message but its statement's Node, so the first
	// Node the scan enters is the statement's: what it holds is the kind.
	s := wireScan{rvf: w.rv}
	if err := s.message(stmts[0], w.raw, 0); err != nil || s.kind == "" {
		return rewriter.Printed{}, errWire
	}
	return rewriter.Printed{Kind: s.kind, Tables: s.tables}, nil
}

// fieldValues returns the encoded values of field num (a message field)
// of the encoded message b, one per occurrence.
func fieldValues(b []byte, num protowire.Number) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, errWire
		}
		b = b[l:]
		if n == num {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 || typ != protowire.BytesType {
				return nil, errWire
			}
			out = append(out, v)
			b = b[l:]
			continue
		}
		if l = protowire.ConsumeFieldValue(n, typ, b); l < 0 {
			return nil, errWire
		}
		b = b[l:]
	}
	return out, nil
}

// wireScan collects, from an encoded tree, the relation references
// printed keeps and the kind of the first Node it reads.
type wireScan struct {
	rvf    rangeVarFields
	tables []string
	kind   string
}

// message scans the encoded message b of type t and everything in it.
func (s *wireScan) message(b []byte, t *wireType, depth int) error {
	if depth > maxWireDepth {
		return errWire
	}
	var rv struct {
		catalog, schema, name, persistence string
		inh                                bool
	}
	members := 0
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errWire
		}
		b = b[n:]
		if t.rangeVar {
			switch num {
			case s.rvf.catalog, s.rvf.schema, s.rvf.name, s.rvf.persistence:
				v, n := protowire.ConsumeString(b)
				if n < 0 || typ != protowire.BytesType {
					return errWire
				}
				switch num {
				case s.rvf.catalog:
					rv.catalog = v
				case s.rvf.schema:
					rv.schema = v
				case s.rvf.name:
					rv.name = v
				default:
					rv.persistence = v
				}
				b = b[n:]
				continue
			case s.rvf.inh:
				v, n := protowire.ConsumeVarint(b)
				if n < 0 || typ != protowire.VarintType {
					return errWire
				}
				rv.inh = protowire.DecodeBool(v)
				b = b[n:]
				continue
			}
		}
		child := t.child(num)
		if child == nil || typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return errWire
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return errWire
		}
		b = b[n:]
		if t.node {
			if members++; members > 1 {
				return errWire
			}
			if s.kind == "" {
				s.kind = child.name
			}
		}
		if err := s.message(v, child, depth+1); err != nil {
			return err
		}
	}
	if t.rangeVar {
		s.tables = append(s.tables, printedTable(rv.catalog, rv.schema, rv.name, rv.inh, rv.persistence))
	}
	return nil
}

// printedTable is how printed records one relation reference.
func printedTable(catalog, schema, name string, inh bool, persistence string) string {
	return strconv.Quote(catalog) + "." + strconv.Quote(schema) + "." + strconv.Quote(name) +
		"/" + strconv.FormatBool(inh) + "/" + persistence
}
