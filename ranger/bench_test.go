package ranger

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// synthBundle returns the shop bundle with synthetic policies added up to
// n resource policies in all: 1,000 databases of 100 tables, each policy on
// one table (every 500th on a table pattern), granting select (70%),
// masking a column (10%), filtering rows (10%) or denying (10%) to one of
// 5,000 groups and 20,000 users; one in fifty also names the benchmark
// caller's group "analysts", so the caller's own index buckets hold some
// 2,000 policies on other databases. 10,000 synthetic columns carry a tag.
func synthBundle(tb testing.TB, n int) *Bundle {
	b, err := readBundleFile("testdata/shop_bundle.json")
	if err != nil {
		tb.Fatal(err)
	}
	sel := []ItemAccess{{Type: "select", IsAllowed: boolPtr(true)}}
	for i := len(b.Policies); i < n; i++ {
		db := fmt.Sprintf("db%04d", (i/100)%1000)
		tbl := fmt.Sprintf("t%03d", i%100)
		if i%500 == 0 {
			tbl = fmt.Sprintf("t%d*", i%10)
		}
		item := &PolicyItem{Accesses: sel, Groups: []string{fmt.Sprintf("g%04d", i%5000)}, Users: []string{fmt.Sprintf("u%05d", i%20000)}}
		if i%50 == 0 {
			item.Groups = append(item.Groups, "analysts")
		}
		p := &Policy{ID: Int64(1000 + i), Name: fmt.Sprintf("synthetic %d", i), IsEnabled: boolPtr(true),
			Resources: map[string]*PolicyResource{"database": {Values: []string{db}}, "table": {Values: []string{tbl}}}}
		switch i % 10 {
		case 7:
			p.PolicyType = PolicyTypeDataMask
			p.Resources["column"] = &PolicyResource{Values: []string{"c1"}}
			item.DataMaskInfo = &DataMaskInfo{DataMaskType: "MASK_SHOW_LAST_4"}
			p.DataMaskPolicyItems = []*PolicyItem{item}
		case 8:
			p.PolicyType = PolicyTypeRowFilter
			item.RowFilterInfo = &RowFilterInfo{FilterExpr: fmt.Sprintf("region = 'R%d'", i%7)}
			p.RowFilterPolicyItems = []*PolicyItem{item}
		case 9:
			p.Resources["column"] = &PolicyResource{Values: []string{"c2"}}
			p.DenyPolicyItems = []*PolicyItem{item}
		default:
			p.Resources["column"] = &PolicyResource{Values: []string{"*"}}
			p.PolicyItems = []*PolicyItem{item}
		}
		b.Policies = append(b.Policies, p)
	}
	if n >= 10_000 {
		for i := range 10_000 {
			b.Tags.ServiceResources = append(b.Tags.ServiceResources, &ServiceResource{ID: Int64(10_000 + i),
				ResourceElements: map[string]*PolicyResource{
					"database": {Values: []string{fmt.Sprintf("db%04d", i%1000)}},
					"table":    {Values: []string{fmt.Sprintf("t%03d", i%100)}},
					"column":   {Values: []string{"c3"}}}})
			b.Tags.ResourceToTagIDs[fmt.Sprint(10_000+i)] = []Int64{1}
		}
	}
	return b
}

// cpuTime is the process's CPU time so far; benchmarks report it beside
// wall time, which on a shared machine also counts other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompile measures compiling (and, for "load", decoding the JSON
// of) a bundle of 100,000 policies, and reports the heap the compiled
// snapshot keeps (MB-retained).
func BenchmarkCompile(b *testing.B) {
	const n = 100_000
	bundle := synthBundle(b, n)
	data, err := bundle.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	cfg := buildConfig(nil)
	b.Run(fmt.Sprintf("compile/policies=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		var snap *Snapshot
		for b.Loop() {
			if snap, err = compileSnapshot(bundle, cfg); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(retainedMB(func() any { s, _ := compileSnapshot(bundle, cfg); return s }), "MB-retained")
		_ = snap
	})
	b.Run(fmt.Sprintf("load/policies=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bb, err := ParseBundle(data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := compileSnapshot(bb, cfg); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data))/(1<<20), "MB-json")
	})
}

// retainedMB is the heap growth while the value build returns is live.
func retainedMB(build func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

// BenchmarkDecide measures what a statement pays for its policy decision,
// View (resolving the caller's groups and roles) plus Decide, with the
// 10-policy shop bundle and with 100,000 policies loaded. customers has
// resource masks, a tag mask and a column deny; orders a row filter.
// cache=off evaluates every statement (WithDecisionCacheSize(0));
// cache=on is the default, where a caller seen before (same fingerprint)
// reuses the snapshot's decision.
func BenchmarkDecide(b *testing.B) {
	u := session.User{Name: "ann", Groups: []string{"analysts", "staff"}}
	for _, n := range []int{10, 100_000} {
		bundle := synthBundle(b, n)
		for _, cache := range []string{"off", "on"} {
			var opts []Option
			if cache == "off" {
				opts = append(opts, WithDecisionCacheSize(0))
			}
			snap, err := compileSnapshot(bundle, buildConfig(opts))
			if err != nil {
				b.Fatal(err)
			}
			benchDecide(b, snap, u, fmt.Sprintf("cache=%s/policies=%d", cache, n))
		}
	}
}

func benchDecide(b *testing.B, snap *Snapshot, u session.User, name string) {
	for _, table := range []string{"customers", "orders"} {
		t := policy.TableName{Schema: "shop", Table: table}
		b.Run(fmt.Sprintf("table=%s/%s", table, name), func(b *testing.B) {
			b.ReportAllocs()
			var c0 time.Duration
			iters := 0
			for b.Loop() {
				if iters == 0 {
					c0 = cpuTime()
				}
				v, err := snap.View(u)
				if err != nil {
					b.Fatal(err)
				}
				d, err := v.Decide(t)
				if err != nil || !d.Allows(policy.Select) {
					b.Fatalf("%v %v", d, err)
				}
				iters++
			}
			if c := cpuTime(); c > 0 && iters > 0 {
				b.ReportMetric(float64((c-c0).Nanoseconds())/float64(iters), "cpu-ns/op")
			}
		})
	}
}

// TestSynthBundleDecisions checks the benchmark measures real decisions:
// the large bundle gives the caller the same decision as the small one.
func TestSynthBundleDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 policies")
	}
	u := session.User{Name: "ann", Groups: []string{"analysts", "staff"}}
	small, err := compileSnapshot(synthBundle(t, 10), buildConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	large, err := compileSnapshot(synthBundle(t, 100_000), buildConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"customers", "orders", "payments"} {
		tn := policy.TableName{Schema: "shop", Table: table}
		vs, _ := small.View(u)
		vl, _ := large.View(u)
		ds, errS := vs.Decide(tn)
		dl, errL := vl.Decide(tn)
		if fmt.Sprint(ds, errS) != fmt.Sprint(dl, errL) {
			t.Errorf("%s: small %v %v, large %v %v", table, ds, errS, dl, errL)
		}
	}
	// And a synthetic table decides as its policies say.
	vl, _ := large.View(session.User{Name: "u00102", Groups: []string{"g0102"}})
	d, err := vl.Decide(policy.TableName{Schema: "db0001", Table: "t002"})
	if err != nil || !d.Allows(policy.Select) {
		t.Errorf("synthetic grant: %+v %v", d, err)
	}
}
