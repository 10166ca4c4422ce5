package ranger

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

// adminMode is how the fake admin answers.
type adminMode int

const (
	adminUp      adminMode = iota
	adminDown              // the connection is dropped
	adminCorrupt           // 200 with malformed JSON
	adminError             // 500
	adminMissing           // 404: no such service
	adminHang              // holds every request until the client gives up
)

// fakeAdmin serves a service's policies, roles and tags in the shapes of
// Ranger admin's plugin download API, answering 304 when the plugin
// already has the current version.
type fakeAdmin struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	mode     adminMode
	policies []byte
	roles    []byte
	tags     []byte
	pv, rv   int64
	tv       int64
	hits     map[string]int // "path status" → count
	queries  []string
	auth     []string
	// partStatus answers one path with a status of its own (while up).
	partStatus map[string]int
	// hardened answers the non-secure download endpoints with 400, as
	// admins that refuse unauthenticated downloads do.
	hardened bool
	users    []byte
	uv       int64
}

// securePaths maps Ranger's secure download paths to the non-secure ones,
// under which the fake admin counts its hits.
var securePaths = map[string]string{
	"/service/plugins/secure/policies/download/hivedev": "/service/plugins/policies/download/hivedev",
	"/service/roles/secure/download/hivedev":            "/service/roles/download/hivedev",
	"/service/tags/secure/download/hivedev":             "/service/tags/download/hivedev",
	"/service/xusers/secure/download/hivedev":           "/service/xusers/download/hivedev",
}

func newFakeAdmin(t *testing.T) *fakeAdmin {
	a := &fakeAdmin{t: t, hits: map[string]int{}, users: []byte(`{"userStoreVersion": 1}`), uv: 1}
	a.setBundle(loadShop(t))
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

// setBundle publishes b's parts, each with its own version.
func (a *fakeAdmin) setBundle(b *Bundle) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	if a.policies, err = json.Marshal(b.ServicePolicies); err != nil {
		a.t.Fatal(err)
	}
	if a.roles, err = json.Marshal(b.Roles); err != nil {
		a.t.Fatal(err)
	}
	if a.tags, err = json.Marshal(b.Tags); err != nil {
		a.t.Fatal(err)
	}
	a.pv, a.rv, a.tv = version(b.PolicyVersion), version(b.Roles.RoleVersion), version(b.Tags.TagVersion)
}

func (a *fakeAdmin) setMode(m adminMode) {
	a.mu.Lock()
	a.mode = m
	a.mu.Unlock()
}

func (a *fakeAdmin) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[key]
}

func (a *fakeAdmin) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	hang := a.mode == adminHang
	if hang {
		a.hits[r.URL.Path+" hang"]++
	}
	a.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queries = append(a.queries, r.URL.Path+"?"+r.URL.RawQuery)
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	var body []byte
	var current int64
	var known string
	path, secure := securePaths[r.URL.Path]
	if !secure {
		path = r.URL.Path
	}
	switch path {
	case "/service/plugins/policies/download/hivedev":
		body, current, known = a.policies, a.pv, r.URL.Query().Get("lastKnownVersion")
	case "/service/roles/download/hivedev":
		body, current, known = a.roles, a.rv, r.URL.Query().Get("lastKnownRoleVersion")
	case "/service/tags/download/hivedev":
		body, current, known = a.tags, a.tv, r.URL.Query().Get("lastKnownVersion")
	case "/service/xusers/download/hivedev":
		body, current, known = a.users, a.uv, r.URL.Query().Get("lastKnownUserStoreVersion")
	}
	status := http.StatusOK
	switch {
	case a.mode == adminDown:
		hj, ok := w.(http.Hijacker)
		if !ok {
			a.t.Error("no hijacker")
			return
		}
		c, _, err := hj.Hijack()
		if err == nil {
			c.Close()
		}
		a.hits[path+" down"]++
		return
	case a.hardened && !secure:
		status = http.StatusBadRequest
	case a.mode == adminMissing || body == nil:
		status = http.StatusNotFound
	case a.mode == adminError:
		status = http.StatusInternalServerError
	case a.mode == adminCorrupt:
		body = []byte(`{"serviceName": "hivedev", "policies": [`)
	case a.partStatus[path] != 0:
		status = a.partStatus[path]
	case known == strconv.FormatInt(current, 10):
		status = http.StatusNotModified
	}
	a.hits[path+" "+strconv.Itoa(status)]++
	switch status {
	case http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	case http.StatusNotModified:
		w.WriteHeader(status)
	default:
		http.Error(w, http.StatusText(status), status)
	}
}

const (
	policiesPath       = "/service/plugins/policies/download/hivedev"
	securePoliciesPath = "/service/plugins/secure/policies/download/hivedev"
)

// eventually waits for cond, failing the test after a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func fastOptions(extra ...Option) []Option {
	return append([]Option{
		WithPollInterval(10 * time.Millisecond),
		WithBackoff(10*time.Millisecond, 20*time.Millisecond),
		WithTimeout(5 * time.Second),
	}, extra...)
}

var analyst = session.User{Name: "ann", Groups: []string{"analysts"}}

// ssnMask returns the mask the source currently puts on shop.customers.ssn
// for the analyst.
func ssnMask(t *testing.T, src policy.Source) string {
	t.Helper()
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	v, err := snap.View(analyst)
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) {
		t.Fatalf("the analyst lost select: %+v", d)
	}
	return d.Masks["ssn"].Type
}

// withoutPolicy returns the shop bundle minus policy id, at a new version.
func withoutPolicy(t *testing.T, id int64) *Bundle {
	b := loadShop(t)
	kept := b.Policies[:0]
	for _, p := range b.Policies {
		if int64(p.ID) != id {
			kept = append(kept, p)
		}
	}
	b.Policies = kept
	v := Int64(version(b.PolicyVersion) + 1)
	b.PolicyVersion = &v
	return b
}

func TestAdminDownloadNotModifiedAndUpdate(t *testing.T) {
	a := newFakeAdmin(t)
	src, err := New(a.srv.URL+"/", "hivedev", fastOptions(WithBasicAuth("svc", "pw"), WithPluginID("test-plugin"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	// The first download is made before New returns.
	if got := ssnMask(t, src); got != udf.TypeShowLast4 {
		t.Fatalf("ssn mask = %q", got)
	}
	first := src.Current().Version()

	// The next polls send the known versions and get 304s.
	eventually(t, "a 304", func() bool { return a.count(policiesPath+" 304") >= 2 })
	eventually(t, "not-modified polls counted", func() bool { return src.Stats().NotModified >= 2 })
	if got := src.Current().Version(); got != first {
		t.Errorf("a 304 changed the version: %d → %d", first, got)
	}
	a.mu.Lock()
	q, auth := a.queries[0], a.auth[0]
	a.mu.Unlock()
	for _, want := range []string{"lastKnownVersion=-1", "pluginId=test-plugin", "supportsPolicyDeltas=false", "lastActivationTime="} {
		if !strings.Contains(q, want) {
			t.Errorf("first query %q lacks %q", q, want)
		}
	}
	if !strings.HasPrefix(auth, "Basic ") {
		t.Errorf("Authorization = %q", auth)
	}

	// A new version is picked up at the next poll.
	a.setBundle(withoutPolicy(t, 20))
	eventually(t, "the new version", func() bool { return ssnMask(t, src) == "" })
	if got := src.Current().Version(); got == first {
		t.Error("the update kept the version")
	}
	if st := src.Stats(); st.Failures != 0 || !st.Loaded || st.Info.PolicyVersion != version(a.pvLocked()) {
		t.Errorf("stats %+v", st)
	}
}

func (a *fakeAdmin) pvLocked() *Int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := Int64(a.pv)
	return &v
}

func TestAdminFailuresKeepLastPolicy(t *testing.T) {
	a := newFakeAdmin(t)
	src, err := New(a.srv.URL, "hivedev", fastOptions(WithBearerToken("tok"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no mask after the first download")
	}
	a.mu.Lock()
	if a.auth[0] != "Bearer tok" {
		t.Errorf("Authorization = %q", a.auth[0])
	}
	a.mu.Unlock()
	version := src.Current().Version()

	for _, tc := range []struct {
		mode adminMode
		name string
		want string
	}{
		{adminDown, "admin down", "GET " + securePoliciesPath}, // a bearer token: the secure endpoint
		{adminCorrupt, "corrupt JSON", "malformed JSON"},
		{adminError, "500", "500 Internal Server Error"},
	} {
		before := src.Stats().Failures
		a.setMode(tc.mode)
		eventually(t, tc.name+" counted as failures", func() bool { return src.Stats().Failures >= before+2 })
		st := src.Stats()
		if !strings.Contains(st.LastError, tc.want) {
			t.Errorf("%s: last error %q lacks %q", tc.name, st.LastError, tc.want)
		}
		if st.ConsecutiveFailures < 2 {
			t.Errorf("%s: consecutive failures = %d", tc.name, st.ConsecutiveFailures)
		}
		// The last good policy keeps being enforced.
		if ssnMask(t, src) != udf.TypeShowLast4 || src.Current().Version() != version {
			t.Fatalf("%s: the last good policy was dropped", tc.name)
		}
	}

	// When the admin recovers, polling resumes and failures reset.
	a.setMode(adminUp)
	a.setBundle(withoutPolicy(t, 20))
	eventually(t, "recovery", func() bool { return src.Stats().ConsecutiveFailures == 0 && ssnMask(t, src) == "" })
	if src.Err() != nil {
		t.Errorf("Err after recovery: %v", src.Err())
	}
}

func TestAdminStartDownWithCache(t *testing.T) {
	dir := t.TempDir()
	a := newFakeAdmin(t)
	src, err := New(a.srv.URL, "hivedev", fastOptions(WithCacheDir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
	cache := filepath.Join(dir, "ranger-hivedev.json")
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no cache file: %v", err)
	}
	if !IsBundle(data) {
		t.Fatal("the cache file is not a bundle")
	}

	// The admin is down when the next process starts: the cache is enforced.
	a.setMode(adminDown)
	src, err = New(a.srv.URL, "hivedev", fastOptions(WithCacheDir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := ssnMask(t, src); got != udf.TypeShowLast4 {
		t.Fatalf("ssn mask from the cache = %q", got)
	}
	st := src.Stats()
	if st.CacheLoads != 1 || st.Failures == 0 {
		t.Errorf("stats %+v", st)
	}
	// Tags and roles came from the cache too: the tag mask and the role grant.
	snap := src.Current()
	v, _ := snap.View(analyst)
	d, err := v.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if err != nil || d.Masks["phone"].Type != udf.TypeHash {
		t.Errorf("tag mask from the cache: %+v, %v", d, err)
	}

	// Once the admin is back, the cached versions are known: 304s, no reload.
	a.setMode(adminUp)
	before := a.count(policiesPath + " 304")
	eventually(t, "a 304 after recovery", func() bool { return a.count(policiesPath+" 304") > before })
	if src.Current() != snap {
		t.Error("the cached snapshot was replaced although nothing changed")
	}
}

func TestAdminStartDownWithoutCacheFailsClosed(t *testing.T) {
	a := newFakeAdmin(t)
	a.setMode(adminDown)
	src, err := New(a.srv.URL, "hivedev", fastOptions(WithCacheDir(t.TempDir()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for range 3 {
		if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
			t.Fatalf("Snapshot error = %v, want ErrNotLoaded", err)
		}
	}
	eventually(t, "retries", func() bool { return src.Stats().Failures >= 3 })
	if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
		t.Fatalf("Snapshot error = %v, want ErrNotLoaded", err)
	}

	// The first successful download ends the fail-closed state.
	a.setMode(adminUp)
	eventually(t, "the first download", func() bool { _, err := src.Snapshot(); return err == nil })
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no mask after the late first download")
	}
}

func TestAdminServiceNotFound(t *testing.T) {
	a := newFakeAdmin(t)
	a.setMode(adminMissing)
	src, err := New(a.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = src.Snapshot()
	if !errors.Is(err, policy.ErrNotLoaded) || !ServiceNotFound(err) || !ServiceNotFound(src.Err()) {
		t.Fatalf("Snapshot error = %v", err)
	}
	if !strings.Contains(err.Error(), `service not found: "hivedev"`) {
		t.Errorf("error text %q", err)
	}

	if _, err := New("ftp://x", "hivedev"); err == nil {
		t.Error("an ftp admin URL was accepted")
	}
	if _, err := New(a.srv.URL, " "); err == nil {
		t.Error("an empty service was accepted")
	}
}

func TestAdminNoContentKeeps(t *testing.T) {
	var mu sync.Mutex
	n := 0
	shop := loadShop(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if r.URL.Query().Get("lastKnownVersion") != "-1" && r.URL.Query().Get("lastKnownRoleVersion") != "-1" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		var v any = shop.ServicePolicies
		switch {
		case strings.HasPrefix(r.URL.Path, "/service/roles/"):
			v = shop.Roles
		case strings.HasPrefix(r.URL.Path, "/service/tags/"):
			v = shop.Tags
		}
		json.NewEncoder(w).Encode(v)
	}))
	defer srv.Close()
	src, err := New(srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	snap := src.Current()
	eventually(t, "204 polls", func() bool { return src.Stats().NotModified >= 2 })
	if src.Current() != snap || src.Stats().Failures != 0 {
		t.Errorf("a 204 replaced the snapshot or failed: %+v", src.Stats())
	}
}

func TestAdminSnapshotFromConformanceShapes(t *testing.T) {
	// The conformance inputs are downloads as the admin serves them:
	// myServicePolicies.json, hive_roles.json and myServiceTags.json.
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(conformanceDir, name))
		if err != nil {
			t.Skipf("conformance inputs: %v", err)
		}
		return data
	}
	pol, roles, tags, users := read("myServicePolicies.json"), read("hive_roles.json"), read("myServiceTags.json"), read("hive_user_store.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/service/plugins/policies/download/"):
			w.Write(pol)
		case strings.HasPrefix(r.URL.Path, "/service/roles/download/"):
			w.Write(roles)
		case strings.HasPrefix(r.URL.Path, "/service/tags/download/"):
			w.Write(tags)
		case strings.HasPrefix(r.URL.Path, "/service/xusers/download/"):
			w.Write(users)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src, err := New(srv.URL, "cl1_hive", fastOptions(WithUserStore(), WithPollInterval(time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	b := src.Bundle()
	if b == nil || len(b.Policies) == 0 || b.Roles == nil || b.Tags == nil || b.UserStore == nil {
		t.Fatalf("incomplete bundle: %+v", b)
	}
	if _, err := src.Snapshot(); err != nil {
		t.Fatal(err)
	}
}

func TestFetchWritesALoadableBundle(t *testing.T) {
	a := newFakeAdmin(t)
	b, err := Fetch(t.Context(), a.srv.URL, "hivedev", WithHeader("X-Requested-By", "sqe"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Roles == nil || b.Tags == nil || len(b.Policies) == 0 || b.FetchedAt.IsZero() || b.AdminURL != a.srv.URL {
		t.Fatalf("bundle %+v", b)
	}
	path := filepath.Join(t.TempDir(), "sub", "bundle.json")
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	src, err := LoadBundle(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := ssnMask(t, src); got != udf.TypeShowLast4 {
		t.Errorf("ssn mask from the fetched bundle = %q", got)
	}

	a.setMode(adminMissing)
	if _, err := Fetch(t.Context(), a.srv.URL, "hivedev"); !ServiceNotFound(err) {
		t.Errorf("404: %v", err)
	}
	a.setMode(adminCorrupt)
	if _, err := Fetch(t.Context(), a.srv.URL, "hivedev"); err == nil || !strings.Contains(err.Error(), "malformed JSON") {
		t.Errorf("corrupt: %v", err)
	}
}

// A service the admin answers 404 for is deleted: its policies are
// dropped and its cache removed, every statement fails closed (at a cold
// start too, whatever the cache holds) until the service exists again.
func TestAdminServiceDeletedDropsPolicies(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "ranger-hivedev.json")
	a := newFakeAdmin(t)
	// Polls only when the test asks (Refresh), so each step is one download.
	opts := []Option{WithPollInterval(time.Hour), WithTimeout(5 * time.Second), WithCacheDir(dir)}
	src, err := New(a.srv.URL, "hivedev", opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no policies after the first download")
	}
	cached, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no cache file: %v", err)
	}

	failsClosed := func(src *Source, when string) {
		t.Helper()
		_, err := src.Snapshot()
		if !errors.Is(err, policy.ErrNotLoaded) || !ServiceNotFound(err) || !strings.Contains(err.Error(), "not found on the admin") {
			t.Fatalf("%s: Snapshot error = %v, want ErrNotLoaded for a service not found", when, err)
		}
		if _, err := policy.ViewWithRetry(src, analyst); !errors.Is(err, policy.ErrNotLoaded) {
			t.Fatalf("%s: a View was built: %v", when, err)
		}
		if _, err := src.TableTags(t.Context(), policy.TableName{Schema: "shop", Table: "customers"}); err == nil {
			t.Fatalf("%s: tags were served", when)
		}
		if src.Current() != nil || src.Bundle() != nil || src.Stats().Loaded {
			t.Fatalf("%s: the dropped snapshot is still served", when)
		}
		if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the cache file is still there (%v)", when, err)
		}
	}

	// The service is deleted on the admin.
	a.setMode(adminMissing)
	if err := src.Refresh(t.Context()); !ServiceNotFound(err) {
		t.Fatalf("Refresh = %v", err)
	}
	failsClosed(src, "after the 404")
	if st := src.Stats(); st.ServiceNotFound != 1 || st.Failures != 1 {
		t.Errorf("stats after the 404: %+v", st)
	}

	// A process that starts now does not load a cache left from before.
	if err := os.WriteFile(cache, cached, 0o600); err != nil {
		t.Fatal(err)
	}
	cold, err := New(a.srv.URL, "hivedev", opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	failsClosed(cold, "cold start")
	if st := cold.Stats(); st.CacheLoads != 0 || st.ServiceNotFound != 1 {
		t.Errorf("cold start stats: %+v", st)
	}

	// Nor does one that starts while the admin is unreachable: the cache is gone.
	a.setMode(adminDown)
	down, err := New(a.srv.URL, "hivedev", opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	if _, err := down.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
		t.Fatalf("admin down after the service was deleted: %v", err)
	}

	// The service exists again: the next download restores everything.
	a.setMode(adminUp)
	for _, s := range []*Source{src, cold, down} {
		if err := s.Refresh(t.Context()); err != nil {
			t.Fatalf("Refresh after the service came back: %v", err)
		}
		if ssnMask(t, s) != udf.TypeShowLast4 {
			t.Fatal("policies not restored")
		}
		if st := s.Stats(); !st.Loaded || st.ConsecutiveFailures != 0 || st.LastError != "" {
			t.Errorf("stats after recovery: %+v", st)
		}
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("the cache was not written again: %v", err)
	}
}

const tagsPath = "/service/tags/download/hivedev"

// TestAdminPartsRefreshIndependently: a failing tags (or roles) download
// does not hold back new policies; the part keeps its last version, and
// the failure is counted and reported. A part that never downloaded
// keeps the source from loading at all, and a 404 on any part is the
// service gone.
func TestAdminPartsRefreshIndependently(t *testing.T) {
	a := newFakeAdmin(t)
	src, err := New(a.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no mask after the first download")
	}
	tagVersion := src.Current().info.TagVersion

	// The tags endpoint fails; a new policy version is published anyway.
	a.mu.Lock()
	a.partStatus = map[string]int{tagsPath: http.StatusInternalServerError}
	a.mu.Unlock()
	b := withoutPolicy(t, 20)
	tv := Int64(version(b.Tags.TagVersion) + 1)
	b.Tags.TagVersion = &tv
	a.setBundle(b)
	eventually(t, "the new policies despite the tags failure", func() bool { return ssnMask(t, src) == "" })
	st := src.Stats()
	if st.TagFailures == 0 || st.Info.TagVersion != tagVersion {
		t.Fatalf("tag failures %d, tag version %d (want the last one, %d)", st.TagFailures, st.Info.TagVersion, tagVersion)
	}
	if !strings.Contains(st.LastError, "tags kept at their last version") {
		t.Errorf("last error %q does not say the tags were kept", st.LastError)
	}

	// The tags endpoint recovers: the new tag version arrives.
	a.mu.Lock()
	a.partStatus = nil
	a.mu.Unlock()
	eventually(t, "the tags after recovery", func() bool { return src.Stats().Info.TagVersion == int64(tv) })
	if src.Err() != nil {
		t.Errorf("Err after recovery: %v", src.Err())
	}

	// A 404 on the tags is the service gone, as on the policies.
	a.mu.Lock()
	a.partStatus = map[string]int{tagsPath: http.StatusNotFound}
	a.mu.Unlock()
	eventually(t, "the service gone on a tags 404", func() bool { return !src.Stats().Loaded })
	if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
		t.Fatalf("snapshot after a tags 404: %v", err)
	}
}

// TestAdminPartNeverDownloadedFailsClosed: without its first tags the
// source does not load (a snapshot without tags would apply no tag mask).
func TestAdminPartNeverDownloadedFailsClosed(t *testing.T) {
	a := newFakeAdmin(t)
	a.partStatus = map[string]int{tagsPath: http.StatusInternalServerError}
	src, err := New(a.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
		t.Fatalf("snapshot without the first tags: %v", err)
	}
	a.mu.Lock()
	a.partStatus = nil
	a.mu.Unlock()
	eventually(t, "the first load once the tags download", func() bool { return src.Stats().Loaded })
}

// requests returns the paths and Authorization headers the admin has seen.
func (a *fakeAdmin) requests() (paths, auth []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, q := range a.queries {
		paths = append(paths, q[:strings.IndexByte(q, '?')])
	}
	return paths, append([]string(nil), a.auth...)
}

// secureDownloads are the secure endpoints a source with credentials and
// WithUserStore downloads from, in order.
var secureDownloads = []string{
	"/service/plugins/secure/policies/download/hivedev",
	"/service/roles/secure/download/hivedev",
	"/service/tags/secure/download/hivedev",
	"/service/xusers/secure/download/hivedev",
}

// checkPaths fails the test when the admin was asked for other paths.
func checkPaths(t *testing.T, paths, want []string) {
	t.Helper()
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %q, want %q", paths, want)
	}
}

func TestAdminSecureDownloadWithCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Option
		auth string
	}{
		{"basic", WithBasicAuth("svc", "pw"), "Basic " + base64.StdEncoding.EncodeToString([]byte("svc:pw"))},
		{"bearer", WithBearerToken("tok"), "Bearer tok"},
		{"header", WithHeader("Authorization", "Negotiate YIIC"), "Negotiate YIIC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeAdmin(t)
			a.hardened = true
			src, err := New(a.srv.URL, "hivedev", fastOptions(tc.opt, WithUserStore(), WithClusterName("cl1"),
				WithPluginID("p1"), WithPollInterval(time.Hour))...)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if got := ssnMask(t, src); got != udf.TypeShowLast4 {
				t.Fatalf("ssn mask = %q (err %v)", got, src.Err())
			}
			if b := src.Bundle(); b.UserStore == nil || b.Roles == nil || b.Tags == nil {
				t.Fatalf("parts missing: %+v", b)
			}
			paths, auth := a.requests()
			want := secureDownloads
			checkPaths(t, paths, want)
			for i, got := range auth {
				if got != tc.auth {
					t.Errorf("request %d: Authorization %q, want %q", i, got, tc.auth)
				}
			}
			a.mu.Lock()
			queries := append([]string(nil), a.queries...)
			a.mu.Unlock()
			for i, wants := range [][]string{
				{"lastKnownVersion=-1", "lastActivationTime=-1", "pluginId=p1", "clusterName=cl1", "supportsPolicyDeltas=false"},
				{"lastKnownRoleVersion=-1", "lastActivationTime=-1", "pluginId=p1", "clusterName=cl1"},
				{"lastKnownVersion=-1", "lastActivationTime=-1", "pluginId=p1", "supportsTagDeltas=false"},
				{"lastKnownUserStoreVersion=-1", "lastActivationTime=-1", "pluginId=p1", "clusterName=cl1"},
			} {
				for _, w := range wants {
					if !strings.Contains(queries[i], w) {
						t.Errorf("query %q lacks %q", queries[i], w)
					}
				}
			}
		})
	}
}

func TestAdminNonSecureWithoutCredentials(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []Option
		secure bool
	}{
		{"no credentials", nil, false},
		{"forced secure", []Option{WithDownloadMode(DownloadSecure)}, true},
		{"forced non-secure", []Option{WithBasicAuth("svc", "pw"), WithDownloadMode(DownloadNonSecure)}, false},
		{"another header", []Option{WithHeader("X-Trace", "1")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeAdmin(t)
			src, err := New(a.srv.URL, "hivedev", fastOptions(append(tc.opts, WithPollInterval(time.Hour))...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if got := ssnMask(t, src); got != udf.TypeShowLast4 {
				t.Fatalf("ssn mask = %q", got)
			}
			paths, auth := a.requests()
			if len(paths) != 3 {
				t.Fatalf("paths %q", paths)
			}
			for i, p := range paths {
				_, secure := securePaths[p]
				if secure != tc.secure {
					t.Errorf("path %q: secure %v, want %v", p, secure, tc.secure)
				}
				if tc.opts == nil && auth[i] != "" {
					t.Errorf("Authorization %q sent without credentials", auth[i])
				}
			}
		})
	}
}

func TestAdminHardenedRefusesNonSecure(t *testing.T) {
	a := newFakeAdmin(t)
	a.hardened = true
	src, err := New(a.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// Nothing loads: every statement is refused, and the error says why.
	_, err = src.Snapshot()
	if !errors.Is(err, policy.ErrNotLoaded) {
		t.Fatalf("Snapshot error = %v, want ErrNotLoaded", err)
	}
	for _, want := range []string{"400 Bad Request", "refuses unauthenticated downloads", "credentials", "secure download endpoints"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if ServiceNotFound(err) {
		t.Error("a 400 was taken for a deleted service")
	}
	eventually(t, "retries", func() bool { return src.Stats().Failures >= 2 })
	if st := src.Stats(); st.Loaded {
		t.Errorf("loaded from a hardened admin without credentials: %+v", st)
	}
	if n := a.count(policiesPath + " 200"); n != 0 {
		t.Errorf("%d policy downloads served", n)
	}

	if _, err := Fetch(context.Background(), a.srv.URL, "hivedev"); err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("Fetch error = %v", err)
	}
	// Forcing the non-secure endpoints with credentials fails as clearly.
	_, err = Fetch(context.Background(), a.srv.URL, "hivedev", WithBasicAuth("svc", "pw"), WithDownloadMode(DownloadNonSecure))
	if err == nil || !strings.Contains(err.Error(), "drop WithDownloadMode(DownloadNonSecure)") {
		t.Errorf("Fetch forced non-secure: error = %v", err)
	}
	// With credentials the same admin serves the secure endpoints.
	b, err := Fetch(context.Background(), a.srv.URL, "hivedev", WithBasicAuth("svc", "pw"))
	if err != nil || len(b.Policies) == 0 {
		t.Fatalf("Fetch with credentials: %v", err)
	}
}

func TestAdminFailOver(t *testing.T) {
	a1, a2 := newFakeAdmin(t), newFakeAdmin(t)
	a1.setMode(adminDown)
	src, err := New(a1.srv.URL+", "+a2.srv.URL+"/", "hivedev", fastOptions(WithBearerToken("tok"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	// The first admin is down: the second serves.
	if got := ssnMask(t, src); got != udf.TypeShowLast4 {
		t.Fatalf("ssn mask = %q (err %v)", got, src.Err())
	}
	if got := src.Bundle().AdminURL; got != a2.srv.URL {
		t.Errorf("AdminURL = %q, want %q", got, a2.srv.URL)
	}
	// The admin that answered is asked first from then on.
	eventually(t, "polls at the second admin", func() bool { return a2.count(policiesPath+" 304") >= 3 })
	if n := a1.count(policiesPath + " down"); n != 1 {
		t.Errorf("the first admin was asked %d times, want once", n)
	}
	if st := src.Stats(); st.Failures != 0 || st.FailOvers != 1 {
		// One fail-over: the roles and tags went to the second admin at once.
		t.Errorf("stats after the first admin's outage: %+v", st)
	}

	// The first recovers and the second answers 500: the first serves.
	a1.setMode(adminUp)
	a2.setMode(adminError)
	eventually(t, "polls at the first admin", func() bool { return a1.count(policiesPath+" 304") >= 3 })
	if st := src.Stats(); st.Failures != 0 || st.FailOvers < 2 || src.Err() != nil {
		t.Errorf("a fail-over counted failures: %+v", st)
	}
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("the policy changed on fail-over")
	}
	version := src.Current().Version()

	// Both down: the last good policy is kept.
	a1.setMode(adminDown)
	eventually(t, "failures", func() bool { return src.Stats().Failures >= 2 })
	if ssnMask(t, src) != udf.TypeShowLast4 || src.Current().Version() != version {
		t.Fatal("the last good policy was dropped")
	}
	st := src.Stats()
	if strings.Contains(st.LastError, "\n") {
		t.Errorf("last error %q spans lines", st.LastError)
	}
	for _, want := range []string{"no admin answered", a1.srv.URL, a2.srv.URL, "500 Internal Server Error"} {
		if !strings.Contains(st.LastError, want) {
			t.Errorf("last error %q lacks %q", st.LastError, want)
		}
	}

	// The second comes back with a new version.
	a2.setBundle(withoutPolicy(t, 20))
	a2.setMode(adminUp)
	eventually(t, "the new version", func() bool { return ssnMask(t, src) == "" })
	if got := src.Bundle().AdminURL; got != a2.srv.URL {
		t.Errorf("AdminURL = %q, want %q", got, a2.srv.URL)
	}
}

func TestAdminNotFoundIsNotFailedOver(t *testing.T) {
	a1, a2 := newFakeAdmin(t), newFakeAdmin(t)
	src, err := New(a1.srv.URL+","+a2.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no mask after the first download")
	}
	// The admin that answers says the service is gone: the policies are
	// dropped, although the other admin still has them.
	a1.setMode(adminMissing)
	eventually(t, "the policies dropped", func() bool { _, err := src.Snapshot(); return ServiceNotFound(err) })
	eventually(t, "more 404s", func() bool { return a1.count(policiesPath+" 404") >= 3 })
	if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) {
		t.Errorf("Snapshot error = %v", err)
	}
	if paths, _ := a2.requests(); len(paths) != 0 {
		t.Errorf("the second admin was asked %q", paths)
	}

	for _, bad := range []string{" , ", "http://a,ftp://b", ""} {
		if _, err := New(bad, "hivedev"); err == nil {
			t.Errorf("admin URLs %q accepted", bad)
		}
	}
}

// negotiator stands for a transport that authenticates each request itself
// (as a SPNEGO transport would), so that sqe has no credentials of its own.
type negotiator struct {
	mu sync.Mutex
	n  int
}

func (g *negotiator) RoundTrip(r *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.n++
	n := g.n
	g.mu.Unlock()
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Negotiate token-"+strconv.Itoa(n))
	return http.DefaultTransport.RoundTrip(r)
}

func TestAdminSecureDownloadThroughAuthenticatingTransport(t *testing.T) {
	a := newFakeAdmin(t)
	a.hardened = true
	hc := &http.Client{Transport: &negotiator{}}
	src, err := New(a.srv.URL, "hivedev", fastOptions(WithHTTPClient(hc), WithDownloadMode(DownloadSecure), WithPollInterval(time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := ssnMask(t, src); got != udf.TypeShowLast4 {
		t.Fatalf("ssn mask = %q (err %v)", got, src.Err())
	}
	paths, auth := a.requests()
	for i, p := range paths {
		if _, ok := securePaths[p]; !ok {
			t.Errorf("non-secure path %q", p)
		}
		if want := "Negotiate token-" + strconv.Itoa(i+1); auth[i] != want {
			t.Errorf("request %d: Authorization %q, want %q", i, auth[i], want)
		}
	}
}

func TestAdminCredentialsRefusedKeepsLastPolicy(t *testing.T) {
	a := newFakeAdmin(t)
	a.hardened = true
	src, err := New(a.srv.URL, "hivedev", fastOptions(WithBasicAuth("svc", "pw"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != udf.TypeShowLast4 {
		t.Fatal("no mask after the first download")
	}
	version := src.Current().Version()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		a.mu.Lock()
		a.partStatus = map[string]int{policiesPath: status}
		a.mu.Unlock()
		before := src.Stats().Failures
		eventually(t, "failures", func() bool { return src.Stats().Failures >= before+2 })
		if ssnMask(t, src) != udf.TypeShowLast4 || src.Current().Version() != version {
			t.Fatalf("%d: the last good policy was dropped", status)
		}
		st := src.Stats()
		for _, want := range []string{strconv.Itoa(status), "refused the credentials", securePoliciesPath} {
			if !strings.Contains(st.LastError, want) {
				t.Errorf("%d: last error %q lacks %q", status, st.LastError, want)
			}
		}
	}
}

// TestAdminHangingKeepsLastPolicy: an admin that accepts the connection
// and never answers is a failure once the client's timeout passes; the
// last good policy stays in force.
func TestAdminHangingKeepsLastPolicy(t *testing.T) {
	a := newFakeAdmin(t)
	src, err := New(a.srv.URL, "hivedev", append(fastOptions(), WithTimeout(200*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	version := src.Current().Version()
	before := src.Stats().Failures
	a.setMode(adminHang)
	eventually(t, "hung downloads counted as failures", func() bool { return src.Stats().Failures >= before+2 })
	if ssnMask(t, src) != udf.TypeShowLast4 || src.Current().Version() != version {
		t.Fatal("the last good policy was dropped while the admin hung")
	}
	if st := src.Stats(); st.LastError == "" {
		t.Error("no error reported for a hung admin")
	}
	a.setMode(adminUp)
	eventually(t, "recovery after the hang", func() bool { return src.Stats().ConsecutiveFailures == 0 })
}

// TestAdminVersionGoingBackwards: an admin restored from a backup serves
// an older policy version than the one sqe holds. Like Ranger's plugin,
// sqe takes the admin's current policies: what the admin serves is the
// policy in force, whatever its number.
func TestAdminVersionGoingBackwards(t *testing.T) {
	a := newFakeAdmin(t)
	newer := withoutPolicy(t, 20)
	a.setBundle(newer)
	src, err := New(a.srv.URL, "hivedev", fastOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ssnMask(t, src) != "" {
		t.Fatal("the newer policies (without the mask) were not loaded")
	}
	// The restored admin: the original policies, one version lower.
	a.setBundle(loadShop(t))
	eventually(t, "the restored admin's policies", func() bool { return ssnMask(t, src) == udf.TypeShowLast4 })
	if got, want := src.Stats().Info.PolicyVersion, version(loadShop(t).PolicyVersion); got != want {
		t.Fatalf("policy version %d, want the restored admin's %d", got, want)
	}
}
