package policy

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of a watched FileSource (WithWatch).
const (
	// DefaultWatchDebounce is how long a watched file must stay quiet
	// after a change before it is reloaded. See WithWatchDebounce.
	DefaultWatchDebounce = 100 * time.Millisecond
	// DefaultPollInterval is how often a watched file is checked besides
	// (or, when its directory cannot be watched, instead of) the
	// directory's events. See WithPollInterval.
	DefaultPollInterval = 5 * time.Second
)

// WithWatch makes NewFileSource follow its file (default off; the
// driver's WithPolicyFile turns it on): a goroutine owned by the source
// watches the file's directory and reloads the file when it changes, as
// Reload does, so statements never wait for it. Watching the directory
// rather than the file sees every way a file is replaced: written in
// place, renamed over (write a temporary file, rename it into place), and
// the Kubernetes ConfigMap volume's swap of its ..data symlink. Bursts of
// events are reloaded once, after the file has been quiet for
// WithWatchDebounce; a file whose content (its SHA-256) has not changed
// keeps the current snapshot and its version (Stats.ReloadsUnchanged).
//
// A reload that fails keeps the last good snapshot, is counted
// (Stats.ReloadFailures, Stats.LastError) and logged at Warn (WithLogger)
// with the file, line and field of each problem, never the policy's
// text; the same failing content is not tried again until the file
// changes. Successful reloads are logged at Info.
//
// Besides the directory's events, the file is checked every
// WithPollInterval for a change of the file it resolves to (after
// symlinks), its size, its modification time or its content hash: that
// sees what the directory's events cannot, such as a symlink to a file in
// another directory. When the directory cannot be watched (no inotify instances or
// watches left, say), the source says so in a log line and relies on
// that check alone; it never fails because of the watcher. Close stops
// watching.
func WithWatch(on bool) Option { return func(o *options) { o.watch = on } }

// WithWatchDebounce sets the quiet period after a change to a watched file
// before it is reloaded (default DefaultWatchDebounce), so that the
// several events of one update (truncate and write, create and rename,
// the steps of a symlink swap) cause one reload. d <= 0 reloads at the
// first event.
func WithWatchDebounce(d time.Duration) Option {
	return func(o *options) { o.watchDebounce = max(d, 0) }
}

// WithPollInterval sets how often a watched file's identity, size,
// modification time and content hash are checked (default DefaultPollInterval; d <= 0
// keeps the default): the only check when its directory cannot be
// watched, a safety net besides the directory's events otherwise.
func WithPollInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.pollInterval = d
		}
	}
}

// WithLogger sets the logger of a watched FileSource (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// newNotifier creates the directory watcher; tests replace it to make
// watching fail.
var newNotifier = fsnotify.NewWatcher

// kubeDataLink is the symlink a Kubernetes ConfigMap or Secret volume
// swaps atomically to publish new content: the files are symlinks through
// it.
const kubeDataLink = "..data"

// watcher follows a FileSource's file from a goroutine of its own.
type watcher struct {
	src      *FileSource
	name     string // the file's base name
	log      *slog.Logger
	debounce time.Duration
	interval time.Duration

	notify  *fsnotify.Watcher // nil: polling
	polling atomic.Bool       // only polling: no directory events
	last    os.FileInfo       // the file as last seen (nil: absent)

	stop     chan struct{}
	done     chan struct{}
	started  bool
	stopOnce sync.Once
}

// newWatcher starts watching s's file's directory, or prepares to poll the
// file when that fails. The goroutine starts with start.
func newWatcher(s *FileSource) *watcher {
	o := s.options()
	w := &watcher{
		src:      s,
		name:     filepath.Base(s.path),
		log:      o.logger,
		debounce: o.watchDebounce,
		interval: o.pollInterval,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	n, err := newNotifier()
	if err == nil {
		if err = n.Add(filepath.Dir(s.path)); err != nil {
			_ = n.Close()
		}
	}
	if err != nil {
		w.log.Warn("sqe: cannot watch the policy file's directory; polling the file instead",
			"file", s.path, "interval", w.interval.String(), "error", err.Error())
		w.last = statOrNil(s.path)
		w.polling.Store(true)
		return w
	}
	w.notify = n
	return w
}

func (w *watcher) start() {
	w.started = true
	go w.run()
}

// close stops the goroutine and waits for it to end.
func (w *watcher) close() error {
	var err error
	w.stopOnce.Do(func() {
		close(w.stop)
		if w.started {
			<-w.done
		}
		if w.notify != nil {
			err = w.notify.Close()
		}
	})
	return err
}

func (w *watcher) run() {
	defer close(w.done)
	if w.notify != nil && !w.runNotify() {
		return
	}
	w.runPoll()
}

// runNotify follows the directory's events until the watcher is stopped
// (false) or the event stream ends (true: poll instead). It also checks
// the file every interval, for what the directory's events cannot show:
// a symlink whose target lives in another directory, events lost.
func (w *watcher) runNotify() bool {
	quiet := time.NewTimer(w.debounce)
	quiet.Stop()
	defer quiet.Stop()
	pending := false // quiet is running
	wait := func() { quiet.Reset(w.debounce); pending = true }
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	w.last = statOrNil(w.src.path)
	errs := w.notify.Errors
	for {
		select {
		case <-w.stop:
			return false
		case ev, ok := <-w.notify.Events:
			if !ok {
				w.log.Warn("sqe: the policy file's directory watch ended; polling the file instead",
					"file", w.src.path, "interval", w.interval.String())
				w.last = statOrNil(w.src.path)
				w.polling.Store(true)
				return true
			}
			if w.relevant(ev) {
				wait() // every event restarts the quiet period
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflow loses events: check the file anyway.
			w.log.Warn("sqe: policy file watch error; checking the file", "file", w.src.path, "error", err.Error())
			wait()
		case <-tick.C:
			if !pending && w.due() {
				wait()
			}
		case <-quiet.C:
			pending = false
			w.last = statOrNil(w.src.path)
			w.src.watchReload(w.log)
		}
	}
}

// relevant reports whether ev may have changed the file's content: an
// event on the file's own name, or on the ..data symlink of a Kubernetes
// volume. Chmod alone changes no content.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return false
	}
	base := filepath.Base(ev.Name)
	return base == w.name || base == kubeDataLink
}

// runPoll checks the file every interval until the watcher is stopped.
func (w *watcher) runPoll() {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if w.due() {
				w.last = statOrNil(w.src.path)
				w.src.watchReload(w.log)
			}
		}
	}
}

// due reports whether the file changed since the watcher last loaded it:
// it resolves to another file, appeared or disappeared, changed size or
// modification time, or its content is neither what the current snapshot
// was loaded from nor what the last failed load tried (modification
// times are too coarse to show every write).
func (w *watcher) due() bool {
	if changedFile(w.last, statOrNil(w.src.path)) {
		return true
	}
	data, err := os.ReadFile(w.src.path)
	if err != nil {
		return false // an absent file shows in its FileInfo
	}
	return w.src.isNew(sha256.Sum256(data))
}

// isNew reports whether content whose hash is sum would be loaded by the
// watcher: it is not the current snapshot's, nor the last failed load's.
func (s *FileSource) isNew(sum [sha256.Size]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sum == s.sum && s.cur.Load() != nil {
		return false
	}
	return !(s.failed && sum == s.failedSum)
}

func statOrNil(path string) os.FileInfo {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return fi
}

// changedFile reports whether the file (after symlinks) was replaced or
// changed size or modification time.
func changedFile(old, cur os.FileInfo) bool {
	if old == nil || cur == nil {
		return (old == nil) != (cur == nil)
	}
	return !os.SameFile(old, cur) || old.Size() != cur.Size() || !old.ModTime().Equal(cur.ModTime())
}

// watchReload is the watcher's Reload: it reloads the file unless the
// content is what the last failed load already tried, and logs the
// outcome.
func (s *FileSource) watchReload(log *slog.Logger) {
	s.mu.Lock()
	published := false
	data, err := os.ReadFile(s.path)
	if err != nil {
		err = fmt.Errorf("sqe: policy file: %w", err)
	} else {
		sum := sha256.Sum256(data)
		if s.failed && sum == s.failedSum {
			s.mu.Unlock()
			return // counted and logged when it failed
		}
		published, err = s.load(data, sum)
	}
	_ = s.finish(err)
	var version uint64
	if c := s.cur.Load(); c != nil {
		version = c.Version()
	}
	s.mu.Unlock()

	switch {
	case err != nil:
		attrs := append([]any{"file", s.path, "version", version}, problemAttrs(err)...)
		log.Warn("sqe: policy file reload failed; the last good policy stays in force", attrs...)
	case published:
		log.Info("sqe: policy file reloaded", "file", s.path, "version", version)
	default:
		log.Debug("sqe: policy file unchanged", "file", s.path, "version", version)
	}
}

// problemAttrs describes a failed load for a log line by where its
// problems are (file, line, field), without the policy's text: the
// messages of a FileError may quote it.
func problemAttrs(err error) []any {
	var fes []*FileError
	collectFileErrors(err, &fes)
	if len(fes) > 0 {
		attrs := []any{"problems", len(fes), "line", fes[0].Line, "field", fes[0].Path}
		if len(fes) > 1 {
			at := make([]string, 0, min(len(fes), 10))
			for _, fe := range fes[:min(len(fes), 10)] {
				at = append(at, fe.File+":"+strconv.Itoa(fe.Line)+": "+fe.Path)
			}
			attrs = append(attrs, "at", at)
		}
		return attrs
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return []any{"error", pe.Op + ": " + pe.Err.Error()}
	}
	return []any{"error", "the policy set was refused (see Stats.LastError)"}
}

func collectFileErrors(err error, out *[]*FileError) {
	switch e := err.(type) {
	case nil:
	case *FileError:
		*out = append(*out, e)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			collectFileErrors(x, out)
		}
	case interface{ Unwrap() error }:
		collectFileErrors(e.Unwrap(), out)
	}
}

// Close stops watching the file (WithWatch) and waits for the watcher's
// goroutine to end. The source keeps serving its current snapshot, and
// Reload still reloads it. Closing twice returns the first result.
func (s *FileSource) Close() error {
	s.closeOnce.Do(func() {
		if s.watch != nil {
			s.closeErr = s.watch.close()
		}
	})
	return s.closeErr
}

// Watching reports whether the source follows its file (WithWatch, until
// Close), and whether it only polls the file (WithPollInterval) because
// its directory could not be watched.
func (s *FileSource) Watching() (on, pollingOnly bool) {
	w := s.watch
	if w == nil {
		return false, false
	}
	select {
	case <-w.stop:
		return false, false
	default:
		return true, w.polling.Load()
	}
}

// watchDone is closed when the watcher's goroutine has ended (nil when the
// file is not watched).
func (s *FileSource) watchDone() <-chan struct{} {
	if s.watch == nil {
		return nil
	}
	return s.watch.done
}
