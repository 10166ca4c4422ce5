package sqe

import (
	"context"
	"time"

	"github.com/sqe-project/sqe/internal/engine"
)

// planner decides, for the caller on a context, what SQL the wrapped
// connection sends. The driver wrappers call it on every statement; the
// policy engine (package internal/engine) is the implementation, and the
// wrappers' tests use a fake.
type planner interface {
	// Plan rewrites query for the caller on ctx, as it will run on the
	// connection whose state is cs. It returns the statement to send or a
	// rejection (nothing is sent then), possibly with a plan marked
	// Refused that is only for Finish.
	Plan(ctx context.Context, cs *engine.ConnState, query string) (*engine.Plan, error)
	// Fingerprint identifies the caller's policy view on ctx. A Stmt
	// prepared under one fingerprint is prepared again for another.
	Fingerprint(ctx context.Context, cs *engine.ConnState) (string, error)
	// Finish is called once per logical statement, which started at
	// started, after it ran or was rejected (see run); p is nil or marked
	// Refused when planning failed. On success it applies the statement's
	// effect on the connection's state.
	Finish(ctx context.Context, cs *engine.ConnState, p *engine.Plan, started time.Time, err error)
	// IsRoleStatement reports whether query is USE ROLE or USE SECONDARY
	// ROLES: a statement the planner answers itself, which is never sent
	// and cannot be prepared.
	IsRoleStatement(query string) bool
	// Audits reports whether Finish audits statements, which is when it
	// needs their start (a statement that is not audited needs no clock
	// read).
	Audits() bool
	// Discarded reports that a connection holding state opened by SQL
	// text (see engine.ConnState.Held) is closed instead of being handed
	// to another caller.
	Discarded(cs *engine.ConnState, why string)
	// Close releases what the planner holds (policy reloaders, caches).
	Close() error
}

var _ planner = (*engine.Engine)(nil)
