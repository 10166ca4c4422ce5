package sqe

import (
	"database/sql"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/policy"
)

// Stats is a snapshot of a connector's counters.
type Stats struct {
	RewriteCacheHits   uint64
	RewriteCacheMisses uint64
	// RewriteTemplateHits counts the misses that a literal template
	// served (WithoutLiteralTemplates); the rest were rewritten.
	RewriteTemplateHits uint64
	// RewriteCacheEntries and RewriteCacheBytes are what the rewrite cache
	// holds now (bytes as sqe estimates them; see WithRewriteCacheBytes).
	RewriteCacheEntries int
	RewriteCacheBytes   int64
	// FailClosed counts statements refused, by reason: no_session,
	// policy_not_loaded, view, session_state, policy_error, access_denied,
	// column_denied, syntax, unsupported, error.
	FailClosed map[string]uint64
	// AuditDropped counts audit records dropped because the buffer was full.
	AuditDropped uint64
	// ConnectionsDiscarded counts connections closed instead of being
	// handed to another caller because a statement had opened state by
	// SQL text on them (a transaction, a session setting, USE, a temporary
	// table, a held cursor).
	ConnectionsDiscarded uint64
	// Policy holds the policy source's counters (reloads, reload failures,
	// partial loads, unreadable views, superseded retries, merges built, its
	// own fail-closed reasons), for sources that keep them.
	Policy policy.Stats
}

// StatsOf returns the counters of a database opened through sqe (Open,
// sql.Open("sqe", …) or sql.OpenDB over NewConnector); ok is false for any
// other database.
func StatsOf(db *sql.DB) (s Stats, ok bool) {
	var c *connector
	switch d := db.Driver().(type) {
	case *wrappedDriver:
		c = d.c
	case wrappedDriverContext:
		c = d.c
	}
	if c == nil {
		return Stats{}, false
	}
	return c.stats(), true
}

func (c *connector) stats() Stats {
	if e, ok := c.planner.(*engine.Engine); ok {
		return Stats(e.Stats())
	}
	return Stats{FailClosed: map[string]uint64{}}
}
