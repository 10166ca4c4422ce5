package policy

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

var versions atomic.Uint64

// NextVersion returns a snapshot version that no earlier call in this
// process returned, for sources that compile snapshots.
func NextVersion() uint64 { return versions.Add(1) }

// FileSource is a Source backed by a native policy file. It loads the file
// when it is created; Reload re-reads it. Snapshot never blocks on a reload:
// the current snapshot is one atomic pointer, swapped when a reload has
// compiled its replacement.
type FileSource struct {
	path string
	cur  atomic.Pointer[Compiled]

	mu       sync.Mutex // serialises reloads; guards sum and lastErr
	sum      [sha256.Size]byte
	lastErr  error
	loads    atomic.Uint64
	same     atomic.Uint64
	failures atomic.Uint64
}

var _ Source = (*FileSource)(nil)

// NewFileSource loads and compiles the policy file at path. A malformed
// file is an error (it wraps ErrInvalidFile).
func NewFileSource(path string) (*FileSource, error) {
	s := &FileSource{path: path}
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the policy file's path.
func (s *FileSource) Path() string { return s.path }

// Snapshot returns the current snapshot, or an error wrapping ErrNotLoaded
// when none was ever loaded.
func (s *FileSource) Snapshot() (Snapshot, error) {
	c := s.cur.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotLoaded, s.path)
	}
	return c, nil
}

// Reload re-reads the file and, when it parses and compiles, publishes it
// as a new snapshot with a new version. On error the last good snapshot
// stays current and the error is returned. A file whose bytes have not
// changed since the last successful load keeps the current snapshot and its
// version, so that polling does not invalidate caches keyed by version.
// Concurrent reloads are serialised.
func (s *FileSource) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.reload()
	if err != nil {
		s.failures.Add(1)
	}
	s.lastErr = err
	return err
}

func (s *FileSource) reload() error {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("sqe: policy file: %w", err)
	}
	sum := sha256.Sum256(data)
	if sum == s.sum && s.cur.Load() != nil {
		s.same.Add(1)
		return nil
	}
	f, err := Parse(s.path, data)
	if err != nil {
		return err
	}
	c, err := Compile(f, NextVersion())
	if err != nil {
		return err
	}
	s.cur.Store(c)
	s.sum = sum
	s.loads.Add(1)
	return nil
}

// FileSourceStats counts a FileSource's reloads.
type FileSourceStats struct {
	Version   uint64 // of the current snapshot; 0 when none
	Loads     uint64 // snapshots published (the first load included)
	Unchanged uint64 // reloads that found the file unchanged
	Failures  uint64 // reloads that failed
	LastError error  // of the latest reload; nil when it succeeded
}

// Stats returns the source's counters.
func (s *FileSource) Stats() FileSourceStats {
	st := FileSourceStats{
		Loads:     s.loads.Load(),
		Unchanged: s.same.Load(),
		Failures:  s.failures.Load(),
	}
	if c := s.cur.Load(); c != nil {
		st.Version = c.Version()
	}
	s.mu.Lock()
	st.LastError = s.lastErr
	s.mu.Unlock()
	return st
}

type staticSource struct{ s Snapshot }

// NewStaticSource returns a Source that always returns s. A nil s gives a
// source that fails with ErrNotLoaded.
func NewStaticSource(s Snapshot) Source {
	if c, ok := s.(*Compiled); ok && c == nil {
		s = nil
	}
	return staticSource{s}
}

func (s staticSource) Snapshot() (Snapshot, error) {
	if s.s == nil {
		return nil, fmt.Errorf("%w: static source without a snapshot", ErrNotLoaded)
	}
	return s.s, nil
}
