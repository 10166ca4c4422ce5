package ranger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ErrServiceNotFound is wrapped by the error of a download the admin
// answered with 404: the service (or its tag service) does not exist.
var ErrServiceNotFound = errors.New("ranger: service not found")

// adminClient downloads a service's policies, roles, tags and user store
// from Ranger admin's plugin REST API, at one of one or more admin URLs.
type adminClient struct {
	bases  []*url.URL
	active atomic.Int32 // index in bases of the admin that last answered
	// failOvers counts requests sent on to the next admin.
	failOvers atomic.Uint64
	service   string
	cfg       *config
	secure    bool
	hc        *http.Client
	// negotiate is set with WithKerberos.
	negotiate *kerberosAuth
}

// newAdminClient parses adminURLs, a comma-separated list of admin URLs
// (Ranger's ranger.plugin.<service>.policy.rest.url).
func newAdminClient(adminURLs, service string, cfg *config) (*adminClient, error) {
	if strings.TrimSpace(service) == "" {
		return nil, fmt.Errorf("ranger: no service name")
	}
	var bases []*url.URL
	for _, adminURL := range strings.Split(adminURLs, ",") {
		adminURL = strings.TrimSpace(adminURL)
		if adminURL == "" {
			continue
		}
		u, err := url.Parse(strings.TrimRight(adminURL, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("ranger: admin URL %q is not an http(s) URL", adminURL)
		}
		bases = append(bases, u)
	}
	if len(bases) == 0 {
		return nil, fmt.Errorf("ranger: no admin URL in %q", adminURLs)
	}
	hc := cfg.httpClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.tlsConfig != nil {
			tr.TLSClientConfig = cfg.tlsConfig.Clone()
		}
		hc = &http.Client{Transport: tr, Timeout: cfg.timeout}
	}
	c := &adminClient{bases: bases, service: service, cfg: cfg, secure: cfg.secure(), hc: hc}
	if cfg.kerberos != nil {
		n, err := newKerberosAuth(*cfg.kerberos)
		if err != nil {
			return nil, err
		}
		c.negotiate = n
	}
	return c, nil
}

// close releases the client's Kerberos login.
func (c *adminClient) close() { c.negotiate.close() }

// adminURL is the (redacted) URL of the admin that last answered.
func (c *adminClient) adminURL() string {
	return c.bases[c.active.Load()].Redacted()
}

// status of one download.
type fetchStatus int

const (
	fetchNew fetchStatus = iota
	fetchUnchanged
)

// errFailOver marks a failure after which the next admin URL is tried: a
// transport error or a 5xx.
type errFailOver struct{ err error }

func (e errFailOver) Error() string { return e.err.Error() }
func (e errFailOver) Unwrap() error { return e.err }

// get downloads path (the secure or the non-secure one, as configured)
// into into. As Ranger's REST client does, it starts at the admin that
// last answered and, on a transport error or a 5xx, tries the next one;
// any other answer, a 404 included, is the answer. An admin that answers
// 200, 304 or 204 is remembered for the next requests.
func (c *adminClient) get(ctx context.Context, path, securePath string, q url.Values, into any) (fetchStatus, error) {
	if c.secure {
		path = securePath
	}
	start := int(c.active.Load())
	var errs []error
	for i := range c.bases {
		idx := (start + i) % len(c.bases)
		st, err := c.getFrom(ctx, c.bases[idx], path, q, into)
		var fo errFailOver
		if !errors.As(err, &fo) {
			if err == nil {
				c.active.Store(int32(idx))
			}
			return st, err
		}
		if len(c.bases) == 1 {
			return 0, fo.err
		}
		errs = append(errs, fmt.Errorf("%s: %w", c.bases[idx].Redacted(), fo.err))
		if ctx.Err() != nil || i == len(c.bases)-1 {
			break
		}
		c.failOvers.Add(1)
	}
	return 0, fmt.Errorf("ranger: no admin answered: %w", adminErrors(errs))
}

// adminErrors are the failures of each admin tried, on one line (for logs).
type adminErrors []error

func (e adminErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e adminErrors) Unwrap() []error { return e }

func (c *adminClient) getFrom(ctx context.Context, base *url.URL, path string, q url.Values, into any) (fetchStatus, error) {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + path + url.PathEscape(c.service)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range c.cfg.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	switch {
	case c.cfg.bearer != "":
		req.Header.Set("Authorization", "Bearer "+c.cfg.bearer)
	case c.cfg.basicUser != "":
		req.SetBasicAuth(c.cfg.basicUser, c.cfg.basicPass)
	case c.negotiate != nil:
		if err := c.negotiate.authorize(req, base.Hostname()); err != nil {
			// The KDC may be unreachable from here and not from the
			// next admin's network: try the next admin.
			return 0, errFailOver{err}
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which repeats the path and the query
		}
		return 0, errFailOver{fmt.Errorf("ranger: GET %s: %w", u.Path, err)}
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<31))
		if err != nil {
			return 0, errFailOver{fmt.Errorf("ranger: GET %s: reading the body: %w", u.Path, err)}
		}
		if err := decodeJSON(body, into); err != nil {
			return 0, fmt.Errorf("ranger: GET %s: malformed JSON: %w", u.Path, err)
		}
		return fetchNew, nil
	case http.StatusNotModified, http.StatusNoContent:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return fetchUnchanged, nil
	case http.StatusNotFound:
		return 0, fmt.Errorf("%w: %q (GET %s answered 404)", ErrServiceNotFound, c.service, u.Path)
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	err = fmt.Errorf("ranger: GET %s: %s: %s", u.Path, resp.Status, strings.TrimSpace(string(snippet)))
	switch {
	case resp.StatusCode >= 500:
		return 0, errFailOver{err}
	case resp.StatusCode == http.StatusBadRequest && !c.secure:
		// Since Ranger 2.1 (ranger.admin.allow.unauthenticated.access
		// false) and on every Kerberos admin, the non-secure download
		// endpoints answer 400.
		if c.cfg.download == DownloadNonSecure {
			return 0, fmt.Errorf("%w (the admin refuses non-secure downloads: drop WithDownloadMode(DownloadNonSecure) and configure credentials, so that the secure download endpoints are used)", err)
		}
		return 0, fmt.Errorf("%w (the admin refuses unauthenticated downloads: configure credentials, WithBasicAuth, WithBearerToken, WithKerberos or an Authorization header, so that the secure download endpoints are used)", err)
	case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && c.secure:
		return 0, fmt.Errorf("%w (the admin refused the credentials for the secure download)", err)
	}
	return 0, err
}

func activation(t time.Time) string {
	if t.IsZero() {
		return "-1"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// addClusterName adds the clusterName Ranger's plugin sends with the
// policy, role and user-store downloads (not with the tag download).
func (c *adminClient) addClusterName(q url.Values) {
	if c.cfg.clusterName != "" {
		q.Set("clusterName", c.cfg.clusterName)
	}
}

func (c *adminClient) policies(ctx context.Context, known int64, active time.Time) (*ServicePolicies, fetchStatus, error) {
	var sp ServicePolicies
	q := url.Values{
		"lastKnownVersion":     {strconv.FormatInt(known, 10)},
		"lastActivationTime":   {activation(active)},
		"pluginId":             {c.cfg.pluginID},
		"supportsPolicyDeltas": {"false"},
	}
	c.addClusterName(q)
	st, err := c.get(ctx, "/service/plugins/policies/download/", "/service/plugins/secure/policies/download/", q, &sp)
	if err != nil || st != fetchNew {
		return nil, st, err
	}
	if sp.ServiceDef == nil {
		return nil, 0, fmt.Errorf("ranger: policy download for %q: %w", c.service, errNoServiceDef)
	}
	return &sp, st, nil
}

func (c *adminClient) roles(ctx context.Context, known int64, active time.Time) (*Roles, fetchStatus, error) {
	var r Roles
	q := url.Values{
		"lastKnownRoleVersion": {strconv.FormatInt(known, 10)},
		"lastActivationTime":   {activation(active)},
		"pluginId":             {c.cfg.pluginID},
	}
	c.addClusterName(q)
	st, err := c.get(ctx, "/service/roles/download/", "/service/roles/secure/download/", q, &r)
	if err != nil || st != fetchNew {
		return nil, st, err
	}
	return &r, st, nil
}

func (c *adminClient) tags(ctx context.Context, known int64, active time.Time) (*ServiceTags, fetchStatus, error) {
	var t ServiceTags
	q := url.Values{
		"lastKnownVersion":   {strconv.FormatInt(known, 10)},
		"lastActivationTime": {activation(active)},
		"pluginId":           {c.cfg.pluginID},
		"supportsTagDeltas":  {"false"},
	}
	st, err := c.get(ctx, "/service/tags/download/", "/service/tags/secure/download/", q, &t)
	if err != nil || st != fetchNew {
		return nil, st, err
	}
	if t.IsDelta {
		return nil, 0, fmt.Errorf("ranger: tag download for %q is a delta, which sqe does not apply", c.service)
	}
	return &t, st, nil
}

func (c *adminClient) userStore(ctx context.Context, known int64, active time.Time) (*UserStore, fetchStatus, error) {
	var u UserStore
	q := url.Values{
		"lastKnownUserStoreVersion": {strconv.FormatInt(known, 10)},
		"lastActivationTime":        {activation(active)},
		"pluginId":                  {c.cfg.pluginID},
	}
	c.addClusterName(q)
	st, err := c.get(ctx, "/service/xusers/download/", "/service/xusers/secure/download/", q, &u)
	if err != nil || st != fetchNew {
		return nil, st, err
	}
	return &u, st, nil
}

// Fetch downloads a service's policies, roles and tags (and, with
// WithUserStore, its user store) from the Ranger admin (adminURL may list
// several, comma-separated, as for New) once and returns
// them as a bundle, for offline use with LoadBundle. Any part that fails
// to download fails the fetch, and so does a download sqe could not load.
func Fetch(ctx context.Context, adminURL, service string, opts ...Option) (*Bundle, error) {
	cfg := buildConfig(opts)
	c, err := newAdminClient(adminURL, service, cfg)
	if err != nil {
		return nil, err
	}
	defer c.close()
	b := &Bundle{}
	sp, st, err := c.policies(ctx, -1, time.Time{})
	if err != nil {
		return nil, err
	}
	if st != fetchNew {
		return nil, fmt.Errorf("ranger: the admin answered %q's policy download with no content", service)
	}
	b.ServicePolicies = *sp
	if cfg.roles {
		if b.Roles, _, err = c.roles(ctx, -1, time.Time{}); err != nil {
			return nil, err
		}
	}
	if cfg.tags {
		if b.Tags, _, err = c.tags(ctx, -1, time.Time{}); err != nil {
			return nil, err
		}
	}
	if cfg.userStore {
		if b.UserStore, _, err = c.userStore(ctx, -1, time.Time{}); err != nil {
			return nil, err
		}
	}
	b.FetchedAt = Time{time.Now().UTC()}
	b.AdminURL = c.adminURL()
	if _, err := compileSnapshot(b, cfg); err != nil {
		return nil, fmt.Errorf("ranger: %q's download does not load: %w", service, err)
	}
	return b, nil
}
