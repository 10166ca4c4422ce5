package udf

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

func TestKindOf(t *testing.T) {
	cases := map[string]Kind{
		"varchar": KindString, "char": KindString, "text": KindString, "tinytext": KindString,
		"mediumtext": KindString, "longtext": KindString, "enum": KindString,
		"character varying": KindString, "character": KindString, " Character  Varying ": KindString,
		"tinyint": KindInteger, "smallint": KindInteger, "mediumint": KindInteger, "int": KindInteger,
		"integer": KindInteger, "bigint": KindInteger,
		"date": KindDate, "DATE": KindDate,
		"datetime": KindOther, "timestamp without time zone": KindOther, "decimal": KindOther,
		"numeric": KindOther, "uuid": KindOther, "json": KindOther, "blob": KindOther, "": KindOther,
		"USER-DEFINED": KindOther, "year": KindOther, "double precision": KindOther,
	}
	for in, want := range cases {
		if got := KindOf(in); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestValidateMask(t *testing.T) {
	ok := []struct {
		typ  string
		args []string
		expr string
	}{
		{TypeMask, nil, ""},
		{"mask", []string{"X", "x", "n", "-1", "1", "1", "0", "0"}, ""},
		{TypeMask, []string{"", "", "", "*"}, ""},
		{TypeShowLast4, nil, ""},
		{TypeShowFirst4, nil, ""},
		{TypeHash, nil, ""},
		{TypeHash, []string{"SHA512"}, ""},
		{TypeHash, []string{"md5"}, ""},
		{TypeNull, nil, ""},
		{TypeNone, nil, ""},
		{TypeDateShowYear, nil, ""},
		{TypeCustom, nil, "concat({col}, 'x')"},
		{TypeShowFirstN, []string{"6"}, ""},
		{TypeShowLastN, []string{"-3"}, ""}, // Hive: negative counts are 0
		{TypeFirstN, []string{"2147483647"}, ""},
		{TypeLastN, []string{"4", "😀"}, ""},
		{TypeRedact, nil, ""},
		{TypeRedact, []string{"'; DROP TABLE t; --"}, ""},
		{TypeRegexpReplace, []string{`\d{3}-\d{4}`, "###-####"}, ""},
		{TypeRegexpReplace, []string{`a|b`, ""}, ""},           // a class, not an alternation
		{TypeMask, []string{"-1", "-1", "-1", "-1", "42"}, ""}, // out-of-range number: Hive's default
	}
	for _, c := range ok {
		if err := ValidateMask(c.typ, c.args, c.expr); err != nil {
			t.Errorf("ValidateMask(%s, %q): %v", c.typ, c.args, err)
		}
	}
	bad := []struct {
		typ  string
		args []string
		expr string
	}{
		{"", nil, ""},
		{"MASK_SOMETHING", nil, ""},
		{TypeShowLast4, []string{"3"}, ""},
		{TypeNull, []string{"x"}, ""},
		{TypeShowFirstN, nil, ""},
		{TypeShowFirstN, []string{"four"}, ""},
		{TypeShowFirstN, []string{"99999999999"}, ""},
		{TypeMask, []string{"\x00"}, ""},
		{TypeMask, []string{"\uFFFF"}, ""},
		{TypeMask, []string{"\uFDD0"}, ""},
		{TypeMask, []string{"\xff"}, ""},
		{TypeMask, []string{"x", "x", "x", "x", "one"}, ""},
		{TypeMask, []string{"x", "x", "x", "x", "1", "1", "0", "10000"}, ""},
		{TypeMask, []string{"x", "x", "x", "x", "1", "1", "0", "-5"}, ""},
		{TypeMask, make([]string, 9), ""},
		{TypeHash, []string{"sha1"}, ""},
		{TypeHash, []string{"sha256", "x"}, ""},
		{TypeCustom, nil, "   "},
		{TypeCustom, []string{"x"}, "{col}"},
		{TypeRedact, []string{"a", "b"}, ""},
		{TypeRedact, []string{"a\x00"}, ""},
		{TypeRegexpReplace, []string{"x"}, ""},
		{TypeRegexpReplace, []string{"", "x"}, ""},
		{TypeRegexpReplace, []string{"ab|cd", "x"}, ""},
		{TypeRegexpReplace, []string{"a+?", "x"}, ""},
		{TypeRegexpReplace, []string{"a*", "x"}, ""},
		{TypeRegexpReplace, []string{"(ab)+", "x"}, ""},
		{TypeRegexpReplace, []string{"(?m)^a", "x"}, ""},
		{TypeRegexpReplace, []string{`\bword`, "x"}, ""},
		{TypeRegexpReplace, []string{"a{300}", "x"}, ""},
		{TypeRegexpReplace, []string{"a^b", "x"}, ""},
		{TypeRegexpReplace, []string{"[", "x"}, ""},
		{TypeRegexpReplace, []string{"a", "x\x00"}, ""},
	}
	for _, c := range bad {
		if err := ValidateMask(c.typ, c.args, c.expr); err == nil {
			t.Errorf("ValidateMask(%s, %q, %q) accepted", c.typ, c.args, c.expr)
		}
	}
}

func TestMaskSQLRefuses(t *testing.T) {
	my := func(dt, ct string) Target {
		return Target{Dialect: MySQL, Column: "`t`.`c`", DataType: dt, ColumnType: ct}
	}
	pg := func(dt, ct string) Target {
		return Target{Dialect: Postgres, Column: `"t"."c"`, DataType: dt, ColumnType: ct}
	}
	bad := []struct {
		t    Target
		typ  string
		args []string
	}{
		{my("decimal", "decimal(10,2)"), TypeMask, nil},
		{pg("numeric", "numeric"), TypeShowLast4, nil},
		{my("datetime", "datetime"), TypeDateShowYear, nil},
		{pg("timestamp without time zone", "timestamp without time zone"), TypeHash, nil},
		{my("json", "json"), TypeRegexpReplace, []string{"a", "b"}},
		{my("bigint", "bigint(20) unsigned"), TypeMask, nil},
		{my("int", "int(11)"), TypeRegexpReplace, []string{"1", "2"}},
		{pg("date", "date"), TypeRegexpReplace, []string{"1", "2"}},
		{my("int", "int(11)"), TypeRedact, []string{"abc"}},
		{pg("smallint", "smallint"), TypeRedact, []string{"40000"}},
		{my("date", "date"), TypeRedact, []string{"yesterday"}},
		{pg("date", "date"), TypeRedact, []string{"2023-02-30"}},
		// Days that do not exist for some input: Hive fails at run time.
		{my("date", "date"), TypeMask, []string{"", "", "", "", "", "31", "1", "-1"}},
		{pg("date", "date"), TypeMask, []string{"", "", "", "", "", "30", "-1", "-1"}},
		{pg("date", "date"), TypeMask, []string{"", "", "", "", "", "-1", "1", "2001"}},
		{pg("date", "date"), TypeMask, []string{"", "", "", "", "", "-1", "-1", "2001"}},
		{pg("date", "date"), TypeMask, []string{"", "", "", "", "", "29", "1", "-1"}},
		{Target{Dialect: "oracle", Column: "c", DataType: "varchar"}, TypeMask, nil},
		{Target{Dialect: MySQL, Column: " ", DataType: "varchar"}, TypeMask, nil},
	}
	for _, c := range bad {
		if s, err := MaskSQL(c.t, c.typ, c.args, ""); err == nil {
			t.Errorf("MaskSQL(%+v, %s, %q) = %s, want an error", c.t, c.typ, c.args, abbrev(s))
		}
	}
	// Valid date combinations.
	for _, args := range [][]string{
		{"", "", "", "", "", "29", "1", "2000"}, {"", "", "", "", "", "28", "1", "-1"}, {"", "", "", "", "", "-1", "-1", "2000"},
		{"", "", "", "", "", "-1", "0", "-1"}, {"", "", "", "", "", "31", "11", "-1"}, {"", "", "", "", "", "-1", "-1", "0"},
	} {
		if _, err := MaskSQL(pg("date", "date"), TypeMask, args, ""); err != nil {
			t.Errorf("date mask %q: %v", args, err)
		}
	}
	for _, args := range [][]string{
		{"", "", "", "", "", "28", "1", "0"}, {"", "", "", "", "", "29", "2", "0"}, {"", "", "", "", "", "-1", "0", "0"},
		{"", "", "", "", "", "29", "1", "0"}, {"", "", "", "", "", "-1", "-1", "0"},
		{"", "", "", "", "", "29", "1", "2000"}, {"", "", "", "", "", "-1", "-1", "2000"},
	} {
		if _, err := MaskSQL(my("date", "date"), TypeMask, args, ""); err != nil {
			t.Errorf("MariaDB date mask %q: %v", args, err)
		}
	}
}

func TestMaskSQLAnyType(t *testing.T) {
	for _, c := range []struct {
		t    Target
		typ  string
		args []string
		want string
	}{
		{Target{MySQL, "`t`.`c`", "decimal", "decimal(10,2)", false, "", false}, TypeNull, nil, "CAST(NULL AS DECIMAL(10,2))"},
		{Target{MySQL, "`t`.`c`", "int", "int(10) unsigned", false, "", false}, TypeNull, nil, "CAST(NULL AS UNSIGNED)"},
		{Target{MySQL, "`t`.`c`", "datetime", "datetime(3)", false, "", false}, TypeNull, nil, "CAST(NULL AS DATETIME(3))"},
		{Target{MySQL, "`t`.`c`", "varchar", "varchar(3)", false, "", false}, TypeNull, nil, "CONVERT(NULL USING utf8mb4) COLLATE utf8mb4_bin"},
		{Target{MySQL, "`t`.`c`", "geometry", "geometry", false, "", false}, TypeNull, nil, "NULL"},
		{Target{Postgres, `"t"."c"`, "numeric", "numeric(10,2)", false, "", false}, TypeNull, nil, "CAST(NULL AS numeric(10,2))"},
		{Target{Postgres, `"t"."c"`, "character varying", "character varying(40)", false, "", false}, TypeNull, nil, "CAST(NULL AS character varying(40))"},
		{Target{Postgres, `"t"."c"`, "USER-DEFINED", `"Mood"; drop`, false, "", false}, TypeNull, nil, "NULL"},
		{Target{Postgres, `"t"."c"`, "ARRAY", "integer[]", false, "", false}, TypeNull, nil, "CAST(NULL AS integer[])"},
		{Target{Postgres, `"t"."c"`, "uuid", "uuid", false, "", false}, TypeNone, nil, `"t"."c"`},
		{Target{Postgres, `"t"."c"`, "uuid", "uuid", false, "", false}, TypeRedact, []string{"00000000-0000-0000-0000-000000000000"},
			`CASE WHEN "t"."c" IS NULL THEN CAST(NULL AS uuid) ELSE CAST('00000000-0000-0000-0000-000000000000' AS uuid) END`},
		{Target{MySQL, "`t`.`c`", "json", "json", false, "", false}, TypeCustom, nil, "(JSON_REMOVE(`t`.`c`, '$.ssn') || `t`.`c`)"},
		{Target{Postgres, `"t"."c"`, "integer", "integer", false, "", false}, TypeHash, nil, "CAST(NULL AS integer)"},
	} {
		custom := ""
		if c.typ == TypeCustom {
			custom = "JSON_REMOVE({col}, '$.ssn') || {col}"
		}
		got, err := MaskSQL(c.t, c.typ, c.args, custom)
		if err != nil || got != c.want {
			t.Errorf("MaskSQL(%+v, %s) = %q, %v; want %q", c.t, c.typ, got, err, c.want)
		}
	}
}

// literalsOf returns the contents of the single-quoted literals of a SQL
// text the package wrote, and false if the quotes do not balance.
func literalsOf(sql string) ([]string, bool) {
	var lits []string
	for i := 0; i < len(sql); i++ {
		if sql[i] != '\'' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(sql); j++ {
			if sql[j] == '\'' {
				if j+1 < len(sql) && sql[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			b.WriteByte(sql[j])
		}
		if j >= len(sql) {
			return nil, false
		}
		lits = append(lits, b.String())
		i = j
	}
	return lits, true
}

// checkEmitted asserts the safety properties of an emitted expression: its
// literals balance and hold no backslash, and the rewriters' parsers see
// exactly one expression.
func checkEmitted(t *testing.T, d Dialect, expr string) {
	t.Helper()
	lits, ok := literalsOf(expr)
	if !ok {
		t.Fatalf("unbalanced quotes in %s", abbrev(expr))
	}
	for _, l := range lits {
		if strings.Contains(l, `\`) {
			t.Fatalf("backslash inside a literal in %s", abbrev(expr))
		}
	}
	if _, err := reformat(d, expr); err != nil {
		t.Fatalf("%s does not parse as one expression: %v", abbrev(expr), err)
	}
}

func TestMaskSQLParametersStayLiterals(t *testing.T) {
	nasty := []string{`'`, `''`, `\`, `\'`, `'\`, `\\'`, `' OR 1=1 -- `, `*/ x /*`, `"`, "`", `$$`, `E'\x'`, "a\nb", `%`, `?`, `$1`, `}`, `{col}`}
	for _, d := range []Dialect{MySQL, Postgres} {
		col := "`t`.`c`"
		if d == Postgres {
			col = `"t"."c"`
		}
		str := Target{Dialect: d, Column: col, DataType: "varchar", ColumnType: "varchar(20)"}
		if d == Postgres {
			str.DataType, str.ColumnType = "text", "text"
		}
		for _, n := range nasty {
			exprs := []struct {
				typ  string
				args []string
			}{
				{TypeRedact, []string{n}},
				{TypeMask, []string{n, n, n, n}},
				{TypeShowLastN, []string{"2", n, "-1", n, n}},
				{TypeRegexpReplace, []string{"[a-z]", n}},
			}
			for _, e := range exprs {
				s, err := MaskSQL(str, e.typ, e.args, "")
				if err != nil {
					t.Fatalf("%s %q: %v", e.typ, e.args, err)
				}
				checkEmitted(t, d, s)
			}
		}
	}
}

// javaMask is an independent model of the Java integer loops: int64
// arithmetic, narrowed explicitly where Java narrows (compound assignment to
// a byte/short/int, int multiplication for pos and numberChar*pos).
func javaMask(f fn, n, number, bits int, value int64) int64 {
	narrow := func(x int64, b int) int64 {
		if b == 64 {
			return x
		}
		s := 64 - uint(b)
		return x << s >> s
	}
	posBits := 32
	if bits == 64 {
		posBits = 64
	}
	if value == 0 {
		switch f {
		case fnMask:
			return int64(number)
		case fnFirstN, fnLastN:
			if n > 0 {
				return int64(number)
			}
			return 0
		default:
			if n == 0 {
				return int64(number)
			}
			return 0
		}
	}
	val := value
	if value < 0 {
		val = narrow(val*-1, bits)
	}
	digits := 0
	for v := val; v != 0; v = narrow(v/10, bits) {
		digits++
	}
	var ret, pos int64 = 0, 1
	for i := 0; val != 0; i++ {
		var m bool
		switch f {
		case fnMask:
			m = true
		case fnFirstN:
			m = i >= max(digits-n, 0)
		case fnLastN:
			m = i < n
		case fnShowFirstN:
			if digits-n <= 0 {
				return value
			}
			m = i < digits-n
		case fnShowLastN:
			m = i >= n
		}
		if m {
			ret = narrow(ret+narrow(int64(number)*pos, posBits), bits)
		} else {
			ret = narrow(ret+narrow((val%10)*pos, posBits), bits)
		}
		val = narrow(val/10, bits)
		pos = narrow(pos*10, posBits)
	}
	if value < 0 {
		ret = narrow(ret*-1, bits)
	}
	return ret
}

func TestIntegerMaskMatchesJavaModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fns := []fn{fnMask, fnFirstN, fnLastN, fnShowFirstN, fnShowLastN}
	for _, bits := range []int{8, 16, 32, 64} {
		lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
		if bits == 64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		values := []int64{lo, hi, 0, 1, -1, lo + 1, hi - 1, 10, -10}
		for range 3000 {
			v := int64(r.Uint64())
			if bits < 64 {
				v = v >> (64 - bits)
			}
			values = append(values, v)
		}
		for _, v := range values {
			for _, f := range fns {
				for _, n := range []int{0, 1, 2, 3, 4, 7, 20} {
					for _, num := range []int{0, 1, 5, 9} {
						tr := &transformer{fn: f, n: n, number: num}
						got := hiveIntResult(tr, bits, v)
						if want := javaMask(f, n, num, bits, v); got != want {
							t.Fatalf("bits %d fn %d n %d number %d value %d: got %d, Java model %d", bits, f, n, num, v, got, want)
						}
					}
				}
			}
		}
	}
}

func TestStringsPerUTF16Unit(t *testing.T) {
	cases := []struct {
		f    func(any, ...any) (any, error)
		in   string
		args []any
		want string
	}{
		// A supplementary character is two "other" units.
		{Mask, "a😀B", []any{"X", "x", "n", "*"}, "x**X"},
		{Mask, "a😀B", nil, "x😀X"},
		// Cut pair: the kept half is a lone surrogate, written '?'.
		{MaskFirstN, "a😀b", []any{2, "X", "x", "n", "*"}, "x*?b"},
		{MaskLastN, "a😀b", []any{2, "X", "x", "n", "*"}, "a?*x"},
		{MaskShowFirstN, "a😀b", []any{2, "X", "x", "n", "*"}, "a?*x"},
		{MaskShowLastN, "a😀b", []any{2, "X", "x", "n", "*"}, "x*?b"},
		// With other characters kept, the halves join again.
		{MaskFirstN, "a😀b", []any{2}, "x😀b"},
		{MaskShowLastN, "ab😀", []any{2}, "xx😀"},
		{MaskShowLastN, "😀ab", []any{2}, "😀ab"},
		// Lengths count units.
		{MaskShowFirstN, "😀😀", []any{3}, "😀😀"},
		{MaskShowFirstN, "😀😀", []any{4}, "😀😀"},
		// Replacements: int code points, first unit of a string, -1.
		{Mask, "Ab1", []any{0x1F600, -1, int64('#')}, "😀b#"},
		{Mask, "Ab1", []any{"😀", -1, -1}, "?b1"}, // a lone high surrogate
		{Mask, "AB", []any{0xD83D}, "??"},        // surrogate code points stay lone
		{Mask, "Ab1", []any{"", "", "", ""}, "Xxn"},
		{Mask, "Ab1", []any{nil, "yes"}, "Xyn"},
		// Classes are Unicode categories.
		{Mask, "ǅΣσ١߀Ⅻ", nil, "ǅXxnnⅫ"},
	}
	for _, c := range cases {
		got, err := c.f(c.in, c.args...)
		if err != nil || got != c.want {
			t.Errorf("%q %v: got %q, %v; want %q", c.in, c.args, got, err, c.want)
		}
	}
	if _, err := Mask("A", -5); !errors.Is(err, errInvalidCodePoint) {
		t.Errorf("negative code point: %v", err)
	}
	if got, err := Mask("a", -5); err != nil || got != "x" {
		t.Errorf("an unused invalid replacement is no error in Hive: %v %v", got, err)
	}
	if _, err := Mask("a", "x", "x", "x", "x", "nine"); err == nil {
		t.Error("numberChar \"nine\" accepted")
	}
}

func TestReferenceTypes(t *testing.T) {
	fns := map[string]func(any, ...any) (any, error){
		"Mask": Mask, "MaskFirstN": MaskFirstN, "MaskLastN": MaskLastN,
		"MaskShowFirstN": MaskShowFirstN, "MaskShowLastN": MaskShowLastN,
	}
	d := time.Date(2016, 4, 20, 0, 0, 0, 0, time.UTC)
	for name, f := range fns {
		for _, v := range []any{nil, "x", int8(-7), int16(7), int32(7), int64(7), d} {
			got, err := f(v)
			if err != nil {
				t.Fatalf("%s(%v): %v", name, v, err)
			}
			if v == nil && got != nil || v != nil && (got == nil || typeName(got) != typeName(v)) {
				t.Errorf("%s(%T) = %T", name, v, got)
			}
		}
		for _, v := range []any{1.5, true, []byte("x"), 7, uint64(7)} {
			if got, err := f(v); err != nil || got != nil {
				t.Errorf("%s(%T) = %v, %v; want NULL", name, v, got, err)
			}
		}
	}
	if got, _ := MaskHash(int32(5)); got != nil {
		t.Errorf("mask_hash on an int = %v", got)
	}
	if got, _ := MaskHash(d); got != nil {
		t.Errorf("mask_hash on a date = %v", got)
	}
	if got, _ := MaskHash(nil); got != nil {
		t.Errorf("mask_hash(NULL) = %v", got)
	}
	if _, err := MaskHash("x", "sha1"); err == nil {
		t.Error("unknown algorithm accepted")
	}
	// Dates: (day, month, year), 0-based month, -1 keeps; nonexistent days
	// fail like Hive's Date.of.
	got, err := Mask(d, -1, -1, -1, -1, -1, 31, 11, 1999)
	if err != nil || got != time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC) {
		t.Errorf("date mask: %v %v", got, err)
	}
	if _, err := Mask(time.Date(2016, 3, 31, 0, 0, 0, 0, time.UTC), -1, -1, -1, -1, -1, -1, 1, -1); !errors.Is(err, ErrInvalidDate) {
		t.Errorf("2016-02-31: %v", err)
	}
	if got, err := Mask(time.Date(2016, 2, 29, 0, 0, 0, 0, time.UTC), -1, -1, -1, -1, -1, -1, -1, 0); err != nil || got.(time.Time).Year() != 0 {
		t.Errorf("year 0 is a leap year in Hive: %v %v", got, err)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int8:
		return "int8"
	case int16:
		return "int16"
	case int32:
		return "int32"
	case int64:
		return "int64"
	case time.Time:
		return "date"
	}
	return "?"
}

func TestApply(t *testing.T) {
	check := func(typ string, args []string, in, want any) {
		t.Helper()
		got, err := Apply(typ, args, "", in)
		if err != nil || got != want {
			t.Errorf("Apply(%s, %q, %v) = %v (%T), %v; want %v (%T)", typ, args, in, got, got, err, want, want)
		}
	}
	check(TypeShowLast4, nil, "4111-1111-1111-1234", "xxxx-xxxx-xxxx-1234")
	check(TypeShowFirst4, nil, "Hello World", "Hellx xxxxx")
	check(TypeShowLast4, nil, int64(4111111111111234), int64(1111111111111234))
	check(TypeMask, nil, "Abc-12", "Xxx-nn")
	check(TypeMask, []string{"-1", "-1", "-1", "😀x"}, "a-b", "a😀b")
	check(TypeMask, []string{"-1", "-1", "-1", "-1", "7"}, int32(-12), int32(-77))
	check(TypeDateShowYear, nil, time.Date(1987, 6, 5, 0, 0, 0, 0, time.UTC), time.Date(1987, 1, 1, 0, 0, 0, 0, time.UTC))
	check(TypeDateShowYear, nil, "1987-06-05", "xxxx-xx-xx")
	check(TypeHash, nil, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	check(TypeHash, []string{"md5"}, "abc", "900150983cd24fb0d6963f7d28e17f72")
	check(TypeHash, nil, int64(1), nil)
	check(TypeNull, nil, "x", nil)
	check(TypeNone, nil, "x", "x")
	check(TypeRedact, nil, "x", "REDACTED")
	check(TypeRedact, nil, nil, nil)
	check(TypeRedact, nil, int16(5), nil)
	check(TypeRedact, []string{"-3"}, int16(5), int16(-3))
	check(TypeRedact, []string{"x"}, "secret", "x")
	check(TypeRegexpReplace, []string{`\d`, "#"}, "a1b22", "a#b##")
	check(TypeRegexpReplace, []string{`\d`, "$1"}, "a1", "a$1")
	check(TypeShowLastN, []string{"2", "*", "*", "*", "*"}, "abcd", "**cd")
	if _, err := Apply(TypeCustom, nil, "{col}", "x"); !errors.Is(err, ErrNotComputable) {
		t.Errorf("CUSTOM: %v", err)
	}
	if _, err := Apply(TypeRegexpReplace, []string{"a", "b"}, "", int32(1)); err == nil {
		t.Error("REGEXP_REPLACE on an int accepted")
	}
	if _, err := Apply("nope", nil, "", "x"); err == nil {
		t.Error("unknown type accepted")
	}
}

func TestEncodeJava(t *testing.T) {
	hi, lo := utf16.EncodeRune('😀')
	for _, c := range []struct {
		in   []uint16
		want string
	}{
		{[]uint16{'a', uint16(hi), uint16(lo), 'b'}, "a😀b"},
		{[]uint16{uint16(hi)}, "?"},
		{[]uint16{uint16(lo), uint16(hi)}, "??"},
		{[]uint16{uint16(hi), uint16(hi), uint16(lo)}, "?😀"},
	} {
		if got := encodeJava(c.in); got != c.want {
			t.Errorf("encodeJava(%x) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPassOrder(t *testing.T) {
	// Defaults: upper -> 'X' (upper), lower -> 'x', digit -> 'n' (lower):
	// lower must be rewritten before digit.
	order, ok := passOrder([4]int{'X', 'x', 'n', keep})
	if !ok || len(order) != 3 {
		t.Fatalf("%v %v", order, ok)
	}
	pos := map[int]int{}
	for i, p := range order {
		for c := range 4 {
			if p.classes&(1<<c) != 0 {
				pos[c] = i
			}
		}
	}
	if pos[clsLower] > pos[clsDigit] {
		t.Errorf("lower after digit: %v", order)
	}
	// One replacement for all: one pass.
	if order, ok := passOrder([4]int{'x', 'x', 'x', 'x'}); !ok || len(order) != 1 || order[0].classes != 15 {
		t.Errorf("%v %v", order, ok)
	}
	// A swap is a cycle.
	if _, ok := passOrder([4]int{'a', 'B', keep, keep}); ok {
		t.Error("swap not detected")
	}
}

// TestRedactConstantMustFitType: a REDACT constant is accepted only when
// the column's type holds it as written, the same for both dialects, so
// that no server turns it into NULL, rounds it, or fails on it.
func TestRedactConstantMustFitType(t *testing.T) {
	for _, d := range []Dialect{MySQL, Postgres} {
		for _, c := range []struct {
			dataType, columnType, constant string
			ok                             bool
		}{
			{"datetime", "datetime", "REDACTED", false},
			{"timestamp without time zone", "timestamp without time zone", "REDACTED", false},
			{"timestamp without time zone", "timestamp without time zone", "2000-02-30 00:00:00", false},
			{"timestamp", "timestamp", "2000-01-02 03:04:05.5", true},
			{"datetime", "datetime", "2000-01-02", true},
			{"time", "time", "25:00:00", false},
			{"time", "time", "23:59:59", true},
			{"decimal", "decimal(6,2)", "1234.5", true},
			{"decimal", "decimal(6,2)", "12345.5", false},
			{"decimal", "decimal(6,2)", "1.555", false},
			{"numeric", "numeric(6,2)", "abc", false},
			{"double", "double", "1e3", true},
			{"double", "double", "NaN", false},
			{"boolean", "boolean", "yes", false},
			{"bytea", "bytea", "x", false},
		} {
			_, err := MaskSQL(Target{Dialect: d, Column: "c", DataType: c.dataType, ColumnType: c.columnType}, TypeRedact, []string{c.constant}, "")
			if (err == nil) != c.ok {
				t.Errorf("%s: REDACT %q on %s: err %v, want ok=%v", d, c.constant, c.columnType, err, c.ok)
			}
		}
	}
	if _, err := MaskSQL(Target{Dialect: Postgres, Column: "c", DataType: "boolean", ColumnType: "boolean"}, TypeRedact, []string{"true"}, ""); err != nil {
		t.Errorf("REDACT true on a PostgreSQL boolean: %v", err)
	}
}

func TestWhenSQL(t *testing.T) {
	my := Target{Dialect: MySQL, Column: "`t`.`c`", DataType: "varchar", ColumnType: "varchar(10)"}
	if got := WhenSQL(my, "mask_null", "a = 1", "M"); got != "CASE WHEN (a = 1) IS FALSE THEN CONVERT(`t`.`c` USING utf8mb4) COLLATE utf8mb4_bin ELSE M END" {
		t.Errorf("mysql string: %s", got)
	}
	if got := WhenSQL(my, TypeCustom, "a = 1", "M"); got != "CASE WHEN (a = 1) IS FALSE THEN `t`.`c` ELSE M END" {
		t.Errorf("mysql custom: %s", got)
	}
	pg := Target{Dialect: Postgres, Column: `"c"`, DataType: "integer", ColumnType: "integer"}
	if got := WhenSQL(pg, TypeMask, "a", "M"); got != `CASE WHEN (a) IS FALSE THEN "c" ELSE M END` {
		t.Errorf("postgres: %s", got)
	}
}

// TestMaskSQLCompactSize checks that every built-in mask over a short
// column reference is at most 1 KB of SQL where the server's classes are
// named (the explicit code point lists are several KB).
func TestMaskSQLCompactSize(t *testing.T) {
	const limit = 1024
	builtins := []maskCase{
		{TypeMask, nil}, {TypeShowLast4, nil}, {TypeShowFirst4, nil}, {TypeHash, nil}, {TypeNull, nil},
		{TypeNone, nil}, {TypeDateShowYear, nil}, {TypeRedact, nil}, {TypeShowFirstN, []string{"4"}},
		{TypeShowLastN, []string{"4"}}, {TypeFirstN, []string{"4"}}, {TypeLastN, []string{"4"}},
	}
	for _, d := range []struct {
		dialect   Dialect
		column    string
		collation string
		cols      [][2]string
	}{
		{MySQL, "`t`.`ssn`", "", [][2]string{{"varchar", "varchar(40)"}, {"char", "char(10)"}, {"text", "text"}, {"int", "int(11)"}, {"date", "date"}}},
		{Postgres, `"t"."ssn"`, `"pg_catalog"."C"`, [][2]string{{"character varying", "character varying(40)"}, {"character", "character(10)"},
			{"text", "text"}, {"integer", "integer"}, {"bigint", "bigint"}, {"date", "date"}}},
	} {
		for _, c := range d.cols {
			for _, mc := range builtins {
				x, err := MaskSQL(Target{Dialect: d.dialect, Column: d.column, DataType: c[0], ColumnType: c[1], NamedClasses: true, Collation: d.collation},
					mc.typ, mc.args, "")
				if err != nil {
					t.Fatalf("%s: %s on %s: %v", d.dialect, mc, c[1], err)
				}
				if len(x) > limit {
					t.Errorf("%s: %s on %s: %d bytes of SQL, want at most %d", d.dialect, mc, c[1], len(x), limit)
				}
			}
		}
	}
}

// TestMaskSQLRefusesNULOnPostgres: a regular expression or replacement
// that stands for a NUL character cannot be written in PostgreSQL's SQL
// (its lexer ends the query there); the mask is refused with a reason,
// not emitted. MariaDB's printer escapes a NUL, so it is written there.
func TestMaskSQLRefusesNULOnPostgres(t *testing.T) {
	for _, args := range [][]string{{`\000`, ""}, {`\x00`, "y"}, {`a\x{0}b`, ""}} {
		pg := Target{Dialect: Postgres, Column: `"t"."c"`, DataType: "text", ColumnType: "text"}
		if x, err := MaskSQL(pg, TypeRegexpReplace, args, ""); err == nil || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%q on PostgreSQL: %q, %v; want a refusal naming the NUL", args, x, err)
		}
		my := Target{Dialect: MySQL, Column: "`t`.`c`", DataType: "varchar", ColumnType: "varchar(20)"}
		if _, err := MaskSQL(my, TypeRegexpReplace, args, ""); err != nil {
			t.Errorf("%q on MariaDB: %v", args, err)
		}
	}
}

// TestDigitRungsEveryValue holds the integer masks' ladder (digitRungs)
// to the Go reference on every value of the 8- and 16-bit columns and on
// the boundaries and random values of the wider ones, for every mask
// function, several n and every number replacement: wherever digitRungs
// accepts a mask, sign × (c + kept part) is Hive's result.
func TestDigitRungsEveryValue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	types := []struct{ dataType, columnType string }{
		{"tinyint", "tinyint"}, {"tinyint", "tinyint unsigned"}, {"smallint", "smallint"}, {"smallint", "smallint unsigned"},
		{"mediumint", "mediumint"}, {"int", "int"}, {"int", "int unsigned"}, {"bigint", "bigint"},
	}
	accepted := 0
	for _, typ := range types {
		g := gen{d: MySQL, t: Target{Dialect: MySQL, Column: "c", DataType: typ.dataType, ColumnType: typ.columnType}}
		bits, err := g.intBits()
		if err != nil {
			t.Fatal(err)
		}
		digits, maxv, unsigned := g.intRange()
		values := func(yield func(int64) bool) {
			if maxv <= math.MaxUint16 {
				for v := int64(1); v <= maxv; v++ {
					if !yield(v) {
						return
					}
				}
				return
			}
			for p := int64(1); p <= maxv/10; p *= 10 {
				for _, v := range []int64{p, p + 1, 2*p - 1, 10*p - 1, 10*p - 2, 10 * p, 10*p + 1} {
					if v <= maxv && !yield(v) {
						return
					}
				}
			}
			for i := range 20000 {
				v := r.Int64N(maxv) + 1
				if i < 10 {
					v = maxv - int64(i)
				}
				if !yield(v) {
					return
				}
			}
		}
		for _, f := range []fn{fnMask, fnShowFirstN, fnShowLastN, fnFirstN, fnLastN} {
			for _, n := range []int{0, 1, 2, 4, 7} {
				for number := range 10 {
					tr := &transformer{fn: f, n: n, number: number}
					rungs, ok := digitRungs(tr, bits, digits, maxv, unsigned)
					if !ok {
						// Hive's default number, 1, never wraps below 64 bits.
						if number == 1 && bits < 64 {
							t.Errorf("%s fn %d n %d: no ladder for the default number", typ.columnType, f, n)
						}
						continue
					}
					accepted++
					if z := hiveIntResult(tr, bits, 0); z != rungs[0].c {
						t.Errorf("%s fn %d n %d number %d: zero gives %d, not its first rung's %d (signedLadder puts it there)", typ.columnType, f, n, number, z, rungs[0].c)
					}
					bad := 0
					for v := range values {
						i := 0
						for i < len(rungs)-1 && v >= rungs[i].below {
							i++
						}
						got := rungs[i].c + rungs[i].kept.of(v)
						if want := hiveIntResult(tr, bits, v); got != want || !unsigned && hiveIntResult(tr, bits, -v) != -got {
							if bad++; bad <= 3 {
								t.Errorf("%s fn %d n %d number %d: %d gives %d, Hive %d", typ.columnType, f, n, number, v, got, want)
							}
						}
					}
				}
			}
		}
	}
	if accepted < 500 {
		t.Errorf("digitRungs accepted %d masks; the ladder should serve most", accepted)
	}
	// And MaskSQL writes a ladder for them, not the digit string, for a
	// column qualified by its table: the fastest that fits the size of a
	// mask, which depends on the name's length.
	long3 := "`" + strings.Repeat("d", 40) + "`.`" + strings.Repeat("t", 40) + "`.`amount`"
	forms := []struct {
		dialect Dialect
		column  string
		mask    string
		want    string
	}{
		// The value itself on a ladder per sign, compared, or on MariaDB
		// past the size of that its characters counted.
		{MySQL, "c.amount", TypeMask, "CASE WHEN c.amount >= 0 THEN CASE WHEN c.amount < "},
		{MySQL, "`shop`.`customers`.`amount`", TypeMask, "CASE WHEN `shop`.`customers`.`amount` >= 0 THEN CASE CHAR_LENGTH(`shop`.`customers`.`amount`) WHEN 1 THEN "},
		{Postgres, "c.amount", TypeMask, "CASE WHEN c.amount >= 0 THEN CASE WHEN c.amount < "},
		// Past their size, on PostgreSQL the rung looked up in an array
		// where every rung keeps the same part, whatever the name.
		{Postgres, `"public"."customers"."amount"`, TypeMask, `[width_bucket("public"."customers"."amount", CAST('{-2147483648,`},
		{Postgres, `"udf_i32_named_long_enough_that_comparisons_pass_1_kb"."v"`, TypeMask, "[width_bucket("},
		// Else the magnitude: compared, or past the size of that (a longer
		// name) its digits counted.
		{MySQL, long3, TypeMask, "CASE CHAR_LENGTH(ABS(" + long3 + ")) WHEN "},
		{Postgres, `"public"."customers"."amount"`, TypeShowFirst4, `WHEN ABS("public"."customers"."amount") < `},
		{Postgres, `"shop"."customers_archive"."amount"`, TypeShowFirst4, "CASE length(CAST(ABS("},
	}
	for _, f := range forms {
		x, err := MaskSQL(Target{Dialect: f.dialect, Column: f.column, DataType: "int", ColumnType: "int"}, f.mask, nil, "")
		if err != nil || !strings.Contains(x, f.want) {
			t.Errorf("%s: %s of an int named %s: %v\n%s\nwant %q", f.dialect, f.mask, f.column, err, x, f.want)
		}
	}
	for _, d := range []Dialect{MySQL, Postgres} {
		for _, mc := range []maskCase{{TypeMask, nil}, {TypeShowLast4, nil}, {TypeShowFirst4, nil}, {TypeFirstN, []string{"4"}}, {TypeLastN, []string{"4"}}} {
			x, err := MaskSQL(Target{Dialect: d, Column: "orders.amount", DataType: "int", ColumnType: "int"}, mc.typ, mc.args, "")
			if err != nil || strings.Contains(x, "REPEAT") || !strings.Contains(x, "WHEN orders.amount >= 0 THEN") &&
				!strings.Contains(x, "WHEN ABS(orders.amount) < ") && !strings.Contains(x, "(ABS(orders.amount)") &&
				!strings.Contains(x, "[width_bucket(orders.amount, ") {
				t.Errorf("%s: %s of an int: %v\n%s\nwant a ladder", d, mc, err, x)
			}
		}
	}
}

// TestLongLiteralsNestShallowly: a literal with many backslashes (each
// spelled CHR(92) outside the quotes) is joined in groups, so the
// PostgreSQL parser and deparser, which recurse once per || and die of a
// stack overflow some thousands deep, read the longest policy argument.
func TestLongLiteralsNestShallowly(t *testing.T) {
	tg := Target{Postgres, `"t"."c"`, "text", "text", false, "", false}
	expr, err := MaskSQL(tg, TypeRegexpReplace, []string{strings.Repeat(`\%`, 50000), ""}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reformat(Postgres, expr); err != nil {
		t.Fatalf("%v: %s", err, abbrev(expr))
	}
	depth, deepest, quoted := 0, 0, false
	for _, c := range expr {
		switch {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
			deepest = max(deepest, depth)
		case c == ')':
			depth--
		}
	}
	if deepest > 40 {
		t.Errorf("parentheses nest %d deep", deepest)
	}
}
