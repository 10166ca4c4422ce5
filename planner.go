package sqe

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// planner decides, for the caller on a context, what SQL the wrapped
// connection sends. The driver wrappers (conn.go) call it on every
// statement; engine is the implementation.
type planner interface {
	// plan rewrites query for the caller on ctx, as it will run on the
	// connection whose state is cs. It returns the statement to send or a
	// rejection (nothing is sent then), possibly with a plan marked
	// refused that is only for finish.
	plan(ctx context.Context, cs *connState, query string) (*plan, error)
	// fingerprint identifies the caller's policy view on ctx. A Stmt
	// prepared under one fingerprint is prepared again for another.
	fingerprint(ctx context.Context, cs *connState) (string, error)
	// finish is called once per logical statement after it ran or was
	// rejected; p is nil or marked refused when planning failed. On
	// success it applies the statement's effect on the connection's state.
	finish(ctx context.Context, cs *connState, p *plan, err error)
	// discarded reports that a connection holding state opened by SQL
	// text (see connState.held) is closed instead of being handed to
	// another caller.
	discarded(cs *connState, why string)
	// close releases what the planner holds (policy reloaders, caches).
	close() error
}

// plan is one statement, rewritten for one caller.
type plan struct {
	query       string // as the application sent it
	sql         string // as it is sent to the database
	fingerprint string
	result      *rewriter.Result
	started     time.Time
	// refused marks the plan of a statement that was refused: it carries
	// only what auditing the refusal needs, and nothing is run with it.
	refused bool
	// local is set for a statement sqe answers itself (USE ROLE …):
	// nothing is sent to the database.
	local *roleStatement
	// user is the caller the plan was made for.
	user string
	// For auditing: the caller, the snapshot version, the tables with the
	// policy applied to each, and the SQL's fingerprint.
	who            session.User
	version        uint64
	tables         []audit.Table
	sqlFingerprint string
	revision       string
	// unaudited: the policy source does not audit the statement's
	// accesses; it is audited only if it fails.
	unaudited bool
}

// connState is what sqe tracks about one underlying connection: the
// session state that name resolution and literal quoting depend on. Only
// the goroutine that holds the connection touches it (database/sql never
// uses a driver connection concurrently).
type connState struct {
	inner driver.Conn

	loaded  bool             // session has been read
	session rewriter.Session // as the dialect read it

	// sessionTouched: a statement changed session state since the last
	// transaction end (a transaction's end may undo it).
	sessionTouched bool
	// roles is the connection's USE ROLE state, for the user who set it.
	roles *roleOverride
	// fp memoizes the last View's fingerprint (see fingerprintMemo).
	fp *fingerprintMemo
	// rewrites remembers the latest statements' rewrites.
	rewrites connRewrites

	// heldTx and heldState are the state statements opened by SQL text
	// that outlives them (see rewriter.Effect): a transaction, and the
	// first of the rest. heldBy is the caller who opened it. A connection
	// that holds either is discarded before database/sql gives it to
	// anyone again.
	heldTx    bool
	heldState string
	heldBy    string
	// heldFP is the policy fingerprint of the caller who opened the
	// state, and heldBeyondTemp is set when that state is more than
	// temporary tables: a connection holding only temporary tables goes
	// on serving the caller who created them (see sameCallerKeeps).
	heldFP         string
	heldBeyondTemp bool
	// discardReported: the discard of this connection was counted and
	// audited.
	discardReported bool
}

func (cs *connState) memo() *fingerprintMemo {
	if cs == nil {
		return nil
	}
	return cs.fp
}

func newConnState(inner driver.Conn) *connState { return &connState{inner: inner} }

// query runs the dialect's queries of session state and metadata on the
// underlying connection (a rewriter.Query).
func (cs *connState) query(ctx context.Context, query string, args ...any) ([][]any, error) {
	return queryInner(ctx, cs.inner, query, args...)
}

// reset forgets the session state, so that it is read again before the
// next statement (after a pool reset or a statement that may change it).
func (cs *connState) reset() { cs.loaded = false }

// hold applies a statement's effect on the state the connection holds
// for caller: a transaction's end first, then what it begins or opens.
func (cs *connState) hold(eff rewriter.Effect, caller, fingerprint string) {
	if eff.EndsTransaction {
		cs.endTransaction()
	}
	if !eff.BeginsTransaction && eff.Holds == "" {
		return
	}
	if eff.BeginsTransaction {
		cs.heldTx = true
	}
	if cs.heldState == "" {
		cs.heldState = eff.Holds
	}
	if eff.Holds != "" && eff.Holds != rewriter.HoldsTemporaryTable {
		cs.heldBeyondTemp = true
	}
	if cs.heldFP != "" && cs.heldFP != fingerprint {
		cs.heldBeyondTemp = true // opened by two callers: no one's alone
	}
	cs.heldBy, cs.heldFP = caller, fingerprint
}

// sameCallerKeeps reports whether the state the connection holds is
// temporary tables alone, which the caller who created them may go on
// using on the connection, as on the raw driver (where database/sql hands
// the same idle connection back): no transaction, lock, session setting
// or cursor, and nothing opened by another caller. The connection is
// still discarded before it reaches any other caller (see
// Conn.ResetSession).
func (cs *connState) sameCallerKeeps() bool {
	return !cs.heldTx && !cs.heldBeyondTemp && cs.heldState == rewriter.HoldsTemporaryTable && cs.heldFP != ""
}

// held names the state the connection holds for its last caller ("" when
// none).
func (cs *connState) held() string {
	switch {
	case cs.heldTx && cs.heldState != "":
		return rewriter.HoldsTransaction + " and " + cs.heldState
	case cs.heldTx:
		return rewriter.HoldsTransaction
	}
	return cs.heldState
}

// endTransaction is called when a transaction ends: state changed inside
// it may have been undone, so it is read again.
func (cs *connState) endTransaction() {
	cs.heldTx = false
	if cs.sessionTouched {
		cs.reset()
		cs.sessionTouched = false
	}
}

// handOver forgets what belongs to the connection's previous user.
func (cs *connState) handOver() { cs.roles = nil }
