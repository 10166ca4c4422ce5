package rewriter

import (
	"errors"
	"reflect"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// CheckParser turns a row filter's check text into a Cond for one target
// table, with the dialect's parser and the session's context values
// inlined; a text that does not parse is an error (a policy error).
type CheckParser func(text string) (*Cond, error)

// ReadCheck is a dialect's CheckParser: a check is parsed as one
// expression (parse), its context functions and columns rewritten as a
// row filter's are (rewrite), and read into a Cond (cond).
func ReadCheck[E any](parse func(string) (E, error), rewrite func(E) (E, error), cond func(E) *Cond) CheckParser {
	return func(text string) (*Cond, error) {
		e, err := parse(text)
		if err != nil {
			return nil, err
		}
		if e, err = rewrite(e); err != nil {
			return nil, err
		}
		return cond(e), nil
	}
}

// InsertChecks builds the checks of the rows an INSERT writes into the
// plan's table: cols are the columns the statement gives, in order (nil:
// all the table's columns, in ordinal order), and rows the value each row
// gives each of them. allRows marks a single row of values that stands
// for every row (INSERT … SELECT). dialect names the registered dialect
// (which places request values) and rules are its server's. nil when no
// filter of the caller checks written rows.
func InsertChecks(p *TablePlan, dialect string, rules ValueRules, parse CheckParser, cols []string, rows [][]Value, allRows bool) ([]*WriteCheck, error) {
	if cols == nil {
		for _, c := range p.All {
			cols = append(cols, c.Name)
		}
	}
	var out []*WriteCheck
	for _, f := range p.Decision.RowFilters {
		if f.Check == "" {
			continue
		}
		check, err := requestValuesPlaced(dialect, f.Check, f.Values, f.Hive)
		if err != nil {
			return nil, p.FilterError(f, "check: "+err.Error())
		}
		cond, err := parse(check)
		if err != nil {
			return nil, p.FilterError(f, "its check does not parse: "+err.Error())
		}
		w, err := p.newCheck(f.Policy, rules, cond)
		if err != nil {
			return nil, err
		}
		w.AllRows = allRows
		for _, row := range rows {
			vals := make([]Value, len(w.Columns))
			for j, c := range w.Columns {
				for k, name := range cols {
					if strings.EqualFold(name, c.Name) && k < len(row) {
						vals[j] = row[k]
					}
				}
			}
			w.Rows = append(w.Rows, vals)
		}
		out = append(out, w)
	}
	return out, nil
}

// UpdateChecks builds the checks of the new rows of an UPDATE of the
// plan's table; set maps each assigned column (lower-cased) to its value.
// The rows an UPDATE changes are rows the filter admits, so a conjunct of
// the filter that reads no assigned column still holds for the new row
// and is not checked; the others are, with ValueUnknown for the columns
// the statement does not assign (the old row's values, which sqe does not
// know). nil when nothing needs checking.
func UpdateChecks(p *TablePlan, dialect string, rules ValueRules, parse CheckParser, set map[string]Value) ([]*WriteCheck, error) {
	var out []*WriteCheck
	for _, f := range p.Decision.RowFilters {
		if f.Check == "" {
			continue
		}
		check, err := requestValuesPlaced(dialect, f.Check, f.Values, f.Hive)
		if err != nil {
			return nil, p.FilterError(f, "check: "+err.Error())
		}
		cond, err := parse(check)
		if err != nil {
			return nil, p.FilterError(f, "its check does not parse: "+err.Error())
		}
		held := []*Cond{}
		if f.Check == f.Expr {
			held = Conjuncts(cond)
		} else if expr, err := requestValuesPlaced(dialect, f.Expr, f.Values, f.Hive); err == nil {
			if fc, err := parse(expr); err == nil {
				held = Conjuncts(fc)
			}
		}
		var keep []*Cond
		for _, c := range Conjuncts(cond) {
			if !readsAny(c, set) && !p.readsGenerated(c) && containsCond(held, c) {
				continue
			}
			keep = append(keep, c)
		}
		if len(keep) == 0 {
			continue
		}
		cond = keep[0]
		if len(keep) > 1 {
			cond = &Cond{Op: CondAnd, Args: keep}
		}
		w, err := p.newCheck(f.Policy, rules, cond)
		if err != nil {
			return nil, err
		}
		w.AllRows = true
		vals := make([]Value, len(w.Columns))
		for j, c := range w.Columns {
			vals[j] = set[strings.ToLower(c.Name)]
		}
		w.Rows = [][]Value{vals}
		out = append(out, w)
	}
	return out, nil
}

// newCheck is a check with cond over the plan's table, its columns looked
// up in the catalog; a column the table lacks is a policy error.
func (p *TablePlan) newCheck(policyName string, rules ValueRules, cond *Cond) (*WriteCheck, error) {
	w := &WriteCheck{Table: p.Table, Policy: policyName, Rules: rules, Cond: cond}
	for _, name := range CondColumns(cond) {
		c, ok := p.Column(name)
		if !ok {
			return nil, &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: name, Policy: policyName,
				Detail: "row filter: its check reads a column the table does not have"}
		}
		w.Columns = append(w.Columns, c)
	}
	return w, nil
}

// readsGenerated reports whether c reads a generated column of the table:
// an UPDATE may change its value without assigning it, so the conjunct
// cannot be taken to hold still.
func (p *TablePlan) readsGenerated(c *Cond) bool {
	for _, name := range condReads(c) {
		if col, ok := p.Column(name); ok && col.Generated {
			return true
		}
	}
	return false
}

// readsAny reports whether c reads one of the assigned columns, counting
// every column name in a piece sqe does not evaluate.
func readsAny(c *Cond, set map[string]Value) bool {
	for _, name := range condReads(c) {
		if _, ok := set[strings.ToLower(name)]; ok {
			return true
		}
	}
	return false
}

func condReads(c *Cond) []string {
	out := append([]string(nil), c.Reads...)
	for _, a := range c.Args {
		out = append(out, condReads(a)...)
	}
	for _, o := range append([]Operand{c.Left, c.Right}, c.List...) {
		if o.Column != "" {
			out = append(out, o.Column)
		}
	}
	return out
}

func containsCond(list []*Cond, c *Cond) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, c) {
			return true
		}
	}
	return false
}

// requestValuesPlaced is text with its request values placed by the
// dialect (PolicyExprSQL), translated first when it is Hive SQL
// (HiveExprSQL); other text with neither values nor markers is returned
// as it is.
func requestValuesPlaced(dialect, text string, values []policy.RequestValue, hive bool) (string, error) {
	if !hive && len(values) == 0 && !policy.HasRequestValueMarker(text) {
		return text, nil
	}
	syn, ok := syntaxOf(&Request{Dialect: dialect})
	if !ok {
		return "", errors.New("the dialect cannot place request values")
	}
	return policyExprSQL(syn, text, values, hive)
}
