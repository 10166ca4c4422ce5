package udf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrNotComputable is returned by Apply for masks whose result only the
// database can compute (CUSTOM).
var ErrNotComputable = errors.New("udf: mask is not computable in Go")

// Apply computes, in Go, the value MaskSQL's expression yields for value:
// the mask type with its policy arguments (see the Type constants), applied
// to a value of the column (nil, a string, an int8 … int64 in the column's
// masking width, or a time.Time for a DATE; a CHAR(n) value already padded
// to n). Replacement characters given as strings contribute their first
// code point. CUSTOM returns ErrNotComputable.
func Apply(maskType string, args []string, customExpr string, value any) (any, error) {
	s, err := parseSpec(maskType, args, customExpr)
	if err != nil {
		return nil, err
	}
	switch s.fn {
	case fnCustom:
		return nil, ErrNotComputable
	case fnNone:
		return value, nil
	case fnNull:
		return nil, nil
	case fnHash:
		return hashValue(s.algo, value), nil
	case fnRedact:
		return s.redactValue(value)
	case fnRegexp:
		switch v := value.(type) {
		case nil:
			return nil, nil
		case string:
			return s.re.re.ReplaceAllLiteralString(v, s.replacement), nil
		}
		return nil, fmt.Errorf("udf: mask %s applies to strings only, got %T", s.typ, value)
	}
	return s.transformer().apply(value)
}

func (s *spec) redactValue(value any) (any, error) {
	if value == nil {
		return nil, nil
	}
	if _, ok := value.(string); ok {
		if s.hasConstant {
			return s.constant, nil
		}
		return defRedacted, nil
	}
	if !s.hasConstant {
		return nil, nil
	}
	c := strings.TrimSpace(s.constant)
	parse := func(bits int) (int64, error) {
		v, err := strconv.ParseInt(c, 10, bits)
		if err != nil {
			return 0, fmt.Errorf("udf: mask %s: constant %q is not a %d-bit integer", s.typ, s.constant, bits)
		}
		return v, nil
	}
	switch value.(type) {
	case int8:
		v, err := parse(8)
		return int8(v), err
	case int16:
		v, err := parse(16)
		return int16(v), err
	case int32:
		v, err := parse(32)
		return int32(v), err
	case int64:
		return parse(64)
	case time.Time:
		d, err := time.Parse(time.DateOnly, c)
		if err != nil {
			return nil, fmt.Errorf("udf: mask %s: constant %q is not a date", s.typ, s.constant)
		}
		return d, nil
	}
	return s.constant, nil
}
