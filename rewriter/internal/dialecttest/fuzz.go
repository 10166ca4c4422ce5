package dialecttest

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// FuzzRewrite adds the seeds and fuzzes the rewrite: rewrite (called
// without the panic guard Rewrite has) must never panic, every error must
// be a typed rejection (*rewriter.Error), and check judges every output.
// decisions gives the policy; half the inputs (by length) read
// shop.customers under an IN-list filter instead of its own, which is as
// simple as the comparison the other half read it under.
func FuzzRewrite(f *testing.F, seeds []string, decisions func() map[string]*policy.Decision,
	rewrite func(sql string, dec map[string]*policy.Decision) (*rewriter.Result, error),
	check func(t *testing.T, sql string, res *rewriter.Result, dec map[string]*policy.Decision)) {
	for _, s := range seeds {
		f.Add(s)
	}
	decs := [2]map[string]*policy.Decision{decisions(), decisions()}
	listed := *decs[1]["shop.customers"]
	listed.RowFilters = []policy.RowFilter{{Expr: "region IN ('EU', 'EEA')", Policy: "eu-list"}}
	decs[1]["shop.customers"] = &listed
	f.Fuzz(func(t *testing.T, sql string) {
		dec := decs[len(sql)%2]
		res, err := rewrite(sql, dec)
		if err != nil {
			var re *rewriter.Error
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		check(t, sql, res, dec)
	})
}
