package sqe

import "slices"

// connRewrites remembers the rewrites a connection's latest statements
// used, with what their cache key was made of, so that a statement the
// connection runs again for the same caller finds its rewrite without
// building the key or taking the shared cache's lock. A hit needs every
// part of the shared cache's key (engine.cacheKey) to be equal; the
// entries are the shared cache's, immutable.
//
// database/sql uses a connection from one goroutine at a time, so
// connRewrites needs no lock.
type connRewrites struct {
	entries [connRewritesSize]connRewrite
	next    int
}

const connRewritesSize = 8

type connRewrite struct {
	query, fp, tagVersion string
	catVersion            uint64
	session               sessionKey
	c                     *cachedRewrite
}

// sessionKey is the connection state a rewrite depends on.
type sessionKey struct {
	schema                                 string
	searchPath                             []string
	noBackslash, ansiQuotes, nonStdStrings bool
}

func (cs *connState) sessionKey() sessionKey {
	return sessionKey{cs.schema, cs.searchPath, cs.noBackslash, cs.ansiQuotes, cs.nonStdStrings}
}

func (k sessionKey) equal(o sessionKey) bool {
	return k.schema == o.schema && k.noBackslash == o.noBackslash && k.ansiQuotes == o.ansiQuotes &&
		k.nonStdStrings == o.nonStdStrings && slices.Equal(k.searchPath, o.searchPath)
}

func (r *connRewrites) get(query, fp string, catVersion uint64, tagVersion string, s sessionKey) *cachedRewrite {
	for i := range r.entries {
		e := &r.entries[i]
		if e.c != nil && e.query == query && e.fp == fp && e.catVersion == catVersion &&
			e.tagVersion == tagVersion && e.session.equal(s) {
			return e.c
		}
	}
	return nil
}

func (r *connRewrites) put(query, fp string, catVersion uint64, tagVersion string, s sessionKey, c *cachedRewrite) {
	// The connection reuses its searchPath slice when it reads the
	// session state again: keep a copy.
	s.searchPath = slices.Clone(s.searchPath)
	r.entries[r.next] = connRewrite{query: query, fp: fp, tagVersion: tagVersion, catVersion: catVersion, session: s, c: c}
	r.next = (r.next + 1) % connRewritesSize
}
