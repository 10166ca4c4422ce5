package policy

import "slices"

// AllowedFunctions returns the file's functions: allow: list.
func (c *Compiled) AllowedFunctions() []string { return slices.Clone(c.allowedFunctions) }

// AllowedFunctions implements View: the snapshot's functions: allow: list.
func (v *fileView) AllowedFunctions() []string { return v.c.allowedFunctions }
