package opa_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

var (
	customers = policy.TableName{Schema: "shop", Table: "customers"}
	custCols  = cols("id int", "region varchar(8)", "ssn varchar(11)", "salary int")
	anyone    = session.User{Name: "u"}
)

// filterOf returns the row filter src's current snapshot applies for
// anyone on customers.
func filterOf(t *testing.T, src policy.Source) string {
	t.Helper()
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return filterIn(t, snap)
}

func filterIn(t *testing.T, snap policy.Snapshot) string {
	t.Helper()
	v, err := snap.View(anyone)
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.DecideColumnInfo(customers, custCols)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.RowFilters) != 1 {
		t.Fatalf("filters %v", d.RowFilters)
	}
	return d.RowFilters[0].Expr
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTarballBundle(t *testing.T) {
	p := writeFile(t, t.TempDir(), "b.tar.gz", filterBundle(t, "7", "region = 'EU'"))
	src, err := opa.New(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := filterOf(t, src); got != "region = 'EU'" {
		t.Fatalf("filter %q", got)
	}
	if src.Revision() != "7" {
		t.Fatalf("revision %q", src.Revision())
	}
}

// TestBundleFaultsAtStart: a path whose bundle cannot be used is an error
// of New, wrapping ErrBundle.
func TestBundleFaultsAtStart(t *testing.T) {
	dir := t.TempDir()
	good := filterBundle(t, "1", "region = 'EU'")
	for name, data := range map[string][]byte{
		"corrupt tarball":   good[:len(good)/2],
		"not gzip":          []byte("this is not a bundle"),
		"does not compile":  tarball(t, map[string]string{"p.rego": "package sqe\n\ndecision := {\"allow\": true\n"}),
		"unsafe rule":       tarball(t, map[string]string{"p.rego": "package sqe\n\nimport rego.v1\n\ndecision := {\"allow\": x}\n"}),
		"no decision":       tarball(t, map[string]string{"p.rego": "package other\n\nimport rego.v1\n\ndecision := {\"allow\": true}\n"}),
		"bad data document": tarball(t, map[string]string{"p.rego": "package sqe\n\nimport rego.v1\n\ndecision := {\"allow\": true}\n", "data.json": "{"}),
	} {
		p := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".tar.gz", data)
		if _, err := opa.New(p); !errors.Is(err, opa.ErrBundle) {
			t.Errorf("%s: %v, want ErrBundle", name, err)
		}
	}
	if _, err := opa.New(filepath.Join(dir, "missing")); !errors.Is(err, opa.ErrBundle) {
		t.Errorf("missing bundle: %v", err)
	}
}

// TestReloadKeepsLastGoodRevision: a bundle file replaced by one that does
// not read or compile keeps the last good revision in force.
func TestReloadKeepsLastGoodRevision(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "b.tar.gz", filterBundle(t, "1", "region = 'EU'"))
	src, err := opa.New(p)
	if err != nil {
		t.Fatal(err)
	}
	v1 := src.Current().Version()
	for _, bad := range [][]byte{
		[]byte("corrupt"),
		tarball(t, map[string]string{".manifest": `{"revision": "2"}`, "p.rego": "package sqe\n\ndecision := {"}),
	} {
		writeFile(t, dir, "b.tar.gz", bad)
		if err := src.Reload(); !errors.Is(err, opa.ErrBundle) {
			t.Fatalf("reload: %v", err)
		}
		if got := filterOf(t, src); got != "region = 'EU'" || src.Current().Version() != v1 {
			t.Fatalf("after a bad bundle: %q, version %d", got, src.Current().Version())
		}
	}
	st := src.Stats()
	if st.ReloadFailures != 2 || st.Reloads != 1 || st.LastError == nil {
		t.Fatalf("stats %+v", st)
	}
	// The same revision again keeps the snapshot and its version.
	writeFile(t, dir, "b.tar.gz", filterBundle(t, "1", "region = 'EU'"))
	if err := src.Reload(); err != nil || src.Current().Version() != v1 || src.Stats().ReloadsUnchanged != 1 {
		t.Fatalf("same revision: %v, version %d", err, src.Current().Version())
	}
	writeFile(t, dir, "b.tar.gz", filterBundle(t, "2", "region = 'US'"))
	if err := src.Reload(); err != nil || filterOf(t, src) != "region = 'US'" || src.Current().Version() == v1 {
		t.Fatalf("new revision: %v", err)
	}
}

// decide evaluates a one-module bundle's decision for customers.
func decide(t *testing.T, rego string) (*policy.Decision, error) {
	t.Helper()
	p := writeFile(t, t.TempDir(), "b.tar.gz", tarball(t, map[string]string{"p.rego": rego}))
	src, err := opa.New(p)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := src.Snapshot()
	v, _ := snap.View(anyone)
	return v.DecideColumnInfo(customers, custCols)
}

// TestDecisionOfTheWrongShape: a decision sqe cannot read with certainty
// fails closed with policy.ErrPolicy naming the rule.
func TestDecisionOfTheWrongShape(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"not an object", `decision := true`, "want an object"},
		{"allow not a boolean", `decision := {"allow": "yes"}`, "allow: a string, want a boolean"},
		{"allow missing", `decision := {"row_filters": []}`, "allow: required"},
		{"misspelt field", `decision := {"allow": true, "row_filter": ["1 = 0"]}`, `unknown field "row_filter"`},
		{"filter not a string", `decision := {"allow": true, "row_filters": [1]}`, "row_filters[0]"},
		{"empty filter", `decision := {"allow": true, "row_filters": ["  "]}`, "empty expression"},
		{"check not a condition", `decision := {"allow": true, "row_filters": [{"filter": "a = 1", "check": 1}]}`, "row_filters[0].check"},
		{"unknown mask", `decision := {"allow": true, "masks": {"ssn": {"type": "MASK_SOMETIMES"}}}`, "masks.ssn"},
		{"mask without type", `decision := {"allow": true, "masks": {"ssn": {}}}`, "want a type or an expr"},
		{"masks a list", `decision := {"allow": true, "masks": ["ssn"]}`, "masks: an array"},
		{"restricted an object", `decision := {"allow": true, "restricted": {"salary": true}}`, "restricted: an object"},
		{"conflict", "default x := 1\nx := 2 if input.action == \"select\"\nx := 3 if input.action == \"select\"\ndecision := {\"allow\": x == 1}", "conflicting"},
		{"masked column that does not exist", `decision := {"allow": true, "masks": {"sssn": {"type": "MASK", "name": "ssn-mask"}}}`, `ssn-mask on shop.customers: masked column "sssn"`},
		{"restricted column that does not exist", `decision := {"allow": true, "restricted": [{"name": "no-pay", "column": "pay"}]}`, `no-pay on shop.customers: restricted column "pay"`},
	} {
		d, err := decide(t, "package sqe\n\nimport rego.v1\n\n"+c.body+"\n")
		if !errors.Is(err, policy.ErrPolicy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v %+v, want ErrPolicy with %q", c.name, err, d, c.want)
		}
	}
	// An undefined decision denies, naming the decision.
	d, err := decide(t, "package sqe\n\nimport rego.v1\n\ndecision := {\"allow\": true} if input.table.name == \"other\"\n")
	if err != nil || d.Allows(policy.Select) || !strings.Contains(d.Reason(policy.Select), "data.sqe.decision (undefined)") {
		t.Fatalf("undefined: %v %+v", err, d)
	}
}

// TestFilterChecks: a decision's row filter checks written rows with
// itself unless it says check: false or gives another expression.
func TestFilterChecks(t *testing.T) {
	d, err := decide(t, `package sqe

import rego.v1

decision := {"allow": true, "row_filters": [
	"region = 'EU'",
	{"name": "reads", "filter": "id > 0", "check": false},
	{"name": "own", "filter": "id < 100", "check": "id < 50"},
]}
`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range d.RowFilters {
		got[f.Expr] = f.Check
	}
	want := map[string]string{"region = 'EU'": "region = 'EU'", "id > 0": "", "id < 100": "id < 50"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("checks %v, want %v", got, want)
	}
}

// TestRemoteBundle follows a bundle server: ETag polls cost a 304, a new
// revision replaces the snapshot, an older one too (the server's bundle is
// the policy in force), and every fault keeps the last good revision.
func TestRemoteBundle(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(filterBundle(t, "2", "region = 'EU'"), `"e2"`)
	src, err := opa.New(srv.url(), opa.WithPollInterval(0), opa.WithBearerToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := filterOf(t, src); got != "region = 'EU'" {
		t.Fatalf("filter %q", got)
	}
	v2 := src.Current().Version()
	// Unchanged: a 304.
	if err := src.Refresh(t.Context()); err != nil || src.Current().Version() != v2 {
		t.Fatalf("304: %v", err)
	}
	if srv.ifNone[1] != `"e2"` || srv.auth[0] != "Bearer tok" || src.BundleStats().NotModified != 1 {
		t.Fatalf("requests: if-none-match %q, auth %q, stats %+v", srv.ifNone, srv.auth, src.BundleStats())
	}
	// Faults keep revision 2.
	good := filterBundle(t, "3", "region = 'US'")
	for name, body := range map[string][]byte{
		"corrupt tarball":    good[:len(good)-20],
		"does not compile":   tarball(t, map[string]string{".manifest": `{"revision": "3"}`, "p.rego": "package sqe\n\ndecision := {"}),
		"no decision rule":   tarball(t, map[string]string{".manifest": `{"revision": "3"}`, "p.rego": "package sqx\n\nimport rego.v1\n\nd := 1\n"}),
		"not a bundle":       []byte("<html>proxy error</html>"),
		"empty body":         {},
		"data not an object": tarball(t, map[string]string{"data.json": "[1]", "p.rego": "package sqe\n\nimport rego.v1\n\ndecision := {\"allow\": true}\n"}),
	} {
		srv.serve(body, `"bad-`+name+`"`)
		if err := src.Refresh(t.Context()); err == nil {
			t.Errorf("%s: refresh succeeded", name)
		}
		if got := filterOf(t, src); got != "region = 'EU'" || src.Current().Version() != v2 || src.Revision() != "2" {
			t.Fatalf("%s: filter %q, revision %q", name, got, src.Revision())
		}
	}
	for _, status := range []int{http.StatusInternalServerError, http.StatusNotFound, http.StatusForbidden} {
		srv.fail(status)
		if err := src.Refresh(t.Context()); err == nil || filterOf(t, src) != "region = 'EU'" {
			t.Fatalf("HTTP %d: %v", status, err)
		}
	}
	srv.Close()
	if err := src.Refresh(t.Context()); err == nil || filterOf(t, src) != "region = 'EU'" {
		t.Fatalf("server down: %v", err)
	}
	if src.Stats().ReloadFailures < 10 || src.Err() == nil {
		t.Fatalf("stats %+v", src.Stats())
	}
}

// TestRemoteRevisionGoingBackwards: a bundle server restored to an older
// revision is followed, with a new snapshot version (so no cache keeps the
// newer revision's decisions).
func TestRemoteRevisionGoingBackwards(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(filterBundle(t, "5", "region = 'EU'"), `"e5"`)
	src, err := opa.New(srv.url(), opa.WithPollInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	v5 := src.Current().Version()
	srv.serve(filterBundle(t, "4", "region = 'US'"), `"e4"`)
	if err := src.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if src.Revision() != "4" || filterOf(t, src) != "region = 'US'" || src.Current().Version() <= v5 {
		t.Fatalf("revision %q, version %d after %d", src.Revision(), src.Current().Version(), v5)
	}
}

// TestRemoteDownAtStart: with no bundle server and nothing persisted the
// source fails closed; with a persisted bundle it serves that until the
// server answers.
func TestRemoteDownAtStart(t *testing.T) {
	srv := newBundleServer(t)
	srv.fail(http.StatusServiceUnavailable)
	persist := t.TempDir()
	src, err := opa.New(srv.url(), opa.WithPollInterval(0), opa.WithPersistDir(persist))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Snapshot(); !errors.Is(err, policy.ErrNotLoaded) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("down at start without a persisted bundle: %v", err)
	}
	if _, err := policy.ViewWithRetry(src, anyone); !errors.Is(err, policy.ErrNotLoaded) || src.Stats().FailClosed[policy.FailNotLoaded] != 1 {
		t.Fatalf("view: %v, stats %+v", err, src.Stats())
	}
	// The server answers: the bundle is loaded and persisted.
	srv.serve(filterBundle(t, "9", "region = 'EU'"), `"e9"`)
	if err := src.Refresh(t.Context()); err != nil || src.Revision() != "9" {
		t.Fatalf("refresh: %v", err)
	}
	src.Close()
	if _, err := os.Stat(filepath.Join(persist, "bundle.tar.gz")); err != nil {
		t.Fatal(err)
	}
	// A bad bundle is never persisted.
	srv.serve([]byte("corrupt"), `"x"`)
	src2, err := opa.New(srv.url(), opa.WithPollInterval(0), opa.WithPersistDir(persist))
	if err != nil {
		t.Fatal(err)
	}
	if src2.Revision() != "9" || filterOf(t, src2) != "region = 'EU'" || src2.BundleStats().PersistLoads != 1 {
		t.Fatalf("corrupt at start with a persisted bundle: revision %q, stats %+v", src2.Revision(), src2.BundleStats())
	}
	src2.Close()
	// Down at start: the persisted revision serves.
	srv.Close()
	src3, err := opa.New(srv.url(), opa.WithPollInterval(0), opa.WithPersistDir(persist))
	if err != nil {
		t.Fatal(err)
	}
	defer src3.Close()
	if src3.Revision() != "9" || filterOf(t, src3) != "region = 'EU'" {
		t.Fatalf("down at start with a persisted bundle: revision %q", src3.Revision())
	}
}

// TestViewKeepsItsSnapshot: a View built before a new revision lands
// decides with its own revision to its end.
func TestViewKeepsItsSnapshot(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(filterBundle(t, "1", "region = 'EU'"), `"e1"`)
	src, err := opa.New(srv.url(), opa.WithPollInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	old, _ := src.Snapshot()
	srv.serve(filterBundle(t, "2", "region = 'US'"), `"e2"`)
	if err := src.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := filterIn(t, old); got != "region = 'EU'" {
		t.Fatalf("pinned snapshot: %q", got)
	}
	if got := filterOf(t, src); got != "region = 'US'" {
		t.Fatalf("current: %q", got)
	}
}

// TestLibraryTenantAndTags evaluates docs/opa.md's example of a filter
// from a session attribute and tag-based masks.
func TestLibraryTenantAndTags(t *testing.T) {
	src, err := opa.New("testdata/tenant.rego")
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := src.Snapshot()
	columns := []policy.ColumnInfo{{Name: "id", Type: "int"}, {Name: "tenant_id", Type: "int"},
		{Name: "email", Type: "varchar(80)", Tags: []string{"PII", "EMAIL"}}, {Name: "ssn", Type: "char(11)", Tags: []string{"pii"}}}
	decideAs := func(u session.User) (*policy.Decision, error) {
		v, _ := snap.View(u)
		return v.DecideColumnInfo(customers, columns)
	}
	d, err := decideAs(session.User{Name: "a", Roles: []string{"analyst"}, Attributes: map[string]string{"tenant": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) || len(d.RowFilters) != 1 || d.RowFilters[0].Expr != "tenant_id = 7" || d.RowFilters[0].Policy != "tenant" ||
		d.Masks["email"].Type != "MASK" || d.Masks["ssn"].Type != "MASK_HASH" || len(d.Masks) != 2 {
		t.Fatalf("analyst of tenant 7: %+v", d)
	}
	d, err = decideAs(session.User{Name: "b", Roles: []string{"analyst", "admin"}, Groups: []string{"privacy-officers"}})
	if err != nil || len(d.RowFilters) != 0 || len(d.Masks) != 0 {
		t.Fatalf("admin privacy officer: %v %+v", err, d)
	}
	// A tenant that is not a number is a policy error, never SQL text.
	if _, err := decideAs(session.User{Name: "c", Roles: []string{"analyst"}, Attributes: map[string]string{"tenant": "1 OR 1=1"}}); !errors.Is(err, policy.ErrPolicy) {
		t.Fatalf("tenant injection: %v", err)
	}
	if d, err := decideAs(session.User{Name: "d"}); err != nil || d.Allows(policy.Select) {
		t.Fatalf("no role: %v %+v", err, d)
	}
}

// TestTagMasks: the decision's tag_masks bind tags (upper-cased) to
// masks, for the columns that carry them.
func TestTagMasks(t *testing.T) {
	d, err := decide(t, `package sqe

import rego.v1

decision := {"allow": true, "tag_masks": {"pii": {"type": "MASK_HASH", "name": "pii-hash"}}, "masks": {"SSN": {"type": "MASK_NULL"}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if m := d.TagMasks["PII"]; m.Type != "MASK_HASH" || m.Policy != "pii-hash" || len(d.TagMasks) != 1 {
		t.Fatalf("tag masks %+v", d.TagMasks)
	}
	if m := d.Masks["ssn"]; m.Type != "MASK_NULL" || m.Policy != "data.sqe.decision.masks.ssn" {
		t.Fatalf("masks %+v", d.Masks)
	}
}

// TestPolling: the source polls by itself and picks up a new revision;
// Close stops it.
func TestPolling(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(filterBundle(t, "1", "region = 'EU'"), `"e1"`)
	changed := make(chan struct{}, 1)
	src, err := opa.New(srv.url(), opa.WithPollInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	srv.serve(filterBundle(t, "2", "region = 'US'"), `"e2"`)
	go func() {
		for src.Revision() != "2" {
			time.Sleep(time.Millisecond)
		}
		changed <- struct{}{}
	}()
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatal("the source never picked up revision 2")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	// Closed, the source still serves its revision, and refreshes by hand.
	srv.serve(filterBundle(t, "3", "region = 'APAC'"), `"e3"`)
	if filterOf(t, src) != "region = 'US'" {
		t.Fatal("closing changed the revision in force")
	}
	if err := src.Refresh(t.Context()); err != nil || filterOf(t, src) != "region = 'APAC'" {
		t.Fatalf("refresh after close: %v", err)
	}
}
