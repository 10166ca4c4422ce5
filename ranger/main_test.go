package ranger

import (
	"os"
	"testing"
	"time"
)

// TestMain gives condition scripts more time than the production default:
// under the race detector on a loaded machine a script of Ranger's own
// tests can take longer than 25ms, and a script stopped at its limit
// counts against the caller, which would turn a slow machine into a
// wrong expectation. The tests of the limit itself set theirs
// (WithScriptTimeLimit).
func TestMain(m *testing.M) {
	defaultScriptTimeLimit = 2 * time.Second
	os.Exit(m.Run())
}
