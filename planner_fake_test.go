package sqe

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/internal/fakedriver"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// withPlanner makes a connector use p instead of the policy engine.
func withPlanner(p planner) Option { return func(c *config) { c.planner = p } }

// fakePlanner rewrites by table lookup: rewrites maps a query to its
// rewrite, in which {user} stands for the caller's name. Unknown queries
// are rejected as unsupported, queries in deny with their error. The
// fingerprint is "fp:" + the caller's name. Every call is recorded.
type fakePlanner struct {
	rewrites    map[string]string
	deny        map[string]error
	defaultUser string
	// results makes plans carry a rewriter.Result with the statement's
	// kind (from its first word), as the engine's do.
	results bool

	mu           sync.Mutex
	plans        []planCall
	finishes     []finishCall
	fingerprints int
	closes       int
	discards     []string
	closeErr     error
}

type planCall struct {
	user, query, sql string
	err              error
	cs               *engine.ConnState
	loadedBefore     bool // the session state was marked loaded when planning began
}

type finishCall struct {
	user, query, sql string // query and sql are "" when planning failed
	planned          bool
	err              error
	cs               *engine.ConnState
}

func newFakePlanner(rewrites map[string]string) *fakePlanner {
	return &fakePlanner{rewrites: rewrites, deny: map[string]error{}}
}

func (f *fakePlanner) user(ctx context.Context) (string, error) {
	if u, ok := session.FromContext(ctx); ok {
		return u.Name, nil
	}
	if f.defaultUser != "" {
		return f.defaultUser, nil
	}
	return "", ErrNoSession
}

func (f *fakePlanner) Plan(ctx context.Context, cs *engine.ConnState, query string) (*engine.Plan, error) {
	loaded := cs.SessionLoaded()
	p, err := f.doPlan(ctx, cs, query)
	f.mu.Lock()
	defer f.mu.Unlock()
	c := planCall{query: query, err: err, cs: cs, loadedBefore: loaded}
	c.user, _ = f.user(ctx)
	if p != nil {
		c.sql = p.SQL
	}
	f.plans = append(f.plans, c)
	return p, err
}

func (f *fakePlanner) doPlan(ctx context.Context, cs *engine.ConnState, query string) (*engine.Plan, error) {
	u, err := f.user(ctx)
	if err != nil {
		return nil, err
	}
	if err := f.deny[query]; err != nil {
		return nil, err
	}
	tmpl, ok := f.rewrites[query]
	if !ok {
		return nil, rewriter.Unsupported("no rewrite for this statement")
	}
	cs.SetSession(nil) // the session state "was read"
	p := &engine.Plan{
		Query:       query,
		SQL:         strings.ReplaceAll(tmpl, "{user}", u),
		Fingerprint: "fp:" + u,
	}
	if f.results {
		p.Result = &rewriter.Result{SQL: p.SQL, Kind: kindOf(query), Cacheable: true}
		if w := strings.ToUpper(strings.Fields(query + " x")[0]); w == "BEGIN" || w == "COMMIT" {
			p.Result.Effect.TransactionControl = true // as the dialects classify them
		}
	}
	return p, nil
}

// kindOf classifies a statement of the fake planner by its first word.
func kindOf(query string) rewriter.Kind {
	word, _, _ := strings.Cut(query, " ")
	switch strings.ToUpper(word) {
	case "SELECT":
		return rewriter.KindSelect
	case "UPDATE":
		return rewriter.KindUpdate
	case "SET", "USE", "BEGIN", "COMMIT":
		return rewriter.KindSession
	case "CREATE", "ALTER", "DROP":
		return rewriter.KindDDL
	}
	return rewriter.KindOther
}

func (f *fakePlanner) Fingerprint(ctx context.Context, _ *engine.ConnState) (string, error) {
	f.mu.Lock()
	f.fingerprints++
	f.mu.Unlock()
	u, err := f.user(ctx)
	if err != nil {
		return "", err
	}
	return "fp:" + u, nil
}

func (f *fakePlanner) Finish(ctx context.Context, cs *engine.ConnState, p *engine.Plan, _ time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := finishCall{err: err, cs: cs, planned: p != nil}
	c.user, _ = f.user(ctx)
	if p != nil {
		c.query, c.sql = p.Query, p.SQL
	}
	f.finishes = append(f.finishes, c)
}

func (f *fakePlanner) Audits() bool { return true }

// IsRoleStatement: the fake reads no role statements.
func (f *fakePlanner) IsRoleStatement(string) bool { return false }

func (f *fakePlanner) Discarded(cs *engine.ConnState, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.discards = append(f.discards, why)
}

func (f *fakePlanner) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closes++
	return f.closeErr
}

func (f *fakePlanner) planCalls() []planCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]planCall(nil), f.plans...)
}

func (f *fakePlanner) finishCalls() []finishCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]finishCall(nil), f.finishes...)
}

func (f *fakePlanner) closeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closes
}

func (f *fakePlanner) resetCalls() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans, f.finishes = nil, nil
}

var errTestDenied = &rewriter.Error{Kind: ErrAccessDenied, Table: "shop.secret", Policy: "deny-secret"}

// The statements the fake planner knows.
const (
	qSelect    = "SELECT * FROM orders"
	qSelectArg = "SELECT * FROM orders WHERE id = ?"
	qUpdate    = "UPDATE orders SET note = ? WHERE id = ?"
	qUpdateOne = "UPDATE orders SET note = ?"
	qSecret    = "SELECT * FROM secret"
	qUnknown   = "SELECT * FROM nowhere"
)

var testRewrites = map[string]string{
	qSelect:    "SELECT * FROM (SELECT * FROM orders WHERE owner = '{user}') AS orders",
	qSelectArg: "SELECT * FROM (SELECT * FROM orders WHERE owner = '{user}') AS orders WHERE id = ?",
	qUpdate:    "UPDATE orders SET note = ? WHERE id = ? AND owner = '{user}'",
	qUpdateOne: "UPDATE orders SET note = ? WHERE owner = '{user}'",
}

// rw is the fake planner's rewrite of q for user.
func rw(q, user string) string { return strings.ReplaceAll(testRewrites[q], "{user}", user) }

func userCtx(t *testing.T, name string) context.Context {
	return session.NewContext(t.Context(), session.User{Name: name})
}

func testPlanner() *fakePlanner {
	fp := newFakePlanner(testRewrites)
	fp.deny[qSecret] = errTestDenied
	return fp
}

// newTestDB opens a *sql.DB through sqe over a fake database with flags.
func newTestDB(t *testing.T, flags fakedriver.Flags, opts ...Option) (*sql.DB, *fakedriver.DB, *fakePlanner) {
	t.Helper()
	fdb := fakedriver.New(flags)
	fp := testPlanner()
	c, err := NewConnector(fdb.Connector("fake"), append([]Option{withPlanner(fp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { _ = db.Close() })
	return db, fdb, fp
}

// newTestConn returns one sqe connection over a fake database with flags.
func newTestConn(t *testing.T, flags fakedriver.Flags, opts ...Option) (*Conn, *fakedriver.DB, *fakePlanner) {
	t.Helper()
	fdb := fakedriver.New(flags)
	fp := testPlanner()
	c, err := newConnector(fdb.Connector("fake"), append([]Option{withPlanner(fp)}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	dc, err := c.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.Close(); _ = c.Close() })
	return dc.(*Conn), fdb, fp
}

// rawDB opens the fake database without sqe, to compare behaviour.
func rawDB(t *testing.T, flags fakedriver.Flags) (*sql.DB, *fakedriver.DB) {
	t.Helper()
	fdb := fakedriver.New(flags)
	db := sql.OpenDB(fdb.Connector("raw"))
	t.Cleanup(func() { _ = db.Close() })
	return db, fdb
}
