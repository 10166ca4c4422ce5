package ranger

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"
)

// Kerberos configures SPNEGO authentication (HTTP "Negotiate") to a
// Kerberized Ranger admin, as Ranger's plugins authenticate with
// hadoop.security.authentication=kerberos. The client logs in with one of
// Keytab, Password or CCache (in that order of preference) and sends a
// service ticket for SPN with every download; it uses the secure download
// endpoints.
type Kerberos struct {
	// Principal is the client principal: "name", "name/instance" or
	// either with "@REALM".
	Principal string
	// Realm is the principal's realm when Principal names none (default:
	// the configuration's default_realm).
	Realm string
	// Keytab is the path of a keytab file with the principal's keys.
	Keytab string
	// Password is the principal's password, when there is no keytab.
	Password string
	// CCache is the path of a credential cache that holds a ticket-granting
	// ticket (what kinit writes), when there is neither keytab nor password.
	CCache string
	// Config is the path of krb5.conf (default: $KRB5_CONFIG, else
	// /etc/krb5.conf).
	Config string
	// SPN is the admin's service principal (default "HTTP/<host>", the
	// admin URL's host in lower case, as Hadoop's authenticator names it).
	SPN string
}

// WithKerberos authenticates to the admin with Kerberos (SPNEGO). The
// keytab (or credential cache) and krb5.conf are read when the source is
// created; a configuration sqe cannot read is an error then.
func WithKerberos(k Kerberos) Option {
	return func(c *config) { c.kerberos = &k }
}

// kerberosAuth holds the Kerberos client of one source: it logs in once
// (gokrb5 renews the ticket-granting ticket itself) and sets the
// Negotiate header of each request.
type kerberosAuth struct {
	spn  string
	mu   sync.Mutex
	cl   *krbclient.Client
	made func() (*krbclient.Client, error)
}

func newKerberosAuth(k Kerberos) (*kerberosAuth, error) {
	confPath := k.Config
	if confPath == "" {
		if confPath = os.Getenv("KRB5_CONFIG"); confPath == "" {
			confPath = "/etc/krb5.conf"
		}
	}
	conf, err := krbconfig.Load(confPath)
	if err != nil {
		return nil, fmt.Errorf("ranger: kerberos: reading %s: %w", confPath, err)
	}
	name, realm := k.Principal, k.Realm
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		name, realm = name[:i], name[i+1:]
	}
	if realm == "" {
		realm = conf.LibDefaults.DefaultRealm
	}
	settings := []func(*krbclient.Settings){krbclient.DisablePAFXFAST(true)}
	n := &kerberosAuth{spn: k.SPN}
	switch {
	case k.Keytab != "":
		if name == "" || realm == "" {
			return nil, errors.New("ranger: kerberos: a keytab needs a principal and a realm")
		}
		kt, err := keytab.Load(k.Keytab)
		if err != nil {
			return nil, fmt.Errorf("ranger: kerberos: reading keytab %s: %w", k.Keytab, err)
		}
		n.made = func() (*krbclient.Client, error) {
			return krbclient.NewWithKeytab(name, realm, kt, conf, settings...), nil
		}
	case k.Password != "":
		if name == "" || realm == "" {
			return nil, errors.New("ranger: kerberos: a password needs a principal and a realm")
		}
		n.made = func() (*krbclient.Client, error) {
			return krbclient.NewWithPassword(name, realm, k.Password, conf, settings...), nil
		}
	case k.CCache != "":
		cc, err := credentials.LoadCCache(k.CCache)
		if err != nil {
			return nil, fmt.Errorf("ranger: kerberos: reading credential cache %s: %w", k.CCache, err)
		}
		n.made = func() (*krbclient.Client, error) { return krbclient.NewFromCCache(cc, conf, settings...) }
	default:
		return nil, errors.New("ranger: kerberos: no keytab, password or credential cache")
	}
	return n, nil
}

// client returns the logged-in client, logging in on first use (and again
// after a failed login).
func (n *kerberosAuth) client() (*krbclient.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cl != nil {
		return n.cl, nil
	}
	cl, err := n.made()
	if err == nil {
		err = cl.Login()
	}
	if err != nil {
		if cl != nil {
			cl.Destroy()
		}
		return nil, fmt.Errorf("ranger: kerberos login: %w", err)
	}
	n.cl = cl
	return cl, nil
}

// authorize sets req's Negotiate header with a service ticket for the
// admin at host.
func (n *kerberosAuth) authorize(req *http.Request, host string) error {
	cl, err := n.client()
	if err != nil {
		return err
	}
	spn := n.spn
	if spn == "" {
		spn = "HTTP/" + strings.ToLower(host)
	}
	if err := spnego.SetSPNEGOHeader(cl, req, spn); err != nil {
		return fmt.Errorf("ranger: kerberos: service ticket for %s: %w", spn, err)
	}
	return nil
}

// close ends the client's ticket renewal.
func (n *kerberosAuth) close() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cl != nil {
		n.cl.Destroy()
		n.cl = nil
	}
}
