package policy

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqe-project/sqe/session"
)

var versions atomic.Uint64

// NextVersion returns a snapshot version that no earlier call in this
// process returned, for sources that compile snapshots.
func NextVersion() uint64 { return versions.Add(1) }

// publisher holds a source's current snapshot and counters. Publishing
// compiles off the statement path and swaps one pointer.
type publisher struct {
	cur  atomic.Pointer[Compiled]
	opts *options // nil: defaults
	own  Counters

	mu         sync.Mutex // serialises reloads; guards lastErr and validators
	lastErr    error
	validators map[string]func(*Compiled) error // SetValidator's, by name
}

// SetValidator installs (or, with a nil v, removes) a check that every
// later reload or Publish runs on the policy set it compiled, before
// publishing it, as WithValidator does: an error fails that load and the
// current snapshot stays. Validators are kept by name, so installing the
// same one twice (two databases opened on one source with the same
// dialect) keeps one. It does not check the current snapshot: call v on
// it for that.
func (p *publisher) SetValidator(name string, v func(*Compiled) error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v == nil {
		delete(p.validators, name)
		return
	}
	if p.validators == nil {
		p.validators = map[string]func(*Compiled) error{}
	}
	p.validators[name] = v
}

func (p *publisher) options() options {
	if p.opts == nil {
		return defaultOptions()
	}
	return *p.opts
}

func (p *publisher) counters() *Counters {
	if p.opts != nil && p.opts.counters != nil {
		return p.opts.counters
	}
	return &p.own
}

// compile compiles f with the source's options and counters and runs the
// validators on it (mu held).
func (p *publisher) compile(f *File) (*Compiled, error) {
	o := p.options()
	o.counters = p.counters()
	c, err := Compile(f, NextVersion(), func(x *options) { *x = o })
	if err != nil {
		return nil, err
	}
	for _, v := range o.validators {
		if err := v(c); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(p.validators))
	for name := range p.validators {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := p.validators[name](c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (p *publisher) store(c *Compiled) {
	p.cur.Store(c)
	p.counters().RecordReload(len(c.unresolvedList) > 0)
}

// finish records the outcome of a reload (mu held).
func (p *publisher) finish(err error) error {
	if err != nil {
		p.counters().RecordReloadFailure()
	}
	p.lastErr = err
	return err
}

func (p *publisher) stats() Stats {
	s := p.counters().Stats()
	if c := p.cur.Load(); c != nil {
		s.Version = c.Version()
		s.Unresolved = len(c.unresolvedList)
	}
	p.mu.Lock()
	s.LastError = p.lastErr
	p.mu.Unlock()
	return s
}

// FileSource is a Source backed by a native policy file. It loads the file
// when it is created; Reload re-reads it, and with WithWatch the source
// reloads it by itself when it changes on disk (Close stops that).
// Snapshot never blocks on a reload: the current snapshot is one atomic
// pointer, swapped when a reload has compiled its replacement, and a
// statement keeps the snapshot it pinned to its end. A zero FileSource has
// never loaded (its Snapshot fails with ErrNotLoaded).
type FileSource struct {
	publisher
	path string
	sum  [sha256.Size]byte // of the file last published (mu)
	// failedSum is the content of the last load that failed to parse,
	// compile or validate (mu; valid when failed): the watcher does not try
	// the same bytes again.
	failedSum [sha256.Size]byte
	failed    bool

	watch     *watcher // nil when the file is not watched
	closeOnce sync.Once
	closeErr  error
}

var (
	_ Source        = (*FileSource)(nil)
	_ StatsReporter = (*FileSource)(nil)
)

// NewFileSource loads and compiles the policy file at path. A malformed
// file is an error (it wraps ErrInvalidFile), unless WithDeferredLoad is
// given: the source is then returned and fails closed until a Reload
// succeeds. By default a malformed roles, groups or users entry only makes
// its principal unresolved (see ParsePartial and WithPartialLoads).
//
// With WithWatch the source follows the file (see WithWatch) until Close;
// watching never makes NewFileSource fail.
//
// Options: WithPartialLoads, WithDeferredLoad, WithCounters, WithWatch
// (WithWatchDebounce, WithPollInterval, WithLogger), the options
// of the snapshots it compiles (WithMergeBound, WithMergeMinPrincipals,
// WithDecisionCacheSize) and the defaults ViewWithRetry uses with this
// source (WithViewRetries, WithRetryBackoff).
func NewFileSource(path string, opts ...Option) (*FileSource, error) {
	o := buildOptions(defaultOptions(), opts)
	s := &FileSource{path: path}
	s.opts = &o
	if o.watch {
		// Watch before the first load, so that a change made while it
		// loads is seen.
		s.watch = newWatcher(s)
	}
	if err := s.Reload(); err != nil && !o.deferredLoad {
		_ = s.Close()
		return nil, err
	}
	if s.watch != nil {
		s.watch.start()
	}
	return s, nil
}

// Path returns the policy file's path.
func (s *FileSource) Path() string { return s.path }

// Snapshot returns the current snapshot, or an error wrapping ErrNotLoaded
// when none was ever loaded (naming the last load error, if any).
func (s *FileSource) Snapshot() (Snapshot, error) {
	c := s.cur.Load()
	if c == nil {
		return nil, s.notLoaded()
	}
	return c, nil
}

func (s *FileSource) notLoaded() error {
	s.mu.Lock()
	last := s.lastErr
	s.mu.Unlock()
	if last != nil {
		return fmt.Errorf("%w: %s: last load failed: %v", ErrNotLoaded, s.path, last)
	}
	return fmt.Errorf("%w: %s", ErrNotLoaded, s.path)
}

// Reload re-reads the file and, when it parses and compiles, publishes it
// as a new snapshot with a new version. On error the last good snapshot
// stays current, the failure is counted and the error is returned. A file
// whose bytes have not changed since the last successful load keeps the
// current snapshot and its version, so that polling does not invalidate
// caches keyed by version. Concurrent reloads are serialised; statements
// are never blocked by a reload.
func (s *FileSource) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finish(s.reload())
}

func (s *FileSource) reload() error {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("sqe: policy file: %w", err)
	}
	_, err = s.load(data, sha256.Sum256(data))
	return err
}

// load publishes data, whose hash is sum, unless it is what the current
// snapshot was loaded from (mu held). It reports whether it published.
func (s *FileSource) load(data []byte, sum [sha256.Size]byte) (bool, error) {
	if sum == s.sum && s.cur.Load() != nil {
		s.counters().RecordUnchanged()
		s.failed = false
		return false, nil
	}
	parse := ParsePartial
	if !s.options().partialLoads {
		parse = Parse
	}
	f, err := parse(s.path, data)
	if err == nil {
		var c *Compiled
		if c, err = s.compile(f); err == nil {
			s.store(c)
			s.sum, s.failed = sum, false
			return true, nil
		}
	}
	s.failedSum, s.failed = sum, true
	return false, err
}

// Stats returns the source's counters, with the current version, the
// number of unresolved principals and the last reload error.
func (s *FileSource) Stats() Stats { return s.stats() }

// Counters returns the Counters the source, its snapshots and their Views
// record into.
func (s *FileSource) Counters() *Counters { return s.counters() }

// MemorySource is a Source whose policy sets are published in code, as
// *File values (for sources that build them from another format, and for
// tests). The zero value has never loaded.
type MemorySource struct {
	publisher
}

var (
	_ Source        = (*MemorySource)(nil)
	_ StatsReporter = (*MemorySource)(nil)
)

// NewMemorySource returns a MemorySource that has not loaded yet. It takes
// the options NewFileSource takes (WithPartialLoads and WithDeferredLoad
// do not apply).
func NewMemorySource(opts ...Option) *MemorySource {
	o := buildOptions(defaultOptions(), opts)
	s := &MemorySource{}
	s.opts = &o
	return s
}

// Publish compiles f and, when it compiles, makes it the current snapshot
// (with a new version, which it returns). On error the current snapshot
// stays, the failure is counted and the error is returned. Compiling
// happens before the swap, so statements are never blocked by a Publish;
// concurrent Publish calls are serialised.
func (s *MemorySource) Publish(f *File) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.compile(f)
	if err != nil {
		return 0, s.finish(err)
	}
	s.store(c)
	return c.Version(), s.finish(nil)
}

// Snapshot returns the current snapshot, or an error wrapping ErrNotLoaded.
func (s *MemorySource) Snapshot() (Snapshot, error) {
	if c := s.cur.Load(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("%w: nothing published", ErrNotLoaded)
}

// Stats returns the source's counters.
func (s *MemorySource) Stats() Stats { return s.stats() }

// Counters returns the Counters the source, its snapshots and their Views
// record into.
func (s *MemorySource) Counters() *Counters { return s.counters() }

type staticSource struct {
	s   Snapshot
	own Counters
}

// NewStaticSource returns a Source that always returns s. A nil s gives a
// source that fails with ErrNotLoaded. The source reports Stats; for a
// *Compiled they are the snapshot's Counters.
func NewStaticSource(s Snapshot) Source {
	if c, ok := s.(*Compiled); ok && c == nil {
		s = nil
	}
	return &staticSource{s: s}
}

func (s *staticSource) Snapshot() (Snapshot, error) {
	if s.s == nil {
		return nil, fmt.Errorf("%w: static source without a snapshot", ErrNotLoaded)
	}
	return s.s, nil
}

func (s *staticSource) Counters() *Counters {
	if c, ok := s.s.(*Compiled); ok {
		return c.counters
	}
	return &s.own
}

func (s *staticSource) Stats() Stats {
	st := s.Counters().Stats()
	if s.s != nil {
		st.Version = s.s.Version()
	}
	if c, ok := s.s.(*Compiled); ok {
		st.Unresolved = len(c.unresolvedList)
	}
	return st
}

// sourceOptions is implemented by sources that carry options.
type sourceOptions interface{ options() options }

// ViewWithRetry is the statement path's way to a View: it pins src's
// current snapshot and builds the user's View on it. When the source
// published a newer snapshot while the View was being built, or the
// snapshot refused with ErrSuperseded, it builds the View again on the
// newer snapshot, up to WithViewRetries times (default: the source's
// setting, else DefaultViewRetries), pausing WithRetryBackoff (doubling)
// from the second retry on. Each retry is counted in
// Stats.SupersededRetries. When the retries run out it returns the last
// View it built (consistent: it pinned one snapshot) or, if none, an error
// wrapping ErrSuperseded (counted as FailSuperseded).
//
// A source that has never loaded fails with its ErrNotLoaded error
// (counted as FailNotLoaded); other View errors are returned as they are
// (the snapshot counts them). Counts go to the source's Counters when it
// reports Stats (or to WithCounters).
func ViewWithRetry(src Source, u session.User, opts ...Option) (View, error) {
	base := defaultOptions()
	if so, ok := src.(sourceOptions); ok {
		base = so.options()
	}
	base.counters = nil
	o := base
	if len(opts) > 0 {
		o = buildOptions(base, opts)
	}
	ctr := o.counters
	if ctr == nil {
		ctr = countersOf(src)
	}
	var last View
	for attempt := 0; ; attempt++ {
		s, err := src.Snapshot()
		if err != nil {
			if errors.Is(err, ErrNotLoaded) {
				ctr.RecordFailClosed(FailNotLoaded)
			} else {
				ctr.RecordFailClosed(FailSource)
			}
			return nil, err
		}
		v, err := s.View(u)
		if err != nil && !errors.Is(err, ErrSuperseded) {
			return nil, err
		}
		if err == nil {
			cur, cerr := src.Snapshot()
			if cerr != nil || cur.Version() == s.Version() {
				return v, nil
			}
			last = v
		}
		if attempt >= o.viewRetries {
			if last != nil {
				return last, nil
			}
			ctr.RecordFailClosed(FailSuperseded)
			return nil, fmt.Errorf("sqe: policy view for user %q: %d retries: %w", u.Name, attempt, err)
		}
		ctr.retried()
		if attempt > 0 && o.retryBackoff > 0 {
			time.Sleep(o.retryBackoff << (attempt - 1))
		}
	}
}
