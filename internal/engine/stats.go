package engine

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sqe-project/sqe/policy"
)

// Stats is a snapshot of an engine's counters. Its fields are those of
// sqe.Stats, which converts it and documents them for applications.
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

type counters struct {
	hits, misses atomic.Uint64
	templateHits atomic.Uint64
	discarded    atomic.Uint64
	mu           sync.Mutex
	failed       map[string]uint64
	onFail       func(reason string) // also reports the refusal as a metric
}

func (c *counters) cacheHit()  { c.hits.Add(1) }
func (c *counters) cacheMiss() { c.misses.Add(1) }

func (c *counters) templateHit() { c.templateHits.Add(1) }

func (c *counters) failClosed(reason string) {
	if c.onFail != nil {
		c.onFail(reason)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed == nil {
		c.failed = map[string]uint64{}
	}
	c.failed[reason]++
}

func (c *counters) snapshot() Stats {
	s := Stats{RewriteCacheHits: c.hits.Load(), RewriteCacheMisses: c.misses.Load(),
		RewriteTemplateHits: c.templateHits.Load(), FailClosed: map[string]uint64{},
		ConnectionsDiscarded: c.discarded.Load()}
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.failed))
	for k := range c.failed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.FailClosed[k] = c.failed[k]
	}
	return s
}

// Stats returns a snapshot of the engine's counters, with what its
// rewrite cache holds, its audit drops and its policy source's counters.
func (e *Engine) Stats() Stats {
	s := e.stats.snapshot()
	s.RewriteCacheEntries, s.RewriteCacheBytes = e.cache.held()
	if e.audit != nil {
		s.AuditDropped = e.audit.Dropped()
	}
	if r, ok := e.source.(policy.StatsReporter); ok {
		s.Policy = r.Stats()
	}
	return s
}
