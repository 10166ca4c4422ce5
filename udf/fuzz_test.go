package udf

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzValue builds a reference input: kind selects NULL, a string, an
// integer of each width, a date or an unsupported type.
func fuzzValue(kind uint8, s string, i int64) any {
	switch kind % 8 {
	case 0:
		return nil
	case 1:
		return s
	case 2:
		return int8(i)
	case 3:
		return int16(i)
	case 4:
		return int32(i)
	case 5:
		return i
	case 6:
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(i%3_000_000))
	}
	return float64(i)
}

// fuzzArgs splits spec at '|'; a part "#n" is the integer n, anything else a
// string.
func fuzzArgs(spec string) []any {
	if spec == "" {
		return nil
	}
	var args []any
	for _, p := range strings.SplitN(spec, "|", 10) {
		if n, err := strconv.Atoi(strings.TrimPrefix(p, "#")); err == nil && strings.HasPrefix(p, "#") {
			args = append(args, n)
		} else {
			args = append(args, p)
		}
	}
	return args
}

func fuzzReference(f *testing.F, name string, fn func(any, ...any) (any, error)) {
	f.Add(uint8(1), "TestString-123", int64(0), "#4|X|x|0|:")
	f.Add(uint8(1), "a😀b\uFFFF", int64(0), "#2|#-1|#-1|#-1|*")
	f.Add(uint8(2), "", int64(-128), "#4|#-1|#-1|#-1|#-1|5")
	f.Add(uint8(3), "", int64(12345), "#0")
	f.Add(uint8(4), "", int64(-2147483648), "")
	f.Add(uint8(5), "", int64(-9223372036854775808), "#1|#-1|#-1|#-1|#-1|9")
	f.Add(uint8(6), "", int64(-730000), "#4|#-1|#-1|#-1|#-1|#-1|#-1|#0|#0")
	f.Add(uint8(0), "", int64(0), "")
	f.Add(uint8(7), "", int64(3), "")
	f.Fuzz(func(t *testing.T, kind uint8, s string, i int64, spec string) {
		v := fuzzValue(kind, s, i)
		got, err := fn(v, fuzzArgs(spec)...)
		if err != nil {
			return
		}
		switch v.(type) {
		case nil, float64:
			if got != nil {
				t.Fatalf("%s(%v) = %v, want NULL", name, v, got)
			}
			return
		}
		if got == nil {
			t.Fatalf("%s(%#v, %q) = NULL", name, v, spec)
		}
		if typeName(got) != typeName(v) {
			t.Fatalf("%s(%T) returned %T", name, v, got)
		}
		if r, ok := got.(string); ok && !utf8.ValidString(r) {
			t.Fatalf("%s(%q) = invalid UTF-8 %q", name, v, r)
		}
	})
}

func FuzzMask(f *testing.F)           { fuzzReference(f, "Mask", Mask) }
func FuzzMaskFirstN(f *testing.F)     { fuzzReference(f, "MaskFirstN", MaskFirstN) }
func FuzzMaskLastN(f *testing.F)      { fuzzReference(f, "MaskLastN", MaskLastN) }
func FuzzMaskShowFirstN(f *testing.F) { fuzzReference(f, "MaskShowFirstN", MaskShowFirstN) }
func FuzzMaskShowLastN(f *testing.F)  { fuzzReference(f, "MaskShowLastN", MaskShowLastN) }

func FuzzMaskHash(f *testing.F) {
	f.Add(uint8(1), "TestString-123", int64(0), "")
	f.Add(uint8(1), "01-28-2021", int64(0), "sha512")
	f.Add(uint8(1), "x", int64(0), "md5")
	f.Add(uint8(4), "", int64(7), "")
	f.Fuzz(func(t *testing.T, kind uint8, s string, i int64, algo string) {
		v := fuzzValue(kind, s, i)
		var args []any
		if algo != "" {
			args = append(args, algo)
		}
		got, err := MaskHash(v, args...)
		if err != nil {
			return
		}
		str, isString := v.(string)
		if !isString {
			if got != nil {
				t.Fatalf("MaskHash(%T) = %v, want NULL", v, got)
			}
			return
		}
		h, ok := got.(string)
		want := map[string]int{"": 64, algoSHA256: 64, algoSHA512: 128, algoMD5: 32}[strings.ToLower(algo)]
		if !ok || len(h) != want || strings.Trim(h, "0123456789abcdef") != "" {
			t.Fatalf("MaskHash(%q, %q) = %v", str, algo, got)
		}
	})
}

// FuzzMaskSQL checks the emitted SQL for any policy arguments: it is one
// expression to both parsers and its literals hold no backslash.
func FuzzMaskSQL(f *testing.F) {
	f.Add(uint8(0), uint8(0), "X|x|n|-1")
	f.Add(uint8(7), uint8(1), `it's \ here`)
	f.Add(uint8(11), uint8(2), `[a-z]+|\`)
	f.Add(uint8(8), uint8(3), "3|a|B|-1|'")
	f.Add(uint8(4), uint8(4), "")
	f.Add(uint8(0), uint8(5), "|||||1|0|-1")
	types := []string{TypeMask, TypeShowLast4, TypeShowFirst4, TypeHash, TypeNull, TypeNone, TypeDateShowYear,
		TypeRedact, TypeShowFirstN, TypeShowLastN, TypeFirstN, TypeRegexpReplace, TypeLastN}
	targets := []Target{
		{MySQL, "`t`.`c`", "varchar", "varchar(20)", false, "", false},
		{MySQL, "`t`.`c`", "varchar", "varchar(20)", true, "", false},
		{Postgres, `"t"."c"`, "text", "text", false, "", false},
		{MySQL, "`t`.`c`", "char", "char(5)", false, "", false},
		{Postgres, `"t"."c"`, "character", "character(5)", false, "", false},
		{MySQL, "`t`.`c`", "smallint", "smallint(6)", false, "", false},
		{Postgres, `"t"."c"`, "bigint", "bigint", false, "", false},
		{MySQL, "`t`.`c`", "date", "date", false, "", false},
		{Postgres, `"t"."c"`, "date", "date", false, "", false},
		{MySQL, "`t`.`c`", "varchar", "varchar(20)", false, "", true},
		{Postgres, `"t"."c"`, "character varying", "character varying(20)", false, "", true},
	}
	f.Fuzz(func(t *testing.T, typ, target uint8, spec string) {
		var args []string
		if spec != "" {
			args = strings.Split(spec, "|")
		}
		tg := targets[int(target)%len(targets)]
		expr, err := MaskSQL(tg, types[int(typ)%len(types)], args, "")
		if err != nil {
			return
		}
		checkEmitted(t, tg.Dialect, expr)
	})
}
