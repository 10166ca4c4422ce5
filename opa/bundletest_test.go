package opa_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// tarball builds a bundle tarball of the files (path to content), as
// "opa build" writes one.
func tarball(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// filterBundle is a bundle whose decision allows select to everyone on
// every table with the row filter expr, at revision rev.
func filterBundle(t testing.TB, rev, expr string) []byte {
	t.Helper()
	return tarball(t, map[string]string{
		".manifest": `{"revision": "` + rev + `"}`,
		"policy.rego": `package sqe

import rego.v1

decision := {
	"allow": input.action == "select",
	"row_filters": [{"name": "rev-` + rev + `", "filter": data.filter}],
	"policies": ["rev-` + rev + `"],
}
`,
		"data.json": `{"filter": ` + quote(expr) + `}`,
	})
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// bundleServer is a bundle server: it serves the current body with an
// ETag and answers 304 to a request that names it, or fails with the
// status set.
type bundleServer struct {
	*httptest.Server
	mu       sync.Mutex
	body     []byte
	etag     string
	status   int // 0: serve
	requests int
	ifNone   []string // the If-None-Match of each request
	auth     []string
}

func newBundleServer(t testing.TB) *bundleServer {
	s := &bundleServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests++
		s.ifNone = append(s.ifNone, r.Header.Get("If-None-Match"))
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		if s.status != 0 {
			http.Error(w, "unavailable", s.status)
			return
		}
		if s.body == nil {
			http.NotFound(w, r)
			return
		}
		if s.etag != "" && r.Header.Get("If-None-Match") == s.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if s.etag != "" {
			w.Header().Set("ETag", s.etag)
		}
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *bundleServer) serve(body []byte, etag string) {
	s.mu.Lock()
	s.body, s.etag, s.status = body, etag, 0
	s.mu.Unlock()
}

func (s *bundleServer) fail(status int) {
	s.mu.Lock()
	s.status = status
	s.mu.Unlock()
}

func (s *bundleServer) url() string { return s.URL + "/bundles/sqe.tar.gz" }
