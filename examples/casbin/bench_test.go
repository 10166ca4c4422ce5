package casbin_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// largeSet is n access rules over 10,000 roles and n/10 tables (about ten
// rules a table at every size), in both forms: the policy File and casbin's
// policy lines p (sub, obj, act, eft) and role links g (member, role).
// Every tenth role contains the next two, so the caller, granted r00000,
// r00003 and r00004, holds five roles. The first rules give the caller's
// roles SELECT on db0.t0 and deny them DROP there.
type largeSet struct {
	f      *policy.File
	p, g   [][]string
	caller session.User
	table  policy.TableName
}

func newLargeSet(n int) *largeSet {
	const roles = 10_000
	role := func(i int) string { return fmt.Sprintf("r%05d", i) }
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	s := &largeSet{
		f:      &policy.File{Name: fmt.Sprintf("large-%d", n), Version: policy.FileVersion},
		caller: session.User{Name: "caller", Roles: []string{role(0), role(3), role(4)}},
		table:  policy.TableName{Schema: "db0", Table: "t0"},
	}
	for i := 0; i+2 < roles; i += 10 {
		s.f.Roles = append(s.f.Roles, policy.FileRole{Name: role(i), Contains: []string{role(i + 1), role(i + 2)}})
		s.g = append(s.g, []string{role(i), role(i + 1)}, []string{role(i), role(i + 2)})
	}
	for _, r := range s.caller.Roles {
		s.g = append(s.g, []string{s.caller.Name, r})
	}
	tables := make([]policy.FileTable, max(n/10, 1))
	for j := range tables {
		tables[j].Schema, tables[j].Table = fmt.Sprintf("db%d", j%100), fmt.Sprintf("t%d", j)
	}
	for i := 0; i < n; i++ {
		t, r, a, deny := &tables[i%len(tables)], rng.IntN(roles), policy.Accesses[rng.IntN(len(policy.Accesses))], rng.IntN(100) < 15
		switch i {
		case 0, 1, 2:
			t, r, a, deny = &tables[0], i, policy.Select, false
		case 3:
			t, r, a, deny = &tables[0], 3, policy.Drop, true
		}
		rule := policy.AccessRule{Name: fmt.Sprintf("p%d", i), Principals: []policy.Principal{{Kind: policy.PrincipalRole, Name: role(r)}}}
		eft := "allow"
		if deny {
			rule.Deny, eft = []policy.Access{a}, "deny"
		} else {
			rule.Allow = []policy.Access{a}
		}
		t.Access = append(t.Access, rule)
		s.p = append(s.p, []string{role(r), t.Key(), string(a), eft})
	}
	s.f.Tables = tables
	return s
}

// BenchmarkDecide measures one access decision (may the caller SELECT from
// db0.t0?) per policy-set size: sqe builds the caller's View on the
// compiled snapshot and decides the table; casbin enforces the same access
// rules and role links.
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{100, 6_000, 60_000, 600_000} {
		s := newLargeSet(n)
		b.Run(fmt.Sprintf("policies=%d/sqe", n), func(b *testing.B) {
			c, err := policy.Compile(s.f, policy.NextVersion())
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ReportAllocs()
			for b.Loop() {
				v, err := c.View(s.caller)
				if err != nil {
					b.Fatal(err)
				}
				d, err := v.Decide(s.table)
				if err != nil || !d.Allows(policy.Select) || d.Allows(policy.Drop) {
					b.Fatalf("wrong decision %+v, %v", d, err)
				}
			}
		})
		b.Run(fmt.Sprintf("policies=%d/casbin", n), func(b *testing.B) {
			e := newCasbin(b, s.p, s.g)
			runtime.GC()
			obj := s.table.Key()
			if ok, _ := e.Enforce(s.caller.Name, obj, string(policy.Drop)); ok {
				b.Fatal("casbin allows drop")
			}
			b.ReportAllocs()
			for b.Loop() {
				ok, err := e.Enforce(s.caller.Name, obj, string(policy.Select))
				if err != nil || !ok {
					b.Fatalf("casbin select: %v %v", ok, err)
				}
			}
		})
	}
}
