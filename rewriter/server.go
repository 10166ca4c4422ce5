package rewriter

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sqe-project/sqe/policy"
)

// Query runs a query on the connection a statement is about to run on (its
// transaction, its temporary tables) and returns the rows, each value as
// the driver returns it (nil for NULL; Text and Int read them). args bind
// the query's placeholders, written in the dialect's own style.
type Query func(ctx context.Context, query string, args ...any) ([][]any, error)

// Session is the state of one connection that reading, resolving and
// printing its statements depend on: the current database or the search
// path, the quoting modes. Its dynamic type is the dialect's own, a
// comparable struct of strings and booleans that only the dialect reads
// back (from Request.Session); a nil Session is the dialect's default
// state. Two connections whose Sessions are == get the same rewrite of a
// statement, so a Session is part of the rewrite cache's key.
type Session any

// SessionOf is req's session state as the dialect's type S: the zero S
// (the dialect's default state) when none is set, an error naming the
// dialect when the state is another dialect's.
func SessionOf[S any](req *Request, dialect string) (S, error) {
	var zero S
	switch s := req.Session.(type) {
	case nil:
		return zero, nil
	case S:
		return s, nil
	}
	return zero, Unsupported("the connection's session state is not a %s one", dialect)
}

// Server is what a dialect knows about its database server beyond the
// grammar: how to read a connection's session state, the table metadata
// and listing its rewrites need, and when the server's own errors stand
// for the dialect's.
type Server interface {
	// ReadSession reads the connection's session state. It refuses a
	// connection sqe cannot rewrite for with certainty (a character set
	// or regular-expression default the rewrite does not account for).
	ReadSession(ctx context.Context, q Query) (Session, error)
	// FixedSession is the session state of a connection whose state is
	// given rather than read (a StaticCatalog's): the current database
	// and the search path, each dialect taking what it has.
	FixedSession(defaultSchema string, searchPath []string) Session
	// Columns reads a table's columns in ordinal order; none when the
	// table does not exist.
	Columns(ctx context.Context, q Query, t policy.TableName) ([]Column, error)
	// SessionTable reports whether t names a table of the connection's
	// own session (PostgreSQL's pg_temp): its metadata is read on the
	// connection every time and never shared with other connections.
	SessionTable(t policy.TableName) bool
	// Tables lists the tables and views the connection sees outside the
	// server's own schemas (see TableLister).
	Tables(ctx context.Context, q Query) ([]policy.TableName, error)
	// ConfirmingCodes returns the server's error codes (SQLSTATE, error
	// number) that confirm a refusal of the dialect's (a statement that
	// does not parse, a table that does not exist) when the server, asked
	// to prepare the statement, answers with one of them; the driver then
	// returns the server's error. nil when the server is not to be asked:
	// unless the dialect parses with the server's own grammar, the server
	// would read what sqe could not.
	ConfirmingCodes(refusal *Error) []string
}

// OneRow runs query on q and returns its row, which must be the only
// one and have n columns; any other result is an error.
func OneRow(ctx context.Context, q Query, query string, n int) ([]any, error) {
	rows, err := q(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0]) != n {
		return nil, errors.New("unexpected result")
	}
	return rows[0], nil
}

// TextQuery is q as a function of one statement without arguments that
// returns one value as text, for udf.ServerMaskCheck.
func TextQuery(ctx context.Context, q Query) func(string) (string, error) {
	return func(query string) (string, error) {
		row, err := OneRow(ctx, q, query, 1)
		if err != nil {
			return "", err
		}
		return Text(row[0]), nil
	}
}

// ServerMasker is a Server whose database may have sqe's mask functions
// installed (udf/native).
type ServerMasker interface {
	// UseServerMasks checks the connection's server with
	// udf.ServerMaskCheck and returns s with its server masks on: the
	// character-class string masks call the installed function.
	UseServerMasks(ctx context.Context, q Query, s Session) (Session, error)
}

// TableNames runs query on q, whose rows are a schema and a table name,
// and returns the tables.
func TableNames(ctx context.Context, q Query, query string) ([]policy.TableName, error) {
	rows, err := q(ctx, query)
	if err != nil {
		return nil, err
	}
	out := make([]policy.TableName, 0, len(rows))
	for _, r := range rows {
		out = append(out, policy.TableName{Schema: Text(r[0]), Table: Text(r[1])})
	}
	return out, nil
}

// Text reads a value a Query returned as text ("" for NULL).
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// Int reads a value a Query returned as an integer (-1 when it is none).
func Int(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case []byte:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n
		}
	}
	return -1
}
