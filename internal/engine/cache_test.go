package engine

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
)

// keyOf is a rewrite key for the query, for one caller on a MySQL
// connection.
func keyOf(query string) rewriteKey {
	return rewriteKey{query: query, fingerprint: "fp", session: mysql.Session{Database: "shop"}}
}

func rewriteOf(sql string) *cachedRewrite {
	return &cachedRewrite{result: &rewriter.Result{SQL: sql, Tables: []policy.TableName{{Schema: "shop", Table: "customers"}}}}
}

// TestRewriteCacheStaysWithinItsBytes: a million distinct statements,
// some with long SQL, never hold more than the byte budget, as sqe
// estimates it and as the heap shows it.
func TestRewriteCacheStaysWithinItsBytes(t *testing.T) {
	const budget = 8 << 20
	c := newRewriteCache(1<<30, budget)
	long := strings.Repeat("x", 20_000)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 1_000_000; i++ {
		sql := fmt.Sprintf("select %d from t where id in (%s)", i, long[:(i%50)*400])
		c.put(keyOf(fmt.Sprintf("select %d", i)), rewriteOf(sql))
		if i%100_000 == 0 {
			if _, b := c.held(); b > budget {
				t.Fatalf("after %d statements the cache holds %d bytes, over %d", i, b, budget)
			}
		}
	}
	entries, held := c.held()
	if held > budget || entries == 0 {
		t.Fatalf("cache holds %d entries, %d bytes (budget %d)", entries, held, budget)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d entries, %d estimated bytes, heap grew %d bytes", entries, held, grown)
	// Unbounded, the million statements would hold gigabytes; the race
	// detector roughly doubles what each allocation takes.
	if grown > 4*budget {
		t.Fatalf("the heap grew by %d bytes for a cache of %d estimated bytes (budget %d)", grown, held, budget)
	}
	// The most recent statement is still there, the first long gone.
	if _, ok := c.get(keyOf(fmt.Sprintf("select %d", 999_999))); !ok {
		t.Error("the newest rewrite was evicted")
	}
	if _, ok := c.get(keyOf("select 1")); ok {
		t.Error("the oldest rewrite is still cached")
	}
}

func TestRewriteCacheSkipsAHugeRewrite(t *testing.T) {
	c := newRewriteCache(10, 1<<20)
	c.put(keyOf("big"), rewriteOf(strings.Repeat("x", 1<<17)))
	if _, ok := c.get(keyOf("big")); ok {
		t.Fatal("a rewrite of an eighth of the budget was cached")
	}
	c.put(keyOf("small"), rewriteOf("select 1"))
	if _, ok := c.get(keyOf("small")); !ok {
		t.Fatal("a small rewrite was not cached")
	}
	// The entry bound still holds.
	for i := 0; i < 20; i++ {
		c.put(keyOf(fmt.Sprint(i)), rewriteOf("select 1"))
	}
	if n, _ := c.held(); n != 10 {
		t.Fatalf("%d entries, want 10", n)
	}
}

// TestSchemaCacheDropsTheLeastRecentlyUsed: past its bound the metadata
// cache drops the table used longest ago, not everything at once.
func TestSchemaCacheDropsTheLeastRecentlyUsed(t *testing.T) {
	c := newSchemaCache()
	cols := []rewriter.Column{{Name: "id"}}
	for i := 0; i < maxCachedTables; i++ {
		c.put(fmt.Sprint("shop\x00t", i), cols)
	}
	if _, ok := c.get("shop\x00t0"); !ok { // now the most recently used
		t.Fatal("a cached table is missing")
	}
	c.put("shop\x00new", cols)
	if _, ok := c.get("shop\x00t1"); ok {
		t.Error("the least recently used table is still cached")
	}
	for _, k := range []string{"shop\x00t0", "shop\x00t2", "shop\x00new"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%q was dropped", k)
		}
	}
	v := c.version.Load()
	c.invalidate()
	if _, ok := c.get("shop\x00new"); ok || c.version.Load() == v {
		t.Error("invalidate kept the metadata or the version")
	}
}

// BenchmarkRewriteCache measures the shared rewrite cache under the
// planner's load: lookups of a hot set of statements (hit), distinct
// statements past the bound (miss-put: a lookup, then a put that evicts),
// and the two mixed (mixed: one statement in twenty is new).
func BenchmarkRewriteCache(b *testing.B) {
	keys := make([]rewriteKey, 200_000)
	for i := range keys {
		keys[i] = keyOf(fmt.Sprintf("SELECT id, name, ssn FROM customers WHERE id = ? /* %d */", i))
	}
	res := rewriteOf("SELECT id, name, ssn FROM shop.customers WHERE id = ?")
	const hot = 1000
	warm := func() *rewriteCache {
		c := newRewriteCache(10000, 64<<20) // sqe's DefaultRewriteCacheSize and DefaultRewriteCacheBytes
		for _, k := range keys[:hot] {
			c.put(k, res)
		}
		return c
	}
	b.Run("hit", func(b *testing.B) {
		c := warm()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if _, ok := c.get(keys[i%hot]); !ok {
					b.Error("miss")
					return
				}
			}
		})
	})
	b.Run("miss-put", func(b *testing.B) {
		c := warm()
		var next atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := int(next.Add(1)) * 100_003; pb.Next(); i++ {
				if k := keys[i%len(keys)]; !hit(c, k) {
					c.put(k, res)
				}
			}
		})
	})
	b.Run("mixed", func(b *testing.B) {
		c := warm()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				k := keys[i%hot]
				if i%20 == 0 {
					k = keys[hot+(i*7919)%(len(keys)-hot)]
				}
				if !hit(c, k) {
					c.put(k, res)
				}
			}
		})
	})
}

func hit(c *rewriteCache, k rewriteKey) bool {
	_, ok := c.get(k)
	return ok
}
