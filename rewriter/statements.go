package rewriter

import (
	"slices"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// Guarded runs a dialect's rewrite: a panic inside it is a refusal, never
// a crash of the caller.
func Guarded(rewrite func() (*Result, error)) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, Unsupported("internal error while rewriting the statement")
		}
	}()
	return rewrite()
}

// RewriteEach rewrites the n statements of a multi-statement string one by
// one (one returns nil, nil for an empty piece) and merges the results;
// all must succeed. A statement that changes the session state must be the
// last one: the statements after it would be rewritten for a state that
// the server no longer has when it runs them. When the dialect numbers
// placeholders per statement (placeholdersPerStatement, and the string
// has some), a write whose rows are checked must be a statement of its
// own: the checks could not tell whose argument is whose.
func RewriteEach(n int, placeholdersPerStatement bool, one func(i int) (*Result, error)) (*Result, error) {
	var out *Result
	var sqls []string
	for i := 0; i < n; i++ {
		res, err := one(i)
		if res == nil && err == nil {
			continue
		}
		if out != nil && (out.Effect.RefreshSession || out.Effect.Session != nil) {
			return nil, Unsupported("a statement that changes the session state must be the last one of a multi-statement string")
		}
		if err != nil {
			return nil, err
		}
		sqls = append(sqls, res.SQL)
		if out == nil {
			out = res
			continue
		}
		out.Tables = appendTables(out.Tables, res.Tables)
		out.Effect = mergeEffect(out.Effect, res.Effect)
		if out.Kind != res.Kind {
			out.Kind = KindOther
		}
		out.Cacheable = out.Cacheable && res.Cacheable
		out.WriteChecks = append(out.WriteChecks, res.WriteChecks...)
		if len(out.WriteChecks) > 0 && placeholdersPerStatement {
			return nil, Unsupported("a write whose rows are checked against a row filter, with placeholders, must be a statement of its own, not part of a multi-statement string")
		}
	}
	if out == nil {
		return nil, Unsupported("empty statement")
	}
	out.SQL = strings.Join(sqls, "; ")
	return out, nil
}

// mergeEffect combines the effects of two statements run one after the
// other.
func mergeEffect(a, b Effect) Effect {
	if b.Session != nil {
		a.Session = b.Session
	}
	a.RefreshSession = a.RefreshSession || b.RefreshSession
	a.InvalidateCatalog = a.InvalidateCatalog || b.InvalidateCatalog
	return MergeHolds(a, b)
}

// appendTables appends to a the tables of b it does not hold.
func appendTables(a, b []policy.TableName) []policy.TableName {
	seen := make(map[string]bool, len(a))
	for _, t := range a {
		seen[t.Key()] = true
	}
	for _, t := range b {
		if !seen[t.Key()] {
			seen[t.Key()] = true
			a = append(a, t)
		}
	}
	return a
}

// Printed is what the printed statement must keep of the rewritten tree:
// its kind and the table references it names (each as the dialect spells
// its key, in any order).
type Printed struct {
	Kind   string
	Tables []string
}

// VerifyPrinted checks that the statement the dialect printed, parsed
// again (again), is the rewritten tree (want): the same kind of statement
// naming exactly the same tables, so that what the server reads is what
// sqe decided about, even where the parser and the printer disagree on a
// corner of the grammar. It sorts both lists of tables in place.
func VerifyPrinted(want, again Printed) error {
	slices.Sort(want.Tables)
	slices.Sort(again.Tables)
	if want.Kind != again.Kind || !slices.Equal(want.Tables, again.Tables) {
		return Unsupported("the rewritten statement does not print faithfully")
	}
	return nil
}
