package sqe

import (
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
	// redact, when set, removes protected values from the errors the
	// inner rows report.
	redact func(error) error
}

// wrapRows returns a driver.Rows over inner that implements exactly the
// optional interfaces inner implements. done, if not nil, runs once on Close.
func wrapRows(inner driver.Rows, done func(error)) driver.Rows {
	w := &rowsWrapper{inner: inner, done: done}
	return rowsShapes[rowsShape(inner)](w)
}

func (r *rowsWrapper) Columns() []string { return r.inner.Columns() }

func (r *rowsWrapper) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err != nil && err != io.EOF && r.redact != nil {
		err = r.redact(err)
	}
	r.record(err)
	return err
}

// base gives the generated wrapper types access to the shared state.
func (r *rowsWrapper) base() *rowsWrapper { return r }

// setRowsRedaction makes the rows redact the errors they report.
func setRowsRedaction(rows driver.Rows, redact func(error) error) {
	if b, ok := rows.(interface{ base() *rowsWrapper }); ok {
		b.base().redact = redact
	}
}

func (r *rowsWrapper) Close() error {
	err := r.inner.Close()
	if !r.closed {
		r.closed = true
		final := r.err
		if final == nil {
			final = err
		}
		if r.done != nil {
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
	err := r.inner.(driver.RowsNextResultSet).NextResultSet()
	if err != nil && err != io.EOF && r.redact != nil {
		err = r.redact(err)
	}
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
