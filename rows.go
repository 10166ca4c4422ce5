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
	// run is the statement the rows answer: Close ends it (once) with the
	// first error the inner rows reported (other than io.EOF) or else
	// Close's error.
	run run
	err error
}

// wrapStatementRows returns a driver.Rows over the rows of r's statement
// that implements exactly the optional interfaces inner implements. Errors
// are redacted when the statement's plan is protected.
func wrapStatementRows(inner driver.Rows, r run) driver.Rows {
	w := &rowsWrapper{inner: inner, run: r}
	return rowsShapes[rowsShape(inner)](w)
}

// redactErr removes protected values from an error of the inner rows.
func (r *rowsWrapper) redactErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return redactError(r.run.plan, err)
}

func (r *rowsWrapper) Columns() []string { return r.inner.Columns() }

func (r *rowsWrapper) Next(dest []driver.Value) error {
	err := r.redactErr(r.inner.Next(dest))
	r.record(err)
	return err
}

func (r *rowsWrapper) Close() error {
	err := r.inner.Close()
	final := r.err
	if final == nil {
		final = err
	}
	r.run.end(final)
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
