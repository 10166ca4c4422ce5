package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// A policy file is followed unless NoPolicyWatch (sqe's
// WithoutPolicyWatch) says not to, and closing the engine (sql.DB.Close
// closes the connector, which closes it) stops the watcher.
func TestPolicyFileWatchOption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("version: 1\ndefault: allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		noWatch bool
		watch   bool
	}{
		{"default", false, true},
		{"NoPolicyWatch", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(Config{PolicyFile: path, NoPolicyWatch: tc.noWatch, Dialect: "mysql", AuditOff: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := e.source.(*policy.FileSource)
			if !ok {
				t.Fatalf("source %T", e.source)
			}
			if on, _ := src.Watching(); on != tc.watch {
				t.Errorf("watching %v, want %v", on, tc.watch)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if on, _ := src.Watching(); on {
				t.Error("still watching after the engine was closed")
			}
		})
	}
}
