// Package redact removes the values that database errors echo from their
// text, keeping the names that server messages of known forms quote and
// the type of a driver's error struct (see below).
package redact

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"regexp"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Database errors echo values: a failed cast names the text it could not
// convert, a duplicate key names the key, PostgreSQL's DETAIL repeats the
// row. For a statement that read data under a mask or row filter, those
// values may be protected ones (the server may evaluate an application's
// predicate on a row before the policy's filter rejects it), so sqe removes
// every quoted value from the error before the application sees it. Table,
// column, key and constraint names are not values: in the server messages
// that name them in a known form (unknown column, missing table, duplicate
// key, constraint violations) they stay, and only the values go.
//
// The error keeps its type when it is a driver's error struct
// (*mysql.MySQLError, *pgconn.PgError, …): a copy is returned with its
// text fields redacted, so errors.As and error codes keep working. Any
// other error becomes a new error with the redacted text, and the original
// is not reachable through it.

const redacted = "'<redacted>'"

// redactedFields are the text fields of drivers' error structs that can
// carry values.
var redactedFields = map[string]bool{
	"Message": true, "Detail": true, "Hint": true, "Where": true, "InternalQuery": true, "Msg": true,
}

// Values returns err with every value removed from its text, for any
// statement: audit records are redacted this way whoever the caller was.
// sqe's own errors carry no values and pass unchanged, and so do the
// errors that carry no text from the server (driver.ErrBadConn,
// driver.ErrSkip, context cancellation).
func Values(err error) error {
	if err == nil || errors.Is(err, driver.ErrBadConn) || errors.Is(err, driver.ErrSkip) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var re *rewriter.Error
	if errors.As(err, &re) || isSentinel(err) {
		return err
	}
	if copy, ok := Struct(err); ok {
		return copy
	}
	return &redactedError{msg: Text(err.Error())}
}

// isSentinel reports whether err is one of sqe's sentinels, bare or
// wrapped with fmt.Errorf("%w: …") by sqe itself.
func isSentinel(err error) bool {
	for _, s := range []error{session.ErrNoSession, policy.ErrAccessDenied, policy.ErrColumnDenied, rewriter.ErrUnsupported, policy.ErrNotLoaded} {
		if err == s {
			return true
		}
		if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() == s && strings.HasPrefix(err.Error(), s.Error()) {
			return true
		}
	}
	return false
}

// redactedError is an error whose text had values removed.
type redactedError struct{ msg string }

func (e *redactedError) Error() string { return e.msg }

// Struct copies a pointer-to-struct error, redacting its text fields; ok
// is false when err is no such struct, or one with text Struct cannot
// reach (an unexported string, a wrapped error).
func Struct(err error) (_ error, ok bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	elem := v.Elem()
	t := elem.Type()
	copy := reflect.New(t)
	copy.Elem().Set(elem)
	touched := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			// An unexported field may hold text we cannot redact.
			if f.Type.Kind() == reflect.String || f.Type.Kind() == reflect.Interface {
				return nil, false
			}
			continue
		}
		fv := copy.Elem().Field(i)
		switch {
		case f.Type.Kind() == reflect.String && redactedFields[f.Name]:
			fv.SetString(Text(fv.String()))
			touched = true
		case f.Type.Kind() == reflect.Interface && f.Type.Implements(reflect.TypeOf((*error)(nil)).Elem()):
			if !fv.IsNil() {
				return nil, false // a wrapped error would keep the values
			}
		}
	}
	if !touched {
		return nil, false
	}
	out, ok := copy.Interface().(error)
	return out, ok
}

// Text replaces every quoted or parenthesised value in a database
// message: '…' and "…" (with doubled or escaped quotes inside), and the
// (…)=(…) key/value form of PostgreSQL's DETAIL lines. Names are not
// values: a message of a known form keeps the table, column, key and
// constraint names it quotes (see identifierForms).
func Text(s string) string {
	if out, ok := redactKnownForm(s); ok {
		return out
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end := closingQuote(s, i)
			if c == '`' {
				b.WriteString(s[i:end]) // an identifier, not a value
			} else {
				b.WriteString(redacted)
			}
			i = end
		case c == '=' && i+1 < len(s) && s[i+1] == '(':
			// Key (cols)=(values): the values are not quoted and may hold
			// a parenthesis, so everything up to the message's last one goes.
			b.WriteString("=(<redacted>)")
			i = pastLastParen(s, i+1)
		case c == '(' && strings.HasSuffix(s[:i], "row contains "):
			// PostgreSQL's "Failing row contains (…)" of NOT NULL and CHECK
			// violations lists the whole row, unquoted.
			b.WriteString("(<redacted>)")
			i = pastLastParen(s, i)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// pastLastParen returns the index just past the last ')' of s at or after
// i (len(s) when there is none).
func pastLastParen(s string, i int) int {
	if j := strings.LastIndexByte(s[i:], ')'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// closingQuote returns the index just past the quote closing the one at i
// (or the end of s when it is not closed). Servers do not escape quotes
// inside the values they echo, so a quote followed by a letter, a digit
// or another quote does not close: the value runs on to a quote that ends
// a word.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(s) && (s[j+1] == q || isWordByte(s[j+1])) {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// identifierForms are the server messages whose quoted names sqe keeps:
// each matches a whole message, its quoted names (no quote inside) outside
// any group, and each group is a value that is replaced. A value is
// matched greedily, so the names that the server writes after it are the
// last ones in the message whatever the value holds. A message of no known
// form has every quoted part redacted.
var identifierForms = func() []*regexp.Regexp {
	const (
		sq   = `'[^'\\]*'`              // 'name'
		bq   = "`[^`]*`(?:\\.`[^`]*`)*" // `db`.`t`.`c`
		dq   = `"[^"\\]*"`              // "name"
		kind = `(?:relation|table|schema|type|index|view|sequence|database|role|constraint|column|function|operator|collation|extension|trigger)`
	)
	forms := []string{
		// MySQL and MariaDB.
		`Unknown column (?:` + sq + `|` + bq + `) in ` + sq,
		`Table ` + sq + ` doesn't exist`,
		`Unknown table ` + sq + `(?: in [A-Za-z ]+)?`,
		`Unknown database ` + sq,
		`Column ` + sq + ` in [a-zA-Z ]+ is ambiguous`,
		`Column ` + sq + ` cannot be null`,
		`Field ` + sq + ` doesn't have a default value`,
		`Data too long for column ` + sq + ` at row \d+`,
		`Out of range value for column ` + sq + ` at row \d+`,
		`Duplicate entry '(.*)' for key ` + sq,
		// PostgreSQL.
		`column ` + dq + `(?: of relation ` + dq + `)? does not exist`,
		kind + ` ` + dq + ` does not exist`,
		`column reference ` + dq + ` is ambiguous`,
		`column ` + dq + ` specified more than once`,
		`missing FROM-clause entry for table ` + dq,
		`duplicate key value violates unique constraint ` + dq,
		`null value in column ` + dq + `(?: of relation ` + dq + `)? violates not-null constraint`,
		`new row for relation ` + dq + ` violates check constraint ` + dq,
		`insert or update on table ` + dq + ` violates foreign key constraint ` + dq,
		`update or delete on table ` + dq + ` violates foreign key constraint ` + dq + ` on table ` + dq,
	}
	out := make([]*regexp.Regexp, len(forms))
	for i, f := range forms {
		out[i] = regexp.MustCompile(`^` + f + `$`)
	}
	return out
}()

// redactKnownForm redacts a message of a known form: its names stay, its
// values go.
func redactKnownForm(s string) (string, bool) {
	if len(s) > 4096 {
		return "", false
	}
	for _, re := range identifierForms {
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		var b strings.Builder
		last := 0
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] < 0 {
				continue
			}
			b.WriteString(s[last:m[g]])
			b.WriteString("<redacted>")
			last = m[g+1]
		}
		b.WriteString(s[last:])
		return b.String(), true
	}
	return "", false
}
