package dialecttest

import (
	"fmt"
	"sync"
	"testing"
)

// SameUnderConcurrency runs each rewrite once, then all of them again
// from 8 goroutines at once, and fails unless every concurrent run prints
// what the first run printed: rewrites that share frozen policy trees
// and remembered prints give each caller its own statement (and, under
// -race, only read what they share). rewrites are named by the statement
// they rewrite.
func SameUnderConcurrency(t *testing.T, rewrites map[string]func() (string, error)) {
	t.Helper()
	want := map[string]string{}
	for name, rewrite := range rewrites {
		text, err := rewrite()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want[name] = text
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for name, rewrite := range rewrites {
				if text, err := rewrite(); err != nil || text != want[name] {
					errs <- fmt.Sprintf("%s: %v\n%s", name, err, Short(text))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
