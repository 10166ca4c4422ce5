package sqe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// WithPolicyFile follows the file unless WithoutPolicyWatch says not to,
// and closing the engine (sql.DB.Close closes the connector, which closes
// it) stops the watcher.
func TestPolicyFileWatchOption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("version: 1\ndefault: allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		opts  []Option
		watch bool
	}{
		{"default", nil, true},
		{"WithoutPolicyWatch", []Option{WithoutPolicyWatch()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]Option{WithPolicyFile(path), WithDialect("mysql"), WithoutAudit()}, tc.opts...)
			p, err := newEngine(newConfig(opts), nil)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := p.(*engine).source.(*policy.FileSource)
			if !ok {
				t.Fatalf("source %T", p.(*engine).source)
			}
			if on, _ := src.Watching(); on != tc.watch {
				t.Errorf("watching %v, want %v", on, tc.watch)
			}
			if err := p.close(); err != nil {
				t.Fatal(err)
			}
			if on, _ := src.Watching(); on {
				t.Error("still watching after the engine was closed")
			}
		})
	}
}
