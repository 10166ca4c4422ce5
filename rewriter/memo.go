package rewriter

import (
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/sqe-project/sqe/udf"
)

// TextMemo remembers the results of a pure function of SQL text (a
// dialect's canonical form of an expression), so that a policy's masks and
// filters, printed again for every statement that misses the rewrite
// cache, are parsed and printed once. It holds at most Max results (a
// policy set has far fewer expressions) and starts over when it is full,
// so that the texts of policies replaced since do not keep the new ones
// out. Errors are not remembered. The zero value with Max set is
// ready to use and safe for concurrent use.
type TextMemo struct {
	Max int
	m   Bounded[string, string]
}

// Do returns f(text), from memory when it was computed before.
func (m *TextMemo) Do(text string, f func(string) (string, error)) (string, error) {
	if out, ok := m.m.Get(text); ok {
		return out, nil
	}
	out, err := f(text)
	if err != nil {
		return "", err
	}
	m.m.put(text, out, m.Max)
	return out, nil
}

// Bounded is a map of at most Max entries that starts over when it is
// full, for what the dialects remember of a policy's texts (parsed read
// forms, frozen masks): a policy set has far fewer, and starting over lets
// a replaced policy's entries go. The zero value with Max set is ready to
// use and safe for concurrent use.
type Bounded[K comparable, V any] struct {
	Max int
	mu  sync.RWMutex
	m   map[K]V
}

// Get returns the value under k.
func (b *Bounded[K, V]) Get(k K) (V, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.m[k]
	return v, ok
}

// Snapshot is a copy of the entries.
func (b *Bounded[K, V]) Snapshot() map[K]V {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return maps.Clone(b.m)
}

// Put keeps v under k unless k holds a value already, and returns the
// value k holds.
func (b *Bounded[K, V]) Put(k K, v V) V {
	return b.put(k, v, b.Max)
}

// put is Put with the bound given.
func (b *Bounded[K, V]) put(k K, v V, bound int) V {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.m[k]; ok {
		return old
	}
	if b.m == nil || len(b.m) >= bound {
		b.m = map[K]V{}
	}
	b.m[k] = v
	return v
}

// ExprForm is a dialect's canonical form of an expression (Syntax's
// CanonicalExpr): the text parsed as exactly one expression by the
// dialect's parser and printed back, remembered by text.
type ExprForm[E any] struct {
	parse func(text string) (E, error)
	print func(E) (string, error)
	memo  TextMemo
}

// NewExprForm is the form that parse and print give, remembering at most
// max texts' forms.
func NewExprForm[E any](max int, parse func(text string) (E, error), print func(E) (string, error)) *ExprForm[E] {
	return &ExprForm[E]{parse: parse, print: print, memo: TextMemo{Max: max}}
}

// Of returns text's canonical form.
func (f *ExprForm[E]) Of(text string) (string, error) {
	return f.memo.Do(text, func(text string) (string, error) {
		e, err := f.parse(text)
		if err != nil {
			return "", err
		}
		return f.print(e)
	})
}

// maskSQLs remembers udf.MaskSQL's answers, a pure function of its
// arguments: a policy's masks are the same SQL for every statement that
// misses the rewrite cache until the policy or the columns change.
var maskSQLs = TextMemo{Max: 4096}

// maskSQL is udf.MaskSQL, remembered.
func maskSQL(t udf.Target, maskType string, args []string, expr string) (string, error) {
	key := memoKey(append([]string{string(t.Dialect), t.Column, t.DataType, t.ColumnType,
		strconv.FormatBool(t.NamedClasses), t.Collation, strconv.FormatBool(t.ServerMasks), maskType, expr, strconv.Itoa(len(args))}, args...))
	return maskSQLs.Do(key, func(string) (string, error) { return udf.MaskSQL(t, maskType, args, expr) })
}

// memoKey joins parts into one key that no other list of parts gives:
// each part is preceded by its length.
func memoKey(parts []string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 4
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}
