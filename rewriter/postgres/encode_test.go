package postgres

import (
	"bytes"
	"context"
	"math"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// sameEncoding fails unless the generated encoder writes what
// proto.Marshal writes for m, or both refuse it.
func sameEncoding(t *testing.T, what string, m proto.Message) {
	t.Helper()
	want, wantErr := proto.Marshal(m)
	got, err := marshalMessage(m)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: encoder error %v, proto.Marshal's %v", what, err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: the encoding differs from proto.Marshal's\n%x\n%x", what, got, want)
	}
}

// edges are values of a scalar field's kind that an encoder can get wrong.
func edges(fd protoreflect.FieldDescriptor) []protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return []protoreflect.Value{protoreflect.ValueOfBool(true)}
	case protoreflect.EnumKind:
		return []protoreflect.Value{protoreflect.ValueOfEnum(-1), protoreflect.ValueOfEnum(1 << 20)}
	case protoreflect.Int32Kind:
		return []protoreflect.Value{protoreflect.ValueOfInt32(-1), protoreflect.ValueOfInt32(math.MinInt32), protoreflect.ValueOfInt32(math.MaxInt32)}
	case protoreflect.Int64Kind:
		return []protoreflect.Value{protoreflect.ValueOfInt64(-1), protoreflect.ValueOfInt64(math.MinInt64)}
	case protoreflect.Uint32Kind:
		return []protoreflect.Value{protoreflect.ValueOfUint32(math.MaxUint32), protoreflect.ValueOfUint32(128)}
	case protoreflect.Uint64Kind:
		return []protoreflect.Value{protoreflect.ValueOfUint64(math.MaxUint64), protoreflect.ValueOfUint64(1 << 35)}
	case protoreflect.DoubleKind:
		return []protoreflect.Value{protoreflect.ValueOfFloat64(math.Copysign(0, -1)), protoreflect.ValueOfFloat64(math.NaN()),
			protoreflect.ValueOfFloat64(math.Inf(-1)), protoreflect.ValueOfFloat64(0.5)}
	case protoreflect.StringKind:
		return []protoreflect.Value{protoreflect.ValueOfString("\xff"), protoreflect.ValueOfString("é"),
			protoreflect.ValueOfString(string(make([]byte, 200)))}
	}
	return []protoreflect.Value{scalar(fd, protoreflect.Value{})}
}

// TestEncoderWritesWhatProtoMarshalWrites: for every message type with
// every field set (each oneof member in turn), for every scalar field at
// its edge values (negative, -0, NaN, invalid UTF-8, multi-byte
// lengths), for empty and missing messages in lists and oneofs, and for
// the corpus's trees as parsed and as rewritten, the generated encoder
// writes the bytes proto.Marshal writes, or refuses where it does.
func TestEncoderWritesWhatProtoMarshalWrites(t *testing.T) {
	checked := 0
	for _, mt := range pgMessages(t) {
		md := mt.Descriptor()
		if hasMap(md) {
			continue
		}
		members := 1
		for i := 0; i < md.Oneofs().Len(); i++ {
			members = max(members, md.Oneofs().Get(i).Fields().Len())
		}
		for member := range members {
			m := mt.New()
			fillAll(m, 3, member)
			sameEncoding(t, string(md.Name()), m.Interface())
			checked++
		}
		fds := md.Fields()
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Message() != nil {
				// A message with nothing set, and (in a list) a nil one.
				m := mt.New()
				if fd.IsList() {
					l := m.Mutable(fd).List()
					l.Append(l.NewElement())
				} else {
					m.Set(fd, m.NewField(fd))
				}
				sameEncoding(t, string(fd.FullName())+" empty", m.Interface())
				continue
			}
			for _, v := range edges(fd) {
				m := mt.New()
				if fd.IsList() {
					l := m.Mutable(fd).List()
					l.Append(v)
					l.Append(v)
				} else {
					m.Set(fd, v)
				}
				sameEncoding(t, string(fd.FullName())+" "+v.String(), m.Interface())
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d messages checked", checked)
	}

	for what, m := range map[string]proto.Message{
		"nil in a list":                 &pg.SelectStmt{TargetList: []*pg.Node{nil, {}}},
		"a Node holding a nil message":  &pg.Node{Node: &pg.Node_SelectStmt{}},
		"an A_Const holding nil":        &pg.A_Const{Val: &pg.A_Const_Sval{}, Location: -1},
		"a nil oneof wrapper":           &pg.Node{Node: (*pg.Node_SelectStmt)(nil)},
		"invalid UTF-8 deep in a tree":  &pg.Node{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: "ok", Alias: &pg.Alias{Aliasname: "\xc3"}}}},
		"invalid UTF-8 in a list":       &pg.Alias{Colnames: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "a\x80"}}}}},
		"an empty parse result":         &pg.ParseResult{},
		"a statement of the wrong kind": &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{}}}},
	} {
		sameEncoding(t, what, m)
	}

	decisions := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, sql := range walkCorpus(t) {
		sameEncoding(t, sql, mustParse(t, sql))
		if res, err := (Dialect{}).Rewrite(context.Background(), request(sql, decisions)); err == nil {
			sameEncoding(t, res.SQL, mustParse(t, res.SQL))
		}
	}

	defer func() {
		if recover() == nil {
			t.Error("a foreign message type was encoded")
		}
	}()
	_, _ = marshalMessage(&descriptorpb.FileDescriptorProto{})
}
