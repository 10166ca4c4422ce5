package policy

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Reasons under which Stats.FailClosed counts refused statements.
const (
	// FailNotLoaded: the source has never loaded a policy set.
	FailNotLoaded = "not_loaded"
	// FailRoleNotGranted: the session's primary or a secondary role is
	// not held by the user.
	FailRoleNotGranted = "role_not_granted"
	// FailUnresolved: the decision depends on a principal the snapshot
	// could not resolve.
	FailUnresolved = "unresolved"
	// FailSuperseded: every View build raced a newer publication (or the
	// snapshot refused with ErrSuperseded) and the retries ran out.
	FailSuperseded = "superseded"
	// FailSource: the source failed for another reason.
	FailSource = "source"
)

var failReasons = [...]string{FailNotLoaded, FailRoleNotGranted, FailUnresolved, FailSuperseded, FailSource}

// Stats is a snapshot of what policy counted for a source (see
// FileSource.Stats, MemorySource.Stats, Counters.Stats). The driver adds its
// own counters (rewrite cache hits and misses, statements refused by the
// rewriter) to its own statistics.
type Stats struct {
	// Version is the current snapshot's version; 0 when none is loaded.
	Version uint64
	// Reloads counts snapshots published, the first load included.
	Reloads uint64
	// ReloadsUnchanged counts reloads that found the policy set unchanged
	// and kept the current snapshot.
	ReloadsUnchanged uint64
	// ReloadFailures counts reloads that failed and kept the last good
	// snapshot (or none).
	ReloadFailures uint64
	// PartialLoads counts published snapshots that have unresolved
	// principals.
	PartialLoads uint64
	// Unresolved is the number of unresolved principals in the current
	// snapshot.
	Unresolved int
	// FailClosed counts refused statements by reason (the Fail* constants):
	// View builds that failed and decisions that were refused.
	FailClosed map[string]uint64
	// UnreadableViews counts Views that could not be built for a caller
	// (the role or principal resolution failed).
	UnreadableViews uint64
	// SupersededRetries counts View builds ViewWithRetry repeated because a
	// newer snapshot was published while the View was built.
	SupersededRetries uint64
	// MergesBuilt counts merged indexes built by Views holding many
	// principals.
	MergesBuilt uint64
	// LastError is the error of the latest reload; nil when it succeeded.
	LastError error
}

// Counters collects the events Stats reports. Sources own one (or share one
// given with WithCounters); the snapshots they compile and the Views built
// on those record into it. The zero value is ready to use, and every method
// is safe for concurrent use and does nothing on a nil *Counters.
type Counters struct {
	reloads, unchanged, reloadFailures, partialLoads atomic.Uint64
	unreadableViews, supersededRetries, mergesBuilt  atomic.Uint64
	failClosed                                       [len(failReasons)]atomic.Uint64

	mu    sync.Mutex
	other map[string]uint64 // fail-closed reasons outside failReasons
}

// NewCounters returns empty Counters.
func NewCounters() *Counters { return &Counters{} }

// RecordReload counts a published snapshot; partial when it has unresolved
// principals.
func (c *Counters) RecordReload(partial bool) {
	if c == nil {
		return
	}
	c.reloads.Add(1)
	if partial {
		c.partialLoads.Add(1)
	}
}

// RecordUnchanged counts a reload that kept the current snapshot.
func (c *Counters) RecordUnchanged() {
	if c != nil {
		c.unchanged.Add(1)
	}
}

// RecordReloadFailure counts a failed reload.
func (c *Counters) RecordReloadFailure() {
	if c != nil {
		c.reloadFailures.Add(1)
	}
}

// RecordFailClosed counts a statement refused for reason (one of the Fail*
// constants, or a source's own reason).
func (c *Counters) RecordFailClosed(reason string) {
	if c == nil {
		return
	}
	for i, r := range failReasons {
		if r == reason {
			c.failClosed[i].Add(1)
			return
		}
	}
	c.mu.Lock()
	if c.other == nil {
		c.other = map[string]uint64{}
	}
	c.other[reason]++
	c.mu.Unlock()
}

func (c *Counters) unreadable(reason string) {
	if c == nil {
		return
	}
	c.unreadableViews.Add(1)
	c.RecordFailClosed(reason)
}

func (c *Counters) retried() {
	if c != nil {
		c.supersededRetries.Add(1)
	}
}

func (c *Counters) merged() {
	if c != nil {
		c.mergesBuilt.Add(1)
	}
}

// Stats returns the counts. Version, Unresolved and LastError are left for
// the source to fill in.
func (c *Counters) Stats() Stats {
	s := Stats{FailClosed: map[string]uint64{}}
	if c == nil {
		return s
	}
	s.Reloads = c.reloads.Load()
	s.ReloadsUnchanged = c.unchanged.Load()
	s.ReloadFailures = c.reloadFailures.Load()
	s.PartialLoads = c.partialLoads.Load()
	s.UnreadableViews = c.unreadableViews.Load()
	s.SupersededRetries = c.supersededRetries.Load()
	s.MergesBuilt = c.mergesBuilt.Load()
	for i, r := range failReasons {
		if n := c.failClosed[i].Load(); n > 0 {
			s.FailClosed[r] = n
		}
	}
	c.mu.Lock()
	maps.Copy(s.FailClosed, c.other)
	c.mu.Unlock()
	return s
}

// StatsReporter is implemented by sources that count what happens in
// policy (FileSource, MemorySource and the source NewStaticSource returns).
type StatsReporter interface {
	Stats() Stats
	// Counters returns the Counters the source, its snapshots and their
	// Views record into.
	Counters() *Counters
}

// countersOf returns the Counters a source records into, or nil.
func countersOf(src Source) *Counters {
	if r, ok := src.(StatsReporter); ok {
		return r.Counters()
	}
	return nil
}
