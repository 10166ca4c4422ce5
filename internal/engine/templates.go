package engine

import (
	"context"
	"hash/maphash"
	"strings"
	"sync/atomic"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/rewriter"
)

// Literal templates (rewriter.LiteralTemplates) serve a statement that is
// not in the rewrite cache by its text but differs from one that was only
// in the values of literals that the rewrite merely prints. They share
// the rewrite cache: an entry keyed by the statement's shape
// (rewriter.ShapeKey) with everything else of the rewrite key, holding
// the template and what auditing the statement needs. A shape is first
// only marked as seen (shapeMarks, outside the cache); its template is
// built when a second statement of that shape misses the cache, so that a
// statement sent once costs no second rewrite and no second cache entry.

// shapeOf returns the template literals of query and its shape's cache
// key, or ok false when the dialect builds no templates, the cache is off
// or the statement is not a read with such literals.
func (e *Engine) shapeOf(query string, key rewriteKey) (lits []rewriter.TemplateLiteral, shape rewriteKey, ok bool) {
	if e.templates == nil || e.cache.max <= 0 || !maybeRead(query) {
		return nil, rewriteKey{}, false
	}
	tokens, read := e.dialect.Tokens(query)
	if !read {
		return nil, rewriteKey{}, false
	}
	lits = rewriter.TemplateLiterals(query, tokens)
	if len(lits) == 0 {
		return nil, rewriteKey{}, false
	}
	shape = key
	shape.query, shape.shape = rewriter.ShapeKey(query, lits), true
	return lits, shape, true
}

// fromTemplate returns the rewrite of query filled in from its shape's
// template, or nil when there is none or it does not apply.
func (e *Engine) fromTemplate(query string, lits []rewriter.TemplateLiteral, shape rewriteKey) *cachedRewrite {
	c, ok := e.cache.get(shape)
	if !ok || c.template == nil {
		return nil
	}
	sql, ok := c.template.Apply(query, lits)
	if !ok {
		return nil
	}
	res := *c.result
	res.SQL = sql
	filled := *c
	filled.result, filled.template, filled.sqlFingerprint = &res, nil, audit.Fingerprint(query)
	return &filled
}

// learnShape records a full rewrite of a statement of the shape: the
// first marks the shape as seen, the second builds its template (or
// marks the shape as one that has none).
func (e *Engine) learnShape(ctx context.Context, req *rewriter.Request, c *cachedRewrite, lits []rewriter.TemplateLiteral, shape rewriteKey) {
	if !rewriter.TemplateResult(c.result) {
		return
	}
	if _, built := e.cache.get(shape); built {
		return
	}
	switch e.shapes.get(shape) {
	case shapeUnseen:
		e.shapes.mark(shape, shapeSeen)
		return
	case shapeWithoutTemplate:
		return
	}
	rewrite := func(r *rewriter.Request) (*rewriter.Result, error) { return e.dialect.Rewrite(ctx, r) }
	tmpl, ok := rewriter.BuildTemplate(rewrite, req, e.templates, c.result, lits)
	if !ok {
		e.shapes.mark(shape, shapeWithoutTemplate) // not tried again
		return
	}
	// The entry keeps what every statement of the shape shares; its SQL
	// is the template's.
	res := *c.result
	res.SQL = ""
	base := *c
	base.result, base.template, base.sqlFingerprint = &res, tmpl, ""
	e.cache.put(shape, &base)
	e.shapes.forget(shape)
}

// shapeMarks remembers which shapes were seen once and which were found
// to have no template, in a fixed table of hashes of their keys rather
// than in the rewrite cache, whose entries then are all rewrites and
// templates. The table is set-associative: a key hashes to a set of
// shapeMarkWays slots, and a set that is full gives up one of its marks
// for a new shape. A lost mark can only make a shape look unseen (its
// template is built a statement late, or tried again) and two keys with
// the same hash only make a shape look seen (built a statement early): a
// mark never serves a statement, the cache entry keyed by the whole shape
// does. With four ways, shapes that alternate keep their marks unless
// five of them share a set.
type shapeMarks struct {
	seed maphash.Seed
	sets [shapeMarkSets][shapeMarkWays]atomic.Uint64
}

// The table's size: 1,024 sets of 4 slots, 32 KiB.
const (
	shapeMarkSets = 1024
	shapeMarkWays = 4
)

// shapeMark is what the table knows of a shape.
type shapeMark uint64

const (
	shapeUnseen          shapeMark = iota // or forgotten
	shapeSeen                             // one statement of it was rewritten
	shapeWithoutTemplate                  // BuildTemplate refused it
)

func newShapeMarks() *shapeMarks { return &shapeMarks{seed: maphash.MakeSeed()} }

// set returns the set of key and the tag of key's slot: what the slot
// holds but for the mark (the low two bits).
func (m *shapeMarks) set(key rewriteKey) (*[shapeMarkWays]atomic.Uint64, uint64) {
	h := maphash.Comparable(m.seed, key)
	return &m.sets[h%shapeMarkSets], h&^3 | 4 // never 0, the empty slot
}

func (m *shapeMarks) get(key rewriteKey) shapeMark {
	set, tag := m.set(key)
	for i := range set {
		if v := set[i].Load(); v&^3 == tag {
			return shapeMark(v & 3)
		}
	}
	return shapeUnseen
}

// mark records key's mark: in its own slot, or else an empty one, or
// else the slot the tag's high bits pick (another shape's mark is lost).
func (m *shapeMarks) mark(key rewriteKey, mark shapeMark) {
	set, tag := m.set(key)
	slot := -1
	for i := range set {
		v := set[i].Load()
		if v&^3 == tag {
			slot = i
			break
		}
		if v == 0 && slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		slot = int(tag>>32) % shapeMarkWays // bits the set index does not use
	}
	set[slot].Store(tag | uint64(mark))
}

// forget frees key's slot (its template is built: the cache entry now
// answers for the shape).
func (m *shapeMarks) forget(key rewriteKey) {
	set, tag := m.set(key)
	for i := range set {
		if set[i].Load()&^3 == tag {
			set[i].Store(0)
		}
	}
}

// maybeRead reports whether query may be a read: it opens, after blanks
// and parentheses, with SELECT, WITH or a comment. Only reads are
// templated, and other statements (long INSERTs above all) are not
// scanned for literals.
func maybeRead(query string) bool {
	i := 0
	for i < len(query) && (query[i] == ' ' || query[i] == '\t' || query[i] == '\n' || query[i] == '\r' || query[i] == '(') {
		i++
	}
	rest := query[i:]
	switch {
	case len(rest) >= 6 && strings.EqualFold(rest[:6], "select"), len(rest) >= 4 && strings.EqualFold(rest[:4], "with"):
		return true
	case strings.HasPrefix(rest, "/*"), strings.HasPrefix(rest, "--"), strings.HasPrefix(rest, "#"):
		return true
	}
	return false
}
