package sqe

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/rewriter"
)

// Conn is sqe's driver connection. It wraps one connection of the inner
// driver and sends it every statement rewritten for the caller found on the
// statement's context; a statement that sqe rejects is never sent.
//
// database/sql is Conn's only intended user. Code that reaches it through
// sql.Conn.Raw gets a *Conn, not the inner connection: see Unwrap.
//
// Conn implements the optional driver interfaces database/sql looks for and
// forwards each to the inner connection, behaving as database/sql itself
// behaves when the inner connection lacks one (Prepare for PrepareContext,
// Begin for default transaction options, a Ping that succeeds, IsValid
// true). Direct execution needs both driver.ExecerContext and
// driver.QueryerContext on the inner connection, as every maintained driver
// has; without them Conn returns driver.ErrSkip and database/sql takes its
// prepare path, through PrepareContext.
//
// Retries: when the inner driver returns driver.ErrBadConn (unchanged, so
// database/sql retries on another connection), the attempt is finished with
// that error and the retry is planned and finished again on the new
// connection; each attempt is reported exactly once. When the inner
// connection declines direct execution with driver.ErrSkip, the attempt is
// not finished: database/sql prepares the statement instead, and that path
// plans and finishes it once.
type Conn struct {
	inner   driver.Conn
	cs      *engine.ConnState
	planner planner
	raw     bool
	onClose func() error // runs after the inner connection is closed
	// timed: the planner audits statements, so each run reads the clock
	// as it starts (the audit record's duration).
	timed bool

	// The inner connection's direct execution paths (both nil when it
	// lacks either) and argument checker.
	execerCtx  driver.ExecerContext
	queryerCtx driver.QueryerContext
	nvc        driver.NamedValueChecker
	// skipsWithArgs: the inner connection answered a direct query or exec
	// with arguments with driver.ErrSkip (go-sql-driver/mysql does without
	// interpolateParams); later ones run on a statement from stmts, or
	// go straight to the prepare path when there is no statement cache.
	skipsWithArgs bool
	// stmts keeps statements prepared on the inner connection for the
	// direct path once skipsWithArgs is set (nil: no cache).
	stmts *stmtCache
	// discardReported: the discard of this connection was counted and
	// audited.
	discardReported bool
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.Pinger             = (*Conn)(nil)
	_ driver.SessionResetter    = (*Conn)(nil)
	_ driver.Validator          = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
)

func newConn(inner driver.Conn, p planner, raw bool) *Conn {
	c := &Conn{inner: inner, cs: engine.NewConnState(inner), planner: p, raw: raw, timed: p.Audits()}
	e, eok := inner.(driver.ExecerContext)
	q, qok := inner.(driver.QueryerContext)
	if eok && qok {
		c.execerCtx, c.queryerCtx = e, q
	}
	c.nvc, _ = inner.(driver.NamedValueChecker)
	return c
}

// direct reports whether the inner connection executes statements
// directly.
func (c *Conn) direct() bool { return c.execerCtx != nil }

// errRawAccess is returned by Unwrap without WithRawConnAccess.
var errRawAccess = fmt.Errorf("%w: raw connection access is disabled; see WithRawConnAccess", ErrAccessDenied)

// Unwrap returns the inner driver's connection, for code that needs a
// driver-specific API through sql.Conn.Raw. The connector must have been
// built with WithRawConnAccess; otherwise Unwrap returns an error wrapping
// ErrAccessDenied. Statements sent on the inner connection bypass every
// policy.
func (c *Conn) Unwrap() (driver.Conn, error) {
	if !c.raw {
		return nil, errRawAccess
	}
	return c.inner, nil
}

// plan plans query for r's caller and makes it r's plan. A refusal ends
// r here, with the refusal; the error returned may be the server's
// confirmation of it (askServer).
func (c *Conn) plan(r *run, query string) (*engine.Plan, error) {
	p, err := c.planner.Plan(r.ctx, c.cs, query)
	if err == nil && p == nil {
		err = fmt.Errorf("%w: no rewrite produced", ErrUnsupported)
	}
	if err != nil {
		if p != nil && !p.Refused {
			p = nil
		}
		r.plan = p
		r.end(err)
		return nil, c.askServer(r.ctx, query, err)
	}
	r.plan = p
	return p, nil
}

// checkWrites runs the row filters' checks of the rows r's plan writes
// (rewriter.WriteCheck) with the statement's arguments, before anything is
// sent. A row that fails is a refusal: r's plan is marked refused, and r
// ends with the error as the entry point returns it.
func (c *Conn) checkWrites(r *run, args []driver.NamedValue) error {
	p := r.plan
	if p == nil || p.Result == nil || len(p.Result.WriteChecks) == 0 {
		return nil
	}
	err := rewriter.VerifyAll(p.Result.WriteChecks, args)
	if err != nil {
		refused := *p
		refused.Refused = true
		r.plan = &refused
	}
	return err
}

// Prepare is PrepareContext with context.Background().
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext rewrites query for the caller on ctx and prepares the
// rewritten SQL on the inner connection. The statement remembers the
// caller's policy fingerprint and prepares itself again, on this
// connection, when a caller with another fingerprint executes it.
func (c *Conn) PrepareContext(ctx context.Context, query string) (_ driver.Stmt, err error) {
	r := c.newRun(ctx)
	defer func() {
		if err != nil { // after a prepare, each execution is a run
			r.end(err)
		}
	}()
	if c.planner.IsRoleStatement(query) {
		return nil, fmt.Errorf("%w: USE ROLE and USE SECONDARY ROLES cannot be prepared: run them with ExecContext", ErrUnsupported)
	}
	p, err := c.plan(r, query)
	if err != nil {
		return nil, err
	}
	si, err := c.prepareInner(ctx, p.SQL)
	if err != nil {
		return nil, err
	}
	return newStmt(c, query, p, si), nil
}

// prepareInner prepares on the inner connection as database/sql would.
func (c *Conn) prepareInner(ctx context.Context, query string) (driver.Stmt, error) {
	if pc, ok := c.inner.(driver.ConnPrepareContext); ok {
		return pc.PrepareContext(ctx, query)
	}
	si, err := c.inner.Prepare(query)
	if err == nil {
		select {
		default:
		case <-ctx.Done():
			_ = si.Close()
			return nil, ctx.Err()
		}
	}
	return si, err
}

// Close closes the statements it keeps prepared and the inner connection.
func (c *Conn) Close() error {
	if c.stmts != nil {
		c.stmts.flush()
	}
	err := c.inner.Close()
	if c.onClose != nil {
		if cerr := c.onClose(); err == nil {
			err = cerr
		}
	}
	return err
}

// Begin starts a transaction with default options.
//
// Deprecated: database/sql uses BeginTx.
func (c *Conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a transaction on the inner connection. When the inner
// connection does not implement driver.ConnBeginTx, non-default options
// fail as database/sql fails them.
func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var (
		t   driver.Tx
		err error
	)
	if bt, ok := c.inner.(driver.ConnBeginTx); ok {
		t, err = bt.BeginTx(ctx, opts)
	} else {
		t, err = c.begin(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	return &tx{c: c, inner: t}, nil
}

// begin is database/sql's fallback for drivers without ConnBeginTx.
func (c *Conn) begin(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != driver.IsolationLevel(sql.LevelDefault) {
		return nil, errors.New("sql: driver does not support non-default isolation level")
	}
	if opts.ReadOnly {
		return nil, errors.New("sql: driver does not support read-only transactions")
	}
	t, err := c.inner.Begin() //lint:ignore SA1019 fallback for drivers without ConnBeginTx
	if err == nil {
		select {
		default:
		case <-ctx.Done():
			_ = t.Rollback()
			return nil, ctx.Err()
		}
	}
	return t, err
}

// ExecContext rewrites query for the caller on ctx and executes it on the
// inner connection with args unchanged. It returns driver.ErrSkip when the
// inner connection cannot execute directly, so that database/sql prepares
// the statement instead.
func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (_ driver.Result, err error) {
	r := c.newRun(ctx)
	defer func() { r.endDirect(err) }()
	if c.planner.IsRoleStatement(query) {
		if _, err := c.plan(r, query); err != nil {
			return nil, err
		}
		return localResult{}, nil
	}
	query, args, err = applyQueryRewriters(ctx, query, args)
	if err != nil {
		return nil, err
	}
	cached := c.skipsWithArgs && len(args) > 0
	if !c.direct() || (cached && c.stmts == nil) {
		return nil, driver.ErrSkip
	}
	p, err := c.plan(r, query)
	if err != nil {
		return nil, err
	}
	if err := c.checkWrites(r, args); err != nil {
		return nil, err
	}
	if cached {
		return c.execCached(r, args)
	}
	res, err := c.execerCtx.ExecContext(ctx, p.SQL, args)
	if err == driver.ErrSkip {
		c.skipsWithArgs = c.skipsWithArgs || len(args) > 0
		return nil, err
	}
	return res, redactError(p, err)
}

// QueryContext rewrites query for the caller on ctx and runs it on the
// inner connection with args unchanged. It returns driver.ErrSkip when the
// inner connection cannot query directly, so that database/sql prepares
// the statement instead. The statement is finished when the rows close.
func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (_ driver.Rows, err error) {
	r := c.newRun(ctx)
	defer func() { r.endDirect(err) }()
	if c.planner.IsRoleStatement(query) {
		if _, err := c.plan(r, query); err != nil {
			return nil, err
		}
		return localRows{}, nil
	}
	query, args, err = applyQueryRewriters(ctx, query, args)
	if err != nil {
		return nil, err
	}
	cached := c.skipsWithArgs && len(args) > 0
	if !c.direct() || (cached && c.stmts == nil) {
		return nil, driver.ErrSkip
	}
	p, err := c.plan(r, query)
	if err != nil {
		return nil, err
	}
	if err := c.checkWrites(r, args); err != nil {
		return nil, err
	}
	if cached {
		return c.queryCached(r, args)
	}
	rows, err := c.queryerCtx.QueryContext(ctx, p.SQL, args)
	if err == driver.ErrSkip {
		c.skipsWithArgs = c.skipsWithArgs || len(args) > 0
		return nil, err
	}
	if err != nil {
		return nil, redactError(p, err)
	}
	return c.wrapRows(r, rows), nil
}

// useCached makes r run on a statement from the connection's cache,
// which r's end gives back. A statement kind the cache does not keep gets
// driver.ErrSkip, so that database/sql's prepare path runs it.
func (c *Conn) useCached(r *run) error {
	if !cacheable(r.plan) {
		return driver.ErrSkip
	}
	e, err := c.stmts.acquire(r.ctx, c, r.plan.SQL)
	if err != nil {
		return redactError(r.plan, err)
	}
	r.cached = e
	return nil
}

// execCached runs r's plan on a statement from the connection's cache.
func (c *Conn) execCached(r *run, args []driver.NamedValue) (driver.Result, error) {
	if err := c.useCached(r); err != nil {
		return nil, err
	}
	res, err := stmtExec(r.ctx, r.cached.st, args)
	return res, redactError(r.plan, err)
}

// queryCached is execCached for queries; the statement is given back when
// the rows close.
func (c *Conn) queryCached(r *run, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.useCached(r); err != nil {
		return nil, err
	}
	rows, err := stmtQuery(r.ctx, r.cached.st, args)
	if err != nil {
		return nil, redactError(r.plan, err)
	}
	return c.wrapRows(r, rows), nil
}

// wrapRows wraps the rows of r's execution: r is handed to them, and
// ends when they close.
func (c *Conn) wrapRows(r *run, rows driver.Rows) driver.Rows {
	return wrapStatementRows(rows, r.handOff())
}

// Ping forwards to the inner connection's Ping; without one it returns nil.
func (c *Conn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// ResetSession forwards to the inner connection's ResetSession, if any.
// database/sql calls it each time it hands a used connection out again.
// A connection on which a statement opened state by SQL text that outlives
// it (a transaction begun by BEGIN, a session variable, USE, a temporary
// table, a cursor WITH HOLD) is never handed to the next caller: IsValid
// already makes database/sql close it when it comes back to the pool, and
// should it be handed out all the same, sqe returns driver.ErrBadConn and
// database/sql takes another. The audit sink is told once.
//
// A connection whose only such state is temporary tables goes on serving
// the caller who created them — the same policy fingerprint, which
// encodes the user, groups, roles, attributes and policy version — so
// that a temporary table created by one pooled call is there for the
// next, as with the raw driver; it is discarded before any other caller
// gets it.
func (c *Conn) ResetSession(ctx context.Context) error {
	if c.cs.SameCallerKeeps() {
		if fp, err := c.planner.Fingerprint(ctx, c.cs); err != nil || fp != c.cs.HeldFingerprint() {
			c.discardHeld()
			return driver.ErrBadConn
		}
	} else if c.discardHeld() {
		return driver.ErrBadConn
	}
	c.cs.HandOver()
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// discardHeld reports whether the connection holds state opened by SQL
// text, and reports its discard (once).
func (c *Conn) discardHeld() bool {
	why := c.cs.Held()
	if why == "" {
		return false
	}
	if !c.discardReported {
		c.discardReported = true
		c.planner.Discarded(c.cs, why)
	}
	return true
}

// IsValid is false for a connection that holds state opened by SQL text
// (but temporary tables alone, which ResetSession checks against the next
// caller), so that database/sql closes it as soon as it comes back to the pool (an
// open transaction is rolled back at once, not left holding its locks
// while the connection waits idle); otherwise it forwards to the inner
// connection's IsValid, and without one it returns true.
func (c *Conn) IsValid() bool {
	if !c.cs.SameCallerKeeps() && c.discardHeld() {
		return false
	}
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// CheckNamedValue forwards to the inner connection's CheckNamedValue, or
// returns driver.ErrSkip when it has none so that database/sql applies its
// default conversion: what database/sql does for the inner connection.
//
// database/sql checks arguments at the connection only before a direct
// execution. On an inner connection without one, ExecContext and
// QueryContext decline with driver.ErrSkip and database/sql converts the
// arguments again at the statement, so CheckNamedValue accepts every value
// unchanged: the inner connection's checker (or the default conversion)
// must not refuse a value that its statements would accept.
func (c *Conn) CheckNamedValue(nv *driver.NamedValue) error {
	if !c.direct() {
		return nil
	}
	if c.nvc != nil {
		return c.nvc.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// localResult and localRows answer a statement sqe handled itself (USE
// ROLE): nothing was sent to the database.
type localResult struct{}

func (localResult) LastInsertId() (int64, error) { return 0, nil }
func (localResult) RowsAffected() (int64, error) { return 0, nil }

type localRows struct{}

func (localRows) Columns() []string              { return nil }
func (localRows) Close() error                   { return nil }
func (localRows) Next(dest []driver.Value) error { return io.EOF }
