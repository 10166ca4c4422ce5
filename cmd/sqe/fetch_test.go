package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jcmturner/goidentity/v6"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/sqe-project/sqe/ranger"
)

// sqe fetch --kerberos downloads from a Kerberized admin (a fake admin
// behind a SPNEGO check, tickets from the real KDC scripts/test.sh starts).
func TestFetchWithKerberos(t *testing.T) {
	env := map[string]string{}
	for _, name := range []string{"SQE_KRB5_CONFIG", "SQE_KRB5_CLIENT", "SQE_KRB5_CLIENT_PASSWORD", "SQE_KRB5_CLIENT_KEYTAB", "SQE_KRB5_SERVICE_KEYTAB"} {
		if env[name] = os.Getenv(name); env[name] == "" {
			t.Fatalf("%s is not set: run ./scripts/test.sh (it starts a Kerberos KDC for these tests)", name)
		}
	}
	kt, err := keytab.Load(env["SQE_KRB5_SERVICE_KEYTAB"])
	if err != nil {
		t.Fatal(err)
	}
	policies, err := os.ReadFile("testdata/shop_policies.json")
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	admin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := goidentity.FromHTTPRequestContext(r)
		if id == nil || r.URL.Path != "/service/plugins/secure/policies/download/hivedev" {
			http.Error(w, "not here", http.StatusBadRequest)
			return
		}
		served = append(served, id.UserName()+"@"+id.Domain())
		w.Header().Set("Content-Type", "application/json")
		w.Write(policies)
	})
	srv := httptest.NewServer(spnego.SPNEGOKRB5Authenticate(admin, kt, service.DecodePAC(false)))
	defer srv.Close()
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	out := filepath.Join(t.TempDir(), "bundle.json")
	code, stdout, errOut := runCLI("fetch", "--url", url, "--service", "hivedev", "--out", out, "--no-roles", "--no-tags",
		"--kerberos", env["SQE_KRB5_CLIENT"], "--keytab", env["SQE_KRB5_CLIENT_KEYTAB"], "--krb5-conf", env["SQE_KRB5_CONFIG"])
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, errOut)
	}
	if len(served) != 1 || served[0] != env["SQE_KRB5_CLIENT"] {
		t.Fatalf("the admin served %q, want one download for %s", served, env["SQE_KRB5_CLIENT"])
	}
	if _, err := ranger.LoadBundle(out); err != nil {
		t.Fatalf("the written bundle does not load: %v", err)
	}

	// The password from the environment, and a wrong one.
	t.Setenv("RANGER_KERBEROS_PASSWORD", env["SQE_KRB5_CLIENT_PASSWORD"])
	if code, _, errOut := runCLI("fetch", "--url", url, "--service", "hivedev", "--out", out, "--no-roles", "--no-tags",
		"--kerberos", env["SQE_KRB5_CLIENT"], "--krb5-conf", env["SQE_KRB5_CONFIG"]); code != 0 {
		t.Fatalf("with the password: exit %d: %s", code, errOut)
	}
	t.Setenv("RANGER_KERBEROS_PASSWORD", "not-the-password")
	code, _, errOut = runCLI("fetch", "--url", url, "--service", "hivedev", "--out", out, "--no-roles", "--no-tags",
		"--kerberos", env["SQE_KRB5_CLIENT"], "--krb5-conf", env["SQE_KRB5_CONFIG"])
	if code == 0 || !strings.Contains(errOut, "kerberos login") {
		t.Fatalf("with a wrong password: exit %d: %s", code, errOut)
	}
	if len(served) != 2 {
		t.Fatalf("%d downloads served, want 2", len(served))
	}
	// Flags that need --kerberos.
	if code, _, errOut := runCLI("fetch", "--url", url, "--service", "hivedev", "--out", out, "--keytab", "x"); code != 2 ||
		!strings.Contains(errOut, "go with --kerberos") {
		t.Fatalf("--keytab alone: exit %d: %s", code, errOut)
	}
}
