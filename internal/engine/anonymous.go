package engine

import (
	"context"
	"strings"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// AnonymousUser is the user a statement that needs no user runs as when
// the context carries none and the connector has no default user, and
// the name its audit record carries.
const AnonymousUser = "(anonymous)"

// A statement that reads no table, calls no session function and changes
// no state gives every caller the same answer, so it needs no user:
// libraries run such statements while they open the database, before any
// request (GORM's MySQL dialector asks SELECT VERSION() with
// context.Background()). Fail closed, by allow-list, over the tokens of
// the dialect's own scanner: only a SELECT of integers, simple string
// literals and VERSION(), with optional aliases, in one statement,
// without comments, qualifies; it then takes the full path as
// AnonymousUser (parsed, checked and rewritten like any other statement).
// Everything else without a user is ErrNoSession.

// needsNoUser reports whether query is such a statement.
func (e *Engine) needsNoUser(query string) bool {
	if !startsWithSelect(query) {
		return false
	}
	toks, ok := e.dialect.Tokens(query)
	if !ok || len(toks) < 2 || !isWord(toks[0], "select") {
		return false
	}
	toks = toks[1:]
	if n := len(toks); toks[n-1].Kind == rewriter.TokenPunct && toks[n-1].Text == ";" {
		toks = toks[:n-1]
	}
	for {
		n := anonItem(query, toks)
		if n == 0 {
			return false
		}
		toks = toks[n:]
		if len(toks) == 0 {
			return true
		}
		if toks[0].Kind != rewriter.TokenPunct || toks[0].Text != "," {
			return false
		}
		toks = toks[1:]
	}
}

// startsWithSelect reports whether query, after leading white space,
// starts with SELECT: every statement without a user passes here.
func startsWithSelect(query string) bool {
	q := strings.TrimLeft(query, " \t\n\f\r")
	return len(q) > 6 && strings.EqualFold(q[:6], "select")
}

// anonItem reads one select item at the start of toks, VERSION(), an
// integer of up to nine digits or a string literal of up to 64 letters,
// digits, spaces and _ . - (written plainly, so that no escape or
// character set can make it mean more), with an optional AS alias of a
// plain identifier; it returns how many tokens it took (0: none).
func anonItem(query string, toks []rewriter.Token) int {
	n := 0
	switch {
	case len(toks) >= 3 && isWord(toks[0], "version") && isPunct(toks[1], "(") && isPunct(toks[2], ")"):
		n = 3
	case len(toks) >= 1 && toks[0].Kind == rewriter.TokenNumber && len(toks[0].Text) <= 9 && onlyOf(toks[0].Text, "0123456789"):
		n = 1
	case len(toks) >= 1 && toks[0].Kind == rewriter.TokenString && plainString(query[toks[0].Start:toks[0].End]):
		n = 1
	default:
		return 0
	}
	if len(toks) >= n+2 && isWord(toks[n], "as") && toks[n+1].Kind == rewriter.TokenWord && plainIdent(toks[n+1].Text) {
		n += 2
	}
	return n
}

func isWord(t rewriter.Token, w string) bool {
	return t.Kind == rewriter.TokenWord && strings.EqualFold(t.Text, w)
}

func isPunct(t rewriter.Token, p string) bool {
	return t.Kind == rewriter.TokenPunct && t.Text == p
}

const (
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
)

// onlyOf reports whether s is not empty and made of bytes of set.
func onlyOf(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return s != ""
}

// plainString reports whether src, a string literal as written, is '…'
// around at most 64 letters, digits, spaces and _ . -.
func plainString(src string) bool {
	if len(src) < 2 || src[0] != '\'' || src[len(src)-1] != '\'' {
		return false
	}
	inner := src[1 : len(src)-1]
	return len(inner) <= 64 && (inner == "" || onlyOf(inner, letters+digits+" _.-"))
}

// plainIdent reports whether s is a plain identifier of up to 64
// characters: a letter or _, then letters, digits and _.
func plainIdent(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && onlyOf(s[:1], letters+"_") && onlyOf(s, letters+digits+"_")
}

// anonymousContext returns ctx with AnonymousUser on it when ctx has no
// user, the engine has no default user and query needs none; otherwise
// ctx unchanged.
func (e *Engine) anonymousContext(ctx context.Context, query string) context.Context {
	if _, ok := session.Peek(ctx); ok || e.defaultUser != nil || !e.needsNoUser(query) {
		return ctx
	}
	return session.NewContext(ctx, session.User{Name: AnonymousUser})
}
