package sqe

import (
	"context"
	"database/sql/driver"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/rewriter"
)

// DefaultStatementCacheSize is the number of rewritten statements each
// connection keeps prepared on the server (see WithStatementCacheSize).
const DefaultStatementCacheSize = 16

// stmtCache keeps statements prepared on one inner connection, keyed by
// the rewritten SQL, for the direct path of inner connections that decline
// direct execution with arguments (go-sql-driver/mysql without
// interpolateParams answers driver.ErrSkip, and database/sql then prepares,
// executes and closes the statement: three round trips, and a parse on the
// server, for every call). With the cache, a repeated statement is one
// execution of a statement the server already holds — what pgx does on its
// own for PostgreSQL.
//
// The key is the rewritten SQL and the connection's session state. The
// rewritten SQL carries the caller's whole policy (filters, masks, inlined
// session values), so two callers share a prepared statement exactly when
// sqe would send them the same text. The cache is emptied after any
// statement that can change how the server would prepare a text again
// (USE, SET, DDL, anything other than a query, a write or a transaction
// statement), and when the connection closes.
//
// database/sql holds the connection's lock around every driver call on it,
// so the cache needs no lock of its own. A statement whose rows are still
// open is busy: a second use then prepares a statement of its own and
// closes it afterwards, as database/sql would.
type stmtCache struct {
	max     int
	entries []*cachedStmt // front: most recently used
}

type cachedStmt struct {
	sql     string
	session rewriter.Session // the connection's, when it was prepared
	st      driver.Stmt
	busy    bool
}

func newStmtCache(max int) *stmtCache {
	if max <= 0 {
		return nil
	}
	return &stmtCache{max: max}
}

// acquire returns a statement prepared from sql, to be given back with
// release once its execution (and its rows) are done. A failure to prepare
// is returned as the inner driver reports it.
// errTooManyPreparedStatements is the MySQL and MariaDB error number of a
// prepare refused at the server's limit (ER_MAX_PREPARED_STMT_COUNT_REACHED,
// max_prepared_stmt_count).
const errTooManyPreparedStatements = "1461"

func (sc *stmtCache) acquire(ctx context.Context, c *Conn, sql string) (*cachedStmt, error) {
	busy := false
	for i, e := range sc.entries {
		if e.sql != sql || e.session != c.cs.Session() {
			continue
		}
		if busy = e.busy; busy {
			break
		}
		copy(sc.entries[1:i+1], sc.entries[:i])
		sc.entries[0] = e
		e.busy = true
		return e, nil
	}
	st, err := c.prepareInner(ctx, sql)
	if err != nil && len(sc.entries) > 0 && driverErrorCode(err) == errTooManyPreparedStatements {
		// The server's statement limit is reached, in part by this
		// cache: give its statements back and try once more.
		sc.flush()
		st, err = c.prepareInner(ctx, sql)
	}
	if err != nil {
		return nil, err
	}
	e := &cachedStmt{sql: sql, session: c.cs.Session(), st: st, busy: true}
	if busy {
		// The cached one is busy: this one is the caller's alone, never
		// in the cache, so release closes it.
		return e, nil
	}
	sc.entries = append(sc.entries, nil)
	copy(sc.entries[1:], sc.entries)
	sc.entries[0] = e
	sc.evict()
	return e, nil
}

// release gives e back; a statement whose execution failed is dropped, so
// that a statement the server no longer accepts (or that a broken
// connection left in doubt) is prepared afresh next time, and one no longer
// in the cache (evicted or flushed while it ran, or never cached) is
// closed.
func (sc *stmtCache) release(e *cachedStmt, failed bool) {
	e.busy = false
	if failed {
		sc.remove(e)
	} else if sc.contains(e) {
		return
	}
	_ = e.st.Close()
}

func (sc *stmtCache) contains(e *cachedStmt) bool {
	for _, x := range sc.entries {
		if x == e {
			return true
		}
	}
	return false
}

func (sc *stmtCache) remove(e *cachedStmt) {
	for i, x := range sc.entries {
		if x == e {
			sc.entries = append(sc.entries[:i], sc.entries[i+1:]...)
			return
		}
	}
}

// evict closes the least recently used statements beyond the bound; a
// busy one is closed when it is released.
func (sc *stmtCache) evict() {
	for len(sc.entries) > sc.max {
		last := sc.entries[len(sc.entries)-1]
		sc.entries = sc.entries[:len(sc.entries)-1]
		if !last.busy {
			_ = last.st.Close()
		}
	}
}

// flush closes every statement (busy ones when they are released).
func (sc *stmtCache) flush() {
	for _, e := range sc.entries {
		if !e.busy {
			_ = e.st.Close()
		}
	}
	clear(sc.entries)
	sc.entries = sc.entries[:0]
}

// cacheable reports whether p's statement may run on a cached prepared
// statement, and leaves the ones cached valid: queries, writes and
// transaction control do (as the dialect classified them); USE, SET, DDL
// and the rest may change how the server prepares a text.
func cacheable(p *engine.Plan) bool {
	if p.Result == nil {
		return false
	}
	switch p.Result.Kind {
	case rewriter.KindSelect, rewriter.KindInsert, rewriter.KindUpdate, rewriter.KindDelete:
		return true
	}
	return p.Result.Effect.TransactionControl
}
