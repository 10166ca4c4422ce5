package rewriter

import (
	"context"
	"iter"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// MaxPolicyDepth bounds how deep policy expressions may reach through
// other tables' policies (a row filter reading a mapping table whose own
// filter reads another table, …).
const MaxPolicyDepth = 8

// SystemTables is the dialect's answer about the server's own tables: a
// table sqe never lets the application read (Refused), and a table that
// lists columns or row statistics, to which sqe adds its own decision for
// the caller (Listing: nil when t is none).
type SystemTables interface {
	Refused(t policy.TableName) error
	Listing(t policy.TableName) (*Listing, error)
}

// Listing is what sqe adds to the caller's decision for a server table
// that lists columns or row statistics.
type Listing struct {
	// NullColumns are read as NULL: statistics that count the rows a
	// policy hides.
	NullColumns []string
	// Filter, when set, is the row filter that hides the rows naming the
	// caller's restricted columns (cols is never empty).
	Filter func(cols []RestrictedColumn) string
	// FoldNames: the restricted columns' schema and table are lower-cased
	// for Filter.
	FoldNames bool
}

// Statement is the dialect-neutral state of rewriting one statement. A
// dialect embeds it in its own rewrite state; Ref is its syntax tree's
// table-reference node (a pointer), which Sanction and Verify track.
type Statement[Ref comparable] struct {
	Ctx    context.Context
	Req    *Request
	system SystemTables
	// sanctioned holds every table reference the rewrite produced or
	// checked; Verify refuses a statement with any other.
	sanctioned map[Ref]bool
	tables     []policy.TableName
	seen       map[string]bool
	// inPolicy is the stack of tables whose policy expressions are being
	// rewritten, to refuse a policy that reaches its own table again.
	inPolicy []string
	// reads are the base tables the application's own SQL reads, in
	// order, for the locking clauses.
	reads []policy.TableName
	// uncacheable is set when the rewrite depends on more than the cache
	// key (the column listings read the list of tables).
	uncacheable      bool
	restricted       []RestrictedColumn
	restrictedLoaded bool
	// mergeable and conds are the statement's answers to the read form's
	// questions (see NeedsFence).
	mergeable bool
	conds     ConditionColumns
	// writeChecks are the row filters' checks of the rows the statement
	// writes (Result.WriteChecks).
	writeChecks []*WriteCheck
}

// NewStatement starts the rewrite of one statement of req; system answers
// about the server's own tables.
func NewStatement[Ref comparable](ctx context.Context, req *Request, system SystemTables) Statement[Ref] {
	return Statement[Ref]{Ctx: ctx, Req: req, system: system, sanctioned: map[Ref]bool{}, seen: map[string]bool{}}
}

// addTable records a base table the statement references.
func (s *Statement[Ref]) addTable(t policy.TableName) {
	if k := t.Key(); !s.seen[k] {
		s.seen[k] = true
		s.tables = append(s.tables, t)
	}
}

// Tables are the base tables the statement references, in order.
func (s *Statement[Ref]) Tables() []policy.TableName { return s.tables }

// Sanction records a table reference that the rewrite produced or checked.
func (s *Statement[Ref]) Sanction(ref Ref) { s.sanctioned[ref] = true }

// Plan records the table, refuses a table sqe never reads, and plans the
// access to it under the caller's view (or sqe's own decision for a
// catalog listing). A table whose policy expressions are being rewritten
// cannot be planned again inside them.
func (s *Statement[Ref]) Plan(t policy.TableName, access policy.Access) (*TablePlan, error) {
	if s.inPolicyOf(t) {
		return nil, &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "a policy of the table reaches the table again"}
	}
	s.addTable(t)
	req := s.Req
	if s.system != nil {
		if err := s.system.Refused(t); err != nil {
			return nil, err
		}
		overlay, err := s.listingView(t)
		if err != nil {
			return nil, err
		}
		if overlay != nil {
			cp := *s.Req
			cp.View = overlay
			req = &cp
		}
	}
	return PlanTable(s.Ctx, req, t, access)
}

// listingView returns the caller's view with sqe's additions for a server
// table that lists columns or row statistics, or nil when t is none.
func (s *Statement[Ref]) listingView(t policy.TableName) (policy.View, error) {
	l, err := s.system.Listing(t)
	if err != nil || l == nil {
		return nil, err
	}
	d, err := DecideTable(s.Ctx, s.Req, t)
	if err != nil {
		return nil, err
	}
	if !d.Allows(policy.Select) {
		return nil, nil // PlanTable refuses it
	}
	d = d.Clone()
	if len(l.NullColumns) > 0 {
		if d.Masks == nil {
			d.Masks = map[string]policy.Mask{}
		}
		for _, c := range l.NullColumns {
			d.Masks[strings.ToLower(c)] = policy.Mask{Type: "MASK_NULL", Policy: "sqe: row statistics"}
		}
	}
	if l.Filter != nil {
		cols, err := s.RestrictedColumns(l.FoldNames)
		if err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			if f := l.Filter(cols); f != "" {
				d.RowFilters = append(d.RowFilters, policy.RowFilter{Expr: f, Policy: "sqe: restricted columns"})
			}
		}
	}
	return Overlay(s.Req.View, t, d), nil
}

// RefuseReadPolicies refuses a statement form that would reveal what a
// read policy hides when any of tables is under one (a filter, a mask or
// a restricted column); detail says why.
func (s *Statement[Ref]) RefuseReadPolicies(tables []policy.TableName, detail string) error {
	for _, t := range tables {
		d, err := DecideTable(s.Ctx, s.Req, t)
		if err != nil {
			return err
		}
		if !d.Passthrough() {
			return &Error{Kind: ErrUnsupported, Table: t.String(), Detail: detail}
		}
	}
	return nil
}

func (s *Statement[Ref]) inPolicyOf(t policy.TableName) bool {
	if len(s.inPolicy) == 0 {
		return false
	}
	key := t.Key()
	for _, k := range s.inPolicy {
		if k == key {
			return true
		}
	}
	return false
}

// EnterPolicy starts rewriting the policy expressions of table t: it
// refuses a policy that reaches its own table again and policies nested
// deeper than MaxPolicyDepth. Every successful EnterPolicy is followed by
// LeavePolicy.
func (s *Statement[Ref]) EnterPolicy(t policy.TableName) error {
	if s.inPolicyOf(t) {
		return &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "a policy of the table reaches the table again"}
	}
	if len(s.inPolicy) >= MaxPolicyDepth {
		return &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "policies nest too deep"}
	}
	s.inPolicy = append(s.inPolicy, t.Key())
	return nil
}

// LeavePolicy ends the innermost EnterPolicy.
func (s *Statement[Ref]) LeavePolicy() { s.inPolicy = s.inPolicy[:len(s.inPolicy)-1] }

// AddRead records a base table the application's own SQL reads (not a
// policy expression).
func (s *Statement[Ref]) AddRead(t policy.TableName) { s.reads = append(s.reads, t) }

// ReadCount is the number of reads recorded so far (the start of a
// query's own reads, for LockReads).
func (s *Statement[Ref]) ReadCount() int { return len(s.reads) }

// LockReads checks a locking clause (FOR UPDATE, FOR SHARE): the
// application's reads since start need update access, as on the server,
// since the lock reaches the rows of the base tables.
func (s *Statement[Ref]) LockReads(start int) error {
	for _, t := range s.reads[start:] {
		if _, err := s.Plan(t, policy.Update); err != nil {
			return err
		}
	}
	return nil
}

// RestrictedColumns lists the caller's restricted columns of every table
// the connection sees (see the package function), once per statement. The
// rewrite then depends on the list of tables, so it is not cached.
func (s *Statement[Ref]) RestrictedColumns(foldNames bool) ([]RestrictedColumn, error) {
	if s.restrictedLoaded {
		return s.restricted, nil
	}
	s.uncacheable = true
	cols, err := RestrictedColumns(s.Ctx, s.Req, foldNames)
	if err != nil {
		return nil, err
	}
	s.restricted, s.restrictedLoaded = cols, true
	return cols, nil
}

// AddWriteChecks records row filters' checks of the rows the statement
// writes.
func (s *Statement[Ref]) AddWriteChecks(checks ...*WriteCheck) {
	s.writeChecks = append(s.writeChecks, checks...)
}

// Verify is the proof that no table reference escaped the rewrite: refs
// yields every table reference of the rewritten tree, whatever node holds
// it, and each must be one the rewrite sanctioned. name names a reference
// for the error.
func (s *Statement[Ref]) Verify(refs iter.Seq[Ref], name func(Ref) string) error {
	for ref := range refs {
		if !s.sanctioned[ref] {
			return &Error{Kind: ErrUnsupported, Table: name(ref), Detail: "a table reference in this statement form is not covered by sqe"}
		}
	}
	return nil
}

// Finish completes the statement's result: its text and what the core
// recorded.
func (s *Statement[Ref]) Finish(res *Result, sql string) {
	res.SQL = sql
	res.Tables = s.tables
	res.Cacheable = !s.uncacheable
	res.WriteChecks = s.writeChecks
}
