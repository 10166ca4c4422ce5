package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func TestFailClosedNeverLoaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	src, err := NewFileSource(path, WithDeferredLoad())
	if err != nil {
		t.Fatalf("deferred load: %v", err)
	}
	for i := 0; i < 3; i++ {
		v, err := ViewWithRetry(src, session.User{Name: "u"})
		if v != nil || !errors.Is(err, ErrNotLoaded) || !strings.Contains(err.Error(), "last load failed") {
			t.Fatalf("statement %d on a source that never loaded: %v, %v", i, v, err)
		}
	}
	st := src.Stats()
	if st.FailClosed[FailNotLoaded] != 3 || st.ReloadFailures != 1 || st.Reloads != 0 || st.Version != 0 || st.LastError == nil {
		t.Errorf("stats %+v", st)
	}

	// The first good load ends it.
	writeFile(t, path, generation(1))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	v, err := ViewWithRetry(src, session.User{Name: "u", Roles: []string{"reader"}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := v.Decide(TableName{"s", "a"}); err != nil || !d.Allows(Select) {
		t.Fatalf("after load: %v %v", d, err)
	}
	if st := src.Stats(); st.Reloads != 1 || st.LastError != nil || st.FailClosed[FailNotLoaded] != 3 {
		t.Errorf("stats after load %+v", st)
	}

	// The other sources that have nothing to serve.
	for name, s := range map[string]Source{
		"memory": NewMemorySource(),
		"static": NewStaticSource(nil),
		"zero":   &FileSource{},
	} {
		if _, err := ViewWithRetry(s, session.User{Name: "u"}); !errors.Is(err, ErrNotLoaded) {
			t.Errorf("%s: %v", name, err)
		}
		if st := s.(StatsReporter).Stats(); st.FailClosed[FailNotLoaded] != 1 {
			t.Errorf("%s: stats %+v", name, st)
		}
	}
}

func TestFailedReloadKeepsLastGood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := src.Snapshot()
	for i, bad := range []string{
		generation(2) + "    bogus: 1\n", // unknown field
		"version: 2\ndefault: deny\n",    // unsupported version
		"",                               // empty
	} {
		writeFile(t, path, bad)
		if err := src.Reload(); !errors.Is(err, ErrInvalidFile) {
			t.Fatalf("bad file %d: %v", i, err)
		}
		if s, _ := src.Snapshot(); s != good {
			t.Fatalf("bad file %d replaced the snapshot", i)
		}
		v, err := ViewWithRetry(src, session.User{Name: "u", Roles: []string{"reader"}})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := v.Decide(TableName{"s", "a"})
		if d.RowFilters[0].Expr != "gen = 1" {
			t.Fatalf("statement after failed reload saw %q", d.RowFilters[0].Expr)
		}
	}
	if st := src.Stats(); st.ReloadFailures != 3 || st.Reloads != 1 || !errors.Is(st.LastError, ErrInvalidFile) || st.Version != good.Version() {
		t.Errorf("stats %+v", st)
	}

	// MemorySource: the same.
	ms := NewMemorySource()
	if _, err := ms.Publish(mustParse(t, generation(1))); err != nil {
		t.Fatal(err)
	}
	if _, err := ms.Publish(&File{Version: 9}); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("bad publish: %v", err)
	}
	if _, err := ms.Publish(nil); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("nil publish: %v", err)
	}
	if st := ms.Stats(); st.ReloadFailures != 2 || st.Reloads != 1 || st.LastError == nil {
		t.Errorf("memory stats %+v", st)
	}
}

// racingSource publishes a newer snapshot while a View is being built, a
// given number of times; refuse makes the snapshot refuse the build with
// ErrSuperseded instead of completing it.
type racingSource struct {
	cur    atomic.Pointer[Compiled]
	f      *File
	races  atomic.Int32
	refuse bool
	ctr    Counters
}

func newRacingSource(t *testing.T, races int, refuse bool) *racingSource {
	s := &racingSource{f: mustParse(t, generation(0)), refuse: refuse}
	s.races.Store(int32(races))
	s.publish(t)
	return s
}

func (s *racingSource) publish(t testing.TB) {
	c, err := Compile(s.f, NextVersion(), WithCounters(&s.ctr))
	if err != nil {
		t.Fatal(err)
	}
	s.cur.Store(c)
}

func (s *racingSource) Snapshot() (Snapshot, error) { return &racingSnapshot{s.cur.Load(), s}, nil }
func (s *racingSource) Stats() Stats                { return s.ctr.Stats() }
func (s *racingSource) Counters() *Counters         { return &s.ctr }

type racingSnapshot struct {
	*Compiled
	src *racingSource
}

func (r *racingSnapshot) View(u session.User) (View, error) {
	v, err := r.Compiled.View(u)
	if r.src.races.Add(-1) >= 0 {
		r.src.publish(nil)
		if r.src.refuse {
			return nil, fmt.Errorf("%w: released", ErrSuperseded)
		}
	}
	return v, err
}

func TestViewRetriesWhenSuperseded(t *testing.T) {
	u := session.User{Name: "u", Roles: []string{"reader"}}
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuse=%v", refuse), func(t *testing.T) {
			// Two races: the third build is on the current snapshot.
			src := newRacingSource(t, 2, refuse)
			v, err := ViewWithRetry(src, u, WithRetryBackoff(0))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := v.SnapshotVersion(), src.cur.Load().Version(); got != want {
				t.Errorf("view on version %d, current %d", got, want)
			}
			if st := src.Stats(); st.SupersededRetries != 2 || len(st.FailClosed) != 0 {
				t.Errorf("stats %+v", st)
			}

			// More races than retries.
			src = newRacingSource(t, 100, refuse)
			v, err = ViewWithRetry(src, u, WithViewRetries(3), WithRetryBackoff(0))
			st := src.Stats()
			if st.SupersededRetries != 3 {
				t.Errorf("retries %d", st.SupersededRetries)
			}
			if refuse {
				// Nothing was built: the statement fails closed.
				if v != nil || !errors.Is(err, ErrSuperseded) || st.FailClosed[FailSuperseded] != 1 {
					t.Errorf("exhausted refusals: %v, %v, %+v", v, err, st)
				}
				return
			}
			// Every build completed on a snapshot that was current when
			// pinned: the last one is returned, consistent on its version.
			if err != nil || v == nil || st.FailClosed[FailSuperseded] != 0 {
				t.Fatalf("exhausted races: %v, %v, %+v", v, err, st)
			}
			d, err := v.Decide(TableName{"s", "a"})
			if err != nil || d.RowFilters[0].Expr != "gen = 0" {
				t.Errorf("decision %v %v", d, err)
			}

			// No retries at all.
			src = newRacingSource(t, 1, refuse)
			_, err = ViewWithRetry(src, u, WithViewRetries(0))
			if st := src.Stats(); st.SupersededRetries != 0 || refuse != (err != nil) {
				t.Errorf("no retries: %v %+v", err, st)
			}
		})
	}
}

const partialPolicy = `version: 1
default: deny
roles:
  admin: {contains: [analyst, broken]}
  broken: {contains: {not: a list}}
  loop_a: {contains: [loop_b]}
  loop_b: {contains: [loop_a]}
groups:
  ops: {roles: [analyst]}
  weird: {roles: 5}
users:
  carol: {roles: [admin], extra: 1}
  dave: {roles: [analyst]}
tables:
  s.public_only:
    access: [{name: all-read, principals: [public], allow: [select]}]
    row_filters: [{name: tenant, principals: [public], filter: "tenant = 1"}]
  s.analyst_only:
    access: [{name: analyst-read, principals: [role:analyst], allow: [select]}]
  s.secret:
    access: [{name: secret-read, principals: [role:secret_keeper], allow: [select]}]
  "s.log_*":
    masks: [{name: log-ip, principals: [role:auditor], column: ip, type: MASK_NULL}]
`

func TestUnresolvedPrincipalsFailClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, partialPolicy)
	if _, err := NewFileSource(path, WithPartialLoads(false)); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("strict load: %v", err)
	}
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	st := src.Stats()
	if st.PartialLoads != 1 || st.Reloads != 1 || st.Unresolved != 5 {
		t.Fatalf("stats after partial load %+v", st)
	}
	snap, _ := src.Snapshot()
	var names []string
	for _, u := range snap.(*Compiled).Unresolved() {
		names = append(names, u.Principal.String())
		if u.Reason == "" {
			t.Errorf("%s: no reason", u.Principal)
		}
	}
	if got := strings.Join(names, " "); got != "role:broken role:loop_a role:loop_b user:carol group:weird" {
		t.Errorf("unresolved %s", got)
	}

	decideT := func(u session.User, table string) (*Decision, error) {
		t.Helper()
		v, err := ViewWithRetry(src, u)
		if err != nil {
			t.Fatalf("view %+v: %v", u, err)
		}
		schema, tb, _ := strings.Cut(table, ".")
		return v.Decide(TableName{schema, tb})
	}
	refused := 0
	expectRefused := func(u session.User, table, principal string) {
		t.Helper()
		d, err := decideT(u, table)
		var ue *UnresolvedError
		if d != nil || !errors.Is(err, ErrUnresolved) || !errors.Is(err, ErrAccessDenied) || !errors.As(err, &ue) {
			t.Fatalf("%s on %s: %v, %v", u.Name, table, d, err)
		}
		if ue.Principal.String() != principal || !strings.Contains(err.Error(), principal) || !strings.Contains(err.Error(), table) {
			t.Errorf("%s on %s: %v", u.Name, table, err)
		}
		refused++
	}
	expectAllowed := func(u session.User, table string, allowed bool) {
		t.Helper()
		d, err := decideT(u, table)
		if err != nil || d.Allows(Select) != allowed {
			t.Errorf("%s on %s: %v, %v", u.Name, table, d, err)
		}
	}

	bob := session.User{Name: "bob", Roles: []string{"admin"}} // holds broken
	expectAllowed(bob, "s.public_only", true)                  // only public rules
	expectAllowed(bob, "s.analyst_only", true)                 // rules for a held role only
	expectAllowed(bob, "s.unknown", false)                     // no rules at all
	expectRefused(bob, "s.secret", "role:broken")              // secret_keeper may come through broken
	expectRefused(bob, "s.log_x", "role:broken")               // so may auditor (wildcard entry)

	dave := session.User{Name: "dave"} // resolved
	expectAllowed(dave, "s.analyst_only", true)
	expectAllowed(dave, "s.secret", false)
	expectAllowed(dave, "s.log_x", false)

	carol := session.User{Name: "carol"} // her users entry is malformed
	expectAllowed(carol, "s.public_only", true)
	expectRefused(carol, "s.analyst_only", "user:carol") // her grants are unknown
	expectRefused(carol, "s.secret", "user:carol")

	eve := session.User{Name: "eve", Groups: []string{"weird", "ops"}}
	expectAllowed(eve, "s.public_only", true)
	expectAllowed(eve, "s.analyst_only", true) // analyst comes through ops: known
	expectRefused(eve, "s.secret", "group:weird")

	loop := session.User{Name: "l", Roles: []string{"loop_a"}}
	expectRefused(loop, "s.secret", "role:loop_a")

	// A primary role that may be granted through an unresolved principal.
	_, err = ViewWithRetry(src, session.User{Name: "bob", Roles: []string{"admin"}, PrimaryRole: "secret_keeper"})
	var ue *UnresolvedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrAccessDenied) || ue.Principal.String() != "role:broken" || !strings.Contains(err.Error(), `primary role "secret_keeper"`) {
		t.Errorf("primary role: %v", err)
	}
	// Without unresolved principals it is the ordinary refusal.
	_, err = ViewWithRetry(src, session.User{Name: "dave", PrimaryRole: "admin"})
	if !errors.Is(err, ErrAccessDenied) || errors.Is(err, ErrUnresolved) {
		t.Errorf("primary role not granted: %v", err)
	}

	st = src.Stats()
	if st.FailClosed[FailUnresolved] != uint64(refused)+1 || st.FailClosed[FailRoleNotGranted] != 1 || st.UnreadableViews != 2 {
		t.Errorf("stats %+v (refused %d)", st, refused)
	}

	// A fixed file resolves everything again.
	writeFile(t, path, strings.NewReplacer("{not: a list}", "[]", "roles: 5", "roles: [temp]", ", extra: 1", "", "loop_b: {contains: [loop_a]}", "loop_b: {}").Replace(partialPolicy))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	expectAllowed(bob, "s.secret", false)
	if st := src.Stats(); st.Unresolved != 0 || st.PartialLoads != 1 || st.Reloads != 2 {
		t.Errorf("stats after fix %+v", st)
	}
}

func TestCounters(t *testing.T) {
	var nilCounters *Counters
	nilCounters.RecordReload(true)
	nilCounters.RecordFailClosed(FailSource)
	if st := nilCounters.Stats(); st.Reloads != 0 || st.FailClosed == nil {
		t.Errorf("nil counters %+v", st)
	}
	c := NewCounters()
	c.RecordReload(false)
	c.RecordReload(true)
	c.RecordUnchanged()
	c.RecordReloadFailure()
	c.RecordFailClosed(FailNotLoaded)
	c.RecordFailClosed("ranger_timeout")
	c.RecordFailClosed("ranger_timeout")
	st := c.Stats()
	if st.Reloads != 2 || st.PartialLoads != 1 || st.ReloadsUnchanged != 1 || st.ReloadFailures != 1 ||
		st.FailClosed[FailNotLoaded] != 1 || st.FailClosed["ranger_timeout"] != 2 || len(st.FailClosed) != 2 {
		t.Errorf("stats %+v", st)
	}
	// A static source reports its snapshot's counters.
	snap := mustCompile(t, evalPolicy)
	src := NewStaticSource(snap)
	if _, err := ViewWithRetry(src, session.User{Name: "x", PrimaryRole: "admin"}); err == nil {
		t.Fatal("primary role not held: no error")
	}
	if st := src.(StatsReporter).Stats(); st.Version != 7 || st.UnreadableViews != 1 || st.FailClosed[FailRoleNotGranted] != 1 {
		t.Errorf("static stats %+v", st)
	}
	if p, r, rules, e := snap.Size(); p != 13 || r != 5 || rules != 19 || e != 13 {
		t.Errorf("size %d principals, %d resources, %d rules, %d entries", p, r, rules, e)
	}
}
