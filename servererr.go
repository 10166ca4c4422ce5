package sqe

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"

	"github.com/sqe-project/sqe/internal/redact"
	"github.com/sqe-project/sqe/rewriter"
)

// Applications branch on the server's error: errors.As with
// *pgconn.PgError or *mysql.MySQLError and the SQLSTATE or error number.
// When sqe refuses a statement for a reason the server would also give —
// it does not parse, or it names a table that does not exist — the
// application should still get the server's error. On PostgreSQL, whose
// parser sqe's dialect uses, sqe asks the server:
// it prepares the application's statement on the inner connection, which
// parses and resolves it and never executes it (PostgreSQL's Parse
// message, MySQL's COM_STMT_PREPARE), and closes it at once if the server
// accepts it. When the server rejects it, the error returned is a
// ServerError: its text and type are the server's (errors.As finds the
// driver's error), and it still matches sqe's own error (errors.Is with
// ErrSyntax or ErrUnsupported). When the server accepts what sqe refused
// (a table sqe cannot see), or rejects it for another reason, sqe's own
// error stands and nothing runs. Policy refusals never reach the server.
// On MySQL and MariaDB a statement sqe cannot parse stays sqe's ErrSyntax
// (see the dialects' ConfirmingCodes); an unknown table there is the
// server's error already, since the MySQL dialect lets the server resolve
// names.
//
// On PostgreSQL, as with the raw driver, the server's rejection of a
// statement inside a transaction aborts the transaction.

// ServerError is a refusal of sqe that the server confirmed with its own
// error. Error is the server's text; Unwrap gives both errors.
type ServerError struct {
	// Server is the inner driver's error (*pgconn.PgError,
	// *mysql.MySQLError, …) with the statement's literals removed from
	// its text, as sqe's own syntax errors show none.
	Server error
	Sqe    error // sqe's refusal (a *rewriter.Error)
}

func (e *ServerError) Error() string   { return e.Server.Error() }
func (e *ServerError) Unwrap() []error { return []error{e.Server, e.Sqe} }

// confirmingCodes returns the server error codes that confirm what sqe
// refused with err — a syntax error, or a table that does not exist — as
// the dialect names them; nil when the server is not asked.
func (c *Conn) confirmingCodes(err error) []string {
	var re *rewriter.Error
	d, ok := c.planner.(interface {
		ConfirmingCodes(*rewriter.Error) []string
	})
	if !ok || !errors.As(err, &re) {
		return nil
	}
	return d.ConfirmingCodes(re)
}

// driverErrorCode returns the code a driver's error carries: a string field
// Code (pgconn.PgError, lib/pq's Error) or a numeric field Number
// (mysql.MySQLError), of the error or one it wraps ("" when none).
func driverErrorCode(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			continue
		}
		if f := v.Elem().FieldByName("Code"); f.IsValid() && f.Kind() == reflect.String {
			return f.String()
		}
		if f := v.Elem().FieldByName("Number"); f.IsValid() && f.CanUint() {
			return strconv.FormatUint(f.Uint(), 10)
		}
	}
	return ""
}

// askServer returns err, or a ServerError when the server, asked to
// prepare query, rejects it for the same reason.
func (c *Conn) askServer(ctx context.Context, query string, err error) error {
	codes := c.confirmingCodes(err)
	if codes == nil || ctx.Err() != nil {
		return err
	}
	si, perr := c.prepareInner(ctx, query)
	if perr == nil {
		_ = si.Close()
		return err
	}
	// Only the same reason confirms: a string of several statements, say,
	// is refused by a prepare for being several.
	if !slices.Contains(codes, driverErrorCode(perr)) {
		return err
	}
	return &ServerError{Server: redactKeepType(perr), Sqe: err}
}

// redactKeepType removes values from a driver's error and keeps its type:
// the error itself when its fields can be redacted, else the first error
// it wraps that can (a driver's error struct inside a wrapper).
func redactKeepType(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if copy, ok := redact.Struct(e); ok {
			return copy
		}
	}
	return redact.Values(err)
}
