package casbin_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	defaultrolemanager "github.com/casbin/casbin/v2/rbac/default-role-manager"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// casbinModel is RBAC with deny: a request is allowed when some policy of
// one of the subject's roles (or of the subject itself) allows it and none
// denies it. The cheap comparisons come first in the matcher, so that
// casbin does not resolve the role link for policies on other objects.
const casbinModel = `
[request_definition]
r = sub, obj, act

[policy_definition]
p = sub, obj, act, eft

[role_definition]
g = _, _

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = r.obj == p.obj && r.act == p.act && g(r.sub, p.sub)
`

// newCasbin builds an in-memory enforcer with the policy lines p (sub, obj,
// act, eft) and the role links g (member, role). The role manager's depth
// limit is raised far above any hierarchy the tests build.
func newCasbin(tb testing.TB, p, g [][]string) *casbin.Enforcer {
	tb.Helper()
	m, err := model.NewModelFromString(casbinModel)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := casbin.NewEnforcer(m, false)
	if err != nil {
		tb.Fatal(err)
	}
	e.SetRoleManager(defaultrolemanager.NewRoleManagerImpl(1000))
	if len(g) > 0 {
		if _, err := e.AddGroupingPolicies(g); err != nil {
			tb.Fatal(err)
		}
	}
	if len(p) > 0 {
		if _, err := e.AddPolicies(dedupLines(p)); err != nil {
			tb.Fatal(err)
		}
	}
	return e
}

// dedupLines drops repeated lines (casbin refuses a batch that repeats one;
// a repeated rule changes nothing).
func dedupLines(ls [][]string) [][]string {
	seen := make(map[string]bool, len(ls))
	out := ls[:0:0]
	for _, l := range ls {
		k := strings.Join(l, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// TestDifferentialCasbin compares the evaluator's access decisions with
// casbin's on random policy sets with role hierarchies: every user holds
// the closure of its roles, all of them active (no primary role). Role
// grants come from the file or from the session, at random.
func TestDifferentialCasbin(t *testing.T) {
	const sets = 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	var requests, allowed, denied, disagreements int
	for set := 0; set < sets; set++ {
		nRoles := 1 + rng.IntN(8)
		nUsers := 1 + rng.IntN(3)
		nTables := 1 + rng.IntN(3)
		nPolicies := rng.IntN(16)
		f := &policy.File{Name: fmt.Sprintf("set-%d", set), Version: policy.FileVersion}
		var p, g [][]string
		role := func(i int) string { return fmt.Sprintf("role%d", i) }
		user := func(i int) string { return fmt.Sprintf("user%d", i) }
		table := func(i int) (string, string) { return "s", fmt.Sprintf("t%d", i) }
		// A DAG: a role contains only roles with a higher number.
		for i := 0; i < nRoles; i++ {
			var contains []string
			for j := i + 1; j < nRoles; j++ {
				if rng.IntN(100) < 30 {
					contains = append(contains, role(j))
					g = append(g, []string{role(i), role(j)})
				}
			}
			if len(contains) > 0 {
				f.Roles = append(f.Roles, policy.FileRole{Name: role(i), Contains: contains})
			}
		}
		sessionRoles := make([][]string, nUsers)
		for u := 0; u < nUsers; u++ {
			var fileRoles []string
			for r := 0; r < nRoles; r++ {
				if rng.IntN(100) < 50 {
					g = append(g, []string{user(u), role(r)})
					if rng.IntN(2) == 0 {
						fileRoles = append(fileRoles, role(r))
					} else {
						sessionRoles[u] = append(sessionRoles[u], role(r))
					}
				}
			}
			if len(fileRoles) > 0 {
				f.Users = append(f.Users, policy.FileGrant{Name: user(u), Roles: fileRoles})
			}
		}
		tables := make([]policy.FileTable, nTables)
		for i := range tables {
			tables[i].Schema, tables[i].Table = table(i)
		}
		for i := 0; i < nPolicies; i++ {
			var sub policy.Principal
			if rng.IntN(100) < 80 {
				sub = policy.Principal{Kind: policy.PrincipalRole, Name: role(rng.IntN(nRoles))}
			} else {
				sub = policy.Principal{Kind: policy.PrincipalUser, Name: user(rng.IntN(nUsers))}
			}
			ti := rng.IntN(nTables)
			act := policy.Accesses[rng.IntN(len(policy.Accesses))]
			r := policy.AccessRule{Name: fmt.Sprintf("p%d", i), Principals: []policy.Principal{sub}}
			eft := "allow"
			if rng.IntN(100) < 30 {
				r.Deny, eft = []policy.Access{act}, "deny"
			} else {
				r.Allow = []policy.Access{act}
			}
			tables[ti].Access = append(tables[ti].Access, r)
			p = append(p, []string{sub.Name, tables[ti].Key(), string(act), eft})
		}
		f.Tables = tables
		c, err := policy.Compile(f, uint64(set+1))
		if err != nil {
			t.Fatalf("set %d: %v", set, err)
		}
		e := newCasbin(t, p, g)
		for q := 0; q < 8; q++ {
			ui := rng.IntN(nUsers + 1) // nUsers: a user with no grants
			ti := rng.IntN(nTables)
			act := policy.Accesses[rng.IntN(len(policy.Accesses))]
			if len(p) > 0 && rng.IntN(100) < 60 {
				// Ask about something a policy talks about.
				l := p[rng.IntN(len(p))]
				fmt.Sscanf(l[1], "s.t%d", &ti)
				act = policy.Access(l[2])
			}
			su := session.User{Name: user(ui)}
			if ui < nUsers {
				su.Roles = sessionRoles[ui]
			}
			v, err := c.View(su)
			if err != nil {
				t.Fatalf("set %d: %v", set, err)
			}
			schema, tb := table(ti)
			d, err := v.Decide(policy.TableName{Schema: schema, Table: tb})
			if err != nil {
				t.Fatalf("set %d: %v", set, err)
			}
			want, err := e.Enforce(su.Name, schema+"."+tb, string(act))
			if err != nil {
				t.Fatal(err)
			}
			requests++
			if want {
				allowed++
			} else {
				denied++
			}
			if got := d.Allows(act); got != want {
				disagreements++
				if disagreements <= 5 {
					t.Errorf("set %d: %s %s on %s.%s: sqe %v (%s), casbin %v\npolicies %q\nlinks %q\nsession roles %q",
						set, su.Name, act, schema, tb, got, d.Reason(act), want, p, g, su.Roles)
				}
			}
		}
	}
	if disagreements > 0 {
		t.Fatalf("%d of %d decisions disagree", disagreements, requests)
	}
	// The sets must exercise both outcomes.
	if allowed < requests/20 || denied < requests/20 {
		t.Fatalf("unbalanced: %d allowed, %d denied", allowed, denied)
	}
	t.Logf("%d policy sets, %d requests: %d allowed, %d denied, 0 disagreements", sets, requests, allowed, denied)
}
