package ranger

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sqe-project/sqe/policy"
)

// Option configures a Source (New, NewStatic, LoadBundle).
type Option func(*config)

type config struct {
	pollInterval time.Duration
	timeout      time.Duration
	backoffMin   time.Duration
	backoffMax   time.Duration
	basicUser    string
	basicPass    string
	bearer       string
	kerberos     *Kerberos
	headers      http.Header
	tlsConfig    *tls.Config
	httpClient   *http.Client
	cacheDir     string
	pluginID     string
	clusterName  string
	download     DownloadMode
	roles        bool
	tags         bool
	userStore    bool
	databaseFor  func(policy.TableName) string
	superUsers   []string
	superGroups  []string
	now          func() time.Time
	cacheSize    int
	onError      func(error)
	writeChecks  bool
	scriptLimit  time.Duration
	auditExcl    AuditExclusions
	// geoFiles maps the FilePath of a geolocation enricher to the file
	// sqe reads (WithGeolocationFile).
	geoFiles map[string]string
	// clientAddrAttr is the session attribute that holds the caller's
	// IP address (WithClientAddressAttribute).
	clientAddrAttr string
}

func defaultConfig() *config {
	return &config{
		pollInterval: 30 * time.Second,
		timeout:      10 * time.Second,
		backoffMin:   time.Second,
		backoffMax:   5 * time.Minute,
		pluginID:     "sqe",
		roles:        true,
		tags:         true,
		databaseFor:  func(t policy.TableName) string { return t.Schema },
		now:          time.Now,
		cacheSize:    10_000,
	}
}

func buildConfig(opts []Option) *config {
	c := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// WithPollInterval sets how often the admin is polled (default 30s).
func WithPollInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.pollInterval = d
		}
	}
}

// WithTimeout bounds each request to the admin (default 10s).
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithBackoff sets the wait after a failed poll: it starts at min and
// doubles up to max, and the poll interval resumes after a success
// (defaults 1s and 5m; never shorter than the poll interval).
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) {
		if min > 0 {
			c.backoffMin = min
		}
		if max >= c.backoffMin {
			c.backoffMax = max
		}
	}
}

// DownloadMode chooses between Ranger admin's secure download endpoints
// (/service/plugins/secure/policies/download/…, /service/roles/secure/download/…,
// /service/tags/secure/download/…, /service/xusers/secure/download/…), which
// authenticate the caller, and the non-secure ones, which hardened admins
// refuse.
type DownloadMode int

const (
	// DownloadAuto, the default, uses the secure endpoints when credentials
	// are configured (WithBasicAuth, WithBearerToken, WithKerberos, or an
	// Authorization header given to WithHeader) and the non-secure ones otherwise, as
	// Ranger's plugin does when authentication is enabled.
	DownloadAuto DownloadMode = iota
	// DownloadSecure always uses the secure endpoints.
	DownloadSecure
	// DownloadNonSecure always uses the non-secure endpoints.
	DownloadNonSecure
)

// WithDownloadMode forces the secure or the non-secure download endpoints
// (default DownloadAuto).
func WithDownloadMode(m DownloadMode) Option {
	return func(c *config) { c.download = m }
}

// secure reports whether the downloads use the secure endpoints.
func (c *config) secure() bool {
	switch c.download {
	case DownloadSecure:
		return true
	case DownloadNonSecure:
		return false
	}
	return c.bearer != "" || c.basicUser != "" || c.kerberos != nil || c.headers.Get("Authorization") != ""
}

// WithBasicAuth authenticates to the admin with HTTP basic authentication.
func WithBasicAuth(user, password string) Option {
	return func(c *config) { c.basicUser, c.basicPass = user, password }
}

// WithBearerToken authenticates to the admin with "Authorization: Bearer".
func WithBearerToken(token string) Option {
	return func(c *config) { c.bearer = token }
}

// WithHeader adds a header to every request to the admin.
func WithHeader(name, value string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = http.Header{}
		}
		c.headers.Add(name, value)
	}
}

// WithTLSConfig sets the TLS configuration for an https admin URL.
func WithTLSConfig(t *tls.Config) Option {
	return func(c *config) { c.tlsConfig = t }
}

// WithHTTPClient sets the HTTP client (its timeout and transport win over
// WithTimeout and WithTLSConfig).
func WithHTTPClient(h *http.Client) Option {
	return func(c *config) { c.httpClient = h }
}

// WithCacheDir keeps the last good download in dir (as Ranger plugins keep
// policy.cache.dir) and loads it at start when the admin is unreachable.
func WithCacheDir(dir string) Option {
	return func(c *config) { c.cacheDir = dir }
}

// WithPluginID sets the pluginId the admin sees (default "sqe").
func WithPluginID(id string) Option {
	return func(c *config) {
		if id != "" {
			c.pluginID = id
		}
	}
}

// WithClusterName sets the clusterName the admin sees with the policy,
// role and user-store downloads (Ranger's
// ranger.plugin.<service>.access.cluster.name; default none).
func WithClusterName(name string) Option {
	return func(c *config) { c.clusterName = name }
}

// WithWriteChecks makes every row filter also check the rows its users
// write (policy.RowFilter.Check, PostgreSQL's WITH CHECK): an INSERT or
// UPDATE that writes a row the filter would hide from its writer is
// refused. Ranger itself, and so the default, applies row filters to
// reads only.
func WithWriteChecks() Option { return func(c *config) { c.writeChecks = true } }

// AuditExclusions are users, groups and roles whose accesses are not
// audited: the plugin's own ranger.plugin.<service>.audit.exclude.users,
// .groups and .roles, which apply beside the service config's.
type AuditExclusions struct {
	Users, Groups, Roles []string
}

// WithAuditExclusions adds the plugin's audit exclusions (Ranger applies
// both the service config's and the plugin's).
func WithAuditExclusions(x AuditExclusions) Option {
	return func(c *config) { c.auditExcl = x }
}

// WithoutRoles stops downloading roles (role policies then match nobody).
func WithoutRoles() Option { return func(c *config) { c.roles = false } }

// WithoutTags stops downloading tags (tag policies then apply to nothing).
func WithoutTags() Option { return func(c *config) { c.tags = false } }

// WithUserStore also downloads the user store (user and group attributes
// for ${{USER.x}} expressions, and user-group mappings).
func WithUserStore() Option { return func(c *config) { c.userStore = true } }

// WithDatabaseMapper sets how a table's schema maps to the Ranger database
// name (default: the schema itself). For MySQL the schema is the MySQL
// database; for PostgreSQL it is the schema within the connected database.
func WithDatabaseMapper(f func(policy.TableName) string) Option {
	return func(c *config) {
		if f != nil {
			c.databaseFor = f
		}
	}
}

// WithDatabaseMap maps schema names (case-insensitive) to Ranger database
// names; schemas not in the map keep their name.
func WithDatabaseMap(m map[string]string) Option {
	lm := make(map[string]string, len(m))
	for k, v := range m {
		lm[strings.ToLower(k)] = v
	}
	return WithDatabaseMapper(func(t policy.TableName) string {
		if v, ok := lm[strings.ToLower(t.Schema)]; ok {
			return v
		}
		return t.Schema
	})
}

// WithSuperUsers adds super users (as the plugin's ranger.plugin.<service>.super.users).
func WithSuperUsers(users ...string) Option {
	return func(c *config) { c.superUsers = append(c.superUsers, users...) }
}

// WithSuperGroups adds super groups.
func WithSuperGroups(groups ...string) Option {
	return func(c *config) { c.superGroups = append(c.superGroups, groups...) }
}

// WithClock sets the clock used for access times (tests).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithDecisionCacheSize bounds the decisions a snapshot keeps for reuse by
// later Views of callers with the same fingerprint (default 10,000; 0
// evaluates every statement afresh).
func WithDecisionCacheSize(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.cacheSize = n
		}
	}
}

// WithScriptTimeLimit bounds one run of a policy condition script
// (default 25ms). A script still running at the limit is interrupted and
// counts against the caller, as any script that fails: the deny item it
// guards applies, the allow item does not, its row filter or mask
// applies.
func WithScriptTimeLimit(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.scriptLimit = d
		}
	}
}

// WithGeolocationFile makes sqe read the geolocation file of a
// service-def's geolocation enricher (Ranger's
// RangerFileBasedGeolocationProvider) from local instead of from the path
// its FilePath option names (enricherPath, such as
// "/etc/ranger/geo/geo.txt"). Without it, sqe reads the named path, as
// Ranger's plugin does. Give it once for each enricher file to move.
func WithGeolocationFile(enricherPath, local string) Option {
	return func(c *config) {
		if c.geoFiles == nil {
			c.geoFiles = map[string]string{}
		}
		c.geoFiles[enricherPath] = local
	}
}

// geoOpener opens an enricher's file where WithGeolocationFile put it.
func (c *config) geoOpener() GeolocationOpener {
	files := c.geoFiles
	return func(path string) (io.ReadCloser, error) {
		if local, ok := files[path]; ok {
			path = local
		}
		return openGeolocationFile(path)
	}
}

// WithClientAddressAttribute names the session attribute
// (session.User.Attributes) that holds the caller's IP address: Ranger's
// client IP address, which ctx.getClientIPAddress(), REQ.clientIPAddress,
// RangerIpMatcher conditions and the geolocation enrichers read. Without
// it, or for a caller without the attribute, sqe does not know the
// address, and every condition that reads it or a location counts
// against the caller. The application sets the attribute from what it
// trusts (its connection's peer address, or a trusted proxy's
// X-Forwarded-For).
func WithClientAddressAttribute(name string) Option {
	return func(c *config) { c.clientAddrAttr = name }
}

// WithErrorHandler is called with every failed poll (for logging).
func WithErrorHandler(f func(error)) Option {
	return func(c *config) { c.onError = f }
}
