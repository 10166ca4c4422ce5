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
		e.shapes.set(shape, shapeSeen)
		return
	case shapeWithoutTemplate:
		return
	}
	rewrite := func(r *rewriter.Request) (*rewriter.Result, error) { return e.dialect.Rewrite(ctx, r) }
	tmpl, ok := rewriter.BuildTemplate(rewrite, req, e.templates, c.result, lits)
	if !ok {
		e.shapes.set(shape, shapeWithoutTemplate) // not tried again
		return
	}
	// The entry keeps what every statement of the shape shares; its SQL
	// is the template's.
	res := *c.result
	res.SQL = ""
	base := *c
	base.result, base.template, base.sqlFingerprint = &res, tmpl, ""
	e.cache.put(shape, &base)
}

// shapeMarks remembers which shapes were seen once and which were found
// to have no template, in a fixed table of hashes of their keys rather
// than in the rewrite cache, whose entries then are all rewrites and
// templates. A slot keeps the last shape hashed to it. A collision can
// only make a shape look seen (its template is built one statement
// early) or unseen (built one statement late, or tried again): a mark
// never serves a statement, the cache entry keyed by the whole shape
// does.
type shapeMarks struct {
	seed  maphash.Seed
	slots [shapeMarkSlots]atomic.Uint64
}

// shapeMarkSlots is the table's size: 32 KiB.
const shapeMarkSlots = 4096

// shapeMark is what the table knows of a shape.
type shapeMark uint64

const (
	shapeUnseen          shapeMark = iota // or forgotten
	shapeSeen                             // one statement of it was rewritten
	shapeWithoutTemplate                  // BuildTemplate refused it
)

func newShapeMarks() *shapeMarks { return &shapeMarks{seed: maphash.MakeSeed()} }

// slot returns the slot of key and the value a slot holding its mark
// has, but for the mark (the low two bits).
func (m *shapeMarks) slot(key rewriteKey) (*atomic.Uint64, uint64) {
	h := maphash.Comparable(m.seed, key)
	return &m.slots[h%shapeMarkSlots], h&^3 | 4 // never 0, the empty slot
}

func (m *shapeMarks) get(key rewriteKey) shapeMark {
	s, tag := m.slot(key)
	if v := s.Load(); v&^3 == tag {
		return shapeMark(v & 3)
	}
	return shapeUnseen
}

func (m *shapeMarks) set(key rewriteKey, mark shapeMark) {
	s, tag := m.slot(key)
	s.Store(tag | uint64(mark))
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
