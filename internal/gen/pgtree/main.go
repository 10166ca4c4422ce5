// Command pgtree generates the typed parse-tree code of package
// rewriter/postgres from the protobuf descriptors of pg_query_go:
//
//   - the walk: one function per message type of pg_query.proto, visiting
//     the message and then, in declaration order, every field that holds a
//     message (a Node, a list of them, or a typed message), so that the
//     walk reaches every node the reflective walk over the same
//     descriptors would, without reflection;
//   - the deep copy: one function per message type, copying every field;
//   - the protobuf encoding: per message type, a size pass and a write pass
//     that together write byte for byte what proto.Marshal writes.
//
// Go names come from the generated Go types themselves (struct tags, and
// the wrapper types a oneof holds once a value is set), not from a copy of
// protoc-gen-go's naming rules.
//
// Usage (from rewriter/postgres/walk.go's go:generate line):
//
//	go run ../../internal/gen/pgtree -o tree_gen.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// message is one message type of pg_query.proto with its Go names.
type message struct {
	desc   protoreflect.MessageDescriptor
	goName string  // Go type name in package pg_query
	fields []field // the fields that hold messages, in declaration order
	all    []field // every field but maps, in declaration order (for the copy)
	maps   bool    // has a map field (not walked, not copied)
}

// field is one field of a message that holds a message.
type field struct {
	protoName string // name in pg_query.proto (what walkFields skips by)
	goName    string // struct field name; for a oneof, the oneof's field
	kind      fieldKind
	elemType  string // Go type name of the message it holds; "" for a scalar
	bytes     bool   // a bytes field (copied, not shared)
	num       protowire.Number
	// oneofIndex is the declaration index of the oneof holding the
	// field, -1 outside a oneof.
	oneofIndex int
	pkind      protoreflect.Kind
	// for a oneof member: the wrapper type and its field
	wrapper, wrapperField string
}

type fieldKind int

const (
	single fieldKind = iota // *T
	list                    // []*T
	oneof                   // one member of a oneof holding *T
)

func main() {
	out := flag.String("o", "tree_gen.go", "output file")
	flag.Parse()
	msgs := messages(pg.File_pg_query_proto)
	reach := reachable((&pg.ParseResult{}).ProtoReflect().Descriptor())
	for _, m := range msgs {
		if m.maps && reach[m.desc.FullName()] {
			log.Fatalf("pgtree: %s, which a parse result can hold, has a map field the walk would not enter", m.desc.FullName())
		}
	}
	src, err := format.Source(generate(msgs))
	if err != nil {
		log.Fatalf("pgtree: formatting the generated code: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatalf("pgtree: %v", err)
	}
}

// reachable is the set of message types a message of type md can hold,
// at any depth, md included.
func reachable(md protoreflect.MessageDescriptor) map[protoreflect.FullName]bool {
	seen := map[protoreflect.FullName]bool{}
	var visit func(protoreflect.MessageDescriptor)
	visit = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		fds := md.Fields()
		for i := 0; i < fds.Len(); i++ {
			if sub := fds.Get(i).Message(); sub != nil {
				visit(sub)
			}
		}
	}
	visit(md)
	return seen
}

// messages lists every message type declared in the file (nested ones
// too), sorted by Go name.
func messages(fd protoreflect.FileDescriptor) []message {
	var out []message
	var add func(protoreflect.MessageDescriptors)
	add = func(mds protoreflect.MessageDescriptors) {
		for i := 0; i < mds.Len(); i++ {
			md := mds.Get(i)
			if md.IsMapEntry() {
				continue
			}
			out = append(out, describe(md))
			add(md.Messages())
		}
	}
	add(fd.Messages())
	sort.Slice(out, func(i, j int) bool { return out[i].goName < out[j].goName })
	return out
}

// describe reads a message's Go names from its generated Go type.
func describe(md protoreflect.MessageDescriptor) message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		log.Fatalf("pgtree: %s is not registered: %v", md.FullName(), err)
	}
	goType := reflect.TypeOf(mt.Zero().Interface()).Elem()
	m := message{desc: md, goName: goType.Name()}
	fds := md.Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.IsMap() {
			// The reflective walk never entered maps either; no statement
			// holds one (checked in main for what ParseResult reaches).
			m.maps = true
			continue
		}
		f := field{protoName: string(fd.Name()), bytes: fd.Kind() == protoreflect.BytesKind, num: fd.Number(), pkind: fd.Kind(), oneofIndex: -1}
		if fd.HasPresence() && fd.Message() == nil && fd.ContainingOneof() == nil {
			log.Fatalf("pgtree: %s has explicit presence, which the encoder does not handle", fd.FullName())
		}
		if fd.Message() != nil {
			elem, err := protoregistry.GlobalTypes.FindMessageByName(fd.Message().FullName())
			if err != nil {
				log.Fatalf("pgtree: %s is not registered: %v", fd.Message().FullName(), err)
			}
			f.elemType = reflect.TypeOf(elem.Zero().Interface()).Elem().Name()
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.kind = oneof
			f.oneofIndex = od.Index()
			f.goName, f.wrapper, f.wrapperField = oneofNames(mt, fd)
		} else {
			if fd.IsList() {
				f.kind = list
			}
			f.goName = structField(goType, fd)
		}
		m.all = append(m.all, f)
		if f.elemType != "" {
			m.fields = append(m.fields, f)
		}
	}
	return m
}

// structField is the Go struct field that holds fd, by its protobuf tag.
func structField(t reflect.Type, fd protoreflect.FieldDescriptor) string {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		for _, part := range strings.Split(sf.Tag.Get("protobuf"), ",") {
			if part == "name="+string(fd.Name()) {
				return sf.Name
			}
		}
	}
	log.Fatalf("pgtree: no Go field for %s", fd.FullName())
	return ""
}

// oneofNames sets fd on a new message and reads back which Go field (the
// oneof's), wrapper type and wrapper field now hold the value.
func oneofNames(mt protoreflect.MessageType, fd protoreflect.FieldDescriptor) (oneofField, wrapper, wrapperField string) {
	m := mt.New()
	m.Set(fd, m.NewField(fd))
	v := reflect.ValueOf(m.Interface()).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if sf.Tag.Get("protobuf_oneof") != string(fd.ContainingOneof().Name()) {
			continue
		}
		w := v.Field(i).Elem() // *Wrapper
		if w.Kind() != reflect.Pointer || w.Elem().NumField() != 1 {
			log.Fatalf("pgtree: unexpected oneof wrapper for %s", fd.FullName())
		}
		return sf.Name, w.Elem().Type().Name(), w.Elem().Type().Field(0).Name
	}
	log.Fatalf("pgtree: no Go field for oneof %s", fd.ContainingOneof().FullName())
	return "", "", ""
}

func generate(msgs []message) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by internal/gen/pgtree from pg_query_go's protobuf descriptors. DO NOT EDIT.\n\n")
	p("package postgres\n\n")
	p("import (\n\t\"fmt\"\n\t\"math\"\n\t\"slices\"\n\n\tpg %q\n\t\"google.golang.org/protobuf/encoding/protowire\"\n\t\"google.golang.org/protobuf/proto\"\n)\n\n", "github.com/pganalyze/pg_query_go/v6")

	var node *message
	for i := range msgs {
		if msgs[i].goName == "Node" {
			node = &msgs[i]
		}
	}
	if node == nil {
		log.Fatal("pgtree: no Node message")
	}

	// walk's dispatch on the message type.
	p("// walkMessage visits m (held by wrapper, or nil) and everything under it.\n")
	p("// It panics on a message type pg_query.proto does not declare.\n")
	p("func walkMessage(m proto.Message, wrapper *pg.Node, fn visitor) error {\n\tswitch x := m.(type) {\n")
	for _, m := range msgs {
		if m.goName == "Node" {
			p("\tcase *pg.Node:\n\t\treturn walkNode(x, fn)\n")
			continue
		}
		p("\tcase *pg.%s:\n\t\treturn walk%s(x, wrapper, fn)\n", m.goName, m.goName)
	}
	p("\t}\n\tpanic(fmt.Sprintf(\"walk: message type %%T is not in pg_query.proto\", m))\n}\n\n")

	// The children of each type, for walkFields.
	p("// walkChildren visits the children of m, except the fields whose\n")
	p("// pg_query.proto names are in skip. A Node's child is the message it holds,\n")
	p("// visited as if it sat in a typed field (no wrapper).\n")
	p("// It panics on a message type pg_query.proto does not declare.\n")
	p("func walkChildren(m proto.Message, fn visitor, skip []string) error {\n\tswitch x := m.(type) {\n")
	for _, m := range msgs {
		p("\tcase *pg.%s:\n", m.goName)
		if len(m.fields) == 0 {
			p("\t\treturn nil\n")
		} else {
			p("\t\treturn children%s(x, fn, skip)\n", m.goName)
		}
	}
	p("\t}\n\tpanic(fmt.Sprintf(\"walk: message type %%T is not in pg_query.proto\", m))\n}\n\n")

	// Node: the oneof of every node type.
	p("// walkNode visits the message n holds, with n as its wrapper.\n")
	p("func walkNode(n *pg.Node, fn visitor) error {\n\tif n == nil {\n\t\treturn nil\n\t}\n\tswitch v := n.Node.(type) {\n")
	for _, f := range node.fields {
		if f.kind != oneof {
			log.Fatalf("pgtree: Node.%s is not in its oneof", f.protoName)
		}
		p("\tcase *pg.%s:\n\t\tif v != nil {\n\t\t\treturn walk%s(v.%s, n, fn)\n\t\t}\n", f.wrapper, f.elemType, f.wrapperField)
	}
	p("\t}\n\treturn nil\n}\n\n")

	// nodeTypeName: the name of the type a Node holds.
	p("// nodeTypeName is the message type name of what n holds, \"\" for nothing.\n")
	p("func nodeTypeName(n *pg.Node) string {\n\tswitch n.GetNode().(type) {\n")
	for _, f := range node.fields {
		p("\tcase *pg.%s:\n\t\treturn %q\n", f.wrapper, f.elemType)
	}
	p("\t}\n\treturn \"\"\n}\n\n")

	// One walker per type, and its children.
	for _, m := range msgs {
		if m.goName == "Node" {
			p("// childrenNode visits the message n holds without n as its wrapper\n")
			p("// (walkFields on a Node).\n")
			p("func childrenNode(n *pg.Node, fn visitor, skip []string) error {\n\tif n == nil {\n\t\treturn nil\n\t}\n\tswitch v := n.Node.(type) {\n")
			for _, f := range m.fields {
				p("\tcase *pg.%s:\n\t\tif v != nil && !skipped(skip, %q) {\n\t\t\treturn walk%s(v.%s, nil, fn)\n\t\t}\n", f.wrapper, f.protoName, f.elemType, f.wrapperField)
			}
			p("\t}\n\treturn nil\n}\n\n")
			continue
		}
		p("func walk%s(x *pg.%s, wrapper *pg.Node, fn visitor) error {\n", m.goName, m.goName)
		p("\tif x == nil {\n\t\treturn nil\n\t}\n")
		if len(m.fields) == 0 {
			p("\t_, err := fn(x, wrapper)\n\treturn err\n}\n\n")
			continue
		}
		p("\tif descend, err := fn(x, wrapper); err != nil || !descend {\n\t\treturn err\n\t}\n")
		p("\treturn children%s(x, fn, nil)\n}\n\n", m.goName)

		p("func children%s(x *pg.%s, fn visitor, skip []string) error {\n", m.goName, m.goName)
		p("\tif x == nil {\n\t\treturn nil\n\t}\n")
		// Oneof members are grouped into one switch per oneof.
		done := map[string]bool{}
		for _, f := range m.fields {
			switch f.kind {
			case single:
				p("\tif !skipped(skip, %q) {\n\t\tif err := %s; err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n",
					f.protoName, call(f.elemType, "x."+f.goName))
			case list:
				p("\tif !skipped(skip, %q) {\n\t\tfor i := 0; i < len(x.%s); i++ {\n\t\t\tif err := %s; err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t}\n\t}\n",
					f.protoName, f.goName, call(f.elemType, "x."+f.goName+"[i]"))
			case oneof:
				if done[f.goName] {
					continue
				}
				done[f.goName] = true
				p("\tswitch v := x.%s.(type) {\n", f.goName)
				for _, g := range m.fields {
					if g.kind == oneof && g.goName == f.goName {
						p("\tcase *pg.%s:\n\t\tif v != nil && !skipped(skip, %q) {\n\t\t\tif err := %s; err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t}\n",
							g.wrapper, g.protoName, call(g.elemType, "v."+g.wrapperField))
					}
				}
				p("\t}\n")
			}
		}
		p("\treturn nil\n}\n\n")
	}
	generateCopies(p, msgs)
	generateEncoders(p, msgs)
	return b.Bytes()
}

// byNumber is m's fields in the order protobuf's Go encoder writes them
// (its legacy field order): the fields outside a oneof by number, then
// each oneof's members, oneofs in declaration order, members by number.
func byNumber(m message) []field {
	fs := slices.Clone(m.all)
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if (a.oneofIndex >= 0) != (b.oneofIndex >= 0) {
			return a.oneofIndex < 0
		}
		if a.oneofIndex != b.oneofIndex {
			return a.oneofIndex < b.oneofIndex
		}
		return a.num < b.num
	})
	return fs
}

// generateEncoders writes the protobuf encoding of every message type,
// byte for byte what proto.Marshal writes (fields by number, proto3's
// zero values left out, packed scalar lists, strings checked for UTF-8):
// a first pass records the size of every message in the order the second
// pass writes them.
func generateEncoders(p func(string, ...any), msgs []message) {
	p("// marshalMessage is the protobuf encoding of m, as proto.Marshal writes\n")
	p("// it. It panics on a message type pg_query.proto does not declare or one\n")
	p("// it has no encoder for.\n")
	p("func marshalMessage(m proto.Message) ([]byte, error) {\n\tvar e encoder\n\tswitch x := m.(type) {\n")
	for _, m := range msgs {
		if !m.maps {
			p("\tcase *pg.%s:\n\t\te.size%s(x)\n\t\treturn e.finish(func() { e.encode%s(x) })\n", m.goName, m.goName, m.goName)
		}
	}
	p("\t}\n\tpanic(fmt.Sprintf(\"encode: no encoder of message type %%T\", m))\n}\n\n")
	for _, m := range msgs {
		if m.maps {
			continue
		}
		fs := byNumber(m)
		// The size pass.
		p("func (e *encoder) size%s(x *pg.%s) int {\n\tslot := e.slot()\n\tif x == nil {\n\t\treturn 0\n\t}\n\tn := 0\n", m.goName, m.goName)
		done := map[string]bool{}
		for _, f := range fs {
			ts := protowire.SizeTag(f.num)
			x := "x." + f.goName
			switch {
			case f.kind == oneof && !done[f.goName]:
				done[f.goName] = true
				p("\tswitch v := x.%s.(type) {\n", f.goName)
				for _, g := range fs {
					if g.kind != oneof || g.goName != f.goName {
						continue
					}
					if g.elemType == "" {
						log.Fatalf("pgtree: %s.%s: a scalar in a oneof", m.goName, g.protoName)
					}
					p("\tcase *pg.%s:\n\t\tif v != nil {\n\t\t\tn += %d + protowire.SizeBytes(e.size%s(v.%s))\n\t\t}\n", g.wrapper, protowire.SizeTag(g.num), g.elemType, g.wrapperField)
				}
				p("\t}\n")
			case f.kind == oneof:
			case f.kind == single && f.elemType != "":
				p("\tif %s != nil {\n\t\tn += %d + protowire.SizeBytes(e.size%s(%s))\n\t}\n", x, ts, f.elemType, x)
			case f.kind == list && f.elemType != "":
				p("\tfor _, v := range %s {\n\t\tn += %d + protowire.SizeBytes(e.size%s(v))\n\t}\n", x, ts, f.elemType)
			case f.kind == list && f.pkind == protoreflect.StringKind:
				p("\tfor _, v := range %s {\n\t\tn += %d + protowire.SizeBytes(len(v))\n\t\te.checkUTF8(v)\n\t}\n", x, ts)
			case f.kind == list && (f.pkind == protoreflect.Uint64Kind || f.pkind == protoreflect.Uint32Kind):
				p("\tif len(%s) > 0 {\n\t\tn += %d + protowire.SizeBytes(packedSize(%s))\n\t}\n", x, ts, x)
			case f.kind == single && f.pkind == protoreflect.StringKind:
				p("\tif len(%s) > 0 {\n\t\tn += %d + protowire.SizeBytes(len(%s))\n\t\te.checkUTF8(%s)\n\t}\n", x, ts, x, x)
			case f.kind == single && f.pkind == protoreflect.BoolKind:
				p("\tif %s {\n\t\tn += %d\n\t}\n", x, ts+1)
			case f.kind == single && f.pkind == protoreflect.DoubleKind:
				p("\tif %s != 0 || math.Signbit(%s) {\n\t\tn += %d\n\t}\n", x, x, ts+8)
			case f.kind == single && (f.pkind == protoreflect.Int32Kind || f.pkind == protoreflect.Int64Kind ||
				f.pkind == protoreflect.Uint32Kind || f.pkind == protoreflect.Uint64Kind || f.pkind == protoreflect.EnumKind):
				p("\tif %s != 0 {\n\t\tn += %d + protowire.SizeVarint(uint64(%s))\n\t}\n", x, ts, x)
			default:
				log.Fatalf("pgtree: %s.%s: no encoding for a %v field of kind %v", m.goName, f.protoName, f.kind, f.pkind)
			}
		}
		p("\te.sizes[slot] = n\n\treturn n\n}\n\n")
		// The write pass.
		p("func (e *encoder) encode%s(x *pg.%s) {\n\tif x == nil {\n\t\treturn\n\t}\n", m.goName, m.goName)
		done = map[string]bool{}
		for _, f := range fs {
			tag := protowire.EncodeTag(f.num, wireType(f))
			x := "x." + f.goName
			switch {
			case f.kind == oneof && !done[f.goName]:
				done[f.goName] = true
				p("\tswitch v := x.%s.(type) {\n", f.goName)
				for _, g := range fs {
					if g.kind == oneof && g.goName == f.goName {
						p("\tcase *pg.%s:\n\t\tif v != nil {\n\t\t\te.message(%d)\n\t\t\te.encode%s(v.%s)\n\t\t}\n", g.wrapper, protowire.EncodeTag(g.num, protowire.BytesType), g.elemType, g.wrapperField)
					}
				}
				p("\t}\n")
			case f.kind == oneof:
			case f.kind == single && f.elemType != "":
				p("\tif %s != nil {\n\t\te.message(%d)\n\t\te.encode%s(%s)\n\t}\n", x, tag, f.elemType, x)
			case f.kind == list && f.elemType != "":
				p("\tfor _, v := range %s {\n\t\te.message(%d)\n\t\te.encode%s(v)\n\t}\n", x, tag, f.elemType)
			case f.kind == list && f.pkind == protoreflect.StringKind:
				p("\tfor _, v := range %s {\n\t\te.buf = protowire.AppendString(protowire.AppendVarint(e.buf, %d), v)\n\t}\n", x, tag)
			case f.kind == list:
				p("\tif len(%s) > 0 {\n\t\te.buf = protowire.AppendVarint(e.buf, %d)\n\t\te.buf = protowire.AppendVarint(e.buf, uint64(packedSize(%s)))\n\t\tfor _, v := range %s {\n\t\t\te.buf = protowire.AppendVarint(e.buf, uint64(v))\n\t\t}\n\t}\n", x, tag, x, x)
			case f.pkind == protoreflect.StringKind:
				p("\tif len(%s) > 0 {\n\t\te.buf = protowire.AppendString(protowire.AppendVarint(e.buf, %d), %s)\n\t}\n", x, tag, x)
			case f.pkind == protoreflect.BoolKind:
				p("\tif %s {\n\t\te.buf = protowire.AppendVarint(protowire.AppendVarint(e.buf, %d), 1)\n\t}\n", x, tag)
			case f.pkind == protoreflect.DoubleKind:
				p("\tif %s != 0 || math.Signbit(%s) {\n\t\te.buf = protowire.AppendFixed64(protowire.AppendVarint(e.buf, %d), math.Float64bits(%s))\n\t}\n", x, x, tag, x)
			default:
				p("\tif %s != 0 {\n\t\te.buf = protowire.AppendVarint(protowire.AppendVarint(e.buf, %d), uint64(%s))\n\t}\n", x, tag, x)
			}
		}
		p("}\n\n")
	}
}

// wireType is how a field is written.
func wireType(f field) protowire.Type {
	switch {
	case f.elemType != "", f.kind == list, f.pkind == protoreflect.StringKind, f.pkind == protoreflect.BytesKind:
		return protowire.BytesType
	case f.pkind == protoreflect.DoubleKind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// generateCopies writes one deep copy per message type: every field but
// the protobuf runtime's own state, and no message, list or bytes shared
// with the original. A message type with a map field (no parse result
// holds one) has no copy.
func generateCopies(p func(string, ...any), msgs []message) {
	p("// copyMessage is a deep copy of m (copyNode, copySelectStmt, … for each\n")
	p("// message type). It panics on a message type pg_query.proto does not\n")
	p("// declare or one it has no copy for.\n")
	p("func copyMessage(m proto.Message) proto.Message {\n\tswitch x := m.(type) {\n")
	for _, m := range msgs {
		if !m.maps {
			p("\tcase *pg.%s:\n\t\treturn copy%s(x)\n", m.goName, m.goName)
		}
	}
	p("\t}\n\tpanic(fmt.Sprintf(\"copy: no copy of message type %%T\", m))\n}\n\n")
	for _, m := range msgs {
		if m.maps {
			continue
		}
		p("// copy%s is a deep copy of x.\n", m.goName)
		p("func copy%s(x *pg.%s) *pg.%s {\n\tif x == nil {\n\t\treturn nil\n\t}\n", m.goName, m.goName, m.goName)
		p("\ty := &pg.%s{", m.goName)
		for _, f := range m.all {
			if f.kind == single && f.elemType == "" && !f.bytes {
				p("%s: x.%s, ", f.goName, f.goName)
			}
		}
		p("}\n")
		done := map[string]bool{}
		for _, f := range m.all {
			switch {
			case f.kind == single && f.elemType != "":
				p("\ty.%s = copy%s(x.%s)\n", f.goName, f.elemType, f.goName)
			case f.kind == single && f.bytes:
				p("\tif len(x.%s) > 0 {\n\t\ty.%s = slices.Clone(x.%s)\n\t}\n", f.goName, f.goName, f.goName)
			case f.kind == list && f.elemType != "":
				p("\tif len(x.%s) > 0 {\n\t\ty.%s = make([]*pg.%s, len(x.%s))\n\t\tfor i, e := range x.%s {\n\t\t\ty.%s[i] = copy%s(e)\n\t\t}\n\t}\n",
					f.goName, f.goName, f.elemType, f.goName, f.goName, f.goName, f.elemType)
			case f.kind == list && f.bytes:
				p("\tif len(x.%s) > 0 {\n\t\ty.%s = make([][]byte, len(x.%s))\n\t\tfor i, e := range x.%s {\n\t\t\ty.%s[i] = slices.Clone(e)\n\t\t}\n\t}\n",
					f.goName, f.goName, f.goName, f.goName, f.goName)
			case f.kind == list:
				p("\tif len(x.%s) > 0 {\n\t\ty.%s = slices.Clone(x.%s)\n\t}\n", f.goName, f.goName, f.goName)
			case f.kind == oneof && !done[f.goName]:
				done[f.goName] = true
				p("\tswitch v := x.%s.(type) {\n", f.goName)
				for _, g := range m.all {
					if g.kind != oneof || g.goName != f.goName {
						continue
					}
					val := "v." + g.wrapperField
					switch {
					case g.elemType != "":
						val = "copy" + g.elemType + "(v." + g.wrapperField + ")"
					case g.bytes:
						val = "slices.Clone(v." + g.wrapperField + ")"
					}
					p("\tcase *pg.%s:\n\t\tif v != nil {\n\t\t\ty.%s = &pg.%s{%s: %s}\n\t\t}\n", g.wrapper, g.goName, g.wrapper, g.wrapperField, val)
				}
				p("\t}\n")
			}
		}
		p("\treturn y\n}\n\n")
	}
}

// call is the walk of one child of type elemType: a Node is transparent
// (what it holds is visited with it as wrapper), any other message has no
// wrapper.
func call(elemType, expr string) string {
	if elemType == "Node" {
		return "walkNode(" + expr + ", fn)"
	}
	return "walk" + elemType + "(" + expr + ", nil, fn)"
}
