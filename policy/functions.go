package policy

import "slices"

// FunctionAllower is implemented by Snapshots and Views whose policy set
// allows application functions by name (the native file's functions:
// allow: list): the rewriter lets the application's SQL call them besides
// the dialect's built-ins.
type FunctionAllower interface {
	AllowedFunctions() []string
}

// AllowedFunctions returns the file's functions: allow: list.
func (c *Compiled) AllowedFunctions() []string { return slices.Clone(c.allowedFunctions) }

// AllowedFunctions returns the snapshot's functions: allow: list.
func (v *fileView) AllowedFunctions() []string { return v.c.allowedFunctions }
