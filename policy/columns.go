package policy

import "strings"

// ColumnRef is a column that a rule of the native policy file names on
// one table: a mask's column, a restricted column, a mapping filter's
// key, a column of the tags section.
type ColumnRef struct {
	// Rule names the rule: its name, its default name
	// ("shop.customers/masks[1]") or, for the tags section,
	// "tags:schema.table.column".
	Rule string
	// Section is masks, restricted, row_filters or tags.
	Section string
	// Column is the column named, lower-cased.
	Column string
	// Line is the rule's line in the file (0 when unknown).
	Line int
	// Path is the field that names the column, e.g.
	// tables."shop.customers".restricted[0].columns.
	Path string
}

// MaskCondition is the when condition of a mask rule of an exact table
// entry (see Mask.When).
type MaskCondition struct {
	// Rule names the rule: its name or its default name.
	Rule string
	// Column is the masked column, lower-cased.
	Column string
	// When is the condition's SQL text.
	When string
	// Line is the rule's line in the file (0 when unknown).
	Line int
	// Path is the field, e.g. tables."shop.customers".masks[0].when.
	Path string
}

// MaskConditions returns the when conditions of the masks of t's exact
// table entry, in file order (see View.MaskConditions). Wildcard table
// entries are not included (as for NamedColumns); the rewriter checks
// their conditions for the callers the mask applies to.
func (c *Compiled) MaskConditions(t TableName) []MaskCondition {
	if len(c.conds) == 0 {
		return nil
	}
	return c.conds[tkey{strings.ToLower(t.Schema), strings.ToLower(t.Table)}]
}

// MaskConditions implements View.
func (v *fileView) MaskConditions(t TableName) []MaskCondition { return v.c.MaskConditions(t) }

// NamedColumns returns the columns the rules of t's exact table entry
// and the tags section name for t, in file order (see View.NamedColumns).
// Wildcard table entries are not included: a mask on a column of "shop.*"
// applies to the tables that have the column, by design.
func (c *Compiled) NamedColumns(t TableName) []ColumnRef {
	if len(c.named) == 0 {
		return nil
	}
	return c.named[tkey{strings.ToLower(t.Schema), strings.ToLower(t.Table)}]
}

// NamedColumns implements View.
func (v *fileView) NamedColumns(t TableName) []ColumnRef { return v.c.NamedColumns(t) }

// compileNamedColumns records, per exact table, the columns its rules
// name, once, so that a statement's check is one map lookup.
func (c *Compiled) compileNamedColumns(f *File) {
	add := func(k tkey, ref ColumnRef) {
		if c.named == nil {
			c.named = map[tkey][]ColumnRef{}
		}
		c.named[k] = append(c.named[k], ref)
	}
	for ti := range f.Tables {
		t := &f.Tables[ti]
		if t.Wildcard() {
			continue
		}
		k := tkey{t.Schema, t.Table}
		path := "tables." + pathKey(t.Key())
		name := func(n, section string, i int) string {
			if n == "" {
				return defaultName(t.Key(), section, i)
			}
			return n
		}
		for i := range t.RowFilters {
			r := &t.RowFilters[i]
			if r.Mapping != nil {
				add(k, ColumnRef{Rule: name(r.Name, "row_filters", i), Section: "row_filters", Column: strings.ToLower(r.Mapping.Key), Line: r.Line,
					Path: elemPath(path+".row_filters", i) + ".mapping.key"})
			}
		}
		for i := range t.Masks {
			m := &t.Masks[i]
			add(k, ColumnRef{Rule: name(m.Name, "masks", i), Section: "masks", Column: strings.ToLower(m.Column), Line: m.Line,
				Path: elemPath(path+".masks", i) + ".column"})
			if m.When != "" {
				if c.conds == nil {
					c.conds = map[tkey][]MaskCondition{}
				}
				c.conds[k] = append(c.conds[k], MaskCondition{Rule: name(m.Name, "masks", i), Column: strings.ToLower(m.Column),
					When: m.When, Line: m.Line, Path: elemPath(path+".masks", i) + ".when"})
			}
		}
		for i := range t.Restricted {
			r := &t.Restricted[i]
			for _, col := range r.Columns {
				add(k, ColumnRef{Rule: name(r.Name, "restricted", i), Section: "restricted", Column: strings.ToLower(col), Line: r.Line,
					Path: elemPath(path+".restricted", i) + ".columns"})
			}
		}
	}
	for _, tg := range f.Tags {
		if tg.Column == "" {
			continue
		}
		key := tg.Schema + "." + tg.Table + "." + tg.Column
		add(tkey{tg.Schema, tg.Table}, ColumnRef{Rule: "tags:" + key, Section: "tags", Column: tg.Column, Line: tg.Line,
			Path: "tags." + pathKey(key)})
	}
}

// ColumnInfo is a column as the catalog describes it, for Views whose
// decisions read a table's columns (an Open Policy Agent decision's
// input.table.columns).
type ColumnInfo struct {
	Name string
	// Type is the column's type as the server writes it, lower-cased
	// (varchar(40), int, numeric(10,2)).
	Type string
	// Tags are the column's tags from the database, upper-cased.
	Tags []string
}
