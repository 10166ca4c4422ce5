package sqe

import "testing"

func TestConnRewritesHitNeedsTheWholeKey(t *testing.T) {
	var r connRewrites
	c := &cachedRewrite{}
	path := []string{"app", "public"}
	base := sessionKey{schema: "shop", searchPath: path}
	r.put("SELECT 1", "fp:ann", 3, "7,", base, c)
	if got := r.get("SELECT 1", "fp:ann", 3, "7,", base); got != c {
		t.Fatal("the same key missed")
	}
	path[0] = "evil" // the connection reuses its slice when it reads search_path again
	for name, miss := range map[string]func() *cachedRewrite{
		"query":   func() *cachedRewrite { return r.get("SELECT 2", "fp:ann", 3, "7,", base) },
		"caller":  func() *cachedRewrite { return r.get("SELECT 1", "fp:bob", 3, "7,", base) },
		"catalog": func() *cachedRewrite { return r.get("SELECT 1", "fp:ann", 4, "7,", base) },
		"tags":    func() *cachedRewrite { return r.get("SELECT 1", "fp:ann", 3, "8,", base) },
		"schema": func() *cachedRewrite {
			return r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "hr", searchPath: []string{"app", "public"}})
		},
		"search_path": func() *cachedRewrite {
			return r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "shop", searchPath: path})
		},
		"quotes": func() *cachedRewrite {
			return r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "shop", searchPath: []string{"app", "public"}, ansiQuotes: true})
		},
		"backslashes": func() *cachedRewrite {
			return r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "shop", searchPath: []string{"app", "public"}, noBackslash: true})
		},
		"strings": func() *cachedRewrite {
			return r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "shop", searchPath: []string{"app", "public"}, nonStdStrings: true})
		},
	} {
		if got := miss(); got != nil {
			t.Errorf("a different %s hit", name)
		}
	}
	if got := r.get("SELECT 1", "fp:ann", 3, "7,", sessionKey{schema: "shop", searchPath: []string{"app", "public"}}); got != c {
		t.Fatal("the original key missed after the connection's slice changed")
	}
}

func TestConnRewritesIsBounded(t *testing.T) {
	var r connRewrites
	queries := make([]string, connRewritesSize+1)
	for i := range queries {
		queries[i] = "SELECT " + string(rune('a'+i))
		r.put(queries[i], "fp", 1, "", sessionKey{}, &cachedRewrite{})
	}
	if r.get(queries[0], "fp", 1, "", sessionKey{}) != nil {
		t.Fatal("the oldest entry is still there")
	}
	for _, q := range queries[1:] {
		if r.get(q, "fp", 1, "", sessionKey{}) == nil {
			t.Fatalf("%q was dropped", q)
		}
	}
}
