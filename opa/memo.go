package opa

import (
	"hash/maphash"
	"sync"

	"github.com/sqe-project/sqe/policy"
)

// memo holds one snapshot's decisions for every View, keyed by the
// principal fingerprint, the table and its columns: a decision depends on
// nothing else once the bundle revision is fixed, so a statement by a
// caller seen before on a table seen before costs a lookup, not an
// evaluation. It is bounded: a full shard is emptied and refilled, as the
// native evaluator's caches are.
type memo struct {
	seed     maphash.Seed
	perShard int
	shards   [16]memoShard
}

type memoShard struct {
	mu sync.RWMutex
	m  map[memoKey]memoEntry
}

type memoKey struct {
	principal string // the View's principal fingerprint
	table     string // TableName.Key()
	columns   string // the columns' signature ("" when unknown)
}

type memoEntry struct {
	d   *policy.Decision
	err error
}

func newMemo(size int) *memo {
	if size <= 0 {
		return nil
	}
	return &memo{seed: maphash.MakeSeed(), perShard: max(1, size/16)}
}

func (c *memo) shard(k memoKey) *memoShard {
	return &c.shards[maphash.Comparable(c.seed, k)%uint64(len(c.shards))]
}

func (c *memo) get(k memoKey) (memoEntry, bool) {
	if c == nil {
		return memoEntry{}, false
	}
	s := c.shard(k)
	s.mu.RLock()
	e, ok := s.m[k]
	s.mu.RUnlock()
	return e, ok
}

func (c *memo) put(k memoKey, e memoEntry) {
	if c == nil {
		return
	}
	s := c.shard(k)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= c.perShard {
		s.m = make(map[memoKey]memoEntry, min(c.perShard, 64))
	}
	s.m[k] = e
	s.mu.Unlock()
}

// len returns the number of memoized decisions.
func (c *memo) len() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}
