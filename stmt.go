package sqe

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/sqe-project/sqe/internal/engine"
)

// stmt is a statement prepared on the inner connection for one caller's
// policy fingerprint. database/sql reuses a driver statement for every
// caller that runs the *sql.Stmt on this connection, so each execution
// compares the caller's fingerprint with the one the statement was
// prepared for and, when they differ, plans the statement again and
// prepares the new rewrite on the same inner connection before running it.
//
// database/sql converts an execution's arguments (CheckNamedValue,
// ColumnConverter, NumInput) before calling ExecContext or QueryContext, so
// they are checked against the statement as it was before a re-prepare;
// a rewrite keeps the application's placeholders, so the checks still
// apply, and the inner driver checks the arguments again itself.
//
// Only a change of fingerprint (caller, policy snapshot) causes a
// re-prepare. A statement keeps its rewrite across later changes of the
// connection's session state (USE, SET search_path) and of cached table
// metadata.
//
// database/sql holds the connection's lock around every call of a driver
// statement, so stmt needs no lock of its own.
type stmt struct {
	c     *Conn
	query string       // as the application sent it
	p     *engine.Plan // the plan inner was prepared from (read-only)
	inner driver.Stmt  // prepared from p.SQL
}

var (
	_ driver.Stmt              = (*stmt)(nil)
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
	_ driver.ColumnConverter   = stmtCC{} //lint:ignore SA1019 kept for drivers that still implement it
)

// newStmt wraps an inner statement. The result implements
// driver.ColumnConverter exactly when the inner statement does.
func newStmt(c *Conn, query string, p *engine.Plan, inner driver.Stmt) driver.Stmt {
	s := &stmt{c: c, query: query, p: p, inner: inner}
	//lint:ignore SA1019 kept for drivers that still implement it
	if _, ok := inner.(driver.ColumnConverter); ok {
		return stmtCC{s}
	}
	return s
}

// Close closes the inner statement.
func (s *stmt) Close() error { return s.inner.Close() }

// NumInput is the inner statement's (-1 when it does not know).
func (s *stmt) NumInput() int { return s.inner.NumInput() }

// Exec is ExecContext with context.Background().
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valueToNamedValue(args))
}

// Query is QueryContext with context.Background().
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valueToNamedValue(args))
}

// ExecContext runs the statement for the caller on ctx.
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (_ driver.Result, err error) {
	r := s.c.newRun(ctx)
	defer func() { r.end(err) }()
	p, err := s.bind(r)
	if err != nil {
		return nil, err
	}
	if err := s.c.checkWrites(r, args); err != nil {
		return nil, err
	}
	res, err := stmtExec(ctx, s.inner, args)
	return res, redactError(p, err)
}

// QueryContext runs the statement for the caller on ctx; the execution
// ends when the rows close.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (_ driver.Rows, err error) {
	r := s.c.newRun(ctx)
	defer func() { r.end(err) }()
	p, err := s.bind(r)
	if err != nil {
		return nil, err
	}
	if err := s.c.checkWrites(r, args); err != nil {
		return nil, err
	}
	rows, err := stmtQuery(ctx, s.inner, args)
	if err != nil {
		return nil, redactError(p, err)
	}
	return s.c.wrapRows(r, rows), nil
}

// stmtExec executes an inner statement as database/sql would.
func stmtExec(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Result, error) {
	if ec, ok := st.(driver.StmtExecContext); ok {
		return ec.ExecContext(ctx, args)
	}
	dargs, err := namedValueToValue(args)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return st.Exec(dargs) //lint:ignore SA1019 fallback for statements without StmtExecContext
}

// stmtQuery queries an inner statement as database/sql would.
func stmtQuery(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Rows, error) {
	if qc, ok := st.(driver.StmtQueryContext); ok {
		return qc.QueryContext(ctx, args)
	}
	dargs, err := namedValueToValue(args)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return st.Query(dargs) //lint:ignore SA1019 fallback for statements without StmtQueryContext
}

// bind makes the inner statement the caller's: it returns the plan the
// execution r runs (and makes it r's), preparing the statement again when
// the caller's fingerprint differs from the one it was prepared for.
func (s *stmt) bind(r *run) (*engine.Plan, error) {
	fp, err := s.c.planner.Fingerprint(r.ctx, s.c.cs)
	if err != nil {
		return nil, err
	}
	if fp == s.p.Fingerprint {
		// Each execution is a logical statement of its own (its run
		// has its own start); the plan is shared and read-only.
		r.plan = s.p
		return s.p, nil
	}
	p, err := s.c.plan(r, s.query)
	if err != nil {
		return nil, err
	}
	si, err := s.c.prepareInner(r.ctx, p.SQL)
	if err != nil {
		return nil, err
	}
	old := s.inner
	s.inner, s.p = si, p
	// The old statement belonged to another caller's rewrite; a failure to
	// close it does not concern this execution.
	_ = old.Close()
	return p, nil
}

// CheckNamedValue uses the inner statement's NamedValueChecker, else the
// inner connection's, else returns driver.ErrSkip so that database/sql
// goes on to the ColumnConverter and its default conversion: the order
// database/sql applies to the inner driver.
func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := s.inner.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	if s.c.nvc != nil {
		return s.c.nvc.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// stmtCC is a stmt whose inner statement implements driver.ColumnConverter.
type stmtCC struct{ *stmt }

// ColumnConverter forwards to the inner statement's.
func (s stmtCC) ColumnConverter(idx int) driver.ValueConverter {
	//lint:ignore SA1019 kept for drivers that still implement it
	if cc, ok := s.inner.(driver.ColumnConverter); ok {
		return cc.ColumnConverter(idx)
	}
	return driver.DefaultParameterConverter
}

// namedValueToValue converts the arguments for an inner statement without
// StmtExecContext or StmtQueryContext, as database/sql does for such a
// statement (a statement, unlike a connection, cannot decline with
// driver.ErrSkip and leave the fallback to database/sql).
func namedValueToValue(named []driver.NamedValue) ([]driver.Value, error) {
	dargs := make([]driver.Value, len(named))
	for n, param := range named {
		if len(param.Name) > 0 {
			return nil, errors.New("sql: driver does not support the use of Named Parameters")
		}
		dargs[n] = param.Value
	}
	return dargs, nil
}

// valueToNamedValue is the reverse, for the legacy entry points.
func valueToNamedValue(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}
