package rewriter

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/udf"
)

func TestTextMemo(t *testing.T) {
	m := TextMemo{Max: 2}
	calls := 0
	upper := func(s string) (string, error) {
		calls++
		if s == "bad" {
			return "", errors.New("bad")
		}
		return strings.ToUpper(s), nil
	}
	for _, in := range []string{"a", "a", "b", "b", "c", "c", "bad", "bad"} {
		out, err := m.Do(in, upper)
		if in == "bad" {
			if err == nil {
				t.Fatal("error not returned")
			}
			continue
		}
		if err != nil || out != strings.ToUpper(in) {
			t.Fatalf("%s: %q %v", in, out, err)
		}
	}
	// a and b are remembered; c fills the memo past Max, which starts
	// over with c; the failing text is computed each time.
	if calls != 5 {
		t.Fatalf("calls = %d, want 5", calls)
	}
	if out, _ := m.Do("c", upper); out != "C" || calls != 5 {
		t.Fatalf("c was not remembered: %q, %d calls", out, calls)
	}
	if out, _ := m.Do("a", upper); out != "A" || calls != 6 {
		t.Fatalf("a was remembered past the start over: %q, %d calls", out, calls)
	}
}

// TestMaskSQLMemo: the remembered masks are udf.MaskSQL's answers for
// exactly the arguments given, also where two argument lists would join
// to the same text, and errors are still errors.
func TestMaskSQLMemo(t *testing.T) {
	type call struct {
		t    udf.Target
		typ  string
		args []string
		expr string
	}
	pg := udf.Target{Dialect: udf.Postgres, Column: `"t"."ssn"`, DataType: "character varying", ColumnType: "character varying(11)"}
	my := udf.Target{Dialect: udf.MySQL, Column: "`t`.`ssn`", DataType: "varchar", ColumnType: "varchar(11)"}
	myNamed := my
	myNamed.NamedClasses = true
	other := pg
	other.Column = `"t"."name"`
	pgNamed := pg
	pgNamed.NamedClasses = true
	pgNamedC := pgNamed
	pgNamedC.Collation = `"pg_catalog"."C"`
	num := udf.Target{Dialect: udf.Postgres, Column: `"t"."n"`, DataType: "integer", ColumnType: "integer"}
	calls := []call{
		{pg, "MASK_SHOW_LAST_4", nil, ""},
		{my, "MASK_SHOW_LAST_4", nil, ""},
		{myNamed, "MASK_SHOW_LAST_4", nil, ""},
		{other, "MASK_SHOW_LAST_4", nil, ""},
		{pgNamed, "MASK_SHOW_LAST_4", nil, ""},
		{pgNamedC, "MASK_SHOW_LAST_4", nil, ""},
		{pg, "MASK_SHOW_FIRST_4", nil, ""},
		{pg, "MASK", []string{"X", "x"}, ""},
		{pg, "MASK", []string{"Xx"}, ""},
		{pg, "MASK", []string{"X", "x", "n"}, ""},
		{pg, "CUSTOM", nil, "upper({col})"},
		{pg, "CUSTOM", nil, "lower({col})"},
		{num, "MASK_HASH", nil, ""},
		{num, "MASK_NULL", nil, ""},
		{pg, "NO_SUCH_MASK", nil, ""},
	}
	for round := range 2 {
		for _, c := range calls {
			want, wantErr := udf.MaskSQL(c.t, c.typ, c.args, c.expr)
			got, err := maskSQL(c.t, c.typ, c.args, c.expr)
			if got != want || (err == nil) != (wantErr == nil) {
				t.Fatalf("round %d, %+v: %q, %v; udf.MaskSQL gives %q, %v", round, c, got, err, want, wantErr)
			}
		}
	}
	if memoKey([]string{"a", "b"}) == memoKey([]string{"ab"}) || memoKey([]string{"1:a"}) == memoKey([]string{"1", "a"}) {
		t.Fatal("two lists of parts give one key")
	}
}

func TestExprForm(t *testing.T) {
	parses := 0
	f := NewExprForm(1, func(text string) ([]string, error) {
		parses++
		if text == "" {
			return nil, errors.New("empty")
		}
		return strings.Fields(text), nil
	}, func(words []string) (string, error) { return strings.Join(words, " "), nil })
	for _, in := range []string{"a  b", "a  b", "c", "c"} {
		if out, err := f.Of(in); err != nil || out != strings.Join(strings.Fields(in), " ") {
			t.Fatalf("%q: %q %v", in, out, err)
		}
	}
	// "a  b" is remembered; "c" takes its place (a memo of one starts
	// over) and is remembered in turn.
	if parses != 2 {
		t.Fatalf("%d parses, want 2", parses)
	}
	if _, err := f.Of(""); err == nil {
		t.Fatal("a parse error was not returned")
	}
}

// TestBounded: a full map starts over; a key keeps its first value.
func TestBounded(t *testing.T) {
	b := Bounded[string, int]{Max: 2}
	if got := b.Put("a", 1); got != 1 {
		t.Fatalf("put a: %d", got)
	}
	if got := b.Put("a", 2); got != 1 {
		t.Fatalf("a second put of a replaced it: %d", got)
	}
	b.Put("b", 2)
	if len(b.Snapshot()) != 2 {
		t.Fatalf("entries: %v", b.Snapshot())
	}
	b.Put("c", 3)
	if _, ok := b.Get("a"); ok {
		t.Fatal("a full map did not start over")
	}
	if v, ok := b.Get("c"); !ok || v != 3 {
		t.Fatalf("c: %d %v", v, ok)
	}
}
