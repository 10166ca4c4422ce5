package udf

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// transformer is a resolved Hive mask call: the function and the values its
// init() computed from the constant arguments.
type transformer struct {
	fn     fn
	n      int    // charCount
	chars  [4]int // replacement per class, a code point or keep (lazily checked, as Hive does)
	number int
	day    int
	month  int
	year   int
}

func newTransformer(f fn) *transformer {
	return &transformer{
		fn:     f,
		n:      defCharCount,
		chars:  [4]int{defUpper, defLower, defDigit, defOther},
		number: defNumber,
		day:    defDay,
		month:  defMonth,
		year:   defYear,
	}
}

// Mask is Hive's mask(value, upperChar, lowerChar, digitChar, otherChar,
// numberChar, dayValue, monthValue, yearValue).
//
// value is nil, a string (STRING, VARCHAR, or a CHAR already padded to its
// length), an int8, int16, int32 or int64 (TINYINT … BIGINT), or a time.Time
// standing for a DATE. Any other type yields nil, as Hive yields NULL.
// Replacement characters are an int code point or a string whose first
// UTF-16 unit is used; -1 keeps the original. numberChar (0..9), dayValue
// (1..31), monthValue (0..11, 0 is January) and yearValue are ints or
// numeric strings; -1 keeps a date component. Defaults: 'X', 'x', 'n', -1,
// 1, 1, 0, 0.
func Mask(value any, args ...any) (any, error) {
	t := newTransformer(fnMask)
	if err := t.initHive(args); err != nil {
		return nil, err
	}
	return t.apply(value)
}

// MaskFirstN is Hive's mask_first_n(value, charCount, upperChar, lowerChar,
// digitChar, otherChar, numberChar): it masks the first charCount (default
// 4) characters of a string, or the most significant charCount digits of an
// integer. Dates are masked as Mask masks them (the arguments after
// numberChar are dayValue, monthValue, yearValue).
func MaskFirstN(value any, args ...any) (any, error) {
	return maskN(fnFirstN, value, args)
}

// MaskLastN is Hive's mask_last_n(value, charCount, upperChar, lowerChar,
// digitChar, otherChar, numberChar): it masks the last charCount (default 4)
// characters, or the least significant charCount digits.
func MaskLastN(value any, args ...any) (any, error) {
	return maskN(fnLastN, value, args)
}

// MaskShowFirstN is Hive's mask_show_first_n(value, charCount, upperChar,
// lowerChar, digitChar, otherChar, numberChar): it masks all but the first
// charCount (default 4) characters, or all but the most significant
// charCount digits.
func MaskShowFirstN(value any, args ...any) (any, error) {
	return maskN(fnShowFirstN, value, args)
}

// MaskShowLastN is Hive's mask_show_last_n(value, charCount, upperChar,
// lowerChar, digitChar, otherChar, numberChar): it masks all but the last
// charCount (default 4) characters, or all but the least significant
// charCount digits.
func MaskShowLastN(value any, args ...any) (any, error) {
	return maskN(fnShowLastN, value, args)
}

func maskN(f fn, value any, args []any) (any, error) {
	t := newTransformer(f)
	if len(args) > 0 {
		n, err := hiveIntArg(args[0], defCharCount)
		if err != nil {
			return nil, fmt.Errorf("udf: charCount: %w", err)
		}
		t.n = max(n, 0)
		args = args[1:]
	}
	if err := t.initHive(args); err != nil {
		return nil, err
	}
	return t.apply(value)
}

// MaskHash is Hive's mask_hash(value): the lowercase hex SHA-256 of a
// string's UTF-8 bytes, and nil for every other type. An optional argument
// selects the algorithm: "sha256" (Hive's default), "sha512" (Hive's
// hive.masking.algo=sha512) or "md5" (Hive 2.x).
func MaskHash(value any, args ...any) (any, error) {
	algo := algoSHA256
	if len(args) > 1 {
		return nil, fmt.Errorf("udf: mask_hash takes at most one argument, got %d", len(args))
	}
	if len(args) == 1 {
		a, ok := args[0].(string)
		switch a = strings.ToLower(a); {
		case !ok:
			return nil, fmt.Errorf("udf: mask_hash: algorithm must be a string, got %T", args[0])
		case a == algoSHA256 || a == algoSHA512 || a == algoMD5:
			algo = a
		default:
			return nil, fmt.Errorf("udf: mask_hash: unknown algorithm %q", args[0])
		}
	}
	return hashValue(algo, value), nil
}

func hashValue(algo string, value any) any {
	s, ok := value.(string)
	if !ok {
		return nil
	}
	// Java hashes the UTF-8 encoding of its (UTF-16) string.
	b := []byte(javaString(s))
	switch algo {
	case algoSHA512:
		h := sha512.Sum512(b)
		return hex.EncodeToString(h[:])
	case algoMD5:
		h := md5.Sum(b)
		return hex.EncodeToString(h[:])
	default:
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
}

// initHive reads upperChar … yearValue as MaskTransformer.init does.
func (t *transformer) initHive(args []any) error {
	if len(args) > 8 {
		return fmt.Errorf("udf: too many arguments (%d)", len(args))
	}
	var err error
	for i, a := range args {
		switch {
		case i < 4:
			t.chars[i], err = hiveCharArg(a, t.chars[i])
		case i == 4:
			t.number, err = hiveIntArg(a, defNumber)
		case i == 5:
			t.day, err = hiveIntArg(a, defDay)
		case i == 6:
			t.month, err = hiveIntArg(a, defMonth)
		case i == 7:
			t.year, err = hiveIntArg(a, defYear)
		}
		if err != nil {
			return fmt.Errorf("udf: argument %d: %w", i+2, err)
		}
	}
	if t.number < 0 || t.number > 9 {
		t.number = defNumber
	}
	if t.day != keep && (t.day < 1 || t.day > 31) {
		t.day = defDay
	}
	if t.month != keep && (t.month < 0 || t.month > 11) {
		t.month = defMonth
	}
	return nil
}

// hiveCharArg: an integer constant is a code point; a string contributes its
// first UTF-16 unit; NULL or "" leaves the default.
func hiveCharArg(a any, def int) (int, error) {
	switch v := a.(type) {
	case nil:
		return def, nil
	case string:
		if v == "" {
			return def, nil
		}
		r, _ := utf8.DecodeRuneInString(v)
		if r >= 0x10000 {
			hi, _ := utf16.EncodeRune(r)
			return int(hi), nil
		}
		return int(r), nil
	}
	if i, ok := asInt64(a); ok {
		return int(int32(i)), nil
	}
	return 0, fmt.Errorf("replacement character must be an integer or a string, got %T", a)
}

// hiveIntArg: an integer constant (narrowed to 32 bits as Hive does), or a
// string parsed as Java's Integer.parseInt parses it.
func hiveIntArg(a any, def int) (int, error) {
	switch v := a.(type) {
	case nil:
		return def, nil
	case string:
		if v == "" {
			return def, nil
		}
		i, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer", v)
		}
		return int(i), nil
	}
	if i, ok := asInt64(a); ok {
		return int(int32(i)), nil
	}
	return 0, fmt.Errorf("argument must be an integer or a string, got %T", a)
}

func asInt64(a any) (int64, bool) {
	switch v := a.(type) {
	case int:
		return int64(v), true
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case uint8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint32:
		return int64(v), true
	}
	return 0, false
}

// apply evaluates the transformer on one value, as the type adapters of
// BaseMaskUDF do: NULL stays NULL, unsupported types give NULL.
func (t *transformer) apply(value any) (any, error) {
	switch v := value.(type) {
	case nil:
		return nil, nil
	case string:
		return t.str(v)
	case int8:
		return maskInt(t, v), nil
	case int16:
		return maskInt(t, v), nil
	case int32:
		return maskInt(t, v), nil
	case int64:
		return maskInt(t, v), nil
	case time.Time:
		return t.date(v)
	}
	return nil, nil
}

// unitClass is Character.getType reduced to the four mask classes, for one
// UTF-16 unit (surrogates are "other").
func unitClass(u uint16) int {
	if utf16.IsSurrogate(rune(u)) {
		return clsOther
	}
	return classOf(rune(u))
}

// classOf classifies a code point the way the generated SQL does: BMP
// letters and digits by Unicode category, everything else "other".
func classOf(r rune) int {
	switch {
	case r > 0xFFFF || r < 0:
		return clsOther
	case unicode.Is(unicode.Lu, r):
		return clsUpper
	case unicode.Is(unicode.Ll, r):
		return clsLower
	case unicode.Is(unicode.Nd, r):
		return clsDigit
	}
	return clsOther
}

var errInvalidCodePoint = errors.New("udf: replacement is not a valid code point")

// str masks a string per UTF-16 unit, like the Java loops over charAt.
func (t *transformer) str(s string) (string, error) {
	if !utf8.ValidString(s) {
		s = javaString(s)
	}
	units := utf16.Encode([]rune(s))
	n := len(units)
	from, to := 0, n // the masked half-open range of units
	switch t.fn {
	case fnFirstN:
		to = min(t.n, n)
	case fnLastN:
		if n > t.n {
			from = n - t.n
		}
	case fnShowFirstN:
		if n <= t.n {
			return s, nil
		}
		from = t.n
	case fnShowLastN:
		if n <= t.n {
			return s, nil
		}
		to = n - t.n
	}
	out := make([]uint16, 0, n)
	for i, u := range units {
		if i < from || i >= to {
			out = append(out, u)
			continue
		}
		r := t.chars[unitClass(u)]
		switch {
		case r == keep:
			out = append(out, u)
		case r < 0 || r > unicode.MaxRune:
			// StringBuilder.appendCodePoint throws.
			return "", errInvalidCodePoint
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(rune(r))
			out = append(out, uint16(hi), uint16(lo))
		default:
			out = append(out, uint16(r))
		}
	}
	return encodeJava(out), nil
}

// javaString is the string Java decodes from s: each byte of an ill-formed
// sequence becomes U+FFFD.
func javaString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// encodeJava turns a Java string into the UTF-8 Hive's Text holds: valid
// surrogate pairs become their code point, an unpaired surrogate becomes
// '?' (the encoder's replacement).
func encodeJava(units []uint16) string {
	var b strings.Builder
	b.Grow(len(units))
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			b.WriteRune(utf16.DecodeRune(u, rune(units[i+1])))
			i++
		case utf16.IsSurrogate(u):
			b.WriteByte('?')
		default:
			b.WriteRune(u)
		}
	}
	return b.String()
}

type hiveInt interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// maskInt is the transformers' integer loops. Arithmetic happens in the
// value's own width, so it wraps exactly as Java's narrowing compound
// assignments do (including the MIN value, whose negation is itself).
func maskInt[T hiveInt](t *transformer, value T) T {
	if value == 0 {
		switch t.fn {
		case fnMask:
			return T(t.number)
		case fnFirstN, fnLastN:
			if t.n > 0 {
				return T(t.number)
			}
			return 0
		default: // show_first_n, show_last_n
			if t.n == 0 {
				return T(t.number)
			}
			return 0
		}
	}
	val := value
	if value < 0 {
		val *= -1
	}
	digits := 0
	for v := val; v != 0; v /= 10 {
		digits++
	}
	// masked reports whether the digit at position i (0 = least significant)
	// is replaced.
	var masked func(i int) bool
	switch t.fn {
	case fnMask:
		masked = func(int) bool { return true }
	case fnFirstN:
		retain := 0
		if digits >= t.n {
			retain = digits - t.n
		}
		masked = func(i int) bool { return i >= retain }
	case fnLastN:
		masked = func(i int) bool { return i < t.n }
	case fnShowFirstN:
		maskCount := digits - t.n
		if maskCount <= 0 {
			return value
		}
		masked = func(i int) bool { return i < maskCount }
	case fnShowLastN:
		masked = func(i int) bool { return i >= t.n }
	}
	num := T(t.number)
	var ret T
	pos := T(1)
	for i := 0; val != 0; i++ {
		if masked(i) {
			ret += num * pos
		} else {
			ret += (val % 10) * pos
		}
		val /= 10
		pos *= 10
	}
	if value < 0 {
		ret *= -1
	}
	return ret
}

// ErrInvalidDate is returned when a date mask builds a day that does not
// exist (Hive's Date.of fails the query).
var ErrInvalidDate = errors.New("udf: masked date does not exist")

// date is MaskTransformer.transform(Date).
func (t *transformer) date(v time.Time) (any, error) {
	y, m, d := v.Date()
	if t.year != keep {
		y = t.year
	}
	if t.month != keep {
		m = time.Month(t.month + 1)
	}
	if t.day != keep {
		d = t.day
	}
	if d > daysIn(m, y) {
		return nil, fmt.Errorf("%w: %04d-%02d-%02d", ErrInvalidDate, y, int(m), d)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
}

func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
