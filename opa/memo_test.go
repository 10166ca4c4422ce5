package opa_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// TestMemoIsSharedAndBounded: a decision is evaluated once per caller and
// table, whatever the View, and the memo never holds more than its bound.
func TestMemoIsSharedAndBounded(t *testing.T) {
	var evaluated int
	var mu sync.Mutex
	log := func(e opa.DecisionLogEntry) {
		mu.Lock()
		evaluated++
		mu.Unlock()
	}
	b, err := opa.LoadBundle("example/demo")
	if err != nil {
		t.Fatal(err)
	}
	src, err := opa.NewStatic(b, opa.WithDecisionLog(log), opa.WithDecisionCacheSize(64))
	if err != nil {
		t.Fatal(err)
	}
	erin := session.User{Name: "erin", Roles: []string{"eu_analyst"}}
	for range 3 {
		v, err := policy.ViewWithRetry(src, erin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.DecideColumnInfo(customers, custCols); err != nil {
			t.Fatal(err)
		}
	}
	if evaluated != len(policy.Accesses) {
		t.Fatalf("evaluated %d decisions for one caller and table, want one per access type (%d)", evaluated, len(policy.Accesses))
	}
	// Another caller (an attribute differs) is evaluated again.
	other := erin
	other.Attributes = map[string]string{"tenant": "7"}
	v, _ := src.Current().View(other)
	if _, err := v.DecideColumnInfo(customers, custCols); err != nil || evaluated != 2*len(policy.Accesses) {
		t.Fatalf("another caller: %v, %d evaluations", err, evaluated)
	}
	if v.Fingerprint() == mustView(t, src, erin).Fingerprint() {
		t.Fatal("callers differing in an attribute share a fingerprint")
	}
	for i := range 1000 {
		u := session.User{Name: "u" + strconv.Itoa(i)}
		v, _ := src.Current().View(u)
		if _, err := v.DecideColumnInfo(customers, custCols); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.Current().Memoized(); n > 64 || n == 0 {
		t.Fatalf("memo holds %d decisions, bound 64", n)
	}
}

func mustView(t *testing.T, src *opa.Source, u session.User) policy.View {
	t.Helper()
	v, err := src.Current().View(u)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConcurrentDecisionsDuringReloads: statements decide while new
// revisions land; each View keeps deciding with its own revision (run
// with -race).
func TestConcurrentDecisionsDuringReloads(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(filterBundle(t, "0", "region = '0'"), `"0"`)
	src, err := opa.New(srv.url(), opa.WithPollInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 8)
	for g := range 4 {
		wg.Go(func() {
			u := session.User{Name: "g" + strconv.Itoa(g)}
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := policy.ViewWithRetry(src, u)
				if err != nil {
					errs <- err.Error()
					return
				}
				rev := v.(*opa.View).PolicyRevision()
				for range 3 {
					d, err := v.DecideColumnInfo(customers, custCols)
					if err != nil || d.RowFilters[0].Expr != "region = '"+rev+"'" {
						errs <- "a View decided with another revision than its own"
						return
					}
				}
			}
		})
	}
	for i := 1; i <= 20; i++ {
		rev := strconv.Itoa(i)
		srv.serve(filterBundle(t, rev, "region = '"+rev+"'"), `"`+rev+`"`)
		if err := src.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if src.Revision() != "20" || src.Stats().Reloads != 21 {
		t.Fatalf("revision %q, stats %+v", src.Revision(), src.Stats())
	}
}
