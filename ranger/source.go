package ranger

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqe-project/sqe/policy"
)

// Source is a Ranger policy source. New polls a Ranger admin; OpenBundle
// and LoadBundle serve a bundle file; NewStatic serves a Bundle. Snapshot
// never blocks: the current snapshot is one atomic pointer, swapped when a
// download or reload has compiled its replacement. A Source that has never
// loaded fails closed: Snapshot returns an error wrapping
// policy.ErrNotLoaded.
type Source struct {
	cfg *config
	cur atomic.Pointer[Snapshot]

	bundlePath string
	client     *adminClient
	cachePath  string

	mu        sync.Mutex // serialises refreshes; guards the fields below
	last      *Bundle    // the components of the current snapshot
	lastSum   [sha256.Size]byte
	activated time.Time

	pub atomic.Pointer[Bundle] // last, for readers that must not wait on a download

	errMu   sync.Mutex
	lastErr error

	polls, updates, unchanged, failures, consecutive, cacheLoads, cacheWriteFailures atomic.Uint64
	serviceNotFound                                                                  atomic.Uint64
	// Failed downloads of the parts other than the policies, each of
	// which kept its last version (see Refresh).
	roleFailures, tagFailures, userStoreFailures atomic.Uint64
	lastSuccess, lastFailure                     atomic.Int64

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

var _ policy.Source = (*Source)(nil)

func newSource(cfg *config) *Source {
	return &Source{cfg: cfg}
}

// NewStatic returns a Source serving b.
func NewStatic(b *Bundle, opts ...Option) (*Source, error) {
	s := newSource(buildConfig(opts))
	snap, err := compileSnapshot(b, s.cfg)
	if err != nil {
		return nil, err
	}
	s.setLastLocked(b)
	s.publish(snap)
	return s, nil
}

// New returns a Source that downloads the service's policies, roles and
// tags from the Ranger admin at adminURL (for example
// "https://ranger.example.com:6182") and polls for changes. As Ranger's
// ranger.plugin.<service>.policy.rest.url, adminURL may list several
// admins, comma-separated: a request that meets a transport error or a 5xx
// is retried at the next one, and the admin that answered is asked first
// from then on. With credentials (WithBasicAuth, WithBearerToken, an
// Authorization header) the admin's secure download endpoints are used,
// and the non-secure ones otherwise (see WithDownloadMode). It makes the
// first download before returning; when that fails it loads the cache
// (WithCacheDir) if there is one, unless the admin answered 404 (the
// service does not exist: the cache is removed), and otherwise the Source
// fails closed until a download succeeds. An invalid URL or an empty service name is an
// error. Close stops the polling.
func New(adminURL, service string, opts ...Option) (*Source, error) {
	cfg := buildConfig(opts)
	c, err := newAdminClient(adminURL, service, cfg)
	if err != nil {
		return nil, err
	}
	s := newSource(cfg)
	s.client = c
	if cfg.cacheDir != "" {
		s.cachePath = filepath.Join(cfg.cacheDir, "ranger-"+sanitizeFileName(service)+".json")
	}
	if err := s.Refresh(context.Background()); err != nil {
		// A service the admin does not know is not served from the cache
		// (Refresh has removed it): every statement fails closed.
		if s.cachePath != "" && !ServiceNotFound(err) {
			if b, cerr := readBundleFile(s.cachePath); cerr == nil {
				if snap, cerr := compileSnapshot(b, cfg); cerr == nil {
					s.mu.Lock()
					s.setLastLocked(b)
					s.mu.Unlock()
					s.publish(snap)
					s.cacheLoads.Add(1)
				}
			}
		}
	}
	s.stop = make(chan struct{})
	s.done = make(chan struct{})
	go s.loop()
	return s, nil
}

func sanitizeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < 0x20 {
			return '_'
		}
		return r
	}, s)
}

func (s *Source) setErr(err error) {
	s.errMu.Lock()
	s.lastErr = err
	s.errMu.Unlock()
}

// setLastLocked records the components of the snapshot about to be published.
func (s *Source) setLastLocked(b *Bundle) {
	s.last = b
	s.pub.Store(b)
}

func (s *Source) publish(snap *Snapshot) {
	s.cur.Store(snap)
	s.updates.Add(1)
	s.lastSuccess.Store(time.Now().UnixNano())
}

// Snapshot returns the current snapshot, or an error wrapping
// policy.ErrNotLoaded when nothing was ever loaded.
func (s *Source) Snapshot() (policy.Snapshot, error) {
	if snap := s.cur.Load(); snap != nil {
		return snap, nil
	}
	last := s.Err()
	if ServiceNotFound(last) {
		return nil, fmt.Errorf("%w: ranger: the Ranger service was not found on the admin, so no policy applies and every statement is refused: %w", policy.ErrNotLoaded, last)
	}
	if last != nil {
		return nil, fmt.Errorf("%w: ranger: %w", policy.ErrNotLoaded, last)
	}
	return nil, fmt.Errorf("%w: ranger: nothing downloaded yet", policy.ErrNotLoaded)
}

// Current returns the current snapshot, or nil.
func (s *Source) Current() *Snapshot { return s.cur.Load() }

// TableTags returns the tags the current snapshot's tag download gives t's
// columns (see Snapshot.TableTags), so that a Source can serve as the
// policy.TagSource of another policy source (sqe.WithTagSource). Before
// the first download it fails (fail closed).
func (s *Source) TableTags(ctx context.Context, t policy.TableName) (map[string][]string, error) {
	snap, err := s.Snapshot()
	if err != nil {
		return nil, err
	}
	return snap.(*Snapshot).TableTags(ctx, t)
}

// TagVersion is the current snapshot's version: it changes whenever a new
// download (policies or tags) is published.
func (s *Source) TagVersion() uint64 {
	if snap := s.cur.Load(); snap != nil {
		return snap.Version()
	}
	return 0
}

var _ policy.TagSource = (*Source)(nil)

// Close stops polling. It is safe to call more than once.
func (s *Source) Close() error {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			close(s.stop)
			<-s.done
		}
		if s.client != nil {
			s.client.close()
		}
	})
	return nil
}

func (s *Source) loop() {
	defer close(s.done)
	backoff := time.Duration(0)
	wait := s.cfg.pollInterval
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
			if backoff == 0 {
				backoff = s.cfg.backoffMin
			} else {
				backoff = min(backoff*2, s.cfg.backoffMax)
			}
			wait = max(s.cfg.pollInterval, backoff)
		} else {
			backoff = 0
			wait = s.cfg.pollInterval
		}
	}
}

// Reload re-reads a bundle file (OpenBundle, LoadBundle) or polls the
// admin once (New). A file whose bytes have not changed keeps the current
// snapshot and version. On error the last good snapshot stays current.
func (s *Source) Reload() error {
	if s.client != nil {
		return s.Refresh(context.Background())
	}
	if s.bundlePath == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls.Add(1)
	data, err := os.ReadFile(s.bundlePath)
	if err != nil {
		return s.failLocked(fmt.Errorf("ranger: %w", err))
	}
	sum := sha256.Sum256(data)
	if s.cur.Load() != nil && sum == s.lastSum {
		s.unchanged.Add(1)
		s.consecutive.Store(0)
		return nil
	}
	b, err := ParseBundle(data)
	if err != nil {
		return s.failLocked(fmt.Errorf("%s: %w", s.bundlePath, err))
	}
	snap, err := compileSnapshot(b, s.cfg)
	if err != nil {
		return s.failLocked(fmt.Errorf("%s: %w", s.bundlePath, err))
	}
	s.setLastLocked(b)
	s.lastSum = sum
	s.setErr(nil)
	s.consecutive.Store(0)
	s.publish(snap)
	return nil
}

func (s *Source) failLocked(err error) error {
	s.setErr(err)
	s.failures.Add(1)
	s.consecutive.Add(1)
	s.lastFailure.Store(time.Now().UnixNano())
	if s.cfg.onError != nil {
		s.cfg.onError(err)
	}
	return err
}

// failDownloadLocked records a failed download. A 404 means the admin
// does not have the service (it was deleted or renamed): as Ranger's
// PolicyRefresher does, the policies are dropped and the cache disabled,
// so that every statement fails closed until the service exists again.
// Any other failure keeps the last good snapshot.
func (s *Source) failDownloadLocked(err error) error {
	if ServiceNotFound(err) {
		s.serviceNotFound.Add(1)
		s.cur.Store(nil)
		s.last = nil
		s.pub.Store(nil)
		s.lastSum = [sha256.Size]byte{}
		if s.cachePath != "" {
			if rerr := os.Remove(s.cachePath); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				s.cacheWriteFailures.Add(1)
			}
		}
	}
	return s.failLocked(err)
}

// Refresh polls the admin once: policies, roles, tags and (WithUserStore)
// the user store. A 200 replaces a part, 304 and 204 keep it; when any
// part changed and every part downloaded, the new snapshot is compiled,
// published and written to the cache. A 404 for any part (the admin does
// not have the service) drops the snapshot and removes the cache file:
// Snapshot then fails with policy.ErrNotLoaded wrapping
// ErrServiceNotFound until a download succeeds again. Any other failure
// (other statuses, malformed JSON, a transport error, a policy set that
// does not compile) keeps the last good snapshot. Both count a failure.
func (s *Source) Refresh(ctx context.Context) error {
	if s.client == nil {
		return s.Reload()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls.Add(1)
	prev := s.last
	if prev == nil {
		prev = &Bundle{}
	}
	next := *prev
	changed := false

	knownPolicies := int64(-1)
	if s.last != nil && s.cur.Load() != nil {
		knownPolicies = version(prev.PolicyVersion)
	}
	sp, st, err := s.client.policies(ctx, knownPolicies, s.activated)
	if err != nil {
		return s.failDownloadLocked(err)
	}
	if st == fetchNew {
		next.ServicePolicies = *sp
		changed = true
	} else if s.last == nil {
		return s.failLocked(fmt.Errorf("ranger: the admin has no policies for %q yet (answered not modified to the first download)", s.client.service))
	}
	// The roles, tags and user store are refreshed independently of the
	// policies, as Ranger's refreshers are: a part that fails to download
	// keeps the version it had (counted, and reported by Err), and the
	// others, the policies included, still advance. A part never
	// downloaded fails the refresh (the snapshot would lack it: no tag, no
	// tag mask), and so does a 404 (the service is gone).
	var partErrs []error
	partFailed := func(part string, had bool, err error, counter *atomic.Uint64) error {
		if ServiceNotFound(err) || !had {
			return s.failDownloadLocked(err)
		}
		counter.Add(1)
		partErrs = append(partErrs, fmt.Errorf("ranger: %s kept at their last version: %w", part, err))
		return nil
	}
	if s.cfg.roles {
		known := int64(-1)
		if prev.Roles != nil {
			known = version(prev.Roles.RoleVersion)
		}
		r, st, err := s.client.roles(ctx, known, s.activated)
		if err != nil {
			if ferr := partFailed("roles", prev.Roles != nil, err, &s.roleFailures); ferr != nil {
				return ferr
			}
		} else if st == fetchNew {
			next.Roles = r
			changed = true
		}
	}
	if s.cfg.tags {
		known := int64(-1)
		if prev.Tags != nil {
			known = version(prev.Tags.TagVersion)
		}
		t, st, err := s.client.tags(ctx, known, s.activated)
		if err != nil {
			if ferr := partFailed("tags", prev.Tags != nil, err, &s.tagFailures); ferr != nil {
				return ferr
			}
		} else if st == fetchNew {
			next.Tags = t
			changed = true
		}
	}
	if s.cfg.userStore {
		known := int64(-1)
		if prev.UserStore != nil {
			known = version(prev.UserStore.UserStoreVersion)
		}
		u, st, err := s.client.userStore(ctx, known, s.activated)
		if err != nil {
			if ferr := partFailed("user store", prev.UserStore != nil, err, &s.userStoreFailures); ferr != nil {
				return ferr
			}
		} else if st == fetchNew {
			next.UserStore = u
			changed = true
		}
	}
	partErr := errors.Join(partErrs...)
	if !changed && s.cur.Load() != nil {
		s.unchanged.Add(1)
		s.consecutive.Store(0)
		s.setErr(partErr)
		return partErr
	}
	next.FetchedAt = Time{time.Now().UTC()}
	next.AdminURL = s.client.adminURL()
	snap, err := compileSnapshot(&next, s.cfg)
	if err != nil {
		return s.failLocked(err)
	}
	nb := next
	s.setLastLocked(&nb)
	s.setErr(partErr)
	s.activated = time.Now()
	s.consecutive.Store(0)
	s.publish(snap)
	if s.cachePath != "" {
		if data, err := nb.Marshal(); err == nil {
			if err := writeFileAtomic(s.cachePath, data); err != nil {
				s.cacheWriteFailures.Add(1)
			}
		} else {
			s.cacheWriteFailures.Add(1)
		}
	}
	return partErr
}

// Bundle returns the components of the current snapshot (shared; do not
// modify), or nil.
func (s *Source) Bundle() *Bundle { return s.pub.Load() }

// Stats reports the source's activity.
type Stats struct {
	// Loaded is true once a snapshot has been published.
	Loaded bool
	// Version is the current snapshot's version (0 before the first load).
	Version uint64
	// Info describes the current snapshot.
	Info Info
	// Polls counts downloads (or bundle reloads) attempted.
	Polls uint64
	// Updates counts snapshots published (the first load and cache loads included).
	Updates uint64
	// NotModified counts polls that found nothing changed.
	NotModified uint64
	// Failures counts failed polls (the last good snapshot was kept).
	Failures uint64
	// ConsecutiveFailures counts failures since the last success.
	ConsecutiveFailures uint64
	// CacheLoads counts snapshots loaded from the on-disk cache.
	CacheLoads uint64
	// CacheWriteFailures counts cache files that could not be written (or,
	// after a 404, removed).
	CacheWriteFailures uint64
	// ServiceNotFound counts downloads the admin answered with 404: each
	// dropped the snapshot and the cache (Loaded is false until the
	// service exists again).
	ServiceNotFound uint64
	// RoleFailures, TagFailures and UserStoreFailures count failed
	// downloads of those parts: each kept its last version while the
	// policies (and the other parts) advanced.
	RoleFailures, TagFailures, UserStoreFailures uint64
	// FailOvers counts requests sent on to the next admin URL after a
	// transport error or a 5xx from one (New with several admin URLs).
	FailOvers uint64
	// ScriptFailures counts condition scripts of the current snapshot that
	// failed while they ran (Snapshot.ScriptFailures).
	ScriptFailures uint64
	// LastError is the last poll's error, or "" after a success.
	LastError string
	// LastSuccess and LastFailure are the times of the last publication and failure.
	LastSuccess, LastFailure time.Time
}

// Stats returns the source's counters.
func (s *Source) Stats() Stats {
	st := Stats{
		Polls:               s.polls.Load(),
		Updates:             s.updates.Load(),
		NotModified:         s.unchanged.Load(),
		Failures:            s.failures.Load(),
		ConsecutiveFailures: s.consecutive.Load(),
		CacheLoads:          s.cacheLoads.Load(),
		CacheWriteFailures:  s.cacheWriteFailures.Load(),
		ServiceNotFound:     s.serviceNotFound.Load(),
		RoleFailures:        s.roleFailures.Load(),
		TagFailures:         s.tagFailures.Load(),
		UserStoreFailures:   s.userStoreFailures.Load(),
	}
	if s.client != nil {
		st.FailOvers = s.client.failOvers.Load()
	}
	if snap := s.cur.Load(); snap != nil {
		st.Loaded, st.Version, st.Info = true, snap.version, snap.info
		st.ScriptFailures = snap.ScriptFailures()
	}
	if t := s.lastSuccess.Load(); t != 0 {
		st.LastSuccess = time.Unix(0, t)
	}
	if t := s.lastFailure.Load(); t != 0 {
		st.LastFailure = time.Unix(0, t)
	}
	if err := s.Err(); err != nil {
		st.LastError = err.Error()
	}
	return st
}

// Err returns the last poll's (or reload's) error, or nil after a
// success. ServiceNotFound(src.Err()) tells a missing service apart.
func (s *Source) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.lastErr
}

// ServiceNotFound reports whether err (or the source's last error) is the
// admin's 404 for the service.
func ServiceNotFound(err error) bool { return errors.Is(err, ErrServiceNotFound) }
