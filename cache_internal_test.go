package sqe

import (
	"fmt"
	"runtime"
	"strings"
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
