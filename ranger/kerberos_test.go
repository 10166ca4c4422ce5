package ranger

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/goidentity/v6"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/sqe-project/sqe/udf"
)

// The Kerberos tests run against the throwaway MIT Kerberos KDC that
// scripts/test.sh starts (realm SQE.TEST, a client principal with a
// password and a keytab, and HTTP/localhost with a keytab for the admin).
// The admin is the fake one of client_test.go behind a real SPNEGO check
// with the service's keytab: it serves nothing to a request without a
// valid service ticket for HTTP/localhost.

// krbEnv is the KDC's setup, from the environment scripts/test.sh exports.
type krbEnv struct {
	config, client, password, clientKeytab, serviceKeytab string
}

func kerberosEnv(t *testing.T) krbEnv {
	t.Helper()
	get := func(name string) string {
		v := os.Getenv(name)
		if v == "" {
			t.Fatalf("%s is not set: run ./scripts/test.sh (it starts a Kerberos KDC for these tests)", name)
		}
		return v
	}
	return krbEnv{
		config:        get("SQE_KRB5_CONFIG"),
		client:        get("SQE_KRB5_CLIENT"),
		password:      get("SQE_KRB5_CLIENT_PASSWORD"),
		clientKeytab:  get("SQE_KRB5_CLIENT_KEYTAB"),
		serviceKeytab: get("SQE_KRB5_SERVICE_KEYTAB"),
	}
}

// kinit writes a credential cache with a ticket-granting ticket for the
// client principal, as a user's kinit does, and returns its path.
func kinit(t *testing.T, env krbEnv) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ccache")
	cmd := exec.Command("kinit", "-c", "FILE:"+path, "-k", "-t", env.clientKeytab, env.client)
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+env.config)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v: %s", err, out)
	}
	return path
}

// kerberizedAdmin is a fake admin that requires SPNEGO and records who
// each request authenticated as.
type kerberizedAdmin struct {
	*fakeAdmin
	url string

	mu    sync.Mutex
	users []string // the authenticated principal of each request served
}

func newKerberizedAdmin(t *testing.T, env krbEnv) *kerberizedAdmin {
	t.Helper()
	kt, err := keytab.Load(env.serviceKeytab)
	if err != nil {
		t.Fatal(err)
	}
	a := &kerberizedAdmin{fakeAdmin: newFakeAdmin(t)}
	a.hardened = true
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := goidentity.FromHTTPRequestContext(r)
		if id == nil {
			t.Error("a request reached the admin without an identity")
			http.Error(w, "no identity", http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		a.users = append(a.users, id.UserName()+"@"+id.Domain())
		a.mu.Unlock()
		a.serve(w, r)
	})
	srv := httptest.NewServer(spnego.SPNEGOKRB5Authenticate(inner, kt, service.DecodePAC(false)))
	t.Cleanup(srv.Close)
	// The service principal is HTTP/localhost: the client names the
	// admin by that host.
	a.url = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return a
}

func (a *kerberizedAdmin) authenticated() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.users...)
}

func TestKerberosSecureDownload(t *testing.T) {
	env := kerberosEnv(t)
	for _, tc := range []struct {
		name string
		k    Kerberos
	}{
		{"keytab", Kerberos{Principal: env.client, Keytab: env.clientKeytab, Config: env.config}},
		{"password", Kerberos{Principal: env.client, Password: env.password, Config: env.config}},
		{"explicit SPN", Kerberos{Principal: env.client, Keytab: env.clientKeytab, Config: env.config, SPN: "HTTP/localhost"}},
		{"credential cache", Kerberos{CCache: kinit(t, env), Config: env.config}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newKerberizedAdmin(t, env)
			src, err := New(a.url, "hivedev", fastOptions(WithKerberos(tc.k), WithUserStore(), WithPollInterval(time.Hour))...)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if got := ssnMask(t, src); got != udf.TypeShowLast4 {
				t.Fatalf("ssn mask = %q (err %v)", got, src.Err())
			}
			paths, _ := a.requests()
			want := secureDownloads
			checkPaths(t, paths, want)
			users := a.authenticated()
			if len(users) != len(want) {
				t.Fatalf("%d authenticated requests, want %d", len(users), len(want))
			}
			for _, u := range users {
				if u != env.client {
					t.Errorf("request authenticated as %q, want %q", u, env.client)
				}
			}
			// A refresh authenticates again (with the cached ticket).
			if err := src.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := len(a.authenticated()); got != 2*len(want) {
				t.Errorf("%d authenticated requests after a refresh, want %d", got, 2*len(want))
			}
		})
	}
}

// Credentials the KDC refuses, or a service it does not know, fail the
// source closed with an error that says so, and no request reaches the
// admin without a ticket.
func TestKerberosRefusedFailsClosed(t *testing.T) {
	env := kerberosEnv(t)
	for _, tc := range []struct {
		name, want string
		k          Kerberos
	}{
		{"wrong password", "kerberos login", Kerberos{Principal: env.client, Password: "not-the-password", Config: env.config}},
		{"unknown principal", "kerberos login", Kerberos{Principal: "nobody@SQE.TEST", Password: "wrong-pw-7f3a", Config: env.config}},
		{"unknown service", "service ticket for HTTP/elsewhere", Kerberos{Principal: env.client, Keytab: env.clientKeytab, Config: env.config, SPN: "HTTP/elsewhere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newKerberizedAdmin(t, env)
			src, err := New(a.url, "hivedev", fastOptions(WithKerberos(tc.k), WithPollInterval(time.Hour))...)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if _, err := src.Snapshot(); err == nil {
				t.Fatal("a snapshot without a successful download")
			}
			if err := src.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one that mentions %q", err, tc.want)
			} else if tc.k.Password != "" && strings.Contains(err.Error(), tc.k.Password) {
				t.Fatalf("the error repeats the password: %v", err)
			}
			if paths, _ := a.requests(); len(paths) != 0 {
				t.Fatalf("requests reached the admin: %q", paths)
			}
		})
	}
}

// Without Kerberos, a Kerberized admin refuses the download; the source
// fails closed.
func TestKerberizedAdminRefusesOtherCredentials(t *testing.T) {
	env := kerberosEnv(t)
	a := newKerberizedAdmin(t, env)
	src, err := New(a.url, "hivedev", fastOptions(WithBasicAuth("svc", "pw"), WithPollInterval(time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Snapshot(); err == nil {
		t.Fatal("a snapshot without Kerberos")
	}
	if err := src.Err(); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("error %v, want the admin's refusal of the credentials", err)
	}
	if got := a.authenticated(); len(got) != 0 {
		t.Fatalf("requests authenticated as %q", got)
	}
}

// A configuration sqe cannot read is an error when the source is made.
func TestKerberosConfigurationErrors(t *testing.T) {
	env := kerberosEnv(t)
	for _, tc := range []struct {
		name, want string
		k          Kerberos
	}{
		{"no krb5.conf", "reading", Kerberos{Principal: env.client, Password: "x", Config: "/nonexistent/krb5.conf"}},
		{"no keytab file", "reading keytab", Kerberos{Principal: env.client, Keytab: "/nonexistent/keytab", Config: env.config}},
		{"no credentials", "no keytab, password or credential cache", Kerberos{Principal: env.client, Config: env.config}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New("http://localhost:1", "hivedev", fastOptions(WithKerberos(tc.k))...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one that mentions %q", err, tc.want)
			}
		})
	}
}
