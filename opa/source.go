package opa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqe-project/sqe/policy"
)

// MaxBundleSize bounds a downloaded bundle.
const MaxBundleSize = 256 << 20

// persistedName is the bundle file kept in WithPersistDir's directory.
const persistedName = "bundle.tar.gz"

// Source is an Open Policy Agent policy source: a Rego bundle compiled in
// process, from a directory or tarball (New with a path, NewStatic) or
// followed on a bundle server (New with an http or https URL). It
// implements policy.Source and policy.StatsReporter.
type Source struct {
	cfg      *config
	location string // the path or URL
	remote   bool

	cur atomic.Pointer[Snapshot]

	mu      sync.Mutex // serialises loads; guards what follows
	lastErr error
	etag    string

	downloads, notModified, persistLoads atomic.Uint64

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

var (
	_ policy.Source        = (*Source)(nil)
	_ policy.StatsReporter = (*Source)(nil)
)

// New returns a Source for the bundle at location.
//
// A path (a bundle directory or a .tar.gz bundle) is read and compiled
// before New returns; a bundle that cannot be read or compiled is an error
// wrapping ErrBundle. Reload reads it again.
//
// An http or https URL is a bundle server's bundle resource, which New
// follows as an OPA sidecar would: it downloads the bundle before
// returning, then polls it (WithPollInterval) with If-None-Match, so an
// unchanged bundle costs a 304. A download that fails, or a bundle that
// does not read or compile, keeps the last good revision and counts a
// reload failure. When the first download fails, New loads the persisted
// copy (WithPersistDir) if there is one; without one it still returns the
// Source, which fails closed (policy.ErrNotLoaded) until a download
// succeeds. Close stops the polling.
func New(location string, opts ...Option) (*Source, error) {
	cfg := buildConfig(opts)
	s := &Source{cfg: cfg, location: location}
	if u, err := url.Parse(location); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		if u.Host == "" {
			return nil, fmt.Errorf("sqe: opa: bundle URL %q has no host", location)
		}
		s.remote = true
		if err := s.Refresh(context.Background()); err != nil {
			s.loadPersisted()
		}
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		if cfg.poll > 0 {
			go s.loop()
		} else {
			close(s.done)
		}
		return s, nil
	}
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewStatic returns a Source that serves b, compiled.
func NewStatic(b *Bundle, opts ...Option) (*Source, error) {
	cfg := buildConfig(opts)
	s := &Source{cfg: cfg, location: b.Origin}
	snap, err := compileSnapshot(context.Background(), b, cfg)
	if err != nil {
		return nil, err
	}
	s.publish(snap)
	return s, nil
}

// Location returns the bundle's path or URL.
func (s *Source) Location() string { return s.location }

// Snapshot returns the current snapshot, or an error wrapping
// policy.ErrNotLoaded when no bundle was ever loaded.
func (s *Source) Snapshot() (policy.Snapshot, error) {
	if c := s.cur.Load(); c != nil {
		return c, nil
	}
	s.mu.Lock()
	last := s.lastErr
	s.mu.Unlock()
	if last != nil {
		return nil, fmt.Errorf("%w: opa bundle %s: %v", policy.ErrNotLoaded, s.location, last)
	}
	return nil, fmt.Errorf("%w: opa bundle %s", policy.ErrNotLoaded, s.location)
}

// Current returns the current snapshot, nil when none was loaded.
func (s *Source) Current() *Snapshot { return s.cur.Load() }

// Revision returns the current bundle revision ("" when none is loaded).
func (s *Source) Revision() string {
	if c := s.cur.Load(); c != nil {
		return c.revision
	}
	return ""
}

func (s *Source) publish(snap *Snapshot) {
	s.cur.Store(snap)
	s.cfg.counters.RecordReload(false)
}

// fail records a failed load (mu held).
func (s *Source) fail(err error) error {
	s.lastErr = err
	s.cfg.counters.RecordReloadFailure()
	if s.cfg.onError != nil {
		s.cfg.onError(err)
	}
	return err
}

// Reload reads the bundle again: the path, or one poll of the bundle
// server. A bundle whose revision is the current one keeps the current
// snapshot and its version; any other revision, older or newer, is
// compiled and published (the server's bundle is the policy in force, as
// for OPA). On error the last good snapshot stays current.
func (s *Source) Reload() error {
	if s.remote {
		return s.Refresh(context.Background())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := LoadBundle(s.location)
	if err != nil {
		return s.fail(err)
	}
	return s.install(context.Background(), b)
}

// install publishes b unless it is the current revision (mu held).
func (s *Source) install(ctx context.Context, b *Bundle) error {
	if c := s.cur.Load(); c != nil && c.revision == b.Revision {
		s.cfg.counters.RecordUnchanged()
		s.lastErr = nil
		return nil
	}
	snap, err := compileSnapshot(ctx, b, s.cfg)
	if err != nil {
		return s.fail(err)
	}
	s.publish(snap)
	s.lastErr = nil
	return nil
}

// Refresh polls the bundle server once (a remote source; Reload for a
// path).
func (s *Source) Refresh(ctx context.Context) error {
	if !s.remote {
		return s.Reload()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data, etag, err := s.download(ctx)
	if err != nil {
		return s.fail(err)
	}
	if data == nil { // 304 Not Modified
		s.notModified.Add(1)
		s.cfg.counters.RecordUnchanged()
		s.lastErr = nil
		return nil
	}
	s.downloads.Add(1)
	b, err := ReadBundle(data, s.location)
	if err != nil {
		return s.fail(err)
	}
	if err := s.install(ctx, b); err != nil {
		return err
	}
	s.etag = etag
	s.persist(data)
	return nil
}

// download GETs the bundle; nil data means 304 Not Modified.
func (s *Source) download(ctx context.Context) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.location, nil)
	if err != nil {
		return nil, "", fmt.Errorf("sqe: opa: bundle %s: %w", s.location, err)
	}
	for k, vs := range s.cfg.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if s.etag != "" && s.cur.Load() != nil {
		req.Header.Set("If-None-Match", s.etag)
	}
	client := s.cfg.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("sqe: opa: bundle %s: %w", s.location, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified:
		if s.cur.Load() == nil {
			return nil, "", fmt.Errorf("sqe: opa: bundle %s: 304 Not Modified without a bundle", s.location)
		}
		return nil, "", nil
	default:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, "", fmt.Errorf("sqe: opa: bundle %s: HTTP %s", s.location, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBundleSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("sqe: opa: bundle %s: %w", s.location, err)
	}
	if len(data) > MaxBundleSize {
		return nil, "", fmt.Errorf("sqe: opa: bundle %s: larger than %d bytes", s.location, MaxBundleSize)
	}
	return data, resp.Header.Get("ETag"), nil
}

// persist writes the last good bundle to WithPersistDir (mu held); a
// failure to write is reported to the error handler, and the bundle stays
// in force.
func (s *Source) persist(data []byte) {
	if s.cfg.persistDir == "" {
		return
	}
	err := os.MkdirAll(s.cfg.persistDir, 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(s.cfg.persistDir, ".bundle-*"); err == nil {
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(f.Name(), filepath.Join(s.cfg.persistDir, persistedName))
			}
			if err != nil {
				_ = os.Remove(f.Name())
			}
		}
	}
	if err != nil && s.cfg.onError != nil {
		s.cfg.onError(fmt.Errorf("sqe: opa: persisting bundle: %w", err))
	}
}

// loadPersisted publishes the persisted bundle, when there is one and it
// compiles.
func (s *Source) loadPersisted() {
	if s.cfg.persistDir == "" {
		return
	}
	path := filepath.Join(s.cfg.persistDir, persistedName)
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := ReadBundle(data, path)
	if err == nil {
		var snap *Snapshot
		if snap, err = compileSnapshot(context.Background(), b, s.cfg); err == nil {
			s.publish(snap)
			s.persistLoads.Add(1)
			return
		}
	}
	if s.cfg.onError != nil {
		s.cfg.onError(fmt.Errorf("sqe: opa: persisted bundle %s: %w", path, err))
	}
}

func (s *Source) loop() {
	defer close(s.done)
	wait := s.cfg.poll
	for {
		t := time.NewTimer(wait)
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-t.C:
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-s.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := s.Refresh(ctx)
		cancel()
		if err != nil {
			wait = min(max(wait*2, s.cfg.poll), max(s.cfg.backoffMax, s.cfg.poll))
		} else {
			wait = s.cfg.poll
		}
	}
}

// Close stops a remote source's polling; the current snapshot stays.
func (s *Source) Close() error {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			close(s.stop)
			<-s.done
		}
	})
	return nil
}

// Stats is what the source counted: policy's counters, with the current
// version and the last load error, and the bundle downloads.
type Stats struct {
	policy.Stats
	// Revision is the current bundle revision.
	Revision string
	// Downloads counts bundles downloaded (200), NotModified the polls
	// answered 304, PersistLoads the starts served from the persisted
	// bundle.
	Downloads, NotModified, PersistLoads uint64
}

// Stats returns policy's counters for the source (policy.StatsReporter).
func (s *Source) Stats() policy.Stats {
	st := s.cfg.counters.Stats()
	if c := s.cur.Load(); c != nil {
		st.Version = c.version
	}
	s.mu.Lock()
	st.LastError = s.lastErr
	s.mu.Unlock()
	return st
}

// BundleStats returns Stats with the bundle's counters.
func (s *Source) BundleStats() Stats {
	return Stats{Stats: s.Stats(), Revision: s.Revision(), Downloads: s.downloads.Load(),
		NotModified: s.notModified.Load(), PersistLoads: s.persistLoads.Load()}
}

// Counters returns the Counters the source and its Views record into.
func (s *Source) Counters() *policy.Counters { return s.cfg.counters }

// Err returns the last load error, nil when the last load succeeded.
func (s *Source) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// IsBundle reports whether err is a bundle that could not be read or
// compiled.
func IsBundle(err error) bool { return errors.Is(err, ErrBundle) }
