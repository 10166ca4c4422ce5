package sqe

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/sqe-project/sqe/internal/engine"
)

// run is one logical statement on a connection, from its planning to its
// end. Its end reports it to the planner (Finish: audit, metrics, the
// statement's effect on the connection's state) exactly once, however
// many exits the call that ran it has; it also gives back the cached
// prepared statement the statement ran on, and empties the connection's
// statement cache after a statement that may change how the server
// prepares a text.
//
// Each entry point (Conn.ExecContext, Conn.QueryContext,
// Conn.PrepareContext, and a prepared statement's ExecContext and
// QueryContext) starts a run and ends it as it returns, with the error it
// returns; a planning refusal ends it at once, with the refusal itself
// (the caller may get the server's confirmation of it: see askServer).
// What outlives the call takes the run over: a query's rows end it when
// they close. Two returns do not end a statement:
//   - driver.ErrSkip from the connection (see endDirect): database/sql
//     runs the statement again by its prepare path, as a run of its own;
//   - a successful prepare: each execution of the prepared statement is a
//     run of its own.
type run struct {
	c       *Conn
	ctx     context.Context
	started time.Time    // for the audit record's duration (zero when not audited)
	plan    *engine.Plan // nil until planned, and when planning failed
	// cached is the statement from the connection's cache the statement
	// runs on (nil when none).
	cached *cachedStmt
	ended  bool
}

// newRun starts a logical statement for the caller on ctx.
func (c *Conn) newRun(ctx context.Context) *run {
	r := &run{c: c, ctx: ctx}
	if c.timed {
		r.started = time.Now()
	}
	return r
}

// end ends the statement with err (nil: it succeeded); later calls do
// nothing. A failed statement's cached prepared statement is dropped.
func (r *run) end(err error) {
	if r.ended {
		return
	}
	r.ended = true
	c := r.c
	if r.cached != nil {
		c.stmts.release(r.cached, err != nil)
	}
	c.planner.Finish(r.ctx, c.cs, r.plan, r.started, err)
	if c.stmts != nil && r.plan != nil && r.plan.Result != nil && !cacheable(r.plan) {
		c.stmts.flush()
	}
}

// endDirect ends a run of the connection's direct path (Conn.ExecContext,
// Conn.QueryContext) as it returns err. driver.ErrSkip declines the
// statement instead: database/sql runs it again by its prepare path, as a
// run of its own, so this one only gives back, as failed, the cached
// statement it held, and reports nothing.
func (r *run) endDirect(err error) {
	if err != driver.ErrSkip {
		r.end(err)
		return
	}
	if !r.ended && r.cached != nil {
		r.c.stmts.release(r.cached, true)
	}
	r.ended = true
}

// handOff returns a run that carries r's statement on beyond the call
// that began it (into a query's rows, by value: no allocation); r itself
// is spent, and its end does nothing.
func (r *run) handOff() run {
	h := *r
	r.ended = true
	return h
}
