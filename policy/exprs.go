package policy

import (
	"errors"
	"strconv"
	"strings"

	"github.com/sqe-project/sqe/udf"
)

// Kinds of Expression.
const (
	// ExprFilter is a row filter (a mapping filter compiled), a boolean
	// expression over the table's raw columns.
	ExprFilter = "filter"
	// ExprCustomMask is a CUSTOM mask's expression, {col} standing for
	// the column.
	ExprCustomMask = "custom"
	// ExprMaskWhen is a mask's when condition, a boolean expression over
	// the raw columns of the masked column's row. It may read only
	// columns of that table, unqualified, and context functions: no
	// subquery, no other table, no aggregate or window.
	ExprMaskWhen = "when"
	// ExprCheck is a row filter's check expression (check: "…"), a
	// boolean expression over the columns of a row the caller writes.
	ExprCheck = "check"
)

// Expression is a piece of SQL text of a native policy set, with where it
// was written. The policy package never parses SQL (it imports no parser);
// the driver checks a snapshot's expressions with the parser of the
// dialect it serves (see CheckExpressions and WithValidator).
type Expression struct {
	Kind string // ExprFilter, ExprCheck, ExprCustomMask or ExprMaskWhen
	Text string
	// Rule names the rule (its name or default name).
	Rule string
	Line int    // the rule's line in the file (0 when unknown)
	Path string // the field, e.g. tables."shop.customers".row_filters[0].filter
}

// compileExpressions records the policy set's expressions, in file order.
func (c *Compiled) compileExpressions(f *File) {
	for ti := range f.Tables {
		t := &f.Tables[ti]
		path := "tables." + pathKey(t.Key())
		for i := range t.RowFilters {
			r := &t.RowFilters[i]
			e := Expression{Kind: ExprFilter, Text: filterText(r), Rule: r.Name, Line: r.Line, Path: elemPath(path+".row_filters", i) + ".filter"}
			if r.Mapping != nil {
				e.Path = elemPath(path+".row_filters", i) + ".mapping"
			}
			if e.Rule == "" {
				e.Rule = defaultName(t.Key(), "row_filters", i)
			}
			c.exprs = append(c.exprs, e)
			if r.Check != "" {
				c.exprs = append(c.exprs, Expression{Kind: ExprCheck, Text: r.Check, Rule: e.Rule, Line: r.Line, Path: elemPath(path+".row_filters", i) + ".check"})
			}
		}
		for i := range t.Masks {
			m := &t.Masks[i]
			rule := m.Name
			if rule == "" {
				rule = defaultName(t.Key(), "masks", i)
			}
			if strings.ToUpper(m.Type) == udf.TypeCustom {
				c.exprs = append(c.exprs, Expression{Kind: ExprCustomMask, Text: m.Expr, Rule: rule, Line: m.Line, Path: elemPath(path+".masks", i) + ".expr"})
			}
			if m.When != "" {
				c.exprs = append(c.exprs, Expression{Kind: ExprMaskWhen, Text: m.When, Rule: rule, Line: m.Line, Path: elemPath(path+".masks", i) + ".when"})
			}
		}
	}
	for i := range f.TagMasks {
		r := &f.TagMasks[i]
		rule := r.Name
		if rule == "" {
			rule = elemPath("tag_masks", i)
		}
		if strings.ToUpper(r.Type) == udf.TypeCustom {
			c.exprs = append(c.exprs, Expression{Kind: ExprCustomMask, Text: r.Expr, Rule: rule, Line: r.Line, Path: elemPath("tag_masks", i) + ".expr"})
		}
		if r.When != "" {
			c.exprs = append(c.exprs, Expression{Kind: ExprMaskWhen, Text: r.When, Rule: rule, Line: r.Line, Path: elemPath("tag_masks", i) + ".when"})
		}
	}
}

// Expressions returns the SQL expressions of the snapshot's rules (row
// filters, mapping filters compiled, CUSTOM masks and when conditions of
// tables' masks and of tag masks), in file order.
func (c *Compiled) Expressions() []Expression {
	return append([]Expression(nil), c.exprs...)
}

// CheckExpressions calls check for each of the snapshot's expressions and
// reports every failure as a *FileError naming the file, the rule's line
// and the field (joined when there are several; they wrap ErrInvalidFile):
//
//	policy.yaml:9: tables."shop.customers".row_filters[0].filter: rule "eu-only": does not parse as one postgres expression
//
// nil when check accepts them all.
func (c *Compiled) CheckExpressions(check func(Expression) error) error {
	var errs []error
	for _, e := range c.exprs {
		if err := check(e); err != nil {
			errs = append(errs, &FileError{File: c.name, Line: e.Line, Path: e.Path, Msg: "rule " + strconv.Quote(e.Rule) + ": " + err.Error()})
		}
	}
	return errors.Join(errs...)
}
