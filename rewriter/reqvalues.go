package rewriter

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// ValueSyntax is implemented by the Syntax of a dialect that can place the
// request values of a policy expression (policy.RequestValue).
type ValueSyntax interface {
	// PlaceRequestValues parses text as exactly one expression and prints
	// it, with each request-value marker (policy.RequestValueMarker) the
	// parser reads as a column reference replaced by a literal node of
	// value(i) (RequestValueLiteral says which), and each marker inside a
	// string literal replaced, within the literal's value, by value(i)'s
	// text ("" for NULL). Markers anywhere else are left as they are.
	PlaceRequestValues(text string, value func(i int) (policy.RequestValue, error)) (string, error)
}

// LiteralKind is the kind of literal a request value in a column
// reference's place becomes.
type LiteralKind int

// The literal kinds of RequestValueLiteral.
const (
	LiteralNull LiteralKind = iota
	LiteralString
	LiteralNumber
)

var reNumericValue = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// RequestValueLiteral decides the literal a request value becomes where
// the parser read its marker as a column reference: NULL for a null value,
// a number for a value that is a plain decimal number (-12, 3.5: the
// meaning such a value had when values were spliced into the text as
// numbers), a string literal for every other value.
func RequestValueLiteral(v policy.RequestValue) LiteralKind {
	switch {
	case v.Null:
		return LiteralNull
	case reNumericValue.MatchString(v.Value):
		return LiteralNumber
	}
	return LiteralString
}

// RequestValueText is a value's text inside a string literal: NULL is the
// empty string (Ranger's resolver does the same). A NUL byte is refused:
// neither server takes one in a literal.
func RequestValueText(v policy.RequestValue) (string, error) {
	if v.Null {
		return "", nil
	}
	if strings.IndexByte(v.Value, 0) >= 0 {
		return "", errNULValue
	}
	return v.Value, nil
}

var errNULValue = errors.New("a request value holds a NUL byte")

// RequestValuesInString is s, the value of a string literal of a policy
// expression, with each request-value marker in it replaced by its
// value's text (RequestValueText).
func RequestValuesInString(s string, value func(i int) (policy.RequestValue, error)) (string, error) {
	return policy.ReplaceRequestValueMarkers(s, func(i int) (string, error) {
		v, err := value(i)
		if err != nil {
			return "", err
		}
		return RequestValueText(v)
	})
}

// ValueLiterals are a dialect's literal nodes (of its syntax tree's type
// N), for placing request values where the parser read a marker as a
// column reference.
type ValueLiterals[N any] struct {
	// Null is a NULL literal.
	Null func() N
	// Number is the literal of a plain decimal number, as the parser
	// reads the text.
	Number func(text string) (N, error)
	// String is a string literal of s.
	String func(s string) (N, error)
}

// Of is the literal node of request value i (RequestValueLiteral says
// which kind).
func (l ValueLiterals[N]) Of(value func(i int) (policy.RequestValue, error), i int) (N, error) {
	var none N
	v, err := value(i)
	if err != nil {
		return none, err
	}
	switch RequestValueLiteral(v) {
	case LiteralNull:
		return l.Null(), nil
	case LiteralNumber:
		return l.Number(v.Value)
	}
	s, err := RequestValueText(v)
	if err != nil {
		return none, err
	}
	return l.String(s)
}

// markerChecks remembers, per dialect and policy text, whether every
// request-value marker of the text sits where a value may: the answer
// depends on the text alone, never on the values.
var markerChecks = TextMemo{Max: 4096}

// PolicyExprSQL returns the canonical text (Syntax.CanonicalExpr) of a
// policy expression with its request values placed by the dialect's
// parser and printer (ValueSyntax). Text without values and without a
// marker is CanonicalExpr's. A marker the parser reads anywhere but as a
// column reference or inside a string literal (a quoted name, a function
// or table name, an alias), a marker with no value, a NUL byte in a value
// or a dialect that cannot place values is an error; its message holds no
// value.
//
// Nothing here is remembered by the values: the check of the markers'
// places is remembered by text, and the text with the values in is
// printed for each call (the rewrite cache, keyed by the caller's policy
// fingerprint, keeps the statements it ends up in).
func PolicyExprSQL(syn Syntax, text string, values []policy.RequestValue) (string, error) {
	if len(values) == 0 && !policy.HasRequestValueMarker(text) {
		return syn.CanonicalExpr(text)
	}
	vs, ok := syn.(ValueSyntax)
	if !ok {
		return "", errors.New("the dialect cannot place request values")
	}
	if _, err := markerChecks.Do(string(syn.UDF())+"\x00"+text, func(string) (string, error) {
		out, err := vs.PlaceRequestValues(text, func(int) (policy.RequestValue, error) {
			return policy.RequestValue{Null: true}, nil
		})
		if err != nil {
			return "", err
		}
		if policy.HasRequestValueMarker(out) {
			return "", errors.New("a request expression stands where only a value may (in a quoted name, a function, table or type name)")
		}
		return "", nil
	}); err != nil {
		return "", err
	}
	return vs.PlaceRequestValues(text, func(i int) (policy.RequestValue, error) {
		if i >= len(values) {
			return policy.RequestValue{}, fmt.Errorf("request value %d is missing", i)
		}
		return values[i], nil
	})
}
