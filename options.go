package sqe

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Option configures a Connector (NewConnector, Open, OpenDB).
type Option func(*config)

// DefaultRewriteCacheSize is the number of rewritten statements a connector
// keeps unless WithRewriteCacheSize says otherwise.
const DefaultRewriteCacheSize = 10000

// DefaultRewriteCacheBytes is the memory the cached rewrites of a
// connector may hold unless WithRewriteCacheBytes says otherwise.
const DefaultRewriteCacheBytes = 64 << 20

// config is what the options set: the engine's configuration, and the
// driver wrappers' own settings.
type config struct {
	engine    engine.Config
	rawAccess bool
	// stmtCacheSize bounds each connection's prepared statements.
	stmtCacheSize int

	// planner replaces the policy engine; tests of the driver wrappers use it.
	planner planner
}

func newConfig(opts []Option) *config {
	c := &config{engine: engine.Config{CacheSize: DefaultRewriteCacheSize, CacheBytes: DefaultRewriteCacheBytes},
		stmtCacheSize: DefaultStatementCacheSize}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithPolicyFile loads policies from a native policy file (YAML, see package
// policy). A malformed file makes the connector fail to open.
//
// The connector follows a native file on disk (policy.WithWatch): when the
// file is written, renamed over or swapped in by a Kubernetes ConfigMap,
// it is reloaded in the background, without the program calling Reload
// and without statements waiting; statements already running finish
// under the policy they started with. A changed file that does not load —
// it does not parse, or an expression does not parse for the connector's
// dialect — keeps the last good policy, is counted
// (Stats.Policy.ReloadFailures from StatsOf, the sqe.policy.reloads metric
// with result=failed) and logged through slog.Default().
// When the directory cannot be watched the file is polled instead. Closing
// the sql.DB (the connector) stops the watcher. WithoutPolicyWatch turns
// it off.
func WithPolicyFile(path string) Option { return func(c *config) { c.engine.PolicyFile = path } }

// WithoutPolicyWatch makes WithPolicyFile read the file once: a change on
// disk is then seen only when the program reloads the source.
func WithoutPolicyWatch() Option { return func(c *config) { c.engine.NoPolicyWatch = true } }

// WithPolicy uses a policy source (a policy.FileSource, a Ranger source, …).
func WithPolicy(s policy.Source) Option { return func(c *config) { c.engine.Source = s } }

// WithDefaultUser runs statements whose context carries no session.User as
// u. Without it such statements fail with ErrNoSession.
func WithDefaultUser(u session.User) Option {
	return func(c *config) { cu := u.Clone(); c.engine.DefaultUser = &cu }
}

// WithDialect names the SQL dialect of the underlying database: "mysql"
// (MySQL, MariaDB) or "postgres". It is detected from the underlying driver
// otherwise (go-sql-driver/mysql, pgx, lib/pq).
func WithDialect(name string) Option { return func(c *config) { c.engine.Dialect = name } }

// WithCatalog supplies table metadata instead of reading it from the
// database's information_schema (for tests over sqlmock, or a fixed schema).
func WithCatalog(cat rewriter.Catalog) Option { return func(c *config) { c.engine.Catalog = cat } }

// WithTagSource adds tag sources: the tags they give a table's columns
// select tag masks (policy.Decision.TagMasks) like the tags of the policy
// file and of the database's column comments. A source is asked when a
// statement is rewritten; its answer is part of the cached rewrite, so a
// source whose tags change implements TagVersion() uint64 (a number that
// changes whenever any tag does), which sqe puts in the rewrite-cache key.
// A source that returns an error fails the statement.
func WithTagSource(sources ...policy.TagSource) Option {
	return func(c *config) { c.engine.TagSources = append(c.engine.TagSources, sources...) }
}

// WithAllowedFunctions lets the application's SQL call its own functions,
// by name: "calc_tax" allows the unqualified call calc_tax(…),
// "billing.calc_tax" allows billing.calc_tax(…) (case-insensitive).
// Without it only the dialect's built-in functions that compute on their
// arguments pass, and any other function is refused (ErrUnsupported,
// naming the function): see docs/security.md. A function runs with the
// database user's rights, outside sqe's sight: allow only functions that
// read nothing a caller may not see. Sequence functions (nextval, …) and
// the other refused built-ins can be allowed the same way, except those
// that read files or run programs. A native policy file can list the same
// names (functions: allow: [...]); a name allowed in either place passes.
func WithAllowedFunctions(names ...string) Option {
	return func(c *config) { c.engine.AllowedFunctions = append(c.engine.AllowedFunctions, names...) }
}

// WithAllowedTypes lets the application's SQL (PostgreSQL) cast to its own
// types, by name ("mood", "app.mood"). Without it a cast, or a column
// definition list, may only name a built-in type: a table's row type would
// tell the table's columns.
func WithAllowedTypes(names ...string) Option {
	return func(c *config) { c.engine.AllowedTypes = append(c.engine.AllowedTypes, names...) }
}

// WithServerMasks makes the masks that replace characters by class or
// digits (MASK, MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4 and the first/last N
// masks, of strings and integers, and on PostgreSQL the date masks that
// keep a part, MASK_DATE_SHOW_YEAR) call sqe's mask functions installed in
// the database (udf/native: compiled C functions for PostgreSQL and
// MariaDB, installed by an administrator) instead of computing them
// inline, which costs a full scan of masked strings many times the raw
// scan. The values are the same. Each connection checks that its server has the functions, loaded
// from the compiled library and at the version this sqe needs
// (udf.ServerMaskCheck); where it has not, every statement on that
// connection fails with an error that says what is missing. It cannot be
// combined with WithCatalog, which reads nothing from the server.
func WithServerMasks() Option { return func(c *config) { c.engine.ServerMasks = true } }

// WithRawConnAccess lets sql.Conn.Raw reach the underlying driver
// connection through the Unwrap method of sqe's connection. Code holding the
// raw connection bypasses every policy: enable it only for trusted code.
func WithRawConnAccess() Option { return func(c *config) { c.rawAccess = true } }

// WithRewriteCacheSize bounds the number of cached rewrites (default
// DefaultRewriteCacheSize; 0 disables the cache).
func WithRewriteCacheSize(n int) Option { return func(c *config) { c.engine.CacheSize = n } }

// WithRewriteCacheBytes bounds the memory the cached rewrites hold, as
// sqe estimates it from their SQL, tables and write checks (default
// DefaultRewriteCacheBytes; 0 disables the cache). The least recently
// used rewrites go first; a single rewrite larger than a sixteenth of the
// bound is not cached.
func WithRewriteCacheBytes(n int64) Option { return func(c *config) { c.engine.CacheBytes = n } }

// WithoutLiteralTemplates turns literal templates off. By default a read
// that is not in the rewrite cache by its text, but differs from one
// rewritten before only in the values of literals compared with columns
// (WHERE id = 42, IN lists, BETWEEN bounds), reuses that rewrite with its
// own values; the template is proven on a second rewrite with sentinel
// values when its shape is seen for the second time. Literals the rewrite
// reads (ORDER BY positions, LIKE patterns, function arguments, LIMIT)
// are never filled in (docs/performance.md).
func WithoutLiteralTemplates() Option {
	return func(c *config) { c.engine.NoLiteralTemplates = true }
}

// WithStatementCacheSize bounds the number of statements each connection
// keeps prepared on the server for drivers that decline direct execution
// with arguments, such as go-sql-driver/mysql without interpolateParams
// (default DefaultStatementCacheSize; 0 turns the cache off, and each such
// call is then prepared, executed and closed, as database/sql does). The
// server's limit on prepared statements (MariaDB max_prepared_stmt_count)
// must allow this many per open connection.
func WithStatementCacheSize(n int) Option { return func(c *config) { c.stmtCacheSize = n } }

// WithAudit sends one audit.Record per logical statement to sink, from a
// goroutine of its own through a bounded buffer (WithAuditBuffer). Without
// it, records go to audit.NewSlogSink(slog.Default()): refused and failed
// statements at Warn, allowed ones at Debug.
func WithAudit(sink audit.Sink) Option {
	return func(c *config) { c.engine.AuditSink, c.engine.AuditOff = sink, false }
}

// WithoutAudit turns auditing off.
func WithoutAudit() Option { return func(c *config) { c.engine.AuditOff = true } }

// WithAuditBuffer sets how many records may wait for the sink (default
// audit.DefaultBuffer); past it records are dropped and counted
// (Stats.AuditDropped, the sqe.audit.dropped metric), never blocking a
// statement.
func WithAuditBuffer(n int) Option { return func(c *config) { c.engine.AuditBuffer = n } }

// WithMeterProvider reports metrics through mp (OpenTelemetry metric API)
// instead of the global provider (otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.engine.MeterProvider = mp }
}
