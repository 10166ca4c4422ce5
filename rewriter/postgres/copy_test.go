package postgres

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// scalar is a value of fd's scalar type that is not the zero value, and
// differs from old when old is given.
func scalar(fd protoreflect.FieldDescriptor, old protoreflect.Value) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(!old.IsValid() || !old.Bool())
	case protoreflect.EnumKind:
		n := protoreflect.EnumNumber(1)
		if old.IsValid() {
			n = old.Enum() + 1
		}
		return protoreflect.ValueOfEnum(n)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(7 + oldInt(old))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(7 + oldInt(old)))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(7 + oldInt(old)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(7 + oldInt(old)))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(7 + oldInt(old)))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(7 + oldInt(old)))
	case protoreflect.StringKind:
		if old.IsValid() {
			return protoreflect.ValueOfString(old.String() + "x")
		}
		return protoreflect.ValueOfString("s")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("b"))
	}
	panic("no scalar of kind " + fd.Kind().String())
}

func oldInt(old protoreflect.Value) int32 {
	if !old.IsValid() {
		return 0
	}
	return 1
}

// fillAll sets every field of m: scalars to non-zero values, lists to two
// elements, messages (down to depth) to messages filled the same way; of a
// oneof, the member member (by index in the oneof) when it has one.
func fillAll(m protoreflect.Message, depth, member int) {
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.IsMap() {
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if idx := member % od.Fields().Len(); od.Fields().Get(idx) != fd {
				continue
			}
		}
		if fd.Message() != nil && depth == 0 {
			continue
		}
		elem := func(v protoreflect.Value) protoreflect.Value {
			if fd.Message() != nil {
				fillAll(v.Message(), depth-1, member+i)
				return v
			}
			return scalar(fd, protoreflect.Value{})
		}
		if fd.IsList() {
			l := m.Mutable(fd).List()
			for range 2 {
				if fd.Message() != nil {
					l.Append(elem(l.NewElement()))
				} else {
					l.Append(scalar(fd, protoreflect.Value{}))
				}
			}
			continue
		}
		m.Set(fd, elem(m.NewField(fd)))
	}
}

// scramble changes every value in m in place: every scalar, every list
// element, every byte slice's first byte, every message under it. It
// reports whether there was a value to change.
func scramble(m protoreflect.Message) (changed bool) {
	type set struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var fields []set
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		fields = append(fields, set{fd, v})
		return true
	})
	for _, f := range fields {
		fd, v := f.fd, f.v
		switch {
		case fd.IsMap():
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				switch {
				case fd.Message() != nil:
					changed = scramble(l.Get(i).Message()) || changed
				case fd.Kind() == protoreflect.BytesKind:
					l.Get(i).Bytes()[0] ^= 1
					changed = true
				default:
					l.Set(i, scalar(fd, l.Get(i)))
					changed = true
				}
			}
		case fd.Message() != nil:
			changed = scramble(v.Message()) || changed
		case fd.Kind() == protoreflect.BytesKind:
			if b := v.Bytes(); len(b) > 0 {
				b[0] ^= 1
				changed = true
			}
		default:
			m.Set(fd, scalar(fd, v))
			changed = true
		}
	}
	return changed
}

// messagesIn is every message in m, m included, by identity.
func messagesIn(m protoreflect.Message, out map[proto.Message]bool) map[proto.Message]bool {
	out[m.Interface()] = true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				messagesIn(v.List().Get(i).Message(), out)
			}
		default:
			messagesIn(v.Message(), out)
		}
		return true
	})
	return out
}

// sameAndApart fails unless c equals orig and shares nothing with it.
func sameAndApart(t *testing.T, what string, orig, c proto.Message) {
	t.Helper()
	if !proto.Equal(orig, c) {
		t.Fatalf("%s: the copy differs", what)
	}
	copied := messagesIn(c.ProtoReflect(), map[proto.Message]bool{})
	for m := range messagesIn(orig.ProtoReflect(), map[proto.Message]bool{}) {
		if copied[m] {
			t.Fatalf("%s: the copy shares a %T", what, m)
		}
	}
	before := proto.Clone(orig)
	changed := scramble(c.ProtoReflect())
	if !proto.Equal(orig, before) {
		t.Fatalf("%s: changing the copy changed the original", what)
	}
	if changed && proto.Equal(orig, c) {
		t.Fatalf("%s: scrambling changed nothing", what)
	}
}

// TestCopyIsDeepAndComplete: the generated copy of every message type,
// with every field set (each oneof member in turn), equals the original
// and shares no message, list or bytes with it; on the corpus the copies
// of the parse trees equal them.
func TestCopyIsDeepAndComplete(t *testing.T) {
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
			sameAndApart(t, string(md.Name()), m.Interface(), copyMessage(m.Interface()))
			checked++
		}
	}
	if checked < 450 {
		t.Fatalf("only %d messages checked", checked)
	}
	for _, sql := range walkCorpus(t) {
		tree := mustParse(t, sql)
		sameAndApart(t, sql, tree, copyParseResult(tree))
	}
	defer func() {
		if recover() == nil {
			t.Error("a foreign message type was copied")
		}
	}()
	copyMessage(&descriptorpb.FileDescriptorProto{})
}

func hasMap(md protoreflect.MessageDescriptor) bool {
	for i := 0; i < md.Fields().Len(); i++ {
		if md.Fields().Get(i).IsMap() {
			return true
		}
	}
	return false
}

// TestCachedTreesAreCopies: a tree handed out by the parsed-text caches
// is the caller's; changing it changes no later answer.
func TestCachedTreesAreCopies(t *testing.T) {
	first, err := parseExpr("lower(x) || 'a'")
	if err != nil {
		t.Fatal(err)
	}
	want := proto.Clone(first)
	scramble(first.ProtoReflect())
	again, err := parseExpr("lower(x) || 'a'")
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(again, want) {
		t.Fatal("a change to a handed-out expression reached the cache")
	}
	const text = "SELECT a AS a, upper(b) AS b FROM s.t WHERE c = 1"
	form, ok := readFormOf(text)
	if !ok {
		t.Fatal("the read form was refused")
	}
	sel, _ := form.instance()
	wantSel := proto.Clone(sel).(*pg.SelectStmt)
	scramble(sel.ProtoReflect())
	formAgain, ok := readFormOf(text)
	if !ok || formAgain != form {
		t.Fatal("the read form was not kept")
	}
	if again, _ := formAgain.instance(); !proto.Equal(again, wantSel) {
		t.Fatal("a change to a handed-out read form reached the cache")
	}
}
