package ranger

import (
	"hash/maphash"
	"sync"
)

// sharedCache holds a snapshot's decisions for every View, keyed by the
// View's fingerprint (everything a decision depends on) and the table, so
// a statement by a caller seen before pays for a lookup instead of an
// evaluation. It is bounded: a full shard is emptied and refilled.
type sharedCache struct {
	seed     maphash.Seed
	perShard int
	shards   [16]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[sharedKey]decided
}

// sharedKey is a View fingerprint and a question.
type sharedKey struct {
	fp string
	k  decisionKey
}

func newSharedCache(size int) *sharedCache {
	if size <= 0 {
		return nil
	}
	return &sharedCache{seed: maphash.MakeSeed(), perShard: max(1, size/16)}
}

func (c *sharedCache) shard(k sharedKey) *cacheShard {
	return &c.shards[maphash.Comparable(c.seed, k)%uint64(len(c.shards))]
}

func (c *sharedCache) get(k sharedKey) (decided, bool) {
	s := c.shard(k)
	s.mu.RLock()
	d, ok := s.m[k]
	s.mu.RUnlock()
	return d, ok
}

func (c *sharedCache) put(k sharedKey, d decided) {
	s := c.shard(k)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= c.perShard {
		s.m = make(map[sharedKey]decided, min(c.perShard, 64))
	}
	s.m[k] = d
	s.mu.Unlock()
}
