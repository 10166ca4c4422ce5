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
	// plan is the Plan built from c for the caller of memo, the
	// connection's fingerprint memo when it was built: a later statement
	// whose key matches and whose caller the same memo stands for gets
	// this Plan again instead of a copy. The memo is replaced (a new
	// pointer) whenever the caller or the policy snapshot changes, and the
	// key holds the fingerprint, the tag and catalog versions and the
	// session state, so the Plan is exactly the one newPlan would build.
	plan *Plan
	memo *fingerprintMemo
}

// get returns the entry of k (nil when none).
func (r *connRewrites) get(k rewriteKey) *connRewrite {
	for i := range r.entries {
		if e := &r.entries[i]; e.c != nil && e.key == k {
			return e
		}
	}
	return nil
}

func (r *connRewrites) put(k rewriteKey, c *cachedRewrite) {
	r.entries[r.next] = connRewrite{key: k, c: c}
	r.next = (r.next + 1) % connRewritesSize
}
