package sqe

import (
	"container/list"
	"sync"
)

// rewriteCache is a bounded LRU of rewritten statements. Keys carry
// everything the rewrite depends on (see engine.cacheKey); results are
// immutable once stored.
type rewriteCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	res *cachedRewrite
}

func newRewriteCache(max int) *rewriteCache {
	return &rewriteCache{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func (c *rewriteCache) get(key string) (*cachedRewrite, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).res, true
}

func (c *rewriteCache) put(key string, res *cachedRewrite) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*cacheEntry).res = res
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, res: res})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}
