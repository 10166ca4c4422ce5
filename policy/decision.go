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
		AllowedBy:  maps.Clone(d.AllowedBy),
		RowFilters: slices.Clone(d.RowFilters),
		Restricted: maps.Clone(d.Restricted),
	}
	c.Masks = cloneMasks(d.Masks)
	c.TagMasks = cloneMasks(d.TagMasks)
	if d.ColumnTags != nil {
		c.ColumnTags = make(map[string][]string, len(d.ColumnTags))
		for k, tags := range d.ColumnTags {
			c.ColumnTags[k] = slices.Clone(tags)
		}
	}
	return c
}

func cloneMasks(ms map[string]Mask) map[string]Mask {
	if ms == nil {
		return nil
	}
	c := make(map[string]Mask, len(ms))
	for k, m := range ms {
		m.Args = slices.Clone(m.Args)
		c[k] = m
	}
	return c
}

// Read-only access maps, shared by every Decision that has the same
// content: Allowed depends only on the set of allowed access types, and
// DeniedBy, when no deny rule named a type, only on that set and on why
// the rest is denied. They are built once, before any policy is loaded.
var (
	allowedMaps [allAccess + 1]map[Access]bool
	// noAllowMaps[b]: the types outside b are denied by ReasonNoAllow.
	noAllowMaps [allAccess + 1]map[Access]string
	// defaultDenyMap: every type is denied by ReasonDefaultDeny.
	defaultDenyMap map[Access]string
	// defaultAllowMaps[b]: the types in b are granted by ReasonDefaultAllow.
	defaultAllowMaps [allAccess + 1]map[Access]string
)

func init() {
	for b := accessBits(0); b <= allAccess; b++ {
		allowedMaps[b] = allowedMap(b)
		noAllowMaps[b] = deniedMap(b, ReasonNoAllow)
		defaultAllowMaps[b] = grantedMap(b, ReasonDefaultAllow)
	}
	defaultDenyMap = deniedMap(0, ReasonDefaultDeny)
}

// grantedMap names reason for every type in allowed; nil when none is.
func grantedMap(allowed accessBits, reason string) map[Access]string {
	if allowed == 0 {
		return nil
	}
	m := make(map[Access]string, len(Accesses)+1)
	for i, a := range Accesses {
		if allowed&(1<<i) != 0 {
			m[a] = reason
		}
	}
	if allowed == allAccess {
		m[All] = reason
	}
	return m
}

func allowedMap(b accessBits) map[Access]bool {
	m := make(map[Access]bool, len(Accesses)+1)
	for i, a := range Accesses {
		if b&(1<<i) != 0 {
			m[a] = true
		}
	}
	if b == allAccess {
		m[All] = true
	}
	return m
}

// deniedMap names reason for every type outside allowed; nil when all are
// allowed.
func deniedMap(allowed accessBits, reason string) map[Access]string {
	if allowed == allAccess {
		return nil
	}
	m := make(map[Access]string, len(Accesses)+1)
	m[All] = reason
	for i, a := range Accesses {
		if allowed&(1<<i) == 0 {
			m[a] = reason
		}
	}
	return m
}
