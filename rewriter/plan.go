package rewriter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/udf"
)

// Syntax is what the dialect-neutral planning needs to know about a dialect.
type Syntax interface {
	// UDF names the dialect for the mask generators.
	UDF() udf.Dialect
	// NamedClasses reports that the connection's server classifies
	// characters as Go's tables do, so that masks may name the classes
	// (udf.Target.NamedClasses).
	NamedClasses() bool
	// ServerMasks reports that the connection's server has sqe's mask
	// functions installed and checked (udf.Target.ServerMasks).
	ServerMasks() bool
	// QuoteIdent quotes one identifier.
	QuoteIdent(name string) string
	// CanonicalExpr parses text as exactly one SQL expression and returns it
	// formatted by the dialect's parser, so that text taken from a policy can
	// never reach outside its place in the statement.
	CanonicalExpr(text string) (string, error)
}

// SyntaxBase is the part of a dialect's Syntax that is the same in every
// dialect: what the connection's server is known to do. A dialect's
// syntax embeds it.
type SyntaxBase struct {
	// Named is the connection's Session.NamedClasses: its server
	// classifies characters as Go's tables do.
	Named bool
	// Server is the connection's Session.ServerMasks: its server has
	// sqe's mask functions, checked by udf.ServerMaskCheck.
	Server bool
}

// NamedClasses reports Named.
func (b SyntaxBase) NamedClasses() bool { return b.Named }

// ServerMasks reports Server.
func (b SyntaxBase) ServerMasks() bool { return b.Server }

// ConditionSyntax is implemented by the Syntax of a dialect that can read
// a mask's when condition (policy.Mask.When).
type ConditionSyntax interface {
	// ConditionColumns parses text as exactly one expression that reads
	// only columns of its own row, unqualified, and context functions,
	// and returns those columns, lower-cased, each once. A subquery, a
	// qualified column (another table, or the table under another name),
	// an aggregate or window, a variable or a placeholder is an error.
	ConditionColumns(text string) ([]string, error)
}

// syntaxOf returns the Syntax of the request's dialect, when it is
// registered and has one.
func syntaxOf(req *Request) (Syntax, bool) {
	if req.Dialect == "" {
		return nil, false
	}
	d, ok := Lookup(req.Dialect)
	if !ok {
		return nil, false
	}
	sd, ok := d.(interface{ Syntax() Syntax })
	if !ok {
		return nil, false
	}
	return sd.Syntax(), true
}

// conditionError checks a mask's when condition against the table's
// columns: bad is false when the condition reads only its own row and
// only columns the table has; otherwise detail is the policy error's.
func conditionError(syn Syntax, when string, cols []Column) (detail string, bad bool) {
	cs, ok := syn.(ConditionSyntax)
	if !ok {
		if _, err := syn.CanonicalExpr(when); err != nil {
			return "mask condition (when) is not a single SQL expression", true
		}
		return "", false
	}
	names, err := cs.ConditionColumns(when)
	if err != nil {
		return "mask condition (when): " + err.Error(), true
	}
	for _, n := range names {
		if !slices.ContainsFunc(cols, func(c Column) bool { return strings.EqualFold(c.Name, n) }) {
			return fmt.Sprintf("mask condition (when) reads column %q, which the table does not have", n), true
		}
	}
	return "", false
}

// TablePlan is how one base-table reference is read or written for one
// caller: the Decision, and the columns the caller may see.
type TablePlan struct {
	Table    policy.TableName
	Decision *policy.Decision
	// Columns are the columns the caller may see (restricted ones removed),
	// in ordinal order. Nil when the decision is a passthrough and the
	// catalog was not consulted.
	Columns []Column
	// All are all the table's columns, as the catalog reports them.
	All []Column
}

// PlanTable asks the view for the table's decision, checks the access and,
// when the decision changes what a read sees, loads the table's columns.
func PlanTable(ctx context.Context, req *Request, t policy.TableName, access policy.Access) (*TablePlan, error) {
	d, err := DecideTable(ctx, req, t)
	if err != nil {
		return nil, err
	}
	if err := checkNamedColumns(ctx, req, t, access); err != nil {
		return nil, err
	}
	if !d.Allows(access) {
		return nil, &Error{Kind: policy.ErrAccessDenied, Table: t.String(), Policy: d.Reason(access),
			Detail: fmt.Sprintf("%s denied", access)}
	}
	p := &TablePlan{Table: t, Decision: d}
	if d.Passthrough() {
		return p, nil
	}
	if req.Catalog == nil {
		return nil, &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "no catalog to read the columns of a table under policy"}
	}
	cols, found, err := req.Catalog.Columns(ctx, t)
	if err != nil {
		return nil, &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "reading table metadata failed: " + err.Error()}
	}
	if !found || len(cols) == 0 {
		return nil, &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "table is under policy but its columns are unknown"}
	}
	p.All = cols
	if len(d.TagMasks) > 0 {
		tagged, err := withSourceTags(ctx, req, t, cols)
		if err != nil {
			return nil, err
		}
		d = applyTagMasks(req, d, tagged)
		p.Decision = d
	}
	for _, c := range cols {
		if _, restricted := d.Restricted[strings.ToLower(c.Name)]; !restricted {
			p.Columns = append(p.Columns, c)
		}
	}
	if len(p.Columns) == 0 {
		return nil, &Error{Kind: policy.ErrColumnDenied, Table: t.String(), Detail: "every column is restricted"}
	}
	if err := p.checkMasks(req); err != nil {
		return nil, err
	}
	if err := p.checkHive(req); err != nil {
		return nil, err
	}
	return p, nil
}

// checkMasks fails closed, with an error wrapping policy.ErrPolicy, when a
// mask of the caller's decision cannot be computed for its column's type
// (a REDACT constant the type cannot hold, a regexp over a number): the
// table's plan fails for every statement of the callers the mask applies
// to, whichever columns the statement reads, the same way on every
// dialect. (A tag's mask that cannot be computed restricts the column
// instead; see applyTagMasks.)
func (p *TablePlan) checkMasks(req *Request) error {
	if req.Dialect == "" {
		return nil // MaskExpr reports it when the column is read
	}
	syn, hasSyntax := syntaxOf(req)
	for _, c := range p.Columns {
		m, masked := p.Mask(c.Name)
		if !masked {
			continue
		}
		if _, err := maskSQL(udf.Target{Dialect: udf.Dialect(req.Dialect), Column: c.Name, DataType: c.DataType,
			ColumnType: c.ColumnType}, m.Type, m.Args, m.Expr); err != nil {
			return p.maskError(c, m, err)
		}
		if m.When != "" && hasSyntax {
			if detail, bad := conditionError(syn, m.When, p.All); bad {
				return &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: c.Name, Policy: m.Policy, Detail: detail}
			}
		}
	}
	return nil
}

// maskError is the policy error of a mask that cannot be computed.
func (p *TablePlan) maskError(c Column, m policy.Mask, err error) error {
	return &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: c.Name, Policy: m.Policy,
		Detail: "the column's type cannot take the mask: " + strings.TrimPrefix(err.Error(), "udf: ")}
}

// checkNamedColumns fails closed, with an error wrapping policy.ErrPolicy
// that names the rule, when a rule of the table's policy names a column the
// table does not have: a mask or restriction on a misspelt column protects
// nobody, so every caller's reads and writes of the table are refused (not
// only those of the callers the rule applies to) until the policy or the
// table is fixed. Only statements that read or write rows (select, update)
// are checked: DDL can still fix the table. A table that does not exist is
// left to the server. A column that a mask's when condition reads is
// checked the same way (the dialect's ConditionSyntax reads it). The check
// costs two map lookups for a table whose rules name no column.
func checkNamedColumns(ctx context.Context, req *Request, t policy.TableName, access policy.Access) error {
	if access != policy.Select && access != policy.Update {
		return nil
	}
	refs := req.View.NamedColumns(t)
	conds := req.View.MaskConditions(t)
	if len(refs) == 0 && len(conds) == 0 {
		return nil
	}
	if req.Catalog == nil {
		return &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "no catalog to check the columns the table's policy names"}
	}
	cols, found, err := req.Catalog.Columns(ctx, t)
	if err != nil {
		return &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "reading table metadata failed: " + err.Error()}
	}
	if !found {
		return nil
	}
	for _, ref := range refs {
		if !slices.ContainsFunc(cols, func(c Column) bool { return strings.EqualFold(c.Name, ref.Column) }) {
			return &Error{Kind: policy.ErrPolicy, Table: t.String(), Column: ref.Column, Policy: ref.Rule,
				Detail: fmt.Sprintf("%s rule names column %q, which the table does not have", ref.Section, ref.Column)}
		}
	}
	if len(conds) == 0 {
		return nil
	}
	syn, ok := syntaxOf(req)
	if !ok {
		return nil // the callers the mask applies to are checked when it is placed (MaskExpr)
	}
	for _, mc := range conds {
		if detail, bad := conditionError(syn, mc.When, cols); bad {
			return &Error{Kind: policy.ErrPolicy, Table: t.String(), Column: mc.Column, Policy: mc.Rule, Detail: detail}
		}
	}
	return nil
}

// DecideTable is the table's Decision for req's View, as PlanTable gets
// it: a View that needs the table's columns to decide (its Decide fails
// with policy.ErrNeedsColumns) is asked again with them, from req's
// catalog.
func DecideTable(ctx context.Context, req *Request, t policy.TableName) (*policy.Decision, error) {
	d, err := req.View.Decide(t)
	if err != nil && errors.Is(err, policy.ErrNeedsColumns) {
		d, err = decideWithColumns(ctx, req, t)
	}
	return d, err
}

// decideWithColumns asks the View again with the table's columns.
func decideWithColumns(ctx context.Context, req *Request, t policy.TableName) (*policy.Decision, error) {
	if req.Catalog == nil {
		return nil, &Error{Kind: policy.ErrAccessDenied, Table: t.String(), Detail: "the decision depends on the table's columns, which are unknown"}
	}
	cols, found, err := req.Catalog.Columns(ctx, t)
	if err != nil || !found {
		return nil, &Error{Kind: policy.ErrAccessDenied, Table: t.String(), Detail: "the decision depends on the table's columns, which are unknown"}
	}
	infos := make([]policy.ColumnInfo, len(cols))
	for i, c := range cols {
		typ := c.ColumnType
		if typ == "" {
			typ = c.DataType
		}
		infos[i] = policy.ColumnInfo{Name: c.Name, Type: typ, Tags: c.Tags}
	}
	return req.View.DecideColumnInfo(t, infos)
}

// Passthrough reports whether the reference can stay as it is.
func (p *TablePlan) Passthrough() bool { return p.Decision.Passthrough() }

// RestrictedBy returns the policy that restricts the column, if any.
func (p *TablePlan) RestrictedBy(column string) (string, bool) {
	pol, ok := p.Decision.Restricted[strings.ToLower(column)]
	return pol, ok
}

// Mask returns the column's mask, if any (MASK_NONE counts as none).
func (p *TablePlan) Mask(column string) (policy.Mask, bool) {
	m, ok := p.Decision.Masks[strings.ToLower(column)]
	if !ok || m.Type == udf.TypeNone {
		return policy.Mask{}, false
	}
	return m, true
}

// Column returns the catalog entry of a column (case-insensitive).
func (p *TablePlan) Column(name string) (Column, bool) {
	for _, c := range p.All {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// MaskExpr returns the SQL text of the masked value of col, computed over
// the raw column reference ref (already quoted). ok is false when the
// column is not masked.
//
// A conditional mask (Mask.When) is the CASE of udf.WhenSQL: the
// condition reads the row's raw columns (unqualified in the text; the
// dialect qualifies them as it does a row filter's), and where it is
// not false the mask applies. The CASE is the column's value wherever
// the statement reads it, so everything that treats a mask as a mask
// (the fence, the guarded writes) treats it alike.
func (p *TablePlan) MaskExpr(syn Syntax, col Column, ref string) (expr string, ok bool, err error) {
	m, masked := p.Mask(col.Name)
	if !masked {
		return "", false, nil
	}
	t := udf.Target{
		Dialect:      syn.UDF(),
		Column:       ref,
		DataType:     col.DataType,
		ColumnType:   col.ColumnType,
		NamedClasses: syn.NamedClasses(),
		Collation:    col.Collation,
		ServerMasks:  syn.ServerMasks(),
	}
	expr, err = maskSQL(t, m.Type, m.Args, m.Expr)
	if err != nil {
		return "", false, p.maskError(col, m, err)
	}
	if m.Hive {
		// Hive SQL is translated with the column in place, before the
		// values go in and the dialect inlines the context functions.
		if expr, err = HiveExprSQL(syn, expr); err != nil {
			return "", false, p.hiveMaskError(col, m, err)
		}
	}
	if len(m.Values) > 0 || policy.HasRequestValueMarker(m.Expr) {
		// The values go in after udf has placed the column: the
		// dialect's parser finds each marker's place in the whole
		// expression.
		if expr, err = PolicyExprSQL(syn, expr, m.Values); err != nil {
			return "", false, &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: col.Name, Policy: m.Policy,
				Detail: "mask expression: " + err.Error()}
		}
	}
	if m.When != "" {
		if detail, bad := conditionError(syn, m.When, p.All); bad {
			return "", false, &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: col.Name, Policy: m.Policy, Detail: detail}
		}
		cond, err := syn.CanonicalExpr(m.When)
		if err != nil {
			return "", false, &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: col.Name, Policy: m.Policy,
				Detail: "mask condition (when) is not a single SQL expression"}
		}
		expr = udf.WhenSQL(t, m.Type, cond, expr)
	}
	return expr, true, nil
}

// DerivedSelect returns the text of the read form of the table:
//
//	SELECT <mask(c) AS c for each visible column> FROM <schema>.<table> WHERE <filters>
//
// With guardMasks (the dialect found the filters a conjunction of simple
// comparisons, which cannot fail on a value), each mask is computed only
// on a row the filters admit:
//
//	CASE WHEN <filters> THEN <mask(c)> END AS c
//
// so that wherever the server evaluates the column once it has merged the
// derived table into the statement (a condition tested before the filter,
// the nullable side of an outer join), a hidden row gives NULL and no
// mask expression ever runs on its values. On a row the filters admit the
// column is the mask, as without the guard. See NeedsFence.
//
// Every mask and filter expression goes through syn.CanonicalExpr first.
// The caller parses the text with its dialect's parser.
func (p *TablePlan) DerivedSelect(syn Syntax, guardMasks bool) (string, error) {
	where, err := p.FilterSQL(syn)
	if err != nil {
		return "", err
	}
	from := syn.QuoteIdent(p.Table.Schema) + "." + syn.QuoteIdent(p.Table.Table)
	// The pieces first, then one string of their size: the masks make the
	// text some kilobytes, built again by every statement that reads the
	// table (the text is the read form's key).
	pieces := make([]string, 0, 8*len(p.Columns)+5)
	pieces = append(pieces, "SELECT ")
	for i, c := range p.Columns {
		if i > 0 {
			pieces = append(pieces, ", ")
		}
		ref := from + "." + syn.QuoteIdent(c.Name)
		expr, masked, err := p.MaskExpr(syn, c, ref)
		if err != nil {
			return "", err
		}
		switch {
		case !masked:
			pieces = append(pieces, ref)
		default:
			canon, err := syn.CanonicalExpr(expr)
			if err != nil {
				m, _ := p.Mask(c.Name)
				return "", &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: c.Name, Policy: m.Policy,
					Detail: "mask expression is not a single SQL expression"}
			}
			if guardMasks && where != "" {
				pieces = append(pieces, "CASE WHEN ", where, " THEN (", canon, ") END")
			} else {
				pieces = append(pieces, "(", canon, ")")
			}
		}
		pieces = append(pieces, " AS ", syn.QuoteIdent(c.Name))
	}
	pieces = append(pieces, " FROM ", from)
	if where != "" {
		pieces = append(pieces, " WHERE ", where)
	}
	return strings.Join(pieces, ""), nil
}

// FilterSQL returns the ANDed row filters, each canonicalised, or "" when
// the table has none.
func (p *TablePlan) FilterSQL(syn Syntax) (string, error) {
	var b strings.Builder
	for i, f := range p.Decision.RowFilters {
		canon, err := policyExprSQL(syn, f.Expr, f.Values, f.Hive)
		if err != nil {
			var he *HiveFunctionError
			if errors.As(err, &he) || len(f.Values) > 0 || policy.HasRequestValueMarker(f.Expr) {
				return "", p.FilterError(f, err.Error())
			}
			return "", p.FilterError(f, "not a single SQL expression")
		}
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString("(" + canon + ")")
	}
	return b.String(), nil
}

// FilterError reports a row filter of the plan's table that sqe cannot
// place: a defect of the policy (policy.ErrPolicy), naming the rule.
func (p *TablePlan) FilterError(f policy.RowFilter, detail string) error {
	return &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Policy: f.Policy, Detail: "row filter: " + detail}
}

// applyTagMasks returns the decision with the masks its tag bindings give
// to the table's columns: a column's own mask wins, a restricted column
// stays restricted, the first of a column's tags (in its order) that has a
// binding applies, and a binding whose mask cannot be computed for the
// column's type restricts the column (fail closed). The shared decision is
// not modified.
func applyTagMasks(req *Request, d *policy.Decision, cols []Column) *policy.Decision {
	out := *d
	out.Masks = make(map[string]policy.Mask, len(d.Masks))
	for k, v := range d.Masks {
		out.Masks[k] = v
	}
	out.Restricted = make(map[string]string, len(d.Restricted))
	for k, v := range d.Restricted {
		out.Restricted[k] = v
	}
	out.TagMasks = nil
	for _, c := range cols {
		name := strings.ToLower(c.Name)
		if _, own := out.Masks[name]; own {
			continue
		}
		if _, restricted := out.Restricted[name]; restricted {
			continue
		}
		tags := append(append(append([]string(nil), c.Tags...), d.ColumnTags[name]...), d.ColumnTags["*"]...)
		for _, tag := range tags {
			m, bound := d.TagMasks[strings.ToUpper(tag)]
			if !bound {
				continue
			}
			if req.Dialect != "" {
				if _, err := maskSQL(udf.Target{Dialect: udf.Dialect(req.Dialect), Column: "c", DataType: c.DataType,
					ColumnType: c.ColumnType}, m.Type, m.Args, m.Expr); err != nil {
					out.Restricted[name] = m.Policy
					break
				}
			}
			if syn, ok := syntaxOf(req); ok && m.When != "" {
				// A condition the table cannot answer (a column it lacks)
				// cannot be computed for this column either.
				if _, bad := conditionError(syn, m.When, cols); bad {
					out.Restricted[name] = m.Policy
					break
				}
			}
			out.Masks[name] = m
			break
		}
	}
	return &out
}

// withSourceTags returns cols with the tags req's TagSources give them
// (cols itself, shared with the catalog, is not modified). A source that
// fails fails the statement: a tag it would have reported could select a
// mask.
func withSourceTags(ctx context.Context, req *Request, t policy.TableName, cols []Column) ([]Column, error) {
	if len(req.TagSources) == 0 {
		return cols, nil
	}
	var extra []map[string][]string
	for _, src := range req.TagSources {
		tags, err := src.TableTags(ctx, t)
		if err != nil {
			return nil, &Error{Kind: ErrUnsupported, Table: t.String(), Detail: "reading the table's tags failed: " + err.Error()}
		}
		if len(tags) > 0 {
			extra = append(extra, tags)
		}
	}
	if len(extra) == 0 {
		return cols, nil
	}
	out := make([]Column, len(cols))
	for i, c := range cols {
		name := strings.ToLower(c.Name)
		tags := slices.Clone(c.Tags)
		for _, m := range extra {
			for _, tag := range append(slices.Clone(m[name]), m["*"]...) {
				tag = strings.ToUpper(tag)
				if !slices.Contains(tags, tag) {
					tags = append(tags, tag)
				}
			}
		}
		c.Tags = tags
		out[i] = c
	}
	return out, nil
}

// ParseTagComment reads the tags of a column comment of the form
// "tags: PII, EMAIL" (anywhere in the comment, up to a newline or ";"),
// upper-cased; nil when the comment names none.
func ParseTagComment(comment string) []string {
	i := strings.Index(strings.ToLower(comment), "tags:")
	if i < 0 {
		return nil
	}
	rest := comment[i+len("tags:"):]
	if j := strings.IndexAny(rest, ";\n"); j >= 0 {
		rest = rest[:j]
	}
	var tags []string
	for _, part := range strings.Split(rest, ",") {
		if t := strings.ToUpper(strings.TrimSpace(part)); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// Overlay returns v with d as its decision for table t: the caller's view
// with sqe's own additions to one table (the catalogs' column filters).
// Every other question (other tables, roles, the columns the policy
// names, the snapshot version) goes to v.
func Overlay(v policy.View, t policy.TableName, d *policy.Decision) policy.View {
	return &overlayView{View: v, table: t, d: d}
}

// overlayView embeds the caller's View: every method but the two below
// delegates to it.
type overlayView struct {
	policy.View
	table policy.TableName
	d     *policy.Decision
}

var _ policy.View = (*overlayView)(nil)

func (v *overlayView) Decide(t policy.TableName) (*policy.Decision, error) {
	if t.Key() == v.table.Key() {
		return v.d, nil
	}
	return v.View.Decide(t)
}

// DecideColumnInfo passes a question about another table to the caller's
// View.
func (v *overlayView) DecideColumnInfo(t policy.TableName, cols []policy.ColumnInfo) (*policy.Decision, error) {
	if t.Key() == v.table.Key() {
		return v.d, nil
	}
	return v.View.DecideColumnInfo(t, cols)
}
