package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sqe-project/sqe/ranger"
)

func runFetch(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	adminURL := fs.String("url", "", "Ranger admin URL, e.g. https://ranger.example.com:6182 (required)")
	service := fs.String("service", "", "Ranger service name, e.g. hivedev (required)")
	out := fs.String("out", "", "bundle file to write (required)")
	user := fs.String("user", "", "basic-auth user (the password is read from $RANGER_PASSWORD)")
	tokenEnv := fs.Bool("token", false, "send $RANGER_TOKEN as a bearer token")
	caFile := fs.String("ca", "", "PEM file of CA certificates to trust for an https admin")
	insecure := fs.Bool("insecure", false, "do not verify the admin's TLS certificate")
	timeout := fs.Duration("timeout", 30*time.Second, "timeout of each request")
	noRoles := fs.Bool("no-roles", false, "do not download roles")
	noTags := fs.Bool("no-tags", false, "do not download tags")
	userStore := fs.Bool("user-store", false, "also download the user store (user and group attributes)")
	pluginID := fs.String("plugin-id", "sqe-fetch", "pluginId shown in the admin's plugin status")
	krbPrincipal := fs.String("kerberos", "", "authenticate with Kerberos (SPNEGO) as this principal, with --keytab, --ccache or $RANGER_KERBEROS_PASSWORD")
	keytab := fs.String("keytab", "", "with --kerberos: the principal's keytab file")
	ccache := fs.String("ccache", "", "with --kerberos: a credential cache written by kinit")
	krb5Conf := fs.String("krb5-conf", "", "with --kerberos: krb5.conf (default $KRB5_CONFIG, else /etc/krb5.conf)")
	spn := fs.String("spn", "", "with --kerberos: the admin's service principal (default HTTP/<admin host>)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: sqe fetch --url URL --service NAME --out FILE [--user NAME | --token | --kerberos PRINCIPAL] [--ca FILE]

Downloads a Ranger service's policies (with its serviceDef and tag
policies), roles and tags from the admin and writes them as one bundle
file, for offline use: sqe.WithPolicyFile(FILE), ranger.LoadBundle(FILE),
or "sqe explain --policy FILE". Credentials come from the environment:
RANGER_PASSWORD with --user, RANGER_TOKEN with --token,
RANGER_KERBEROS_PASSWORD with --kerberos when there is no --keytab or
--ccache; with any, the admin's secure download endpoints are used
(hardened admins refuse the others). --url may list several admins, comma-separated: a transport error
or a 5xx from one sends the download to the next.`)
		fs.PrintDefaults()
	}
	positional, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	switch {
	case len(positional) != 0:
		return usageError("unexpected argument %q", positional[0])
	case *adminURL == "":
		return usageError("--url is required")
	case *service == "":
		return usageError("--service is required")
	case *out == "":
		return usageError("--out is required")
	case (*user != "" && *tokenEnv) || (*krbPrincipal != "" && (*user != "" || *tokenEnv)):
		return usageError("give one of --user, --token and --kerberos")
	case *krbPrincipal == "" && (*keytab != "" || *ccache != "" || *krb5Conf != "" || *spn != ""):
		return usageError("--keytab, --ccache, --krb5-conf and --spn go with --kerberos")
	case *keytab != "" && *ccache != "":
		return usageError("give --keytab or --ccache, not both")
	case *krbPrincipal != "" && *keytab == "" && *ccache == "" && os.Getenv("RANGER_KERBEROS_PASSWORD") == "":
		return usageError("--kerberos needs --keytab, --ccache or RANGER_KERBEROS_PASSWORD in the environment")
	case *tokenEnv && os.Getenv("RANGER_TOKEN") == "":
		return usageError("--token needs RANGER_TOKEN in the environment")
	case *insecure && *caFile != "":
		return usageError("give --ca or --insecure, not both")
	}
	opts := []ranger.Option{ranger.WithTimeout(*timeout), ranger.WithPluginID(*pluginID)}
	if *user != "" {
		opts = append(opts, ranger.WithBasicAuth(*user, os.Getenv("RANGER_PASSWORD")))
	}
	if *tokenEnv {
		opts = append(opts, ranger.WithBearerToken(os.Getenv("RANGER_TOKEN")))
	}
	if *krbPrincipal != "" {
		k := ranger.Kerberos{Principal: *krbPrincipal, Keytab: *keytab, CCache: *ccache, Config: *krb5Conf, SPN: *spn}
		if k.Keytab == "" && k.CCache == "" {
			k.Password = os.Getenv("RANGER_KERBEROS_PASSWORD")
		}
		opts = append(opts, ranger.WithKerberos(k))
	}
	if *caFile != "" || *insecure {
		tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: *insecure}
		if *caFile != "" {
			pem, err := os.ReadFile(*caFile)
			if err != nil {
				return usageError("--ca: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return usageError("--ca: %s holds no PEM certificate", *caFile)
			}
			tc.RootCAs = pool
		}
		opts = append(opts, ranger.WithTLSConfig(tc))
	}
	if *noRoles {
		opts = append(opts, ranger.WithoutRoles())
	}
	if *noTags {
		opts = append(opts, ranger.WithoutTags())
	}
	if *userStore {
		opts = append(opts, ranger.WithUserStore())
	}

	b, err := ranger.Fetch(context.Background(), *adminURL, *service, opts...)
	if err != nil {
		return err
	}
	if err := b.WriteFile(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s\n", *out, bundleSummary(b))
	nerr, nwarn := 0, 0
	for _, f := range ranger.Lint(b) {
		if f.Severity == ranger.SeverityError {
			nerr++
		} else {
			nwarn++
		}
	}
	if nerr+nwarn > 0 {
		fmt.Fprintf(stderr, "sqe fetch: lint: %d error(s), %d warning(s); run: sqe lint %s\n", nerr, nwarn, *out)
	}
	return nil
}

// bundleSummary describes a bundle's contents in one line.
func bundleSummary(b *ranger.Bundle) string {
	s := fmt.Sprintf("service %q, %d policies", b.ServiceName, len(b.Policies))
	if b.PolicyVersion != nil {
		s += fmt.Sprintf(" (version %d)", *b.PolicyVersion)
	}
	if b.TagPolicies != nil {
		s += fmt.Sprintf(", %d tag policies", len(b.TagPolicies.Policies))
	}
	if b.Roles != nil {
		s += fmt.Sprintf(", %d roles", len(b.Roles.RangerRoles))
	}
	if b.Tags != nil {
		s += fmt.Sprintf(", %d tagged resources", len(b.Tags.ServiceResources))
	}
	if b.UserStore != nil {
		s += ", user store"
	}
	return s
}
