package udf

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fn names the Hive function (or sqe operation) a mask type evaluates.
type fn int

const (
	fnMask fn = iota
	fnFirstN
	fnLastN
	fnShowFirstN
	fnShowLastN
	fnHash
	fnNull
	fnNone
	fnRedact
	fnRegexp
	fnCustom
)

// keep is Hive's "retain the original" value for replacement characters
// and date components.
const keep = -1

// Hive's defaults (GenericUDFMask and friends).
const (
	defUpper     = 'X'
	defLower     = 'x'
	defDigit     = 'n'
	defOther     = keep
	defNumber    = 1
	defDay       = 1
	defMonth     = 0
	defYear      = 0
	defCharCount = 4
	defRedacted  = "REDACTED"
)

// maxCharCount bounds n. Hive takes any int; no value the databases can hold
// has more characters than this, so clamping changes no result and keeps
// position arithmetic inside 32 bits.
const maxCharCount = 1 << 30

// Hash algorithms for MASK_HASH.
const (
	algoSHA256 = "sha256"
	algoSHA512 = "sha512"
	algoMD5    = "md5"
)

// spec is a parsed, validated mask: the resolved arguments of the Hive call.
type spec struct {
	typ string
	fn  fn

	n      int    // charCount for the *_N functions
	chars  [4]int // upper, lower, digit, other replacement: a code point or keep
	number int    // numberChar, 0..9
	day    int    // 1..31 or keep
	month  int    // 0..11 (Hive's 0-based month) or keep
	year   int    // 0..9999 or keep

	algo string // MASK_HASH

	constant    string // REDACT
	hasConstant bool

	re          *portableRegexp // REGEXP_REPLACE
	replacement string

	custom string // CUSTOM
}

const (
	clsUpper = iota
	clsLower
	clsDigit
	clsOther
)

func newSpec(typ string, f fn) *spec {
	return &spec{
		typ:    typ,
		fn:     f,
		n:      defCharCount,
		chars:  [4]int{defUpper, defLower, defDigit, defOther},
		number: defNumber,
		day:    defDay,
		month:  defMonth,
		year:   defYear,
		algo:   algoSHA256,
	}
}

// parseSpec checks a mask type and its arguments and resolves them the way
// Hive's transformers do at initialisation.
func parseSpec(maskType string, args []string, customExpr string) (*spec, error) {
	typ := strings.ToUpper(strings.TrimSpace(maskType))
	noArgs := func(s *spec) (*spec, error) {
		if len(args) != 0 {
			return nil, fmt.Errorf("udf: mask %s takes no arguments, got %d", typ, len(args))
		}
		return s, nil
	}
	switch typ {
	case TypeMask:
		s := newSpec(typ, fnMask)
		return s, s.parseMaskArgs(args, 0)
	case TypeShowLast4, TypeShowFirst4:
		f := fnShowLastN
		if typ == TypeShowFirst4 {
			f = fnShowFirstN
		}
		s := newSpec(typ, f)
		s.chars = [4]int{'x', 'x', 'x', keep}
		return noArgs(s)
	case TypeDateShowYear:
		// mask({col}, 'x', 'x', 'x', -1, '1', 1, 0, -1)
		s := newSpec(typ, fnMask)
		s.chars = [4]int{'x', 'x', 'x', keep}
		s.year = keep
		return noArgs(s)
	case TypeShowFirstN, TypeShowLastN, TypeFirstN, TypeLastN:
		f := map[string]fn{TypeShowFirstN: fnShowFirstN, TypeShowLastN: fnShowLastN, TypeFirstN: fnFirstN, TypeLastN: fnLastN}[typ]
		s := newSpec(typ, f)
		if len(args) == 0 {
			return nil, fmt.Errorf("udf: mask %s needs the number of characters as its first argument", typ)
		}
		if strings.TrimSpace(args[0]) != "" {
			n, err := parseInt32(args[0])
			if err != nil {
				return nil, fmt.Errorf("udf: mask %s: character count: %w", typ, err)
			}
			s.n = int(min(max(n, 0), maxCharCount))
		}
		return s, s.parseMaskArgs(args[1:], 1)
	case TypeHash:
		s := newSpec(typ, fnHash)
		switch len(args) {
		case 0:
		case 1:
			switch a := strings.ToLower(strings.TrimSpace(args[0])); a {
			case "", algoSHA256:
			case algoSHA512, algoMD5:
				s.algo = a
			default:
				return nil, fmt.Errorf("udf: mask %s: unknown algorithm %q (want sha256, sha512 or md5)", typ, args[0])
			}
		default:
			return nil, fmt.Errorf("udf: mask %s takes at most one argument (the algorithm), got %d", typ, len(args))
		}
		return s, nil
	case TypeNull:
		return noArgs(newSpec(typ, fnNull))
	case TypeNone:
		return noArgs(newSpec(typ, fnNone))
	case TypeRedact:
		s := newSpec(typ, fnRedact)
		switch len(args) {
		case 0:
		case 1:
			if !utf8.ValidString(args[0]) || strings.ContainsRune(args[0], 0) {
				return nil, fmt.Errorf("udf: mask %s: constant is not valid text", typ)
			}
			s.constant, s.hasConstant = args[0], true
		default:
			return nil, fmt.Errorf("udf: mask %s takes at most one argument (the constant), got %d", typ, len(args))
		}
		return s, nil
	case TypeRegexpReplace:
		s := newSpec(typ, fnRegexp)
		if len(args) != 2 {
			return nil, fmt.Errorf("udf: mask %s takes two arguments (pattern, replacement), got %d", typ, len(args))
		}
		re, err := compilePortable(args[0])
		if err != nil {
			return nil, fmt.Errorf("udf: mask %s: %w", typ, err)
		}
		if !utf8.ValidString(args[1]) || strings.ContainsRune(args[1], 0) {
			return nil, fmt.Errorf("udf: mask %s: replacement is not valid text", typ)
		}
		s.re, s.replacement = re, args[1]
		return s, nil
	case TypeCustom:
		s := newSpec(typ, fnCustom)
		if len(args) != 0 {
			return nil, fmt.Errorf("udf: mask %s takes no arguments, got %d", typ, len(args))
		}
		if strings.TrimSpace(customExpr) == "" {
			return nil, fmt.Errorf("udf: mask %s needs an expression", typ)
		}
		s.custom = customExpr
		return s, nil
	case "":
		return nil, fmt.Errorf("udf: empty mask type")
	default:
		return nil, fmt.Errorf("udf: unknown mask type %q", maskType)
	}
}

// parseMaskArgs reads upper, lower, digit, other, number, day, month, year
// (MaskTransformer.init); pos is the 0-based position of args[0] among the
// policy's arguments, for error messages.
func (s *spec) parseMaskArgs(args []string, pos int) error {
	if len(args) > 8 {
		return fmt.Errorf("udf: mask %s takes at most %d arguments, got %d", s.typ, pos+8, pos+len(args))
	}
	names := [...]string{"upper-case replacement", "lower-case replacement", "digit replacement", "other-character replacement", "number replacement", "day", "month", "year"}
	for i, a := range args {
		var err error
		switch {
		case i < 4:
			s.chars[i], err = parseCharArg(a, s.chars[i])
		default:
			var v int
			v, err = parseIntArg(a, [...]int{defNumber, defDay, defMonth, defYear}[i-4])
			switch i {
			case 4:
				s.number = v
			case 5:
				s.day = v
			case 6:
				s.month = v
			case 7:
				s.year = v
			}
		}
		if err != nil {
			return fmt.Errorf("udf: mask %s: argument %d (%s): %w", s.typ, pos+i+1, names[i], err)
		}
	}
	// MaskTransformer.init: out-of-range values fall back to the defaults.
	if s.number < 0 || s.number > 9 {
		s.number = defNumber
	}
	if s.day != keep && (s.day < 1 || s.day > 31) {
		s.day = defDay
	}
	if s.month != keep && (s.month < 0 || s.month > 11) {
		s.month = defMonth
	}
	if s.year != keep && (s.year < 0 || s.year > 9999) {
		return fmt.Errorf("udf: mask %s: year %d is outside 0..9999", s.typ, s.year)
	}
	return nil
}

// parseCharArg reads a replacement-character argument: "-1" keeps, ""
// selects the default, anything else contributes its first character.
func parseCharArg(a string, def int) (int, error) {
	switch a {
	case "":
		return def, nil
	case "-1":
		return keep, nil
	}
	r, size := utf8.DecodeRuneInString(a)
	if r == utf8.RuneError && size <= 1 {
		return 0, fmt.Errorf("not valid UTF-8")
	}
	if err := checkReplacement(r); err != nil {
		return 0, err
	}
	return int(r), nil
}

// checkReplacement rejects replacement characters no SQL literal can carry
// (U+0000) and the noncharacters the generated SQL reserves as markers.
func checkReplacement(r rune) error {
	switch {
	case r == 0:
		return fmt.Errorf("U+0000 cannot be a replacement character")
	case r >= 0xD800 && r <= 0xDFFF, r > utf8.MaxRune, r < 0:
		return fmt.Errorf("%#x is not a Unicode scalar value", r)
	case isReserved(r):
		return fmt.Errorf("noncharacter %U is reserved", r)
	}
	return nil
}

func isReserved(r rune) bool {
	return r == 0xFFFE || r == 0xFFFF || (r >= 0xFDD0 && r <= 0xFDEF)
}

func parseIntArg(a string, def int) (int, error) {
	if strings.TrimSpace(a) == "" {
		return def, nil
	}
	return parseInt32(a)
}

// parseInt32 parses like Java's Integer.parseInt (optional sign, decimal
// digits, 32-bit range).
func parseInt32(a string) (int, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(a), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a 32-bit integer", a)
	}
	return int(v), nil
}
