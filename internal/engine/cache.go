package engine

import (
	"sync"
	"unsafe"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/sqe-project/sqe/rewriter"
)

// rewriteKey is everything a rewrite depends on: the statement, the
// caller's view (its fingerprint), the versions of the table metadata and
// of the tag sources it read, and the connection's session state (which
// resolves names and quotes literals). It is built once per statement;
// the shared cache and a connection's recent rewrites both compare it
// whole.
type rewriteKey struct {
	query, fingerprint string
	tags               string // the tag sources' versions (engine.tagVersion)
	catalog            uint64
	session            rewriter.Session
	// shape: query is a statement's shape (rewriter.ShapeKey), and the
	// entry its literal template (templates.go).
	shape bool
}

// rewriteCache is an LRU of rewritten statements bounded twice: by the
// number of entries and by the bytes they hold (an estimate of every
// string, slice and map an entry keeps, plus fixed overheads), so that
// statements with long SQL (thousand-value IN lists, big INSERTs whose
// write checks hold every row) cannot grow it past its budget. Keys carry
// everything the rewrite depends on (see rewriteKey); results are
// immutable once stored. The LRU order and the entry bound are the
// library's; the byte bound is kept here, with the evictions it reports.
type rewriteCache struct {
	mu       sync.Mutex
	max      int                                    // entries
	maxBytes int64                                  // bytes
	bytes    int64                                  // held now
	lru      *simplelru.LRU[rewriteKey, cacheEntry] // nil: the cache is off
}

type cacheEntry struct {
	res  *cachedRewrite
	size int64
}

func newRewriteCache(max int, maxBytes int64) *rewriteCache {
	c := &rewriteCache{max: max, maxBytes: maxBytes}
	if max > 0 && maxBytes > 0 {
		// Evictions happen inside Add and RemoveOldest, under c.mu.
		c.lru, _ = simplelru.NewLRU(max, func(_ rewriteKey, e cacheEntry) { c.bytes -= e.size })
	}
	return c
}

func (c *rewriteCache) get(key rewriteKey) (*cachedRewrite, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(key)
	return e.res, ok
}

func (c *rewriteCache) put(key rewriteKey, res *cachedRewrite) {
	if c.lru == nil {
		return
	}
	size := entrySize(key, res)
	if size > c.maxBytes/16 {
		return // one statement may not take a sixteenth of the budget
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(key); ok {
		c.bytes -= old.size // replaced in place, not evicted
	}
	c.bytes += size
	c.lru.Add(key, cacheEntry{res: res, size: size})
	for c.bytes > c.maxBytes {
		c.lru.RemoveOldest()
	}
}

// held reports the entries and bytes the cache holds.
func (c *rewriteCache) held() (entries int, bytes int64) {
	if c.lru == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// Fixed costs of an entry, beyond its strings and slices: the library's
// list element (links, expiry fields) and map slot, each with a copy of
// the key, the entry and the rewrite's structs, and the session state (a
// connection's, shared by the entries it made).
const entryOverhead = 96 + 48 + 2*int64(unsafe.Sizeof(rewriteKey{})) + int64(unsafe.Sizeof(cacheEntry{})) +
	int64(unsafe.Sizeof(cachedRewrite{})) + 256 + 64

// entrySize estimates the bytes an entry keeps alive (the key's strings
// are shared by its copies).
func entrySize(key rewriteKey, r *cachedRewrite) int64 {
	n := entryOverhead + int64(len(key.query)+len(key.fingerprint)+len(key.tags)) + int64(len(r.sqlFingerprint))
	if res := r.result; res != nil {
		n += int64(len(res.SQL))
		for _, t := range res.Tables {
			n += 32 + int64(len(t.Schema)+len(t.Table))
		}
		for _, w := range res.WriteChecks {
			n += 256 + int64(len(w.Columns))*96
			for _, row := range w.Rows {
				n += 24
				for _, v := range row {
					n += 64 + int64(len(v.Const.Text))
				}
			}
		}
	}
	if r.template != nil {
		n += int64(r.template.Size())
	}
	for _, t := range r.tables {
		n += 128 + int64(len(t.Name))
		for _, s := range [][]string{t.Policies, t.AllowedBy, t.RowFilters, t.Restricted} {
			for _, x := range s {
				n += 16 + int64(len(x))
			}
		}
		for k, v := range t.Masks {
			n += 48 + int64(len(k)+len(v))
		}
	}
	return n
}
