package opa

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// Snapshot is one compiled bundle revision. It is immutable; its Views
// share its memo of decisions. It implements policy.Snapshot.
type Snapshot struct {
	version  uint64
	revision string
	origin   string
	comp     *compiled
	cfg      *config
	memo     *memo
}

var _ policy.Snapshot = (*Snapshot)(nil)

// Compile compiles a bundle into a Snapshot with a new version. An error
// wraps ErrBundle.
func Compile(b *Bundle, opts ...Option) (*Snapshot, error) {
	return compileSnapshot(context.Background(), b, buildConfig(opts))
}

func compileSnapshot(ctx context.Context, b *Bundle, cfg *config) (*Snapshot, error) {
	c, err := compileBundle(ctx, b, cfg)
	if err != nil {
		return nil, err
	}
	return &Snapshot{version: policy.NextVersion(), revision: b.Revision, origin: b.Origin, comp: c, cfg: cfg, memo: newMemo(cfg.cacheSize)}, nil
}

// Version returns the snapshot's version, unique in the process.
func (s *Snapshot) Version() uint64 { return s.version }

// Revision returns the bundle's revision (the manifest's, else a hash of
// its content).
func (s *Snapshot) Revision() string { return s.revision }

// Memoized returns the number of decisions the snapshot holds memoized.
func (s *Snapshot) Memoized() int { return s.memo.len() }

// View returns the caller's View. It never fails: which roles the caller
// holds and which are active is for the bundle's policy to decide (see
// the helper library).
func (s *Snapshot) View(u session.User) (policy.View, error) {
	v := &View{snap: s, user: u.Clone()}
	v.principal = principalFingerprint(v.user)
	v.fp = "opa:" + strconv.FormatUint(s.version, 10) + ":" + v.principal
	v.userTerm = userTerm(v.user)
	return v, nil
}

// principalFingerprint hashes every field of the caller the bundle may
// read.
func principalFingerprint(u session.User) string {
	h := sha256.New()
	str := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	list := func(l []string) {
		str(strconv.Itoa(len(l)))
		for _, x := range l {
			str(x)
		}
	}
	str(u.Name)
	list(u.Groups)
	list(u.Roles)
	str(u.PrimaryRole)
	list(u.SecondaryRoles)
	keys := make([]string, 0, len(u.Attributes))
	for k := range u.Attributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	str(strconv.Itoa(len(keys)))
	for _, k := range keys {
		str(k)
		str(u.Attributes[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func strings2(l []string) *ast.Term {
	ts := make([]*ast.Term, len(l))
	for i, s := range l {
		ts[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(ts...)
}

// userTerm is input.user.
func userTerm(u session.User) *ast.Term {
	attrs := make([][2]*ast.Term, 0, len(u.Attributes))
	for k, v := range u.Attributes {
		attrs = append(attrs, [2]*ast.Term{ast.StringTerm(k), ast.StringTerm(v)})
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("name"), ast.StringTerm(u.Name)),
		ast.Item(ast.StringTerm("groups"), strings2(u.Groups)),
		ast.Item(ast.StringTerm("roles"), strings2(u.Roles)),
		ast.Item(ast.StringTerm("primary_role"), ast.StringTerm(u.PrimaryRole)),
		ast.Item(ast.StringTerm("secondary_roles"), strings2(u.SecondaryRoles)),
		ast.Item(ast.StringTerm("attributes"), ast.ObjectTerm(attrs...)),
	)
}

// tableTerm is input.table.
func tableTerm(t policy.TableName, cols []policy.ColumnInfo) *ast.Term {
	cs := make([]*ast.Term, len(cols))
	for i, c := range cols {
		cs[i] = ast.ObjectTerm(
			ast.Item(ast.StringTerm("name"), ast.StringTerm(c.Name)),
			ast.Item(ast.StringTerm("type"), ast.StringTerm(c.Type)),
			ast.Item(ast.StringTerm("tags"), strings2(c.Tags)),
		)
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("schema"), ast.StringTerm(t.Schema)),
		ast.Item(ast.StringTerm("name"), ast.StringTerm(t.Table)),
		ast.Item(ast.StringTerm("columns"), ast.ArrayTerm(cs...)),
	)
}

// columnsSignature identifies the columns a decision was made for.
func columnsSignature(cols []policy.ColumnInfo) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(strconv.Itoa(len(c.Name)))
		b.WriteByte(':')
		b.WriteString(c.Name)
		b.WriteString(strconv.Itoa(len(c.Type)))
		b.WriteByte(':')
		b.WriteString(c.Type)
		b.WriteString(strconv.Itoa(len(c.Tags)))
		for _, t := range c.Tags {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(len(t)))
			b.WriteByte(':')
			b.WriteString(t)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// View is one caller's View on a Snapshot. It implements policy.View
// (with the snapshot version, the bundle's revision and decisions by
// columns; a bundle resolves no role hierarchy, names no columns to check
// and allows no functions by name), and is safe for concurrent use.
// Returned Decisions are shared and must not be modified.
type View struct {
	policy.BaseView

	snap      *Snapshot
	user      session.User
	principal string
	fp        string
	userTerm  *ast.Term

	mu    sync.Mutex
	cache map[memoKey]memoEntry
}

var _ policy.View = (*View)(nil)

// Fingerprint identifies the snapshot and every field of the caller.
func (v *View) Fingerprint() string { return v.fp }

// User returns a copy of the caller.
func (v *View) User() session.User { return v.user.Clone() }

// SnapshotVersion returns the version of the View's snapshot.
func (v *View) SnapshotVersion() uint64 { return v.snap.version }

// PolicyRevision returns the bundle revision the View decides with.
func (v *View) PolicyRevision() string { return v.snap.revision }

// ColumnsNeededError is what Decide returns: a decision reads the table's
// columns (input.table.columns), so the rewriter asks again with them
// through DecideColumnInfo. It wraps policy.ErrNeedsColumns, which
// matches policy.ErrAccessDenied, so a caller that cannot supply the
// columns fails closed.
type ColumnsNeededError struct{ Table policy.TableName }

func (e *ColumnsNeededError) Error() string {
	return fmt.Sprintf("sqe: opa: the decision on %s needs the table's columns", e.Table)
}

// Unwrap returns policy.ErrNeedsColumns.
func (e *ColumnsNeededError) Unwrap() error { return policy.ErrNeedsColumns }

// Decide asks for the table's columns (see ColumnsNeededError).
func (v *View) Decide(t policy.TableName) (*policy.Decision, error) {
	return nil, &ColumnsNeededError{Table: t}
}

// DecideColumns decides with the columns' names only (no types, no tags).
func (v *View) DecideColumns(t policy.TableName, columns []string) (*policy.Decision, error) {
	infos := make([]policy.ColumnInfo, len(columns))
	for i, c := range columns {
		infos[i] = policy.ColumnInfo{Name: c}
	}
	return v.DecideColumnInfo(t, infos)
}

// DecideColumnInfo implements policy.View: it evaluates the bundle's
// decision for the table, once per access type, and memoizes it per
// principal fingerprint, table and columns in the View and in the
// snapshot (bounded).
func (v *View) DecideColumnInfo(t policy.TableName, columns []policy.ColumnInfo) (*policy.Decision, error) {
	k := memoKey{principal: v.principal, table: t.Key(), columns: columnsSignature(columns)}
	v.mu.Lock()
	e, ok := v.cache[k]
	v.mu.Unlock()
	if ok {
		return e.d, e.err
	}
	if e, ok = v.snap.memo.get(k); !ok {
		d, err := v.evaluate(t, columns)
		e = memoEntry{d: d, err: err}
		v.snap.memo.put(k, e)
	}
	v.mu.Lock()
	if v.cache == nil {
		v.cache = map[memoKey]memoEntry{}
	}
	v.cache[k] = e
	v.mu.Unlock()
	return e.d, e.err
}

// DecisionLogEntry is one evaluated decision (see WithDecisionLog).
type DecisionLogEntry struct {
	Time     time.Time
	Revision string
	// Path is the decision's path (data.sqe.decision).
	Path   string
	User   string
	Table  policy.TableName
	Action string
	// Result is the decision document (nil when undefined or on error).
	Result any
	Err    error
}

// actionTerms are input.action for each access type.
var actionTerms = func() []*ast.Term {
	ts := make([]*ast.Term, len(policy.Accesses))
	for i, a := range policy.Accesses {
		ts[i] = ast.StringTerm(string(a))
	}
	return ts
}()

func (v *View) evaluate(t policy.TableName, columns []policy.ColumnInfo) (*policy.Decision, error) {
	s := v.snap
	tt := tableTerm(t, columns)
	docs := make([]*document, len(policy.Accesses))
	for i, a := range policy.Accesses {
		input := ast.NewObject(
			ast.Item(ast.StringTerm("user"), v.userTerm),
			ast.Item(ast.StringTerm("table"), tt),
			ast.Item(ast.StringTerm("action"), actionTerms[i]),
		)
		rs, err := s.comp.query.Eval(context.Background(), rego.EvalParsedInput(input))
		var result any
		if err == nil && len(rs) > 0 && len(rs[0].Expressions) > 0 {
			result = rs[0].Expressions[0].Value
		}
		if s.cfg.decisionLog != nil {
			s.cfg.decisionLog(DecisionLogEntry{Time: time.Now(), Revision: s.revision, Path: s.comp.decision,
				User: v.user.Name, Table: t, Action: string(a), Result: result, Err: err})
		}
		if err != nil {
			return nil, v.policyError(t, "", fmt.Sprintf("action %s: evaluation failed: %v", a, evalMessage(err)))
		}
		doc, err := parseDocument(result, len(rs) > 0)
		if err != nil {
			return nil, v.policyError(t, "", fmt.Sprintf("action %s: %v", a, err))
		}
		docs[i] = doc
	}
	return v.build(t, columns, docs)
}

// evalMessage is the first line of an evaluation error.
func evalMessage(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// PolicyError is a defect of a decision document: a document of the
// wrong shape, a mask sqe does not know, a column the table does not
// have. It wraps policy.ErrPolicy and names the rule.
type PolicyError struct {
	Table  policy.TableName
	Rule   string // the rule (a mask's or filter's name, else the decision's path)
	Detail string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("%v: opa %s on %s: %s", policy.ErrPolicy, e.Rule, e.Table, e.Detail)
}

// Unwrap returns policy.ErrPolicy.
func (e *PolicyError) Unwrap() error { return policy.ErrPolicy }

func (v *View) policyError(t policy.TableName, rule, detail string) error {
	if rule == "" {
		rule = v.snap.comp.decision
	}
	v.snap.cfg.counters.RecordFailClosed("opa_policy_error")
	return &PolicyError{Table: t, Rule: rule, Detail: detail}
}

// build merges the documents of the access types into one Decision: the
// allowed types are those whose document allows; row filters and
// restricted columns are those of every allowing document (so that no
// statement escapes one), masks those of the select document, completed
// by the others'.
func (v *View) build(t policy.TableName, columns []policy.ColumnInfo, docs []*document) (*policy.Decision, error) {
	path := v.snap.comp.decision
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{}, DeniedBy: map[policy.Access]string{}, AllowedBy: map[policy.Access]string{}}
	known := map[string]bool{}
	for _, c := range columns {
		known[strings.ToLower(c.Name)] = true
	}
	checkColumn := func(rule, col, what string) error {
		if len(columns) > 0 && !known[col] {
			return v.policyError(t, rule, fmt.Sprintf("%s column %q: the table has no such column", what, col))
		}
		return nil
	}
	all := true
	seenFilter := map[string]bool{}
	for i, a := range policy.Accesses {
		doc := docs[i]
		name := doc.policiesName()
		if !doc.allow {
			all = false
			if name == "" {
				name = path
				if !doc.defined {
					name += " (undefined)"
				}
			}
			d.DeniedBy[a] = name
			continue
		}
		if name == "" {
			name = path
		}
		d.Allowed[a], d.AllowedBy[a] = true, name
		for j, f := range doc.filters {
			rule := f.name
			if rule == "" {
				rule = path + ".row_filters[" + strconv.Itoa(j) + "]"
			}
			if !seenFilter[f.expr] {
				seenFilter[f.expr] = true
				d.RowFilters = append(d.RowFilters, policy.RowFilter{Expr: f.expr, Policy: rule, Check: f.check})
			}
		}
		for _, r := range doc.restricted {
			rule := r.name
			if rule == "" {
				rule = path + ".restricted"
			}
			if err := checkColumn(rule, r.column, "restricted"); err != nil {
				return nil, err
			}
			if d.Restricted == nil {
				d.Restricted = map[string]string{}
			}
			if _, ok := d.Restricted[r.column]; !ok {
				d.Restricted[r.column] = rule
			}
		}
		for _, col := range slices.Sorted(maps.Keys(doc.masks)) {
			m := doc.masks[col]
			if m.Policy == "" {
				m.Policy = path + ".masks." + col
			}
			if err := checkColumn(m.Policy, col, "masked"); err != nil {
				return nil, err
			}
			if d.Masks == nil {
				d.Masks = map[string]policy.Mask{}
			}
			if _, ok := d.Masks[col]; !ok {
				d.Masks[col] = m
			}
		}
		for tag, m := range doc.tagMasks {
			if m.Policy == "" {
				m.Policy = path + ".tag_masks." + tag
			}
			if d.TagMasks == nil {
				d.TagMasks = map[string]policy.Mask{}
			}
			if _, ok := d.TagMasks[tag]; !ok {
				d.TagMasks[tag] = m
			}
		}
	}
	if all {
		d.Allowed[policy.All] = true
		d.AllowedBy[policy.All] = d.AllowedBy[policy.Select]
	} else {
		d.DeniedBy[policy.All] = path
	}
	return d, nil
}
