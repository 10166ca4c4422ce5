package policy

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sqe-project/sqe/session"
)

// The benchmarks resolve one table for a caller holding five roles (three
// granted, two more through containment) among 10,000 roles, with 100 to
// 600,000 policies loaded (see synthPolicies).
var benchSizes = []int{100, 6_000, 60_000, 600_000}

// cpuTime is the process's user and system CPU time so far. Benchmarks
// report cpu-ns/op beside ns/op: on a shared machine wall time also counts
// the time other processes held the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs body b.N times (b.Loop) and reports cpu-ns/op.
func loop(b *testing.B, body func()) {
	b.ReportAllocs()
	n := 0
	var c0 time.Duration
	for b.Loop() {
		if n == 0 {
			c0 = cpuTime()
		}
		body()
		n++
	}
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(n), "cpu-ns/op")
}

// BenchmarkResolve measures, per policy-set size:
//
//	decide       Decide alone on a pinned View (its decision cache off, so
//	             every call decides again; after the first, the snapshot's
//	             memo knows what the View's principals find for the table,
//	             see WithMemoSize)
//	evaluate     what Decide does when the memo does not know the View's
//	             principals and the table: resolving the table, probing the
//	             pinned indexes, ordering the rules
//	view+decide  building the View and deciding the table
//	view+decide-miss
//	             the same with the snapshot's memo emptied (and what it has
//	             seen forgotten) before every op: the View resolves the
//	             caller, Decide evaluates and builds the Decision's contents
//	statement    what a statement pays: ViewWithRetry on the source,
//	             Fingerprint (the rewrite-cache key) and Decide
//
// (examples/casbin compares the same decision with casbin's.)
func BenchmarkResolve(b *testing.B) {
	for _, n := range benchSizes {
		// Only the compiled snapshot stays live, as in a service (the File
		// is garbage once compiled).
		var c *Compiled
		var src Source
		var user session.User
		var table TableName
		setup := func(b *testing.B) {
			if c != nil {
				return
			}
			s := synthPolicies(n)
			var err error
			if c, err = Compile(s.f, NextVersion()); err != nil {
				b.Fatal(err)
			}
			src = NewStaticSource(c)
			user, table = s.user, s.table
			runtime.GC()
		}
		check := func(b *testing.B, d *Decision, err error) {
			if err != nil || !d.Allows(Select) || d.Allows(Drop) {
				b.Fatalf("wrong decision %+v, %v", d, err)
			}
		}
		viewDecide := func(b *testing.B) {
			v, err := c.View(user)
			if err != nil {
				b.Fatal(err)
			}
			d, err := v.Decide(table)
			check(b, d, err)
		}
		b.Run(fmt.Sprintf("policies=%d/decide", n), func(b *testing.B) {
			setup(b)
			v, err := c.view(user)
			if err != nil {
				b.Fatal(err)
			}
			if len(v.held) != 5 {
				b.Fatalf("caller holds %d roles", len(v.held))
			}
			v.cacheSize = 0
			loop(b, func() {
				d, err := v.Decide(table)
				check(b, d, err)
			})
		})
		b.Run(fmt.Sprintf("policies=%d/evaluate", n), func(b *testing.B) {
			// What Decide does before it materialises the Decision (its
			// maps): resolve the table, probe the pinned indexes, order the
			// rules.
			setup(b)
			v, err := c.view(user)
			if err != nil {
				b.Fatal(err)
			}
			var buf [32]int32
			loop(b, func() {
				allow, _, refs, err := v.evaluate(table, buf[:0])
				if err != nil || allow&1 == 0 || len(refs) == 0 {
					b.Fatal("wrong evaluation")
				}
			})
		})
		b.Run(fmt.Sprintf("policies=%d/view+decide", n), func(b *testing.B) {
			setup(b)
			loop(b, func() { viewDecide(b) })
		})
		b.Run(fmt.Sprintf("policies=%d/view+decide-miss", n), func(b *testing.B) {
			setup(b)
			// The same snapshot with a memo of its own, emptied before
			// every op.
			cm := *c
			cm.memo = newSnapshotMemo(2)
			loop(b, func() {
				cm.memo.reset()
				v, err := cm.View(user)
				if err != nil {
					b.Fatal(err)
				}
				d, err := v.Decide(table)
				check(b, d, err)
			})
		})
		b.Run(fmt.Sprintf("policies=%d/statement", n), func(b *testing.B) {
			setup(b)
			loop(b, func() {
				v, err := ViewWithRetry(src, user)
				if err != nil {
					b.Fatal(err)
				}
				_ = v.Fingerprint()
				d, err := v.Decide(table)
				check(b, d, err)
			})
		})
		c, src = nil, nil
		runtime.GC()
	}
}

// BenchmarkCompile compiles 600,000 policies; B/policy is the heap the
// compiled snapshot adds to the File it was compiled from (rule texts and
// names are shared with the File, not copied).
func BenchmarkCompile(b *testing.B) {
	const n = 600_000
	s := synthPolicies(n)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c, err := Compile(s.f, 1)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	retained := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
	runtime.KeepAlive(c)
	c = nil
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compile(s.f, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(retained/n, "B/policy")
}

// BenchmarkStatementDuringReload measures statement latency (ViewWithRetry,
// Fingerprint, Decide) on a 600,000-policy source while a reload of
// 600,000 policies compiles and publishes, against the same number of
// statements in steady state. One op is one reload; the metrics are the
// p50 and p99 latencies and p99 during reload / p99 steady.
func BenchmarkStatementDuringReload(b *testing.B) {
	const n = 600_000
	s := synthPolicies(n)
	src := NewMemorySource()
	if _, err := src.Publish(s.f); err != nil {
		b.Fatal(err)
	}
	statement := func() time.Duration {
		t0 := time.Now()
		v, err := ViewWithRetry(src, s.user)
		if err != nil {
			b.Fatal(err)
		}
		_ = v.Fingerprint()
		d, err := v.Decide(s.table)
		if err != nil || !d.Allows(Select) {
			b.Fatal("wrong decision")
		}
		return time.Since(t0)
	}
	var steady, reload []time.Duration
	for b.Loop() {
		var done atomic.Bool
		go func() {
			if _, err := src.Publish(s.f); err != nil {
				panic(err)
			}
			done.Store(true)
		}()
		k := 0
		for !done.Load() {
			reload = append(reload, statement())
			k++
		}
		for i := 0; i < k; i++ {
			steady = append(steady, statement())
		}
	}
	pct := func(ds []time.Duration, p float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[int(float64(len(ds)-1)*p)].Nanoseconds())
	}
	b.ReportMetric(pct(steady, 0.50), "steady-p50-ns")
	b.ReportMetric(pct(steady, 0.99), "steady-p99-ns")
	b.ReportMetric(pct(reload, 0.50), "reload-p50-ns")
	b.ReportMetric(pct(reload, 0.99), "reload-p99-ns")
	b.ReportMetric(pct(reload, 0.99)/pct(steady, 0.99), "p99-ratio")
	b.ReportMetric(float64(len(reload))/float64(b.N), "statements/reload")
}
