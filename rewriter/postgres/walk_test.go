package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// reflectWalk is the reference the generated walk is held to: a walk by
// protobuf reflection over every field of every message, in declaration
// order, entering every field that holds a message. A Node is transparent:
// the message it holds is visited with the Node as its wrapper.
func reflectWalk(m proto.Message, fn visitor) error {
	return reflectMsg(m.ProtoReflect(), nil, fn)
}

func reflectMsg(rm protoreflect.Message, wrapper *pg.Node, fn visitor) error {
	if !rm.IsValid() {
		return nil
	}
	if n, ok := rm.Interface().(*pg.Node); ok {
		fd := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("node"))
		if fd == nil {
			return nil
		}
		return reflectMsg(rm.Get(fd).Message(), n, fn)
	}
	descend, err := fn(rm.Interface(), wrapper)
	if err != nil || !descend {
		return err
	}
	return reflectFields(rm, fn, nil)
}

// reflectFields is walkFields' reference.
func reflectFields(rm protoreflect.Message, fn visitor, skip []string) error {
	fds := rm.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.Message() == nil || fd.IsMap() || slices.Contains(skip, string(fd.Name())) || !rm.Has(fd) {
			continue
		}
		if !fd.IsList() {
			if err := reflectMsg(rm.Get(fd).Message(), nil, fn); err != nil {
				return err
			}
			continue
		}
		l := rm.Get(fd).List()
		for j := 0; j < l.Len(); j++ {
			if err := reflectMsg(l.Get(j).Message(), nil, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// visit is one call of a visitor: the message and its wrapper, by identity.
type visit struct {
	m       proto.Message
	wrapper *pg.Node
}

// visits records the calls a walk makes; descend decides, per message,
// whether the walk enters it.
func visits(walker func(proto.Message, visitor) error, m proto.Message, descend func(proto.Message) bool) []visit {
	var out []visit
	_ = walker(m, func(m proto.Message, w *pg.Node) (bool, error) {
		out = append(out, visit{m, w})
		return descend(m), nil
	})
	return out
}

func always(proto.Message) bool { return true }

// sameVisits fails unless both walks made the same calls in the same order.
func sameVisits(t *testing.T, what string, got, want []visit) {
	t.Helper()
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			t.Fatalf("%s: visit %d is %T (wrapper %p), the reflective walk's is %T (wrapper %p)",
				what, i, got[i].m, got[i].wrapper, want[i].m, want[i].wrapper)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d visits, the reflective walk makes %d", what, len(got), len(want))
	}
}

// pgMessages is every message type pg_query.proto declares.
func pgMessages(t *testing.T) []protoreflect.MessageType {
	var out []protoreflect.MessageType
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if mt.Descriptor().ParentFile() == pg.File_pg_query_proto {
			out = append(out, mt)
		}
		return true
	})
	if len(out) < 200 {
		t.Fatalf("only %d message types registered for pg_query.proto", len(out))
	}
	return out
}

// leaf readies a fresh message to place in a field: a Node holds a
// String, so that the walk has something to visit under it.
func leaf(child protoreflect.Message) protoreflect.Value {
	if n, ok := child.Interface().(*pg.Node); ok {
		n.Node = &pg.Node_String_{String_: &pg.String{Sval: "x"}}
	}
	return protoreflect.ValueOfMessage(child)
}

// fill places fresh messages in fd: one, or a list of two.
func fill(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	if !fd.IsList() {
		m.Set(fd, leaf(m.NewField(fd).Message()))
		return
	}
	l := m.Mutable(fd).List()
	for range 2 {
		l.Append(leaf(l.NewElement().Message()))
	}
}

// TestWalkCoversEveryMessageType holds the generated walk to the
// descriptors: every message type a parse result can reach is one it
// handles, and for every message type and every field that holds a
// message, the walk visits what the field holds, as the reflective walk
// does (wrapper included), and walkFields skips exactly the named field.
func TestWalkCoversEveryMessageType(t *testing.T) {
	types := pgMessages(t)
	known := map[protoreflect.FullName]bool{}
	for _, mt := range types {
		known[mt.Descriptor().FullName()] = true
	}

	// Everything a ParseResult can hold, at any depth, is declared in
	// pg_query.proto (so the generator saw it) and is walked.
	var reach func(protoreflect.MessageDescriptor)
	seen := map[protoreflect.FullName]bool{}
	reach = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		if !known[md.FullName()] {
			t.Errorf("%s, reachable from ParseResult, is not a pg_query.proto message the walk was generated from", md.FullName())
		}
		fds := md.Fields()
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.IsMap() {
				t.Errorf("%s.%s, reachable from ParseResult, is a map the walk does not enter", md.FullName(), fd.Name())
			}
			if sub := fd.Message(); sub != nil {
				reach(sub)
			}
		}
	}
	reach((&pg.ParseResult{}).ProtoReflect().Descriptor())
	if len(seen) < 200 {
		t.Fatalf("only %d message types reachable from ParseResult", len(seen))
	}

	nodeMembers := 0
	for _, mt := range types {
		md := mt.Descriptor()
		name := string(md.Name())
		// Every type is in the dispatch: an empty message is visited (a
		// Node holding nothing is nothing).
		zero := mt.New().Interface()
		if got := visits(walk, zero, always); name != "Node" && (len(got) != 1 || got[0].m != zero) {
			t.Errorf("%s: the walk of an empty message makes %d visits", name, len(got))
		}
		fds := md.Fields()
		// Each field that holds a message, alone.
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Message() == nil || fd.IsMap() {
				continue
			}
			m := mt.New()
			fill(m, fd)
			what := fmt.Sprintf("%s.%s", name, fd.Name())
			want := visits(reflectWalk, m.Interface(), always)
			got := visits(walk, m.Interface(), always)
			sameVisits(t, what, got, want)
			if min := 2; name == "Node" {
				nodeMembers++
				if len(got) != 1 || got[0].wrapper != m.Interface() {
					t.Errorf("%s: the held message is not visited with its Node as wrapper", what)
				}
			} else if len(got) < min {
				t.Errorf("%s: what the field holds is not visited (%d visits)", what, len(got))
			}
			// walkFields with the field skipped visits nothing; with
			// another name skipped, what the reference visits.
			skippedVisits := visits(func(m proto.Message, fn visitor) error { return walkFields(m, fn, string(fd.Name())) }, m.Interface(), always)
			if len(skippedVisits) != 0 {
				t.Errorf("%s: walkFields skipping it still makes %d visits", what, len(skippedVisits))
			}
			got = visits(func(m proto.Message, fn visitor) error { return walkFields(m, fn, "no_such_field") }, m.Interface(), always)
			want = visits(func(m proto.Message, fn visitor) error { return reflectFields(m.ProtoReflect(), fn, nil) }, m.Interface(), always)
			sameVisits(t, what+" (walkFields)", got, want)
		}
		// Every field at once (the first member of each oneof): the order.
		m := mt.New()
		oneofs := map[protoreflect.FullName]bool{}
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Message() == nil || fd.IsMap() {
				continue
			}
			if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				if oneofs[od.FullName()] {
					continue
				}
				oneofs[od.FullName()] = true
			}
			fill(m, fd)
		}
		sameVisits(t, name+" (every field)", visits(walk, m.Interface(), always), visits(reflectWalk, m.Interface(), always))
		// A visitor that does not descend stops the walk at the message.
		if got := visits(walk, m.Interface(), func(proto.Message) bool { return false }); name != "Node" && len(got) != 1 {
			t.Errorf("%s: not descending still makes %d visits", name, len(got))
		}
	}
	if want := (&pg.Node{}).ProtoReflect().Descriptor().Fields().Len(); nodeMembers != want || want < 200 {
		t.Fatalf("checked %d of Node's %d members", nodeMembers, want)
	}
}

// TestWalkRefusesAForeignMessage: a message type outside pg_query.proto
// is a panic (a refusal under rewriter.Guarded), never a silent skip.
func TestWalkRefusesAForeignMessage(t *testing.T) {
	for name, f := range map[string]func(){
		"walk": func() {
			_ = walk(&descriptorpb.FileDescriptorProto{}, func(proto.Message, *pg.Node) (bool, error) { return true, nil })
		},
		"walkFields": func() {
			_ = walkFields(&descriptorpb.FileDescriptorProto{}, func(proto.Message, *pg.Node) (bool, error) { return true, nil })
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of a foreign message did not panic", name)
				}
			}()
			f()
		}()
	}
}

// walkCorpus is every statement the package's tests, the cases it shares
// (dialecttest), its fuzz seed corpus and the driver's adversarial and
// other corpora hold that the parser reads: the string literals of those
// Go files and the corpus entries.
func walkCorpus(t *testing.T) []string {
	var out []string
	for _, s := range dialecttest.Corpus(t, "*_test.go", "../internal/dialecttest/*.go", "../../adversarial*_test.go", "../../*corpus*_test.go") {
		if _, err := pg.Parse(s); err == nil {
			out = append(out, s)
		}
	}
	if len(out) < 1000 {
		t.Fatalf("corpus too small: %d statements", len(out))
	}
	return out
}

// TestWalkMatchesTheReflectiveWalk compares the generated walk with the
// reflective one on the parse trees of the corpus and on the rewritten
// trees: the same visits in the same order, when the visitor descends
// everywhere and when it stops at subqueries; and the same result when
// the visitor replaces what a Node holds.
func TestWalkMatchesTheReflectiveWalk(t *testing.T) {
	decisions := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	notSubqueries := func(m proto.Message) bool {
		switch m.(type) {
		case *pg.SubLink, *pg.RangeSubselect, *pg.CommonTableExpr:
			return false
		}
		return true
	}
	rewritten := 0
	for _, sql := range walkCorpus(t) {
		trees := []proto.Message{mustParse(t, sql)}
		if res, err := (Dialect{}).Rewrite(context.Background(), request(sql, decisions)); err == nil {
			trees = append(trees, mustParse(t, res.SQL))
			rewritten++
		}
		for _, tree := range trees {
			sameVisits(t, sql, visits(walk, tree, always), visits(reflectWalk, tree, always))
			sameVisits(t, sql+" (pruned)", visits(walk, tree, notSubqueries), visits(reflectWalk, tree, notSubqueries))
			// Replacing a column reference in its Node: both walks still
			// enter the old one, and leave the same tree.
			a, b := proto.Clone(tree), proto.Clone(tree)
			var ta, tb []string
			replace := func(out *[]string) visitor {
				return func(m proto.Message, w *pg.Node) (bool, error) {
					*out = append(*out, fmt.Sprintf("%T/%v", m, w != nil))
					if _, ok := m.(*pg.ColumnRef); ok && w != nil {
						w.Node = &pg.Node_String_{String_: &pg.String{Sval: "replaced"}}
					}
					return true, nil
				}
			}
			_ = walk(a, replace(&ta))
			_ = reflectWalk(b, replace(&tb))
			if !slices.Equal(ta, tb) || !proto.Equal(a, b) {
				t.Fatalf("%s: replacing column references, the walks differ", sql)
			}
		}
	}
	if rewritten < 300 {
		t.Fatalf("only %d corpus statements rewritten", rewritten)
	}
}
