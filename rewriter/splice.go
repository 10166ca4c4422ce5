package rewriter

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

// SpliceToken is a random token of this process that the dialects put
// in the names of the placeholders of a spliced print (a skeleton printed
// with a placeholder column in place of each mask, whose texts were
// checked once; see the dialects' splice.go). A statement cannot name it
// without knowing it, and a print whose text holds it is printed whole.
var SpliceToken = sync.OnceValue(func() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "SQE_SPLICE_" + hex.EncodeToString(b[:]) + "_"
})

// Splice is one placeholder of a skeleton and the text that takes its
// place.
type Splice struct {
	Placeholder, Text string
}

// SpliceInto replaces each placeholder of skeleton by its text. Each
// placeholder must be printed exactly once, and bounded says whether the
// text before splices[i]'s placeholder and the text after it are what the
// dialect's argument needs; ok is false otherwise, and the statement is
// then printed whole.
func SpliceInto(skeleton string, splices []Splice, bounded func(i int, before, after string) bool) (string, bool) {
	type at struct {
		i   int
		pos int
	}
	found := make([]at, len(splices))
	size := len(skeleton)
	for i, s := range splices {
		p := strings.Index(skeleton, s.Placeholder)
		end := p + len(s.Placeholder)
		if p < 1 || strings.Contains(skeleton[end:], s.Placeholder) || !bounded(i, skeleton[:p], skeleton[end:]) {
			return "", false
		}
		found[i] = at{i, p}
		size += len(s.Text) - len(s.Placeholder)
	}
	slices.SortFunc(found, func(a, b at) int { return a.pos - b.pos })
	var out strings.Builder
	out.Grow(size)
	from := 0
	for _, f := range found {
		s := splices[f.i]
		if f.pos < from {
			return "", false // two placeholders overlap
		}
		out.WriteString(skeleton[from:f.pos])
		out.WriteString(s.Text)
		from = f.pos + len(s.Placeholder)
	}
	out.WriteString(skeleton[from:])
	return out.String(), true
}
