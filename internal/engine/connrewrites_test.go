package engine

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/rewriter/postgres"
)

func TestRewriteKeyNeedsTheWholeKey(t *testing.T) {
	path := []string{"app", "public"}
	base := rewriteKey{query: "SELECT 1", fingerprint: "fp:ann", tags: "7,", catalog: 3,
		session: postgres.NewSession(path, false)}
	var r connRewrites
	shared := newRewriteCache(10, 1<<20)
	c := rewriteOf("SELECT 1")
	r.put(base, c)
	shared.put(base, c)
	path[0] = "evil" // the slice the session was read into changes later
	same := base
	same.session = postgres.NewSession([]string{"app", "public"}, false)
	if hit := r.get(same); hit == nil || hit.c != c {
		t.Fatal("the same key missed the connection's rewrites")
	}
	if got, ok := shared.get(same); !ok || got != c {
		t.Fatal("the same key missed the shared cache")
	}
	differs := map[string]func(k *rewriteKey){
		"query":       func(k *rewriteKey) { k.query = "SELECT 2" },
		"caller":      func(k *rewriteKey) { k.fingerprint = "fp:bob" },
		"catalog":     func(k *rewriteKey) { k.catalog = 4 },
		"tags":        func(k *rewriteKey) { k.tags = "8," },
		"search_path": func(k *rewriteKey) { k.session = postgres.NewSession([]string{"evil", "public"}, false) },
		"search_path joined": func(k *rewriteKey) {
			k.session = postgres.NewSession([]string{"app", "pub", "lic"}, false)
		},
		"strings":        func(k *rewriteKey) { k.session = postgres.NewSession([]string{"app", "public"}, true) },
		"dialect":        func(k *rewriteKey) { k.session = mysql.Session{Database: "app"} },
		"no session":     func(k *rewriteKey) { k.session = nil },
		"database":       func(k *rewriteKey) { k.session = mysql.Session{Database: "hr"} },
		"quotes":         func(k *rewriteKey) { k.session = mysql.Session{Database: "shop", ANSIQuotes: true} },
		"backslashes":    func(k *rewriteKey) { k.session = mysql.Session{Database: "shop", NoBackslashEscapes: true} },
		"mysql database": func(k *rewriteKey) { k.session = mysql.Session{} },
	}
	for name, change := range differs {
		k := same
		change(&k)
		if got := r.get(k); got != nil && got.c == c {
			t.Errorf("a different %s hit the connection's rewrites", name)
		}
		if got, ok := shared.get(k); ok && got == c {
			t.Errorf("a different %s hit the shared cache", name)
		}
	}
}

func TestConnRewritesIsBounded(t *testing.T) {
	var r connRewrites
	keys := make([]rewriteKey, connRewritesSize+1)
	for i := range keys {
		keys[i] = rewriteKey{query: "SELECT " + string(rune('a'+i)), fingerprint: "fp", catalog: 1}
		r.put(keys[i], &cachedRewrite{})
	}
	if r.get(keys[0]) != nil {
		t.Fatal("the oldest entry is still there")
	}
	for _, k := range keys[1:] {
		if r.get(k) == nil {
			t.Fatalf("%q was dropped", k.query)
		}
	}
}
