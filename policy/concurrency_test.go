package policy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqe-project/sqe/session"
)

// replaceFile writes content to path atomically (for goroutines, which
// must not call t.Fatal).
func replaceFile(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// isolationPolicy: group gI grants role rI, which may read s.t through a
// row filter naming it; group blocked grants role denied, which may not
// read s.t at all. rev makes otherwise identical files differ.
func isolationPolicy(groups, rev int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# revision %d\nversion: 1\ndefault: deny\ngroups:\n  blocked: {roles: [denied]}\n", rev)
	for i := 0; i < groups; i++ {
		fmt.Fprintf(&b, "  g%d: {roles: [r%d]}\n", i, i)
	}
	b.WriteString("tables:\n  s.t:\n    access:\n      - {name: no-blocked, principals: [role:denied], deny: [select]}\n")
	for i := 0; i < groups; i++ {
		fmt.Fprintf(&b, "      - {name: read-%d, principals: [role:r%d], allow: [select]}\n", i, i)
	}
	b.WriteString("    row_filters:\n")
	for i := 0; i < groups; i++ {
		fmt.Fprintf(&b, "      - {name: f%d, principals: [role:r%d], filter: \"g = %d\"}\n", i, i, i)
	}
	return b.String()
}

// TestIsolationConcurrentGroupClaims runs one user's statements
// concurrently, each with its own group claims (some including the group
// that grants the DENY role), while the policy file is reloaded. No
// statement may see a role it does not hold, or miss the DENY it holds.
func TestIsolationConcurrentGroupClaims(t *testing.T) {
	const groups = 8
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, isolationPolicy(groups, 0))
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var reloads sync.WaitGroup
	reloads.Add(1)
	var revs atomic.Int64
	go func() {
		defer reloads.Done()
		for rev := 1; !stop.Load(); rev++ {
			revs.Store(int64(rev))
			if err := replaceFile(path, isolationPolicy(groups, rev)); err != nil {
				t.Error(err)
				return
			}
			if err := src.Reload(); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()

	const workers, statements = 12, 400
	var wg sync.WaitGroup
	var checked, deniedSeen atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			// At least statements each, and until the file was reloaded
			// a few times.
			for n := 0; n < statements || revs.Load() < 10; n++ {
				var claims []string
				var wantRoles, wantFilters []string
				for i := 0; i < groups; i++ {
					if rng.IntN(3) == 0 {
						claims = append(claims, "g"+strconv.Itoa(i))
						wantRoles = append(wantRoles, "r"+strconv.Itoa(i))
						wantFilters = append(wantFilters, "f"+strconv.Itoa(i))
					}
				}
				blocked := rng.IntN(4) == 0
				if blocked {
					claims = append(claims, "blocked")
					wantRoles = append(wantRoles, "denied")
				}
				rng.Shuffle(len(claims), func(i, j int) { claims[i], claims[j] = claims[j], claims[i] })
				slices.Sort(wantRoles)
				u := session.User{Name: "same-user", Groups: claims}
				v, err := ViewWithRetry(src, u)
				if err != nil {
					t.Error(err)
					return
				}
				// The caller's slice is the caller's: changing it must not
				// change the statement's view.
				for i := range claims {
					claims[i] = "blocked"
				}
				d, err := v.Decide(TableName{"s", "t"})
				if err != nil {
					t.Error(err)
					return
				}
				held := v.HeldRoles()
				if !slices.Equal(held, wantRoles) {
					t.Errorf("statement holds %q, want %q", held, wantRoles)
					return
				}
				var filters []string
				for _, f := range d.RowFilters {
					filters = append(filters, f.Policy)
				}
				if !slices.Equal(filters, wantFilters) {
					t.Errorf("filters %q, want %q (claims %q)", filters, wantFilters, u.Groups)
					return
				}
				switch {
				case blocked && (d.Allows(Select) || d.Reason(Select) != "no-blocked"):
					t.Errorf("DENY missed: %v %v", d.Allowed, d.DeniedBy)
					return
				case !blocked && d.Allows(Select) != (len(wantRoles) > 0):
					t.Errorf("select %v with roles %q", d.Allows(Select), wantRoles)
					return
				}
				if blocked {
					deniedSeen.Add(1)
				}
				checked.Add(1)
			}
		}(w)
	}
	wg.Wait()
	stop.Store(true)
	reloads.Wait()
	if checked.Load() < workers*statements || deniedSeen.Load() == 0 {
		t.Fatalf("%d statements checked, %d blocked", checked.Load(), deniedSeen.Load())
	}
	t.Logf("%d statements, %d blocked, %d reloads", checked.Load(), deniedSeen.Load(), src.Stats().Reloads)
}

// TestReloadDuringLoad swaps snapshots every millisecond while statements
// run. Each statement decides two tables whose row filters name the
// file's generation: both must come from one snapshot, and every snapshot
// version must always show the same generation. No statement may fail.
func TestReloadDuringLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, generation(0))
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	var published sync.Map // version -> generation, as the reloader published them
	s0, _ := src.Snapshot()
	published.Store(s0.Version(), 0)

	const generations = 150
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for g := 1; g <= generations; g++ {
			<-tick.C
			if err := replaceFile(path, generation(g)); err != nil {
				t.Error(err)
				return
			}
			if err := src.Reload(); err != nil {
				t.Error(err)
				return
			}
			s, _ := src.Snapshot()
			published.Store(s.Version(), g)
		}
	}()

	type seen struct {
		version uint64
		gen     int
	}
	const readers = 4
	var wg sync.WaitGroup
	results := make([][]seen, readers)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			u := session.User{Name: fmt.Sprintf("reader%d", r), Roles: []string{"reader"}}
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
				}
				v, err := ViewWithRetry(src, u)
				if err != nil {
					t.Errorf("statement failed: %v", err)
					return
				}
				a, err := v.Decide(TableName{"s", "a"})
				if err != nil {
					t.Errorf("statement failed: %v", err)
					return
				}
				b, err := v.Decide(TableName{"s", "b"})
				if err != nil {
					t.Errorf("statement failed: %v", err)
					return
				}
				var ga, gb int
				fmt.Sscanf(a.RowFilters[0].Expr, "gen = %d", &ga)
				fmt.Sscanf(b.RowFilters[0].Expr, "gen = %d", &gb)
				if ga != gb || !a.Allows(Select) || !b.Allows(Select) {
					t.Errorf("torn statement: %q / %q", a.RowFilters[0].Expr, b.RowFilters[0].Expr)
					return
				}
				ver := v.SnapshotVersion()
				if !strings.HasPrefix(v.Fingerprint(), "v"+strconv.FormatUint(ver, 10)+";") {
					t.Errorf("fingerprint %q for version %d", v.Fingerprint(), ver)
					return
				}
				results[r] = append(results[r], seen{ver, ga})
			}
		}(r)
	}
	wg.Wait()
	<-done

	byVersion := map[uint64]int{}
	statements := 0
	for _, rs := range results {
		for _, s := range rs {
			statements++
			if g, ok := byVersion[s.version]; ok && g != s.gen {
				t.Fatalf("version %d showed generations %d and %d", s.version, g, s.gen)
			}
			byVersion[s.version] = s.gen
			if g, ok := published.Load(s.version); !ok || g.(int) != s.gen {
				t.Fatalf("version %d showed generation %d, published %v", s.version, s.gen, g)
			}
		}
	}
	if len(byVersion) < 2 {
		t.Fatalf("statements saw %d versions", len(byVersion))
	}
	st := src.Stats()
	if st.Reloads != generations+1 || st.ReloadFailures != 0 || len(st.FailClosed) != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("%d statements over %d versions, %d superseded retries", statements, len(byVersion), st.SupersededRetries)
}
