package opa

import (
	"net/http"
	"time"

	"github.com/sqe-project/sqe/policy"
)

// Option configures a Source.
type Option func(*config)

type config struct {
	decision    string // the decision's path, "data.sqe.decision"
	cacheSize   int
	counters    *policy.Counters
	poll        time.Duration
	backoffMax  time.Duration
	timeout     time.Duration
	client      *http.Client
	headers     http.Header
	persistDir  string
	onError     func(error)
	decisionLog func(DecisionLogEntry)
	noLibrary   bool
}

// Defaults.
const (
	// DefaultDecision is the path of the decision document a bundle defines.
	DefaultDecision = "data.sqe.decision"
	// DefaultDecisionCacheSize bounds the decisions a snapshot memoizes.
	DefaultDecisionCacheSize = 100_000
	// DefaultPollInterval is how often New asks the bundle server for a
	// new revision (OPA's default polling is between 60 and 120 seconds).
	DefaultPollInterval = 60 * time.Second
	// DefaultTimeout bounds one bundle download.
	DefaultTimeout = 30 * time.Second
)

func defaultConfig() *config {
	return &config{
		decision:   DefaultDecision,
		cacheSize:  DefaultDecisionCacheSize,
		poll:       DefaultPollInterval,
		backoffMax: 5 * time.Minute,
		timeout:    DefaultTimeout,
	}
}

func buildConfig(opts []Option) *config {
	c := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.counters == nil {
		c.counters = policy.NewCounters()
	}
	return c
}

// WithDecision names the document the bundle's policy produces for one
// table and one action, as a data path ("data.sqe.decision" by default).
func WithDecision(path string) Option { return func(c *config) { c.decision = path } }

// WithDecisionCacheSize bounds the decisions a snapshot memoizes across
// its Views (0 turns the memo off; each View still keeps its own).
func WithDecisionCacheSize(n int) Option { return func(c *config) { c.cacheSize = n } }

// WithCounters makes the source record into ctr (shared with other
// sources, say) instead of counters of its own.
func WithCounters(ctr *policy.Counters) Option { return func(c *config) { c.counters = ctr } }

// WithPollInterval sets how often a remote source asks the bundle server
// for a new revision. Zero or less stops polling: the source then
// downloads once, at start, and on Refresh.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

// WithMaxBackoff bounds the pause between polls after failures (the pause
// doubles from the poll interval with each failure).
func WithMaxBackoff(d time.Duration) Option { return func(c *config) { c.backoffMax = d } }

// WithTimeout bounds one bundle download.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithHTTPClient sets the HTTP client of a remote source (TLS, proxies).
func WithHTTPClient(h *http.Client) Option { return func(c *config) { c.client = h } }

// WithHeader adds a header to every bundle request (an Authorization
// bearer token, as OPA's services credentials send it).
func WithHeader(name, value string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = http.Header{}
		}
		c.headers.Add(name, value)
	}
}

// WithBearerToken sends "Authorization: Bearer token" with every bundle
// request.
func WithBearerToken(token string) Option { return WithHeader("Authorization", "Bearer "+token) }

// WithPersistDir keeps the last good bundle a remote source downloaded in
// dir, as OPA's bundle persistence does, and loads it at start when the
// bundle server cannot be reached.
func WithPersistDir(dir string) Option { return func(c *config) { c.persistDir = dir } }

// WithErrorHandler is called with every failed background download or
// compile (the last good revision stays in force).
func WithErrorHandler(f func(error)) Option { return func(c *config) { c.onError = f } }

// WithDecisionLog is called once for every decision a snapshot evaluates
// (not for those it finds memoized), as OPA's decision logs record them.
func WithDecisionLog(f func(DecisionLogEntry)) Option { return func(c *config) { c.decisionLog = f } }

// WithoutLibrary leaves out the helper library (package sqe.lib) that is
// otherwise compiled with every bundle that does not define it.
func WithoutLibrary() Option { return func(c *config) { c.noLibrary = true } }
