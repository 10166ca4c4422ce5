package rewriter

import (
	"context"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

func readFormPlan(d *policy.Decision) *TablePlan {
	d.RowFilters = []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}}
	return &TablePlan{Table: policy.TableName{Schema: "shop", Table: "customers"}, Decision: d}
}

// TestNeedsFence checks the one fence rule of both dialects on plans built
// by hand: a statement that is not mergeable fences every filtered table;
// with a simple filter the masks are guarded and nothing else fences;
// with a filter that is not simple, tag masks not resolved to columns make
// every column count as masked, MASK_NONE is no mask, an outer join fences
// any masked table; and a policy's own expressions fence a masked table or
// one whose filter is not simple.
func TestNeedsFence(t *testing.T) {
	tagged := readFormPlan(&policy.Decision{TagMasks: map[string]policy.Mask{"PII": {Type: "MASK_NULL"}}})
	masked := readFormPlan(&policy.Decision{Masks: map[string]policy.Mask{"ssn": {Type: "MASK_NULL"}}})
	none := readFormPlan(&policy.Decision{Masks: map[string]policy.Mask{"ssn": {Type: "MASK_NONE"}}})
	plain := readFormPlan(&policy.Decision{})
	unfiltered := &TablePlan{Decision: &policy.Decision{Masks: map[string]policy.Mask{"ssn": {Type: "MASK_NULL"}}}}

	var nothing, reads, all, outer ConditionColumns
	reads.Add("ID")
	reads.Add("SSN")
	all.All = true
	outer.OuterJoin = true
	const simple, notSimple = true, false
	for i, c := range []struct {
		plan      *TablePlan
		mergeable bool
		conds     ConditionColumns
		inPolicy  bool
		simple    bool
		want      bool
	}{
		{unfiltered, false, nothing, false, simple, false},
		{plain, false, nothing, false, simple, true},
		{masked, false, nothing, false, simple, true},
		{plain, true, all, false, simple, false},
		// Guarded masks: read in conditions, through output names, or
		// under an outer join, the statement stays flat.
		{masked, true, nothing, false, simple, false},
		{masked, true, reads, false, simple, false},
		{masked, true, all, false, simple, false},
		{tagged, true, reads, false, simple, false},
		{masked, true, outer, false, simple, false},
		// Unguarded masks (the filter is not simple).
		{masked, true, nothing, false, notSimple, false},
		{masked, true, reads, false, notSimple, true},
		{masked, true, all, false, notSimple, true},
		{none, true, reads, false, notSimple, false},
		{tagged, true, nothing, false, notSimple, false},
		{tagged, true, reads, false, notSimple, true},
		{masked, true, outer, false, notSimple, true},
		{plain, true, outer, false, notSimple, false},
		{plain, true, all, false, notSimple, false},
		// A policy's own expressions.
		{masked, true, nothing, true, simple, true},
		{none, true, nothing, true, simple, false},
		{plain, true, nothing, true, simple, false},
		{plain, true, nothing, true, notSimple, true},
		{plain, false, nothing, true, simple, true},
	} {
		s := NewStatement[*int](context.Background(), &Request{}, nil)
		s.SetConditions(c.mergeable, c.conds)
		if got := s.NeedsFence(c.plan, c.inPolicy, c.simple); got != c.want {
			t.Errorf("case %d: fence %v, want %v", i, got, c.want)
		}
	}
}

// TestNeedsGuard checks the one guard rule of both dialects: a write's
// condition is left unguarded only for a single target whose filter is
// simple, when the condition cannot fail and reads no masked column.
func TestNeedsGuard(t *testing.T) {
	masked := readFormPlan(&policy.Decision{Masks: map[string]policy.Mask{"ssn": {Type: "MASK_NULL"}}})
	var id, ssn ConditionColumns
	id.Add("id")
	ssn.Add("ssn")
	for i, c := range []struct {
		targets         []*TablePlan
		simple, canFail bool
		conds           *ConditionColumns
		want            bool
	}{
		{[]*TablePlan{masked}, true, false, &id, false},
		{[]*TablePlan{masked}, true, false, &ssn, true},
		{[]*TablePlan{masked}, true, true, &id, true},
		{[]*TablePlan{masked}, false, false, &id, true},
		{[]*TablePlan{masked, masked}, true, false, &id, true},
	} {
		if got := NeedsGuard(c.targets, c.simple, c.canFail, c.conds); got != c.want {
			t.Errorf("case %d: guard %v, want %v", i, got, c.want)
		}
	}
}

// TestStatementPolicyNesting: a policy that reaches its own table again,
// and policies nested deeper than MaxPolicyDepth, are refused.
func TestStatementPolicyNesting(t *testing.T) {
	s := NewStatement[*int](context.Background(), &Request{}, nil)
	a := policy.TableName{Schema: "s", Table: "a"}
	if err := s.EnterPolicy(a); err != nil {
		t.Fatal(err)
	}
	if err := s.EnterPolicy(a); err == nil {
		t.Fatal("a policy reaching its own table again was accepted")
	}
	if _, err := s.Plan(a, policy.Select); err == nil {
		t.Fatal("a table planned inside its own policy")
	}
	s.LeavePolicy()
	for i := 0; i < MaxPolicyDepth; i++ {
		if err := s.EnterPolicy(policy.TableName{Schema: "s", Table: string(rune('b' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EnterPolicy(policy.TableName{Schema: "s", Table: "z"}); err == nil {
		t.Fatal("policies nested past the bound")
	}
}

// TestRewriteEach checks the multi-statement rules: results merge, a
// statement changing the session state must be the last one, and a
// checked write with per-statement placeholders stands alone.
func TestRewriteEach(t *testing.T) {
	a := policy.TableName{Schema: "s", Table: "a"}
	b := policy.TableName{Schema: "s", Table: "b"}
	results := []*Result{
		{SQL: "one", Kind: KindSelect, Tables: []policy.TableName{a}, Cacheable: true},
		nil,
		{SQL: "two", Kind: KindInsert, Tables: []policy.TableName{a, b}, Cacheable: false},
	}
	res, err := RewriteEach(len(results), false, func(i int) (*Result, error) { return results[i], nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != "one; two" || res.Kind != KindOther || res.Cacheable || len(res.Tables) != 2 {
		t.Fatalf("merged %+v", res)
	}
	session := []*Result{{SQL: "set", Kind: KindSession, Effect: Effect{RefreshSession: true}}, {SQL: "x", Kind: KindSelect}}
	if _, err := RewriteEach(2, false, func(i int) (*Result, error) { return session[i], nil }); err == nil {
		t.Fatal("a statement after a session change was rewritten")
	}
	checked := []*Result{{SQL: "w1", WriteChecks: []*WriteCheck{{}}}, {SQL: "w2"}}
	if _, err := RewriteEach(2, true, func(i int) (*Result, error) { return checked[i], nil }); err == nil {
		t.Fatal("a checked write with placeholders in a multi-statement string")
	}
	if _, err := RewriteEach(2, false, func(i int) (*Result, error) { return checked[i], nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := RewriteEach(1, false, func(int) (*Result, error) { return nil, nil }); err == nil {
		t.Fatal("an empty string was accepted")
	}
	if _, err := Guarded(func() (*Result, error) { panic("boom") }); err == nil {
		t.Fatal("a panic was not turned into a refusal")
	}
}
