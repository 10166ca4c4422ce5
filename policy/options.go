package policy

import (
	"log/slog"
	"time"
)

// Defaults of the evaluator's limits. Each can be changed with the Option
// named after it.
const (
	// DefaultMergeBound is the largest merged index (in entries: one per
	// table entry that one of the View's principals has rules on) a View
	// builds; a View whose principals have more entries keeps probing their
	// indexes one by one. See WithMergeBound.
	DefaultMergeBound = 100_000
	// DefaultMergeMinPrincipals is the number of pinned principal indexes
	// from which a View considers merging them. See WithMergeMinPrincipals.
	DefaultMergeMinPrincipals = 8
	// DefaultViewRetries is how often ViewWithRetry builds a View again
	// when the source published a newer snapshot while the View was built.
	// See WithViewRetries.
	DefaultViewRetries = 3
	// DefaultRetryBackoff is the pause before ViewWithRetry's second retry;
	// it doubles with every further retry (the first retry is immediate).
	// See WithRetryBackoff.
	DefaultRetryBackoff = 50 * time.Microsecond
	// DefaultDecisionCacheSize bounds the Decisions one View caches. See
	// WithDecisionCacheSize.
	DefaultDecisionCacheSize = 256
	// DefaultMemoSize is the number of entries of each kind (resolved
	// callers, Decision contents, links from a caller's principals and a
	// table to a content) a snapshot keeps for its Views to share. See
	// WithMemoSize.
	DefaultMemoSize = 1024
)

// Option configures Compile, the sources of this package (NewFileSource,
// NewMemorySource) and ViewWithRetry. An option that does not concern the
// function it is given to is ignored.
type Option func(*options)

type options struct {
	mergeBound    int
	mergeMinPins  int
	viewRetries   int
	retryBackoff  time.Duration
	decisionCache int
	memoSize      int
	partialLoads  bool
	deferredLoad  bool
	counters      *Counters
	validators    []func(*Compiled) error
	watch         bool
	watchDebounce time.Duration
	pollInterval  time.Duration
	logger        *slog.Logger // nil: slog.Default()
}

func defaultOptions() options {
	return options{
		mergeBound:    DefaultMergeBound,
		mergeMinPins:  DefaultMergeMinPrincipals,
		viewRetries:   DefaultViewRetries,
		retryBackoff:  DefaultRetryBackoff,
		decisionCache: DefaultDecisionCacheSize,
		memoSize:      DefaultMemoSize,
		partialLoads:  true,
		watchDebounce: DefaultWatchDebounce,
		pollInterval:  DefaultPollInterval,
	}
}

func buildOptions(base options, opts []Option) options {
	o := new(options) // escapes to the options; allocated only when called
	*o = base
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return *o
}

// WithMergeBound bounds the merged index a View builds when it holds many
// principals (default DefaultMergeBound entries). A View merges the indexes
// of its principals into one once the probes it made have cost as much as
// building the merge would; when the merge would exceed n entries it never
// merges and keeps probing. n <= 0 disables merging.
func WithMergeBound(n int) Option { return func(o *options) { o.mergeBound = n } }

// WithMergeMinPrincipals sets how many principal indexes a View must pin
// before it considers merging them (default DefaultMergeMinPrincipals).
func WithMergeMinPrincipals(n int) Option { return func(o *options) { o.mergeMinPins = n } }

// WithViewRetries sets how often ViewWithRetry rebuilds a View on a newer
// snapshot when the one it pinned was superseded while the View was built
// (default DefaultViewRetries). n <= 0 means no retries.
func WithViewRetries(n int) Option { return func(o *options) { o.viewRetries = max(n, 0) } }

// WithRetryBackoff sets the pause before ViewWithRetry's second retry
// (default DefaultRetryBackoff); the pause doubles with each further retry.
// The first retry never waits: the newer snapshot is already published.
func WithRetryBackoff(d time.Duration) Option {
	return func(o *options) { o.retryBackoff = max(d, 0) }
}

// WithDecisionCacheSize bounds the Decisions a View caches (default
// DefaultDecisionCacheSize). n <= 0 disables the cache: every Decide
// decides again, or takes the snapshot memo's shared, read-only Decision
// (see WithMemoSize).
func WithDecisionCacheSize(n int) Option { return func(o *options) { o.decisionCache = max(n, 0) } }

// WithMemoSize sets the size of a snapshot's memo (default
// DefaultMemoSize; rounded up to a power of two), which lets the
// snapshot's Views share what they resolve and decide instead of doing it
// again:
//
//   - what a View resolves from its caller (the held and active roles, the
//     principals it pins) depends only on the caller, so a View for a
//     caller (the same name, groups, roles, primary and secondary roles and
//     attributes) that an earlier View resolved shares that resolution;
//   - a Decision's content (its access maps, row filters, masks and
//     restricted columns) depends only on the rules that apply and the
//     access types granted, so Decides that arrive at the same ones, for
//     any caller and table, put the same read-only maps and row filters in
//     Decisions of their own;
//   - what a Decide finds depends only on the principals the View holds
//     and the table, so a later Decide for them skips the evaluation and
//     returns the same read-only Decision.
//
// The memo keeps up to n entries of each kind: a caller or a content the
// second time it is seen (one seen once costs nothing but a hash), and
// newer entries replace older ones. n <= 0 disables it: every View
// resolves its caller, and every Decision gets maps of its own.
func WithMemoSize(n int) Option { return func(o *options) { o.memoSize = max(n, 0) } }

// WithPartialLoads chooses how a FileSource treats a malformed roles,
// groups or users entry. On (the default), the file is read with
// ParsePartial: the principal the entry defines is marked unresolved, the
// snapshot is published (a partial load, counted in Stats.PartialLoads),
// and only decisions that depend on that principal fail closed. Off, the
// file is read with Parse and such an entry fails the whole reload.
func WithPartialLoads(on bool) Option { return func(o *options) { o.partialLoads = on } }

// WithDeferredLoad makes NewFileSource return the source even when its
// first load fails. Until a Reload succeeds, Snapshot fails with an error
// wrapping ErrNotLoaded (every statement fails closed); the failed load is
// counted in Stats.ReloadFailures.
func WithDeferredLoad() Option { return func(o *options) { o.deferredLoad = true } }

// WithCounters makes Compile, a source or ViewWithRetry record into c
// instead of their own Counters, so that several sources (or snapshots
// compiled by another package's source) share one set of counters.
func WithCounters(c *Counters) Option {
	return func(o *options) { o.counters = c }
}

// WithValidator makes a source (NewFileSource, NewMemorySource) check every
// policy set it compiles with v before publishing it: an error makes the
// load fail like a malformed file (the first load fails NewFileSource; a
// reload or Publish keeps the last good snapshot and is counted in
// Stats.ReloadFailures). The driver installs one that parses every
// expression for its dialect (see Compiled.CheckExpressions); sources also
// take validators after they were built (FileSource.SetValidator).
// Several WithValidator options add up.
func WithValidator(v func(*Compiled) error) Option {
	return func(o *options) {
		if v != nil {
			o.validators = append(o.validators[:len(o.validators):len(o.validators)], v)
		}
	}
}
