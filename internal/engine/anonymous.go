package engine

import (
	"context"
	"regexp"

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
// context.Background()). Fail closed, by allow-list: only a SELECT of
// integers, simple string literals and VERSION(), with optional aliases,
// in one statement, without comments, qualifies; it then takes the full
// path as AnonymousUser (parsed, checked and rewritten like any other
// statement). Everything else without a user is ErrNoSession.
var needsNoUser = regexp.MustCompile(`(?i)^\s*SELECT\s+` + anonItem + `(\s*,\s*` + anonItem + `)*\s*;?\s*$`)

const anonItem = `(VERSION\s*\(\s*\)|[0-9]{1,9}|'[A-Za-z0-9 _.-]{0,64}')(\s+AS\s+[A-Za-z_][A-Za-z0-9_]{0,63})?`

// anonymousContext returns ctx with AnonymousUser on it when ctx has no
// user, the engine has no default user and query needs none; otherwise
// ctx unchanged.
func (e *Engine) anonymousContext(ctx context.Context, query string) context.Context {
	if _, ok := session.Peek(ctx); ok || e.defaultUser != nil || !needsNoUser.MatchString(query) {
		return ctx
	}
	return session.NewContext(ctx, session.User{Name: AnonymousUser})
}
