package policy

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sqe-project/sqe/session"
)

// The watcher's tests wait for events that must happen (a counter moves,
// a filter changes), polling with a deadline far beyond what they need,
// so that a loaded machine makes them slower, not flaky. They never
// assert that something happened within a time.

const watchDeadline = 60 * time.Second

// waitFor polls cond until it holds, failing the test at the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logBuffer collects a logger's output; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

var reader = session.User{Name: "r", Roles: []string{"reader"}}

// filterNow is s.a's row filter for reader in src's current snapshot.
func filterNow(t *testing.T, src *FileSource) string {
	t.Helper()
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return decide(t, snap, reader, "s.a").RowFilters[0].Expr
}

func watched(t *testing.T, path string, opts ...Option) (*FileSource, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	opts = append([]Option{WithWatch(true), WithWatchDebounce(20 * time.Millisecond), WithLogger(logs.logger())}, opts...)
	src, err := NewFileSource(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src, logs
}

func TestWatchWriteInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, logs := watched(t, path)
	if on, pollingOnly := src.Watching(); !on || pollingOnly {
		t.Fatalf("Watching() = %v, %v", on, pollingOnly)
	}
	if err := os.WriteFile(path, []byte(generation(2)), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the file written in place to be reloaded", func() bool { return filterNow(t, src) == "gen = 2" })
	waitFor(t, "the reload to be logged", func() bool { return strings.Contains(logs.String(), "policy file reloaded") })
}

func TestWatchRenameIntoPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, _ := watched(t, path)
	for g := 2; g <= 3; g++ {
		writeFile(t, path, generation(g)) // write policy.yaml.tmp, rename over
		want := fmt.Sprintf("gen = %d", g)
		waitFor(t, "the renamed file to be reloaded", func() bool { return filterNow(t, src) == want })
	}
}

// configMap lays out dir as a Kubernetes ConfigMap volume does:
// dir/policy.yaml -> ..data/policy.yaml, dir/..data -> ..<stamp>, and
// swaps in new content the way the kubelet does, by replacing the ..data
// symlink atomically and removing the old directory.
type configMap struct {
	t   *testing.T
	dir string
	cur string // the current timestamped directory
	n   int
}

func newConfigMap(t *testing.T, content string) *configMap {
	cm := &configMap{t: t, dir: t.TempDir()}
	cm.publish(content)
	if err := os.Symlink(filepath.Join(kubeDataLink, "policy.yaml"), filepath.Join(cm.dir, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	return cm
}

func (cm *configMap) publish(content string) {
	t := cm.t
	cm.n++
	stamp := fmt.Sprintf("..2026_12_02_07_00_%02d", cm.n)
	if err := os.Mkdir(filepath.Join(cm.dir, stamp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cm.dir, stamp, "policy.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(cm.dir, "..data_tmp")
	if err := os.Symlink(stamp, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(cm.dir, kubeDataLink)); err != nil {
		t.Fatal(err)
	}
	if cm.cur != "" {
		if err := os.RemoveAll(filepath.Join(cm.dir, cm.cur)); err != nil {
			t.Fatal(err)
		}
	}
	cm.cur = stamp
}

func TestWatchConfigMapSymlinkSwap(t *testing.T) {
	cm := newConfigMap(t, generation(1))
	src, _ := watched(t, filepath.Join(cm.dir, "policy.yaml"))
	if got := filterNow(t, src); got != "gen = 1" {
		t.Fatalf("filter %q", got)
	}
	cm.publish(generation(2))
	waitFor(t, "the ConfigMap swap to be reloaded", func() bool { return filterNow(t, src) == "gen = 2" })
	cm.publish(generation(3))
	waitFor(t, "the second ConfigMap swap to be reloaded", func() bool { return filterNow(t, src) == "gen = 3" })
}

func TestWatchBadFileKeepsLastGood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	refuse := func(c *Compiled) error {
		return c.CheckExpressions(func(x Expression) error {
			if strings.Contains(x.Text, "unparsable") {
				return errors.New("does not parse")
			}
			return nil
		})
	}
	src, logs := watched(t, path, WithValidator(refuse))
	v1 := src.Stats().Version

	// A file that does not parse: the failure is counted and logged with
	// its place, the old policy stays.
	bad := strings.Replace(generation(1), "allow: [select]}", "allow: [secret_value_7f3]}", 1)
	writeFile(t, path, bad)
	waitFor(t, "the bad file to be counted", func() bool { return src.Stats().ReloadFailures == 1 })
	st := src.Stats()
	if st.Version != v1 || st.LastError == nil || !errors.Is(st.LastError, ErrInvalidFile) {
		t.Fatalf("after a bad file: version %d (was %d), last error %v", st.Version, v1, st.LastError)
	}
	if got := filterNow(t, src); got != "gen = 1" {
		t.Fatalf("filter %q after a bad file", got)
	}
	waitFor(t, "the failure to be logged", func() bool { return strings.Contains(logs.String(), "reload failed") })
	out := logs.String()
	if !strings.Contains(out, "line=5") || !strings.Contains(out, "field=") || strings.Contains(out, "secret_value_7f3") {
		t.Errorf("the failure's log line should name the line and field and not quote the file:\n%s", out)
	}

	// A file the validator refuses (the driver's dialect check) fails
	// the same way.
	writeFile(t, path, strings.Replace(generation(2), `"gen = 2"`, `"gen = 2 unparsable"`, 1))
	waitFor(t, "the refused file to be counted", func() bool { return src.Stats().ReloadFailures == 2 })
	if got := filterNow(t, src); got != "gen = 1" {
		t.Fatalf("filter %q after a refused file", got)
	}

	// A good file recovers.
	writeFile(t, path, generation(2))
	waitFor(t, "the good file to be reloaded", func() bool { return filterNow(t, src) == "gen = 2" })
	st = src.Stats()
	if st.LastError != nil || st.ReloadFailures != 2 || st.Version <= v1 {
		t.Errorf("after recovery: %+v", st)
	}
}

func TestWatchUnchangedContentDoesNotReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, _ := watched(t, path)
	before := src.Stats()
	snap, _ := src.Snapshot()

	writeFile(t, path, generation(1)) // new file, same bytes
	waitFor(t, "the unchanged file to be checked", func() bool { return src.Stats().ReloadsUnchanged > before.ReloadsUnchanged })
	after := src.Stats()
	if after.Version != before.Version || after.Reloads != before.Reloads {
		t.Errorf("unchanged content published: before %+v, after %+v", before, after)
	}
	if s, _ := src.Snapshot(); s != snap {
		t.Error("unchanged content replaced the snapshot")
	}
}

func TestWatchPinnedSnapshotOutlivesReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, _ := watched(t, path)
	pinned, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	view, err := pinned.View(reader)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, generation(2))
	waitFor(t, "the reload", func() bool { return filterNow(t, src) == "gen = 2" })
	// A statement that pinned the old snapshot decides under it to its end,
	// for every table.
	for _, tb := range []string{"a", "b"} {
		d, err := view.Decide(TableName{Schema: "s", Table: tb})
		if err != nil {
			t.Fatal(err)
		}
		if got := d.RowFilters[0].Expr; got != "gen = 1" {
			t.Errorf("pinned view, table %s: filter %q", tb, got)
		}
	}
}

func TestWatchDeferredLoadLoadsWhenFileBecomesGood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, "version: 1\n")
	src, _ := watched(t, path, WithDeferredLoad())
	if _, err := src.Snapshot(); !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("snapshot of a bad first load: %v", err)
	}
	writeFile(t, path, generation(1))
	waitFor(t, "the first good load", func() bool {
		_, err := src.Snapshot()
		return err == nil
	})
	if got := filterNow(t, src); got != "gen = 1" {
		t.Errorf("filter %q", got)
	}
}

func TestWatchCloseStopsWatcher(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	base := runtime.NumGoroutine()
	src, err := NewFileSource(path, WithWatch(true), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	done := src.watchDone()
	if done == nil {
		t.Fatal("no watcher")
	}
	select {
	case <-done:
		t.Fatal("the watcher ended before Close")
	default:
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if on, _ := src.Watching(); on {
		t.Error("Watching after Close")
	}
	select {
	case <-done: // Close waits for the goroutine to end
	default:
		t.Fatal("Close returned while the watcher was running")
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// fsnotify's reader goroutine ends too.
	waitFor(t, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= base })

	// The source still serves and reloads by hand.
	writeFile(t, path, generation(2))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := filterNow(t, src); got != "gen = 2" {
		t.Errorf("filter %q after a manual reload", got)
	}
}

func TestWatchFailedOpenStopsWatcher(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, "version: 1\n")
	base := runtime.NumGoroutine()
	if _, err := NewFileSource(path, WithWatch(true)); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("NewFileSource of a bad file: %v", err)
	}
	waitFor(t, "the watcher's goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
}

func TestWatchFallsBackToPolling(t *testing.T) {
	orig := newNotifier
	newNotifier = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	t.Cleanup(func() { newNotifier = orig })

	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, logs := watched(t, path, WithPollInterval(10*time.Millisecond))
	if on, pollingOnly := src.Watching(); !on || !pollingOnly {
		t.Fatalf("Watching() = %v, %v; want polling", on, pollingOnly)
	}
	if out := logs.String(); !strings.Contains(out, "polling the file instead") || !strings.Contains(out, "too many open files") {
		t.Errorf("the fallback is not logged:\n%s", out)
	}
	writeFile(t, path, generation(2))
	waitFor(t, "the polled change to be reloaded", func() bool { return filterNow(t, src) == "gen = 2" })

	// A ConfigMap swap is seen too (the file's identity changes).
	cm := newConfigMap(t, generation(1))
	src2, _ := watched(t, filepath.Join(cm.dir, "policy.yaml"), WithPollInterval(10*time.Millisecond))
	cm.publish(generation(3))
	waitFor(t, "the polled ConfigMap swap to be reloaded", func() bool { return filterNow(t, src2) == "gen = 3" })

	done := src.watchDone()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("Close returned while the poller was running")
	}
}

func TestChangedFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, "x")
	writeFile(t, b, "x")
	fa, fb := statOrNil(a), statOrNil(b)
	switch {
	case changedFile(nil, nil):
		t.Error("absent twice is a change")
	case !changedFile(nil, fa), !changedFile(fa, nil):
		t.Error("appearing or disappearing is no change")
	case changedFile(fa, statOrNil(a)):
		t.Error("the same file is a change")
	case !changedFile(fa, fb):
		t.Error("another file is no change")
	}
}

// A symlink to a file in another directory: the directory's events do
// not show the target's edits, the periodic check does.
func TestWatchSymlinkToAnotherDirectory(t *testing.T) {
	target := filepath.Join(t.TempDir(), "real.yaml")
	writeFile(t, target, generation(1))
	link := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	src, _ := watched(t, link, WithPollInterval(10*time.Millisecond))
	if src.watch.notify == nil {
		t.Fatal("the source does not watch its directory")
	}
	if err := os.WriteFile(target, []byte(generation(2)), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the symlink's target to be reloaded", func() bool { return filterNow(t, src) == "gen = 2" })
}
