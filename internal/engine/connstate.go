package engine

import (
	"context"
	"database/sql/driver"

	"github.com/sqe-project/sqe/rewriter"
)

// ConnState is what the engine tracks about one underlying connection:
// the session state that name resolution and literal quoting depend on,
// the caller's USE ROLE state, recent rewrites, and the state statements
// opened by SQL text. Only the goroutine that holds the connection
// touches it (database/sql never uses a driver connection concurrently).
type ConnState struct {
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
	// on serving the caller who created them (see SameCallerKeeps).
	heldFP         string
	heldBeyondTemp bool
}

// NewConnState returns the state of a new underlying connection, on which
// the engine reads session state and metadata.
func NewConnState(inner driver.Conn) *ConnState { return &ConnState{inner: inner} }

func (cs *ConnState) memo() *fingerprintMemo {
	if cs == nil {
		return nil
	}
	return cs.fp
}

// query runs the dialect's queries of session state and metadata on the
// underlying connection (a rewriter.Query).
func (cs *ConnState) query(ctx context.Context, query string, args ...any) ([][]any, error) {
	return queryInner(ctx, cs.inner, query, args...)
}

// Session is the connection's session state as last read (nil before).
func (cs *ConnState) Session() rewriter.Session { return cs.session }

// SessionLoaded reports whether the session state has been read since the
// connection opened or a statement last changed it.
func (cs *ConnState) SessionLoaded() bool { return cs.loaded }

// SetSession records the connection's session state, as read from it.
func (cs *ConnState) SetSession(s rewriter.Session) { cs.session, cs.loaded = s, true }

// reset forgets the session state, so that it is read again before the
// next statement (after a pool reset or a statement that may change it).
func (cs *ConnState) reset() { cs.loaded = false }

// Apply records the effect of a statement that succeeded for caller (of
// the policy fingerprint): the state it opened or ended, and the session
// state it changed.
func (cs *ConnState) Apply(eff rewriter.Effect, caller, fingerprint string) {
	cs.hold(eff, caller, fingerprint)
	if eff.Session != nil {
		cs.session = eff.Session
	}
	if eff.RefreshSession {
		cs.reset()
		cs.sessionTouched = true
	}
}

// hold applies a statement's effect on the state the connection holds
// for caller: a transaction's end first, then what it begins or opens.
func (cs *ConnState) hold(eff rewriter.Effect, caller, fingerprint string) {
	if eff.EndsTransaction {
		cs.EndTransaction()
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

// SameCallerKeeps reports whether the state the connection holds is
// temporary tables alone, which the caller who created them may go on
// using on the connection, as on the raw driver (where database/sql hands
// the same idle connection back): no transaction, lock, session setting
// or cursor, and nothing opened by another caller. The connection is
// still discarded before it reaches any other caller.
func (cs *ConnState) SameCallerKeeps() bool {
	return !cs.heldTx && !cs.heldBeyondTemp && cs.heldState == rewriter.HoldsTemporaryTable && cs.heldFP != ""
}

// HeldFingerprint is the policy fingerprint of the caller who opened the
// state the connection holds ("" when none).
func (cs *ConnState) HeldFingerprint() string { return cs.heldFP }

// Held names the state the connection holds for its last caller ("" when
// none).
func (cs *ConnState) Held() string {
	switch {
	case cs.heldTx && cs.heldState != "":
		return rewriter.HoldsTransaction + " and " + cs.heldState
	case cs.heldTx:
		return rewriter.HoldsTransaction
	}
	return cs.heldState
}

// EndTransaction is called when a transaction ends: state changed inside
// it may have been undone, so it is read again.
func (cs *ConnState) EndTransaction() {
	cs.heldTx = false
	if cs.sessionTouched {
		cs.reset()
		cs.sessionTouched = false
	}
}

// HandOver forgets what belongs to the connection's previous user.
func (cs *ConnState) HandOver() { cs.roles = nil }
