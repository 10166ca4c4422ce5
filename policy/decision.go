package policy

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of d that the caller may modify.
func (d *Decision) Clone() *Decision {
	if d == nil {
		return nil
	}
	c := &Decision{
		Table:      d.Table,
		Allowed:    maps.Clone(d.Allowed),
		DeniedBy:   maps.Clone(d.DeniedBy),
		RowFilters: slices.Clone(d.RowFilters),
		Restricted: maps.Clone(d.Restricted),
	}
	if d.Masks != nil {
		c.Masks = make(map[string]Mask, len(d.Masks))
		for k, m := range d.Masks {
			m.Args = slices.Clone(m.Args)
			c.Masks[k] = m
		}
	}
	return c
}
