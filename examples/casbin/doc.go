// Package casbin compares sqe's policy evaluator with casbin's RBAC
// enforcer on the same access rules and role links: a differential test on
// random policy sets with role hierarchies, and a benchmark of one access
// decision on large sets.
//
// It uses only the policy package's exported API. The package has no
// non-test code; it lives in the examples module so that the core module
// does not depend on casbin.
package casbin
