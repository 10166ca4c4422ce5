package engine

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/rewriter"
	_ "github.com/sqe-project/sqe/rewriter/mysql" // the MySQL dialect needs no cgo and is always linked
	"github.com/sqe-project/sqe/session"
)

// Engine plans statements for callers: it resolves the caller's view,
// rewrites the statement for it (through the rewrite cache), tracks each
// connection's state, and finishes each statement (audit, metrics, its
// effect on the connection). One Engine serves every connection of a
// connector and is safe for concurrent use; a ConnState is not.
type Engine struct {
	dialect     rewriter.Dialect
	source      policy.Source
	ownSource   bool // the engine created the source and closes it
	defaultUser *session.User
	static      rewriter.Catalog // WithCatalog: no metadata queries
	tagSources  []policy.TagSource
	allowed     allowedNames // WithAllowedFunctions, WithAllowedTypes
	schemas     *schemaCache
	cache       *rewriteCache
	templates   rewriter.LiteralTemplates // nil: no literal templates
	shapes      *shapeMarks               // shapes seen once, or without a template
	stats       *counters
	audit       *audit.Async // nil: auditing is off
	metrics     *metrics
	serverMasks bool // WithServerMasks
}

// allowedNames are the application's own functions and types.
type allowedNames struct{ functions, types []string }

// Config is what an Engine is built from; the sqe package's options fill
// it in (the option named in each comment).
type Config struct {
	PolicyFile string // WithPolicyFile
	// NoPolicyWatch: WithoutPolicyWatch; the policy file is read once.
	NoPolicyWatch bool
	Source        policy.Source    // WithPolicy
	DefaultUser   *session.User    // WithDefaultUser
	Dialect       string           // WithDialect ("": told by the driver)
	Catalog       rewriter.Catalog // WithCatalog
	TagSources    []policy.TagSource
	CacheSize     int   // WithRewriteCacheSize
	CacheBytes    int64 // WithRewriteCacheBytes
	// NoLiteralTemplates: WithoutLiteralTemplates; every statement not in
	// the rewrite cache by its text is rewritten on its own.
	NoLiteralTemplates bool
	// AllowedFunctions and AllowedTypes: the application's own functions
	// and types its SQL may use besides the built-ins.
	AllowedFunctions []string
	AllowedTypes     []string
	// ServerMasks: WithServerMasks; every connection's server must have
	// sqe's mask functions (udf/native), and the masks they compute
	// (udf.Target.ServerMasks) call them.
	ServerMasks bool

	AuditSink     audit.Sink // nil: audit.NewSlogSink(nil)
	AuditOff      bool
	AuditBuffer   int
	MeterProvider metric.MeterProvider // nil: the global one
}

// New returns the engine for the connections of base (whose driver tells
// the dialect when cfg names none).
func New(cfg Config, base driver.Connector) (*Engine, error) {
	d, err := dialectOf(cfg.Dialect, base)
	if err != nil {
		return nil, err
	}
	if cfg.ServerMasks {
		if _, ok := d.(rewriter.ServerMasker); !ok {
			return nil, fmt.Errorf("sqe: WithServerMasks: the %s dialect has no server mask functions", d.Name())
		}
		if cfg.Catalog != nil {
			return nil, errors.New("sqe: WithServerMasks checks the mask functions on each connection's server, which a static catalog (WithCatalog) does not read: use one or the other")
		}
	}
	e := &Engine{
		serverMasks: cfg.ServerMasks,
		dialect:     d,
		source:      cfg.Source,
		defaultUser: cfg.DefaultUser,
		static:      cfg.Catalog,
		tagSources:  cfg.TagSources,
		allowed:     allowedNames{functions: cfg.AllowedFunctions, types: cfg.AllowedTypes},
		schemas:     newSchemaCache(),
		cache:       newRewriteCache(cfg.CacheSize, cfg.CacheBytes),
		stats:       &counters{},
	}
	if t, ok := d.(rewriter.LiteralTemplates); ok && !cfg.NoLiteralTemplates {
		e.templates, e.shapes = t, newShapeMarks()
	}
	check := expressionCheck(d)
	if e.source == nil {
		if cfg.PolicyFile == "" {
			return nil, errors.New("sqe: no policy: use WithPolicyFile or WithPolicy (or policy= in the DSN)")
		}
		src, err := openPolicyFile(cfg.PolicyFile, check, !cfg.NoPolicyWatch)
		if err != nil {
			return nil, err
		}
		e.source, e.ownSource = src, true
	} else if check != nil {
		if err := checkGivenSource(e.source, d.Name(), check); err != nil {
			return nil, err
		}
	}
	m, err := newMetrics(cfg.MeterProvider)
	if err != nil {
		return nil, fmt.Errorf("sqe: metrics: %w", err)
	}
	e.metrics = m
	e.stats.onFail = m.refused
	if !cfg.AuditOff {
		sink := cfg.AuditSink
		if sink == nil {
			sink = audit.NewSlogSink(nil)
		}
		e.audit = audit.NewAsync(sink, cfg.AuditBuffer)
	}
	dropped := func() uint64 {
		if e.audit == nil {
			return 0
		}
		return e.audit.Dropped()
	}
	if err := m.observe(cfg.MeterProvider, dropped, e.sourceReloads); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("sqe: metrics: %w", err)
	}
	return e, nil
}

// ConfirmingCodes returns the server error codes that confirm the
// dialect's refusal (see rewriter.Server).
func (e *Engine) ConfirmingCodes(refusal *rewriter.Error) []string {
	return e.dialect.ConfirmingCodes(refusal)
}

// dialectOf returns the dialect named by WithDialect, or else the one that
// serves the base connector's driver, told by the driver's package.
func dialectOf(name string, base driver.Connector) (rewriter.Dialect, error) {
	if name == "" {
		d := base.Driver()
		t := reflect.TypeOf(d)
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		pkg := ""
		if t != nil {
			pkg = t.PkgPath()
		}
		var ok bool
		if name, ok = rewriter.ForDriver(pkg); !ok {
			return nil, fmt.Errorf("sqe: cannot tell the SQL dialect of driver %T: use WithDialect (registered: %s)", d, strings.Join(rewriter.Registered(), ", "))
		}
	}
	return rewriter.Find(name)
}

func (e *Engine) user(ctx context.Context) (session.User, error) {
	if u, ok := session.FromContext(ctx); ok {
		return u, nil
	}
	if e.defaultUser != nil {
		return *e.defaultUser, nil
	}
	return session.User{}, session.ErrNoSession
}

// view resolves the caller on ctx, with the connection's USE ROLE state,
// into a statement-local View.
func (e *Engine) view(ctx context.Context, cs *ConnState) (policy.View, error) {
	u, err := e.caller(ctx, cs)
	if err != nil {
		return nil, err
	}
	snap := e.memoSnapshot()
	v, err := e.viewFor(u)
	if err != nil {
		return nil, err
	}
	if snap != nil && cs != nil {
		if m := cs.fp; m == nil || m.version != snap.Version() || !sameUser(u, m.user) {
			// u is the engine's own copy (session.FromContext copies).
			cs.fp = &fingerprintMemo{version: snap.Version(), user: u, fp: v.Fingerprint()}
		}
	}
	return v, nil
}

// caller is the session user on ctx with the connection's USE ROLE state
// applied.
func (e *Engine) caller(ctx context.Context, cs *ConnState) (session.User, error) {
	u, err := e.user(ctx)
	if err != nil {
		e.stats.failClosed("no_session")
		return session.User{}, err
	}
	if cs != nil {
		if cs.roles != nil && cs.roles.user != u.Name {
			cs.roles = nil // the connection changed hands
		}
		u = cs.roles.apply(u)
	}
	return u, nil
}

// fingerprintMemo is the fingerprint of the last View a connection built:
// for the same caller on the same native snapshot, the View would be the
// same, so a prepared statement's caller check need not build it again.
type fingerprintMemo struct {
	version uint64 // of the snapshot (no pointer: an idle connection must not keep an old snapshot alive)
	user    session.User
	fp      string
}

// memoSnapshot returns the current snapshot when Views built on it can be
// memoized per caller: a native policy set, whose decisions depend on the
// caller and the snapshot only (a Ranger snapshot may also depend on the
// time of day).
func (e *Engine) memoSnapshot() policy.Snapshot {
	snap, err := e.source.Snapshot()
	if err != nil {
		return nil
	}
	if _, native := snap.(*policy.Compiled); !native {
		return nil
	}
	return snap
}

func (e *Engine) viewFor(u session.User) (policy.View, error) {
	v, err := policy.ViewWithRetry(e.source, u)
	if err != nil {
		if errors.Is(err, policy.ErrNotLoaded) {
			e.stats.failClosed("policy_not_loaded")
		} else {
			e.stats.failClosed("view")
		}
		return nil, err
	}
	if v.SnapshotVersion() == 0 {
		if snap, serr := e.source.Snapshot(); serr == nil {
			return versionedView{View: v, version: snap.Version()}, nil
		}
	}
	return v, nil
}

// versionedView remembers the version of the snapshot a View came from,
// for Views that do not tell it themselves. Every other method delegates
// to the View the source built.
type versionedView struct {
	policy.View
	version uint64
}

var _ policy.View = versionedView{}

func (v versionedView) SnapshotVersion() uint64 { return v.version }

// Fingerprint identifies the caller's policy view on ctx, with the
// connection's USE ROLE state: a statement prepared under one fingerprint
// is prepared again for another.
func (e *Engine) Fingerprint(ctx context.Context, cs *ConnState) (string, error) {
	if m := e.memoFor(ctx, cs); m != nil {
		return m.fp, nil
	}
	v, err := e.view(ctx, cs)
	if err != nil {
		return "", err
	}
	return v.Fingerprint(), nil
}

// memoFor returns the connection's fingerprint memo when it holds for
// the caller on ctx: the same caller in every field a View reads, no USE
// ROLE override on the connection, and the same native snapshot. It reads
// the caller in place (session.Peek) and copies nothing; nil means the
// statement takes the full path (e.view), which also reports a missing
// caller.
func (e *Engine) memoFor(ctx context.Context, cs *ConnState) *fingerprintMemo {
	m := cs.memo()
	if m == nil || cs.roles != nil {
		return nil
	}
	ref, ok := session.Peek(ctx)
	if !ok {
		if ref = e.defaultUser; ref == nil {
			return nil
		}
	}
	if snap := e.memoSnapshot(); snap == nil || snap.Version() != m.version || !sameUser(*ref, m.user) {
		return nil
	}
	return m
}

// sameUser reports whether a and b are the same caller in every field a
// View depends on.
func sameUser(a, b session.User) bool {
	return a.Name == b.Name && a.PrimaryRole == b.PrimaryRole && slices.Equal(a.Groups, b.Groups) &&
		slices.Equal(a.Roles, b.Roles) && slices.Equal(a.SecondaryRoles, b.SecondaryRoles) &&
		maps.Equal(a.Attributes, b.Attributes)
}

// tagVersion identifies the tag sources' state: the versions of those
// that have one, in order ("" without sources).
func (e *Engine) tagVersion() string {
	if len(e.tagSources) == 0 {
		return ""
	}
	var b []byte
	for _, s := range e.tagSources {
		if tv, ok := s.(interface{ TagVersion() uint64 }); ok {
			b = strconv.AppendUint(b, tv.TagVersion(), 10)
		}
		b = append(b, ',')
	}
	return string(b)
}

// catalogVersion is the version of the table metadata rewrites read.
func (e *Engine) catalogVersion() uint64 {
	if e.static != nil {
		return e.static.Version()
	}
	return e.schemas.version.Load()
}

func (e *Engine) catalog(cs *ConnState) rewriter.Catalog {
	if e.static != nil {
		return e.static
	}
	return &connCatalog{cache: e.schemas, dialect: e.dialect, query: cs.query}
}

// Plan plans query for the caller on ctx, as it will run on the
// connection whose state is cs. A refused statement returns, with its
// error, a plan marked Refused that holds what auditing the refusal needs
// (the SQL's fingerprint, the snapshot version); it is only
// ever passed to Finish.
func (e *Engine) Plan(ctx context.Context, cs *ConnState, query string) (*Plan, error) {
	ctx = e.anonymousContext(ctx, query)
	var version uint64
	p, err := e.planAt(ctx, cs, query, &version)
	if err != nil {
		return &Plan{Query: query, Refused: true, version: version,
			sqlFingerprint: audit.Fingerprint(query)}, err
	}
	return p, nil
}

// planAt is plan; it sets *snapVersion as soon as it knows the snapshot
// the statement is planned under.
func (e *Engine) planAt(ctx context.Context, cs *ConnState, query string, snapVersion *uint64) (*Plan, error) {
	if st, isRole, err := e.parseRoleStatement(query); isRole {
		if err != nil {
			e.stats.failClosed("unsupported")
			return nil, err
		}
		return e.planRoleStatement(ctx, cs, query, st, snapVersion)
	}
	// A caller the connection's memo knows, on the same native snapshot,
	// needs no View (and no copy of the caller) for a cached rewrite.
	var u session.User
	var v policy.View
	var fp string
	var version uint64
	var err error
	m := e.memoFor(ctx, cs)
	if m != nil {
		fp, u, version = m.fp, m.user, m.version
	} else {
		if v, err = e.view(ctx, cs); err != nil {
			return nil, err
		}
		fp, u, version = v.Fingerprint(), v.User(), v.SnapshotVersion()
	}
	*snapVersion = version
	if err := e.loadSession(ctx, cs); err != nil {
		e.stats.failClosed("session_state")
		return nil, err
	}
	key := rewriteKey{query: query, fingerprint: fp, tags: e.tagVersion(), catalog: e.catalogVersion(), session: cs.session}
	if hit := cs.rewrites.get(key); hit != nil {
		e.stats.cacheHit()
		e.metrics.cacheHit(ctx)
		if m == nil {
			return e.newPlan(query, fp, u, version, hit.c), nil
		}
		// The memo stands for the caller (u, fp and version are its),
		// and the key matched: the Plan built for the memo is this one.
		if hit.memo != m {
			hit.plan, hit.memo = e.newPlan(query, fp, u, version, hit.c), m
		}
		return hit.plan, nil
	}
	if c, ok := e.cache.get(key); ok {
		cs.rewrites.put(key, c)
		e.stats.cacheHit()
		e.metrics.cacheHit(ctx)
		return e.newPlan(query, fp, u, version, c), nil
	}
	// A miss: the rewrite's duration is measured from here.
	started := time.Now()
	lits, shape, templated := e.shapeOf(query, key)
	if templated {
		if c := e.fromTemplate(query, lits, shape); c != nil {
			e.cache.put(key, c)
			cs.rewrites.put(key, c)
			e.stats.cacheMiss()
			e.stats.templateHit()
			e.metrics.cacheMiss(ctx)
			e.metrics.rewritten(ctx, time.Since(started))
			return e.newPlan(query, fp, u, version, c), nil
		}
	}
	cat := e.catalog(cs)
	if v == nil {
		if v, err = e.view(ctx, cs); err != nil {
			return nil, err
		}
		if v.Fingerprint() != fp {
			// The snapshot changed in between: plan for the new one.
			fp, u, version = v.Fingerprint(), v.User(), v.SnapshotVersion()
			*snapVersion = version
			key.fingerprint = fp
		}
	}
	e.stats.cacheMiss()
	e.metrics.cacheMiss(ctx)
	req := &rewriter.Request{
		Dialect:          e.dialect.Name(),
		SQL:              query,
		View:             v,
		User:             u,
		Catalog:          cat,
		TagSources:       e.tagSources,
		Session:          cs.session,
		AllowedFunctions: e.allowed.functions,
		AllowedTypes:     e.allowed.types,
	}
	res, err := e.dialect.Rewrite(ctx, req)
	if err != nil {
		e.stats.failClosed(failReason(err))
		return nil, err
	}
	c := &cachedRewrite{result: res, sqlFingerprint: audit.Fingerprint(query), revision: v.PolicyRevision()}
	res.Protected = false
	c.unaudited = len(res.Tables) > 0
	for _, t := range res.Tables {
		d, err := rewriter.DecideTable(ctx, req, t)
		if err != nil {
			res.Protected = true
			c.unaudited = false
			c.tables = append(c.tables, audit.Table{Name: t.String()})
			continue
		}
		if !d.Passthrough() {
			res.Protected = true
		}
		c.unaudited = c.unaudited && unaudited(d, res.Kind)
		c.tables = append(c.tables, auditTable(t, d, res.Kind))
	}
	if res.Cacheable && e.cache.max > 0 {
		e.cache.put(key, c)
		cs.rewrites.put(key, c)
	}
	if templated && key.fingerprint == shape.fingerprint {
		e.learnShape(ctx, req, c, lits, shape)
	}
	e.metrics.rewritten(ctx, time.Since(started))
	return e.newPlan(query, fp, u, version, c), nil
}

func (e *Engine) newPlan(query, fp string, u session.User, version uint64, c *cachedRewrite) *Plan {
	return &Plan{Query: query, SQL: c.result.SQL, Fingerprint: fp, Result: c.result,
		who: u, version: version, tables: c.tables, sqlFingerprint: c.sqlFingerprint, revision: c.revision,
		unaudited: c.unaudited}
}

// cachedRewrite is a rewrite with what auditing it needs, computed once.
type cachedRewrite struct {
	result         *rewriter.Result
	tables         []audit.Table
	sqlFingerprint string
	revision       string // the policy revision, for sources that name one
	// unaudited: the policy source audits none of the statement's table
	// accesses (policy.Decision.Unaudited), so its success is not audited.
	unaudited bool
	// An entry keyed by a statement's shape (templates.go) holds its
	// template.
	template *rewriter.Template
}

// unaudited reports whether the access a statement of the kind makes to a
// table is one the decision does not audit: every access that granted it
// (see grantedBy) is unaudited.
func unaudited(d *policy.Decision, kind rewriter.Kind) bool {
	if len(d.Unaudited) == 0 {
		return false
	}
	var granted []policy.Access
	switch kind {
	case rewriter.KindSelect:
		granted = []policy.Access{policy.Select}
	case rewriter.KindInsert, rewriter.KindUpdate, rewriter.KindDelete:
		granted = []policy.Access{policy.Select}
		if d.Allows(policy.Update) {
			granted = []policy.Access{policy.Update}
		}
	case rewriter.KindDDL:
		for _, a := range []policy.Access{policy.Create, policy.Alter, policy.Drop, policy.Index} {
			if d.Allows(a) {
				granted = append(granted, a)
			}
		}
	}
	for _, a := range granted {
		if !d.Unaudited[a] {
			return false
		}
	}
	return len(granted) > 0
}

// auditTable summarises the policy applied to a table by a statement of
// the kind.
func auditTable(t policy.TableName, d *policy.Decision, kind rewriter.Kind) audit.Table {
	at := audit.Table{Name: t.String()}
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			at.Policies = append(at.Policies, p)
		}
	}
	for _, p := range grantedBy(d, kind) {
		at.AllowedBy = append(at.AllowedBy, p)
		add(p)
	}
	for _, f := range d.RowFilters {
		at.RowFilters = append(at.RowFilters, f.Policy)
		add(f.Policy)
	}
	if len(d.Masks) > 0 {
		at.Masks = map[string]string{}
		cols := make([]string, 0, len(d.Masks))
		for c := range d.Masks {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, c := range cols {
			at.Masks[c] = d.Masks[c].Type
			add(d.Masks[c].Policy)
		}
	}
	cols := make([]string, 0, len(d.Restricted))
	for c := range d.Restricted {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		at.Restricted = append(at.Restricted, c)
		add(d.Restricted[c])
	}
	return at
}

// grantedBy names the rules that granted a statement of the kind its
// access on a table: a read's select; a write's update (select for a table
// it only reads); a DDL statement's create, alter, drop and index grants.
func grantedBy(d *policy.Decision, kind rewriter.Kind) []string {
	first := func(as ...policy.Access) []string {
		for _, a := range as {
			if p := d.AllowedBy[a]; p != "" && d.Allows(a) {
				return []string{p}
			}
		}
		return nil
	}
	switch kind {
	case rewriter.KindInsert, rewriter.KindUpdate, rewriter.KindDelete:
		return first(policy.Update, policy.Select)
	case rewriter.KindDDL:
		var out []string
		for _, a := range []policy.Access{policy.Create, policy.Alter, policy.Drop, policy.Index} {
			if p := d.AllowedBy[a]; p != "" && d.Allows(a) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return out
	}
	return first(policy.Select)
}

func failReason(err error) string {
	switch {
	case errors.Is(err, policy.ErrPolicy):
		return "policy_error"
	case errors.Is(err, policy.ErrCheckViolation):
		return "check_violation"
	case errors.Is(err, policy.ErrAccessDenied):
		return "access_denied"
	case errors.Is(err, policy.ErrColumnDenied):
		return "column_denied"
	case errors.Is(err, rewriter.ErrSyntax):
		return "syntax"
	case errors.Is(err, rewriter.ErrUnsupported):
		return "unsupported"
	}
	return "error"
}

// Finish ends one logical statement, which started at started, after it
// ran or was refused (err): it reports it (metrics, audit) and, on
// success, applies its effect on the connection's state. p is nil, or
// marked Refused, when planning failed. Each logical statement is
// finished once.
func (e *Engine) Finish(ctx context.Context, cs *ConnState, p *Plan, started time.Time, err error) {
	e.record(ctx, p, started, err)
	if errors.Is(err, policy.ErrCheckViolation) {
		// Refused after planning, when the arguments were known (see
		// Conn.checkWrites); planAt counted every other refusal.
		e.stats.failClosed(failReason(err))
	}
	if p == nil || p.Result == nil {
		return
	}
	eff := p.Result.Effect
	if eff.InvalidateCatalog {
		e.schemas.invalidate()
	}
	if err != nil {
		return
	}
	if p.local != nil {
		if u, uerr := e.user(ctx); uerr == nil {
			cs.applyRoleStatement(u.Name, p.local)
		}
		return
	}
	cs.hold(eff, p.who.Name, p.Fingerprint)
	if eff.Session != nil {
		cs.session = eff.Session
	}
	if eff.RefreshSession {
		cs.reset()
		cs.sessionTouched = true
	}
}

// FlushAudit waits until the audit sink has received every record
// emitted so far, then goes on auditing through a new dispatcher. Call it
// only while no statement runs (tests, a program about to read its sink).
func (e *Engine) FlushAudit() {
	if e.audit == nil {
		return
	}
	_ = e.audit.Close()
	e.audit = audit.NewAsync(e.audit.Sink(), 0)
}

// Close releases what the engine holds: the audit dispatcher (after it
// delivered what was emitted), the metric callbacks, and the policy
// source it opened itself.
func (e *Engine) Close() error {
	if e.audit != nil {
		_ = e.audit.Close()
	}
	if e.metrics != nil {
		e.metrics.close()
	}
	if c, ok := e.source.(interface{ Close() error }); ok && e.ownSource {
		return c.Close()
	}
	return nil
}

// loadSession reads the connection state that name resolution and quoting
// depend on, once per connection and again after a statement changed it.
func (e *Engine) loadSession(ctx context.Context, cs *ConnState) error {
	if cs.loaded {
		return nil
	}
	if e.static != nil {
		var schema string
		var path []string
		if s, ok := e.static.(interface{ DefaultSchema() string }); ok {
			schema = s.DefaultSchema()
		}
		if s, ok := e.static.(interface{ SearchPath() []string }); ok {
			path = s.SearchPath()
		}
		cs.SetSession(e.dialect.FixedSession(schema, path))
		return nil
	}
	s, err := e.dialect.ReadSession(ctx, cs.query)
	if err != nil {
		return fmt.Errorf("sqe: reading the connection's session state: %w", err)
	}
	if e.serverMasks {
		// New checked that the dialect has them.
		if s, err = e.dialect.(rewriter.ServerMasker).UseServerMasks(ctx, cs.query, s); err != nil {
			return fmt.Errorf("sqe: WithServerMasks: %w", err)
		}
	}
	cs.SetSession(s)
	return nil
}

// sourceReloads reads the policy source's reload counters, for sources
// that keep them.
func (e *Engine) sourceReloads() (ok, failed uint64, known bool) {
	if r, isCounting := e.source.(policy.StatsReporter); isCounting {
		st := r.Stats()
		return st.Reloads, st.ReloadFailures, true
	}
	return 0, 0, false
}

// openPolicyFile opens a policy file: a Ranger bundle (JSON, as written by
// "sqe fetch" or a Ranger policy download) or a native policy file (YAML),
// whose every load (the first, which fails the open, and every reload)
// check validates, and which follows the file on disk when watch is set.
func openPolicyFile(path string, check func(*policy.Compiled) error, watch bool) (policy.Source, error) {
	isBundle, err := ranger.IsBundleFile(path)
	if err != nil {
		return nil, fmt.Errorf("sqe: policy file: %w", err)
	}
	if isBundle {
		return ranger.LoadBundle(path)
	}
	return policy.NewFileSource(path, policy.WithValidator(check), policy.WithWatch(watch))
}

// expressionCheck returns the check of a native policy set's SQL
// expressions (row filters, mapping filters, CUSTOM masks, masks' when
// conditions) with the dialect's own parser: each must parse as exactly
// one expression, and a when condition must read only its own row
// (rewriter.ConditionSyntax), or the policy does not load. nil when the
// dialect offers no parser.
func expressionCheck(d rewriter.Dialect) func(*policy.Compiled) error {
	sd, ok := d.(interface{ Syntax() rewriter.Syntax })
	if !ok {
		return nil
	}
	syn, name := sd.Syntax(), d.Name()
	return func(c *policy.Compiled) error {
		return c.CheckExpressions(func(x policy.Expression) error {
			text, what := x.Text, "row filter"
			switch x.Kind {
			case policy.ExprCheck:
				what = "row filter check"
			case policy.ExprCustomMask:
				text, what = "("+strings.ReplaceAll(text, "{col}", syn.QuoteIdent("sqe_col"))+")", "CUSTOM mask expression"
			case policy.ExprMaskWhen:
				if cs, ok := syn.(rewriter.ConditionSyntax); ok {
					if _, err := cs.ConditionColumns(text); err != nil {
						return fmt.Errorf("mask condition (when): %v", err)
					}
					return nil
				}
				what = "mask condition (when)"
			}
			if _, err := syn.CanonicalExpr(text); err != nil {
				return fmt.Errorf("%s does not parse as one %s SQL expression", what, name)
			}
			return nil
		})
	}
}

// checkGivenSource checks the current snapshot of a source given with
// WithPolicy, when it is a native policy set, and installs the check on
// the source for its later reloads, when the source takes validators.
func checkGivenSource(src policy.Source, dialect string, check func(*policy.Compiled) error) error {
	if vs, ok := src.(interface {
		SetValidator(name string, v func(*policy.Compiled) error)
	}); ok {
		vs.SetValidator("sqe expressions: "+dialect, check)
	}
	snap, err := src.Snapshot()
	if err != nil {
		return nil // not loaded yet: statements fail closed until it is
	}
	if c, native := snap.(*policy.Compiled); native {
		if err := check(c); err != nil {
			return fmt.Errorf("sqe: policy: %w", err)
		}
	}
	return nil
}

// Audits reports whether the engine audits statements (not WithoutAudit),
// which is when Finish needs their start.
func (e *Engine) Audits() bool { return e.audit != nil }

// Discarded counts and audits a connection closed because it held state
// opened by SQL text (why names it) when database/sql was about to hand
// it out again.
func (e *Engine) Discarded(cs *ConnState, why string) {
	e.stats.discarded.Add(1)
	if e.audit == nil {
		return
	}
	e.audit.Emit(&audit.Record{Time: time.Now(), Dialect: e.dialect.Name(), Kind: string(rewriter.KindSession),
		User: cs.heldBy, Allowed: true,
		Error: "connection closed before database/sql gave it to another caller: it held " + why})
}
