package sqe

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"
)

//go:generate go run ./internal/gen/rowswrap -o rows_gen.go

// rowsWrapper is the state every rows wrapper shares. The generated types
// in rows_gen.go embed it and add the optional interfaces (RowsNextResultSet,
// RowsColumnType*) that the inner rows implement, so database/sql sees
// exactly the capabilities of the underlying driver.
//
// database/sql serialises Next, NextResultSet and Close on one Rows (its
// closemu), so rowsWrapper needs no lock of its own.
type rowsWrapper struct {
	inner driver.Rows
	// done is called once, when the rows are closed, with the first error
	// the inner rows reported (other than io.EOF) or else Close's error.
	done   func(error)
	err    error
	closed bool
	// stmt, when set, is the statement the rows answer: Close releases
	// its cached prepared statement and finishes it, in place of done.
	stmt rowsStatement
}

// rowsStatement is the statement rows belong to.
type rowsStatement struct {
	conn    *Conn
	ctx     context.Context
	plan    *plan
	release func(failed bool) // nil unless the rows hold a cached statement
}

// wrapRows returns a driver.Rows over inner that implements exactly the
// optional interfaces inner implements. done, if not nil, runs once on Close.
func wrapRows(inner driver.Rows, done func(error)) driver.Rows {
	w := &rowsWrapper{inner: inner, done: done}
	return rowsShapes[rowsShape(inner)](w)
}

// wrapStatementRows is wrapRows for the rows of st's statement: errors
// are redacted when its plan is protected, and Close finishes it.
func wrapStatementRows(inner driver.Rows, st rowsStatement) driver.Rows {
	w := &rowsWrapper{inner: inner, stmt: st}
	return rowsShapes[rowsShape(inner)](w)
}

// redactErr removes protected values from an error of the inner rows.
func (r *rowsWrapper) redactErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if r.stmt.plan != nil {
		return redactError(r.stmt.plan, err)
	}
	return err
}

func (r *rowsWrapper) Columns() []string { return r.inner.Columns() }

func (r *rowsWrapper) Next(dest []driver.Value) error {
	err := r.redactErr(r.inner.Next(dest))
	r.record(err)
	return err
}

func (r *rowsWrapper) Close() error {
	err := r.inner.Close()
	if !r.closed {
		r.closed = true
		final := r.err
		if final == nil {
			final = err
		}
		if st := r.stmt; st.conn != nil {
			if st.release != nil {
				st.release(final != nil)
			}
			st.conn.finish(st.ctx, st.plan, final)
		} else if r.done != nil {
			r.done(final)
		}
	}
	return err
}

// record keeps the first real error of the result set (io.EOF ends a set,
// it is not a failure).
func (r *rowsWrapper) record(err error) {
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
}

// The helpers below implement the optional interfaces for the generated
// types; each is only reachable from a type whose inner rows implement the
// interface.

func (r *rowsWrapper) hasNextResultSet() bool {
	return r.inner.(driver.RowsNextResultSet).HasNextResultSet()
}

func (r *rowsWrapper) nextResultSet() error {
	err := r.redactErr(r.inner.(driver.RowsNextResultSet).NextResultSet())
	r.record(err)
	return err
}

func (r *rowsWrapper) columnTypeScanType(index int) reflect.Type {
	return r.inner.(driver.RowsColumnTypeScanType).ColumnTypeScanType(index)
}

func (r *rowsWrapper) columnTypeDatabaseTypeName(index int) string {
	return r.inner.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(index)
}

func (r *rowsWrapper) columnTypeLength(index int) (length int64, ok bool) {
	return r.inner.(driver.RowsColumnTypeLength).ColumnTypeLength(index)
}

func (r *rowsWrapper) columnTypeNullable(index int) (nullable, ok bool) {
	return r.inner.(driver.RowsColumnTypeNullable).ColumnTypeNullable(index)
}

func (r *rowsWrapper) columnTypePrecisionScale(index int) (precision, scale int64, ok bool) {
	return r.inner.(driver.RowsColumnTypePrecisionScale).ColumnTypePrecisionScale(index)
}
