package postgres

import (
	"context"
	"slices"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

// samePrinted fails unless a and b keep the same kind and tables.
func samePrinted(t *testing.T, what string, got, want rewriter.Printed) {
	t.Helper()
	got.Tables, want.Tables = slices.Sorted(slices.Values(got.Tables)), slices.Sorted(slices.Values(want.Tables))
	if got.Kind != want.Kind || !slices.Equal(got.Tables, want.Tables) {
		t.Fatalf("%s: the encoding reads %s %q, the decoded tree %s %q", what, got.Kind, got.Tables, want.Kind, want.Tables)
	}
}

// TestPrintedFromWireMatchesTheDecodedTree: on the corpus, as parsed and
// as rewritten, reading the parser's encoding gives what printed gives of
// the decoded tree; a text of several statements is refused.
func TestPrintedFromWireMatchesTheDecodedTree(t *testing.T) {
	decisions := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	single, several := 0, 0
	for _, sql := range walkCorpus(t) {
		texts := []string{sql}
		if res, err := (Dialect{}).Rewrite(context.Background(), request(sql, decisions)); err == nil {
			texts = append(texts, res.SQL)
		}
		for _, text := range texts {
			encoded, err := parser.ParseToProtobuf(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			var tree pg.ParseResult
			if err := proto.Unmarshal(encoded, &tree); err != nil {
				t.Fatal(err)
			}
			got, err := printedFromWire(encoded)
			if len(tree.Stmts) != 1 {
				several++
				if err == nil {
					t.Fatalf("%s: %d statements read as one", text, len(tree.Stmts))
				}
				continue
			}
			single++
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			samePrinted(t, text, got, printed(tree.Stmts[0].Stmt))
		}
	}
	if single < 1000 || several < 10 {
		t.Fatalf("corpus too small: %d single statements, %d strings of several", single, several)
	}
}

// TestPrintedFromWireReadsEveryField: the scan knows every field that
// holds a message of every type a parse result reaches, and a relation
// reference placed in any of them, in a Node or in a typed field, is read.
func TestPrintedFromWireReadsEveryField(t *testing.T) {
	w := wireTypes()
	checked := 0
	for _, mt := range pgMessages(t) {
		md := mt.Descriptor()
		wt := w.types[md.FullName()]
		if wt == nil {
			if reachableFromParseResult(md) {
				t.Errorf("%s: reachable but not in the scan's types", md.FullName())
			}
			continue
		}
		fds := md.Fields()
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if fd.Message() == nil {
				continue
			}
			if c := wt.child(fd.Number()); c == nil || c.name != string(fd.Message().Name()) {
				t.Fatalf("%s: the scan does not know it holds a %s", fd.FullName(), fd.Message().Name())
			}
			// The field alone, holding relation references.
			m := mt.New()
			fillWithRelations(m, fd)
			encoded, err := proto.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			s := wireScan{rvf: w.rv}
			if err := s.message(encoded, wt, 0); err != nil {
				t.Fatalf("%s: %v", fd.FullName(), err)
			}
			want := printedOf(nil, rangeVars(m.Interface()))
			if len(want.Tables) == 0 && (fd.Message().Name() == "Node" || fd.Message().Name() == "RangeVar") {
				t.Fatalf("%s: no relation placed", fd.FullName())
			}
			samePrinted(t, string(fd.FullName()), rewriter.Printed{Kind: "unknown", Tables: s.tables}, want)
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("only %d fields checked", checked)
	}
	// printedFromWire takes the first Node under a RawStmt for the
	// statement's: the statement must be the only message a RawStmt holds.
	raw := (&pg.RawStmt{}).ProtoReflect().Descriptor().Fields()
	for i := 0; i < raw.Len(); i++ {
		if fd := raw.Get(i); fd.Message() != nil && fd.Name() != "stmt" {
			t.Fatalf("RawStmt holds a %s in %s besides its statement", fd.Message().Name(), fd.Name())
		}
	}
}

// reachableFromParseResult reports whether a parse result can hold md.
func reachableFromParseResult(md protoreflect.MessageDescriptor) bool {
	seen := map[protoreflect.FullName]bool{}
	var reach func(protoreflect.MessageDescriptor) bool
	reach = func(m protoreflect.MessageDescriptor) bool {
		if m.FullName() == md.FullName() {
			return true
		}
		if seen[m.FullName()] {
			return false
		}
		seen[m.FullName()] = true
		for i := 0; i < m.Fields().Len(); i++ {
			if sub := m.Fields().Get(i).Message(); sub != nil && reach(sub) {
				return true
			}
		}
		return false
	}
	return reach((&pg.ParseResult{}).ProtoReflect().Descriptor())
}

// fillWithRelations places in fd what can hold a relation reference: a
// Node holds a RangeVar, a RangeVar field a RangeVar, any other message
// an empty one; lists get two.
func fillWithRelations(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	leaf := func(child protoreflect.Message) protoreflect.Value {
		rv := &pg.RangeVar{Catalogname: "c", Schemaname: "s", Relname: "hidden", Inh: true, Relpersistence: "p"}
		switch c := child.Interface().(type) {
		case *pg.Node:
			c.Node = &pg.Node_RangeVar{RangeVar: rv}
		case *pg.RangeVar:
			proto.Merge(c, rv)
		}
		return protoreflect.ValueOfMessage(child)
	}
	if !fd.IsList() {
		m.Set(fd, leaf(m.NewField(fd).Message()))
		return
	}
	l := m.Mutable(fd).List()
	for range 2 {
		l.Append(leaf(l.NewElement().Message()))
	}
}

// TestPrintedFromWireRefusesWhatTheParserDoesNotWrite: encodings protobuf
// would decode to a different tree than the scan reads (a field twice, a
// Node holding two things), and broken ones, are refused or read as more
// relations than the tree has, which the check refuses.
func TestPrintedFromWireRefusesWhatTheParserDoesNotWrite(t *testing.T) {
	w := wireTypes()
	one, err := parser.ParseToProtobuf("SELECT * FROM shop.orders")
	if err != nil {
		t.Fatal(err)
	}
	var tree pg.ParseResult
	if err := proto.Unmarshal(one, &tree); err != nil {
		t.Fatal(err)
	}
	want := printed(tree.Stmts[0].Stmt)
	if got, err := printedFromWire(one); err != nil {
		t.Fatal(err)
	} else {
		samePrinted(t, "the statement", got, want)
	}
	stmts, _ := fieldValues(one, w.stmts)
	stmt, _ := fieldValues(stmts[0], w.stmt)
	rawStmt := func(b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, w.stmts, protowire.BytesType), b)
	}
	withStmt := func(node []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, w.stmt, protowire.BytesType), node)
	}
	// A second member of the statement's Node: a relation the decoder
	// keeps in place of the SELECT.
	other, err := proto.Marshal(&pg.Node{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: "customers"}}})
	if err != nil {
		t.Fatal(err)
	}
	twoMembers := append(append([]byte(nil), stmt[0]...), other...)
	// The SELECT's relation written twice in its RangeVar field: the
	// decoder merges them into one.
	var again pg.ParseResult
	proto.Merge(&again, &tree)
	from := again.Stmts[0].Stmt.GetSelectStmt().FromClause[0]
	fromBytes, err := proto.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	rvNum := (&pg.Node{}).ProtoReflect().Descriptor().Fields().ByName("range_var").Number()
	_, _, n := protowire.ConsumeTag(fromBytes)
	rvBytes, _ := protowire.ConsumeBytes(fromBytes[n:])
	dupFrom := append(append([]byte(nil), fromBytes...), protowire.AppendBytes(protowire.AppendTag(nil, rvNum, protowire.BytesType), rvBytes)...)
	var merged pg.Node
	if err := proto.Unmarshal(dupFrom, &merged); err != nil || merged.GetRangeVar() == nil {
		t.Fatalf("the duplicated relation does not decode: %v", err)
	}
	again.Stmts[0].Stmt.GetSelectStmt().FromClause[0] = &merged
	decoded := printed(again.Stmts[0].Stmt)
	sel := again.Stmts[0].Stmt.GetSelectStmt()
	sel.FromClause = nil
	selBytes, err := proto.Marshal(again.Stmts[0].Stmt)
	if err != nil {
		t.Fatal(err)
	}
	fromNum := (&pg.SelectStmt{}).ProtoReflect().Descriptor().Fields().ByName("from_clause").Number()
	selNum := (&pg.Node{}).ProtoReflect().Descriptor().Fields().ByName("select_stmt").Number()
	_, _, n = protowire.ConsumeTag(selBytes)
	selBody, _ := protowire.ConsumeBytes(selBytes[n:])
	selBody = protowire.AppendBytes(protowire.AppendTag(selBody, fromNum, protowire.BytesType), dupFrom)
	dupSel := protowire.AppendBytes(protowire.AppendTag(nil, selNum, protowire.BytesType), selBody)
	var dupTree pg.ParseResult
	if err := proto.Unmarshal(rawStmt(withStmt(dupSel)), &dupTree); err != nil || len(printed(dupTree.Stmts[0].Stmt).Tables) != 1 {
		t.Fatalf("the decoder does not merge the relation written twice: %v", err)
	}
	if got, err := printedFromWire(rawStmt(withStmt(dupSel))); err == nil {
		if len(got.Tables) != 2 || len(decoded.Tables) != 1 || rewriter.VerifyPrinted(decoded, got) == nil {
			t.Fatalf("a relation written twice read as the decoder's one: %q, %q", got.Tables, decoded.Tables)
		}
	}

	for name, b := range map[string][]byte{
		"two statements":             append(append([]byte(nil), one...), one...),
		"no statement":               nil,
		"a statement without a Node": rawStmt(nil),
		"a Node holding nothing":     rawStmt(withStmt(nil)),
		"two Nodes in a statement":   rawStmt(append(withStmt(stmt[0]), withStmt(stmt[0])...)),
		"a Node holding two things":  rawStmt(withStmt(twoMembers)),
		"cut short":                  one[:len(one)-3],
		"a bad tag":                  append(append([]byte(nil), one...), 0xff),
	} {
		if got, err := printedFromWire(b); err == nil {
			t.Errorf("%s: read as %s %q", name, got.Kind, got.Tables)
		}
	}
}
