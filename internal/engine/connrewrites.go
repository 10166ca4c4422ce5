package engine

// connRewrites remembers the rewrites a connection's latest statements
// used, by their rewriteKey, so that a statement the connection runs again
// for the same caller finds its rewrite without taking the shared cache's
// lock. The entries are the shared cache's, immutable.
//
// database/sql uses a connection from one goroutine at a time, so
// connRewrites needs no lock.
type connRewrites struct {
	entries [connRewritesSize]connRewrite
	next    int
}

const connRewritesSize = 8

type connRewrite struct {
	key rewriteKey
	c   *cachedRewrite
}

func (r *connRewrites) get(k rewriteKey) *cachedRewrite {
	for i := range r.entries {
		if e := &r.entries[i]; e.c != nil && e.key == k {
			return e.c
		}
	}
	return nil
}

func (r *connRewrites) put(k rewriteKey, c *cachedRewrite) {
	r.entries[r.next] = connRewrite{key: k, c: c}
	r.next = (r.next + 1) % connRewritesSize
}
