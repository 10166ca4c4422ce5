package sqe

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"

	"github.com/sqe-project/sqe/internal/engine"
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
	// stmt is the statement the rows answer: Close releases the cached
	// prepared statement they ran on and finishes the statement, once,
	// with the first error the inner rows reported (other than io.EOF) or
	// else Close's error.
	stmt   rowsStatement
	err    error
	closed bool
}

// rowsStatement is the statement rows belong to.
type rowsStatement struct {
	conn   *Conn
	ctx    context.Context
	plan   *engine.Plan
	cached *cachedStmt // nil unless the rows hold a cached statement
}

// wrapStatementRows returns a driver.Rows over the rows of st's statement
// that implements exactly the optional interfaces inner implements. Errors
// are redacted when the statement's plan is protected.
func wrapStatementRows(inner driver.Rows, st rowsStatement) driver.Rows {
	w := &rowsWrapper{inner: inner, stmt: st}
	return rowsShapes[rowsShape(inner)](w)
}

// redactErr removes protected values from an error of the inner rows.
func (r *rowsWrapper) redactErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return redactError(r.stmt.plan, err)
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
		st := r.stmt
		if st.cached != nil {
			st.conn.stmts.release(st.cached, final != nil)
		}
		st.conn.finish(st.ctx, st.plan, final)
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
