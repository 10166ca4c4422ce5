package policy

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// RequestValue is the value, for one caller, of a request expression of a
// policy expression (Ranger's ${{…}}): a string, or NULL when Null is set.
//
// The policy source does not splice values into the expression text. It
// writes a marker (RequestValueMarker) where each request expression
// stood and hands the values alongside the text (RowFilter.Values,
// Mask.Values). The rewriter parses the text with the dialect's parser:
// a marker that stands as a column reference becomes a literal of its
// value, a marker inside a string literal is replaced within the
// literal's value, and a marker anywhere else refuses the expression. The
// dialect's printer then escapes the value for the session, so no value
// can change the expression's structure.
type RequestValue struct {
	Value string
	Null  bool
}

// RequestValueTable is the qualifier of every request-value marker. A
// policy expression whose own text holds it (in any case) cannot be
// told from one with markers: policy sources refuse it.
const RequestValueTable = "sqe_request_value"

// RequestValueMarker is the marker of the request value at index i:
// sqe_request_value.v<i>_. It reads as a qualified column reference
// outside quotes in both dialects, as one name (which is refused) inside
// a quoted identifier, and as plain text inside a string literal.
func RequestValueMarker(i int) string {
	return RequestValueTable + ".v" + strconv.Itoa(i) + "_"
}

// RequestValueColumn reports whether the column reference table.column
// (table unqualified by a schema) is a request-value marker, and its index.
func RequestValueColumn(table, column string) (int, bool) {
	if table != RequestValueTable || len(column) < 3 || column[0] != 'v' || column[len(column)-1] != '_' {
		return 0, false
	}
	digits := column[1 : len(column)-1]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || strconv.Itoa(i) != digits {
		return 0, false
	}
	return i, true
}

// HasRequestValueMarker reports whether s holds the markers' qualifier,
// in any case.
func HasRequestValueMarker(s string) bool {
	return strings.Contains(strings.ToLower(s), RequestValueTable)
}

var reRequestValueMarker = regexp.MustCompile(regexp.QuoteMeta(RequestValueTable) + `\.v(0|[1-9][0-9]*)_`)

// ReplaceRequestValueMarkers replaces every marker in s (the value of a
// string literal) by value(i), in one pass: what value returns is not
// searched again.
func ReplaceRequestValueMarkers(s string, value func(i int) (string, error)) (string, error) {
	if !strings.Contains(s, RequestValueTable) {
		return s, nil
	}
	var err error
	out := reRequestValueMarker.ReplaceAllStringFunc(s, func(m string) string {
		if err != nil {
			return ""
		}
		i, ok := RequestValueColumn(RequestValueTable, m[len(RequestValueTable)+1:])
		if !ok {
			err = errMarker
			return ""
		}
		v, verr := value(i)
		if verr != nil {
			err = verr
		}
		return v
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

var errMarker = errors.New("malformed request-value marker")
