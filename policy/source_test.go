package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// generation returns a policy whose row filters on two tables both name
// the generation, so a decision pair shows which snapshot answered.
func generation(g int) string {
	return fmt.Sprintf(`version: 1
default: deny
tables:
  s.a:
    access: [{name: a-read, principals: [role:reader], allow: [select]}]
    row_filters: [{name: gen-a, principals: [public], filter: "gen = %d"}]
  s.b:
    access: [{name: b-read, principals: [role:reader], allow: [select]}]
    row_filters: [{name: gen-b, principals: [public], filter: "gen = %d"}]
`, g, g)
}

func TestFileSourceReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(1))
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	reader := session.User{Name: "r", Roles: []string{"reader"}}
	s1, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := decide(t, s1, reader, "s.a").RowFilters[0].Expr; got != "gen = 1" {
		t.Fatalf("filter %q", got)
	}

	// Unchanged file: same snapshot.
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	if s, _ := src.Snapshot(); s != s1 {
		t.Error("reload of an unchanged file published a new snapshot")
	}

	writeFile(t, path, generation(2))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	s2, _ := src.Snapshot()
	if s2.Version() <= s1.Version() {
		t.Errorf("version %d after %d", s2.Version(), s1.Version())
	}
	if got := decide(t, s2, reader, "s.a").RowFilters[0].Expr; got != "gen = 2" {
		t.Errorf("filter %q after reload", got)
	}
	// The old snapshot is unchanged.
	if got := decide(t, s1, reader, "s.a").RowFilters[0].Expr; got != "gen = 1" {
		t.Errorf("old snapshot changed: %q", got)
	}

	// A malformed file fails the reload and keeps the last good snapshot.
	writeFile(t, path, generation(3)+"    bogus: 1\n")
	err = src.Reload()
	if !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("reload of a bad file: %v", err)
	}
	if s, _ := src.Snapshot(); s != s2 {
		t.Error("failed reload replaced the snapshot")
	}
	// A missing file too.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := src.Reload(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reload of a missing file: %v", err)
	}
	st := src.Stats()
	if st.Reloads != 2 || st.ReloadsUnchanged != 1 || st.ReloadFailures != 2 || st.Version != s2.Version() || st.LastError == nil {
		t.Errorf("stats %+v", st)
	}
	writeFile(t, path, generation(4))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	if st := src.Stats(); st.LastError != nil || st.Reloads != 3 {
		t.Errorf("stats after recovery %+v", st)
	}
	if src.Path() != path {
		t.Errorf("path %q", src.Path())
	}
}

func TestNewFileSourceErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewFileSource(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "version: 1\ndefault: deny\ntables:\n  s.t:\n    masks: [{principals: [public], column: c, type: MASK_FOO}]\n")
	_, err := NewFileSource(bad)
	if !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("bad file: %v", err)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != bad || fe.Line != 5 || fe.Path != `tables."s.t".masks[0].type` {
		t.Errorf("error %+v", fe)
	}
}

// TestConcurrentReload runs statements (View + Decide on two tables) while
// the file is rewritten and reloaded. Every statement must see one snapshot:
// both tables' filters come from the same generation.
func TestConcurrentReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(0))
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	const readers = 8
	var stop atomic.Bool
	var statements atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, readers+8)
	for i := 0; i < readers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			u := session.User{Name: fmt.Sprintf("u%d", i), Roles: []string{"reader"}}
			for n := 0; !stop.Load() || n < 50; n++ {
				s, err := src.Snapshot()
				if err != nil {
					errs <- err
					return
				}
				v, err := s.View(u)
				if err != nil {
					errs <- err
					return
				}
				a, _ := v.Decide(TableName{"s", "a"})
				b, _ := v.Decide(TableName{"s", "b"})
				a2, _ := v.Decide(TableName{"S", "A"})
				if !a.Allows(Select) || !b.Allows(Select) || a.Allows(Update) {
					errs <- fmt.Errorf("wrong access: %v %v", a.Allowed, b.Allowed)
					return
				}
				if a.RowFilters[0].Expr != b.RowFilters[0].Expr || a2.RowFilters[0].Expr != a.RowFilters[0].Expr {
					errs <- fmt.Errorf("torn snapshot: %q vs %q", a.RowFilters[0].Expr, b.RowFilters[0].Expr)
					return
				}
				statements.Add(1)
			}
		}(i)
	}
	// One view shared by goroutines, too.
	s, _ := src.Snapshot()
	shared, _ := s.View(session.User{Name: "shared", Roles: []string{"reader"}})
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				d, _ := shared.Decide(TableName{"s", fmt.Sprintf("t%d", n%300)})
				if d.Allows(Select) {
					errs <- errors.New("unknown table allowed")
					return
				}
				_ = shared.Fingerprint()
			}
		}()
	}
	var reloads sync.WaitGroup
	for w := 0; w < 2; w++ {
		reloads.Add(1)
		go func(w int) {
			defer reloads.Done()
			for g := 1; g <= 40; g++ {
				if w == 0 {
					tmp := path + ".tmp"
					if err := os.WriteFile(tmp, []byte(generation(g)), 0o600); err != nil {
						errs <- err
						return
					}
					if err := os.Rename(tmp, path); err != nil {
						errs <- err
						return
					}
				}
				if err := src.Reload(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	reloads.Wait()
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, _ = src.Snapshot()
	if got := decide(t, s, session.User{Name: "r", Roles: []string{"reader"}}, "s.a").RowFilters[0].Expr; got != "gen = 40" {
		t.Errorf("final filter %q", got)
	}
	if statements.Load() == 0 {
		t.Error("no statements ran")
	}
	t.Logf("%d statements, %d loads", statements.Load(), src.Stats().Reloads)
}
