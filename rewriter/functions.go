package rewriter

import "strings"

// Functions are an allow-list boundary. Each dialect lists the built-in
// functions that compute only on their arguments (string, numeric, date
// and time, JSON and XML on values, aggregates, window functions,
// conversions, conditionals, hashing of arguments) and refuses every other
// function the application's SQL calls, with an error naming it: the
// functions that read the connection's state, other sessions, the server's
// files, settings or catalogs, sequences, locks, and every function a new
// server version adds, until someone decides about it. sqe's own policy
// expressions (row filters, masks) are not checked: they are trusted.
//
// The application's own functions are allowed by name
// (Request.AllowedFunctions, set with sqe.WithAllowedFunctions, or the
// native policy file's functions: allow: list, which the View carries): "fn"
// allows the unqualified call fn(…), "schema.fn" allows schema.fn(…).
// A name is compared case-insensitively.

// NameSet splits a list of names separated by white space into a set,
// for the dialects' allow-lists.
func NameSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(s) {
		m[n] = true
	}
	return m
}

// NameAllowed reports whether a function (or type) called as schema.name
// (schema "" when unqualified) is in list.
func NameAllowed(list []string, schema, name string) bool {
	want := strings.ToLower(name)
	if schema != "" {
		want = strings.ToLower(schema) + "." + want
	}
	for _, a := range list {
		if strings.ToLower(strings.TrimSpace(a)) == want {
			return true
		}
	}
	return false
}

// FunctionAllowed reports whether the application allowed the function
// schema.name (schema "" when the call is unqualified) by name: on the
// connector (AllowedFunctions) or in the policy set (View.AllowedFunctions:
// the native file's functions: allow: list).
func (r *Request) FunctionAllowed(schema, name string) bool {
	if NameAllowed(r.AllowedFunctions, schema, name) {
		return true
	}
	return r.View != nil && NameAllowed(r.View.AllowedFunctions(), schema, name)
}

// TypeAllowed reports whether the application allowed casts to the type
// schema.name (schema "" when unqualified) by name.
func (r *Request) TypeAllowed(schema, name string) bool {
	return NameAllowed(r.AllowedTypes, schema, name)
}

// FunctionRefused is the error for a function the dialect does not allow.
func FunctionRefused(name, why string) error {
	if why == "" {
		why = "it is not on sqe's list of functions that compute only on their arguments; allow an application function by name with sqe.WithAllowedFunctions"
	}
	return &Error{Kind: ErrUnsupported, Detail: "function " + name + " is not allowed through sqe: " + why}
}
