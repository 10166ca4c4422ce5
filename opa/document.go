package opa

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/udf"
)

// document is one decision document, checked for shape:
//
//	{
//	  "allow":       true,
//	  "row_filters": ["region = 'EU'", {"name": "eu-only", "filter": "…"}],
//	  "masks":       {"ssn": {"type": "MASK_SHOW_LAST_4"}, "email": {"expr": "…{col}…"}},
//	  "restricted":  ["salary", {"name": "no-salary", "column": "salary"}],
//	  "tag_masks":   {"PII": {"type": "MASK"}},
//	  "policies":    ["staff-read"]
//	}
//
// Every field but allow may be left out; a field sqe does not know is an
// error, so that a misspelt "row_filter" does not silently show every row.
type document struct {
	defined    bool
	allow      bool
	filters    []docFilter
	masks      map[string]policy.Mask
	tagMasks   map[string]policy.Mask
	restricted []docColumn
	policies   []string
}

// docFilter is a row filter of a decision; check is the condition
// written rows must satisfy (policy.RowFilter.Check): the filter itself
// unless the document says check: false or gives an expression.
type docFilter struct{ name, expr, check string }

type docColumn struct{ name, column string }

func (d *document) policiesName() string { return strings.Join(d.policies, ", ") }

var documentFields = []string{"allow", "row_filters", "masks", "restricted", "tag_masks", "policies"}

// parseDocument checks a decision's shape. An undefined decision denies.
func parseDocument(v any, defined bool) (*document, error) {
	d := &document{defined: defined}
	if !defined {
		return d, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the decision is %s, want an object {allow, row_filters, masks, restricted, policies}", kind(v))
	}
	for _, k := range slices.Sorted(mapKeys(obj)) {
		if !slices.Contains(documentFields, k) {
			return nil, fmt.Errorf("unknown field %q (want %s)", k, strings.Join(documentFields, ", "))
		}
	}
	switch a := obj["allow"].(type) {
	case bool:
		d.allow = a
	case nil:
		return nil, fmt.Errorf("allow: required (a boolean)")
	default:
		return nil, fmt.Errorf("allow: %s, want a boolean", kind(a))
	}
	var err error
	if d.policies, err = stringList(obj["policies"], "policies"); err != nil {
		return nil, err
	}
	if err := d.parseFilters(obj["row_filters"]); err != nil {
		return nil, err
	}
	if d.masks, err = parseMasks(obj["masks"], "masks", strings.ToLower); err != nil {
		return nil, err
	}
	if d.tagMasks, err = parseMasks(obj["tag_masks"], "tag_masks", strings.ToUpper); err != nil {
		return nil, err
	}
	return d, d.parseRestricted(obj["restricted"])
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// list accepts an array or a set (which Rego hands over as an array).
func list(v any, field string) ([]any, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return l, nil
	}
	return nil, fmt.Errorf("%s: %s, want an array", field, kind(v))
}

func stringList(v any, field string) ([]string, error) {
	l, err := list(v, field)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: %s, want a string", field, i, kind(x))
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

func (d *document) parseFilters(v any) error {
	l, err := list(v, "row_filters")
	if err != nil {
		return err
	}
	for i, x := range l {
		var f docFilter
		switch y := x.(type) {
		case string:
			f.expr, f.check = y, y
		case map[string]any:
			for k := range y {
				if k != "name" && k != "filter" && k != "check" {
					return fmt.Errorf("row_filters[%d]: unknown field %q (want name, filter, check)", i, k)
				}
			}
			var ok bool
			if f.expr, ok = y["filter"].(string); !ok {
				return fmt.Errorf("row_filters[%d].filter: required (a SQL boolean expression)", i)
			}
			if n, ok := y["name"]; ok {
				if f.name, ok = n.(string); !ok {
					return fmt.Errorf("row_filters[%d].name: %s, want a string", i, kind(n))
				}
			}
			f.check = f.expr
			if c, ok := y["check"]; ok {
				switch c := c.(type) {
				case bool:
					if !c {
						f.check = ""
					}
				case string:
					if strings.TrimSpace(c) == "" {
						return fmt.Errorf("row_filters[%d].check: empty expression", i)
					}
					f.check = c
				default:
					return fmt.Errorf("row_filters[%d].check: %s, want true, false or a SQL expression", i, kind(c))
				}
			}
		default:
			return fmt.Errorf("row_filters[%d]: %s, want a SQL expression or {name, filter}", i, kind(x))
		}
		if strings.TrimSpace(f.expr) == "" {
			return fmt.Errorf("row_filters[%d]: empty expression", i)
		}
		d.filters = append(d.filters, f)
	}
	return nil
}

func (d *document) parseRestricted(v any) error {
	l, err := list(v, "restricted")
	if err != nil {
		return err
	}
	for i, x := range l {
		var c docColumn
		switch y := x.(type) {
		case string:
			c.column = y
		case map[string]any:
			for k := range y {
				if k != "name" && k != "column" {
					return fmt.Errorf("restricted[%d]: unknown field %q (want name, column)", i, k)
				}
			}
			var ok bool
			if c.column, ok = y["column"].(string); !ok {
				return fmt.Errorf("restricted[%d].column: required (a column name)", i)
			}
			if n, ok := y["name"]; ok {
				if c.name, ok = n.(string); !ok {
					return fmt.Errorf("restricted[%d].name: %s, want a string", i, kind(n))
				}
			}
		default:
			return fmt.Errorf("restricted[%d]: %s, want a column name or {name, column}", i, kind(x))
		}
		if c.column == "" {
			return fmt.Errorf("restricted[%d]: empty column name", i)
		}
		c.column = strings.ToLower(c.column)
		d.restricted = append(d.restricted, c)
	}
	return nil
}

var maskFields = []string{"type", "args", "expr", "when", "name"}

// parseMasks reads {key: {type, args, expr, when, name}}; a mask with
// only expr is CUSTOM.
func parseMasks(v any, field string, norm func(string) string) (map[string]policy.Mask, error) {
	if v == nil {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s, want an object {column: {type, args} | {expr}}", field, kind(v))
	}
	out := make(map[string]policy.Mask, len(obj))
	for _, key := range slices.Sorted(mapKeys(obj)) {
		at := fmt.Sprintf("%s.%s", field, key)
		spec, ok := obj[key].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s, want an object {type, args} or {expr}", at, kind(obj[key]))
		}
		var m policy.Mask
		for _, k := range slices.Sorted(mapKeys(spec)) {
			if !slices.Contains(maskFields, k) {
				return nil, fmt.Errorf("%s: unknown field %q (want %s)", at, k, strings.Join(maskFields, ", "))
			}
		}
		str := func(k string) (string, error) {
			x, ok := spec[k]
			if !ok {
				return "", nil
			}
			s, ok := x.(string)
			if !ok {
				return "", fmt.Errorf("%s.%s: %s, want a string", at, k, kind(x))
			}
			return s, nil
		}
		var err error
		if m.Type, err = str("type"); err != nil {
			return nil, err
		}
		if m.Expr, err = str("expr"); err != nil {
			return nil, err
		}
		if m.When, err = str("when"); err != nil {
			return nil, err
		}
		if m.Policy, err = str("name"); err != nil {
			return nil, err
		}
		if args, ok := spec["args"]; ok {
			l, err := list(args, at+".args")
			if err != nil {
				return nil, err
			}
			for i, a := range l {
				switch x := a.(type) {
				case string:
					m.Args = append(m.Args, x)
				case json.Number:
					m.Args = append(m.Args, x.String())
				default:
					return nil, fmt.Errorf("%s.args[%d]: %s, want a string or a number", at, i, kind(a))
				}
			}
		}
		m.Type = strings.ToUpper(m.Type)
		if m.Type == "" {
			if m.Expr == "" {
				return nil, fmt.Errorf("%s: want a type or an expr", at)
			}
			m.Type = udf.TypeCustom
		}
		if err := udf.ValidateMask(m.Type, m.Args, m.Expr); err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		out[norm(key)] = m
	}
	return out, nil
}
