package sqe

// AnonymousUser is the user a statement that needs no user runs as when
// the context carries none and the connector has no default user, and
// the name its audit record carries.
const AnonymousUser = "(anonymous)"

// The engine (package internal/engine) runs such statements as
// engine.AnonymousUser; TestAnonymousUserIsTheEngines checks that the two
// agree.
