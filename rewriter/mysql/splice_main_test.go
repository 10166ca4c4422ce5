package mysql

import (
	"os"
	"testing"
)

// TestMain makes every rewrite of the package's tests check its spliced
// print against the whole statement's print (see splice.go).
func TestMain(m *testing.M) {
	spliceCrossCheck = true
	os.Exit(m.Run())
}
