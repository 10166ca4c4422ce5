package policy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/sqe-project/sqe/session"
)

// randomCaller picks a caller of evalPolicy: a user name, groups, granted
// roles and, sometimes, a primary and secondary roles.
func randomCaller(rng *rand.Rand) session.User {
	pick := func(from []string, max int) []string {
		var out []string
		for n := rng.IntN(max + 1); n > 0; n-- {
			out = append(out, from[rng.IntN(len(from))])
		}
		return out
	}
	roles := []string{"admin", "analyst", "support", "eu_analyst", "lead", "temp", "undeclared"}
	u := session.User{
		Name:   []string{"alice", "bob", "carol", "x", ""}[rng.IntN(5)],
		Groups: pick([]string{"eu-team", "contractors", "ops", "nobody"}, 2),
		Roles:  pick(roles, 3),
	}
	if rng.IntN(3) == 0 {
		u.PrimaryRole = roles[rng.IntN(len(roles))]
		if rng.IntN(2) == 0 {
			u.SecondaryRoles = pick(roles, 2)
		}
	}
	return u
}

var memoTables = []TableName{
	{"shop", "customers"}, {"SHOP", "Customers"}, {"shop", "orders"}, {"db", "audit_log"},
	{"archive", "t"}, {"sys", "audit_log"}, {"other", "t"},
}

// TestDecisionMemoMatchesUnshared: Decisions whose contents come from the
// snapshot's memo (a large one, and one of two slots that keeps evicting)
// equal those built afresh, for random callers and tables, on hits and
// misses alike.
func TestDecisionMemoMatchesUnshared(t *testing.T) {
	f := mustParse(t, evalPolicy)
	plain, err := Compile(f, 1, WithMemoSize(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.memo.bodies) != 0 || len(plain.memo.hits) != 0 {
		t.Fatal("memo not disabled")
	}
	big, _ := Compile(f, 1)
	tiny, _ := Compile(f, 1, WithMemoSize(2))
	if len(big.memo.bodies) != DefaultMemoSize || len(tiny.memo.hits) != 2 {
		t.Fatalf("memo sizes %d, %d", len(big.memo.bodies), len(tiny.memo.hits))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		u := randomCaller(rng)
		tn := memoTables[rng.IntN(len(memoTables))]
		want, wantErr := decideOn(plain, u, tn)
		for _, c := range []*Compiled{big, tiny} {
			got, err := decideOn(c, u, tn)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v on %v: memo gives %+v, %v; want %+v, %v", u, tn, got, err, want, wantErr)
			}
		}
	}
}

// reset empties the memo, and forgets what it has seen.
func (m *snapshotMemo) reset() {
	for i := range m.callers {
		if m.callers[i].Load() != nil {
			m.callers[i].Store(nil)
		}
		if m.bodies[i].Load() != nil {
			m.bodies[i].Store(nil)
		}
		if m.hits[i].Load() != nil {
			m.hits[i].Store(nil)
		}
		if m.callersSeen[i].Load() != 0 {
			m.callersSeen[i].Store(0)
		}
		if m.bodiesSeen[i].Load() != 0 {
			m.bodiesSeen[i].Store(0)
		}
	}
}

// viewResult is what a View tells: its Decision for a table and what it
// reports about its caller.
type viewResult struct {
	d            *Decision
	fingerprint  string
	held, active []string
	user         session.User
}

func decideOn(c *Compiled, u session.User, tn TableName) (*viewResult, error) {
	v, err := c.View(u)
	if err != nil {
		return nil, err
	}
	d, err := v.Decide(tn)
	if err != nil {
		return nil, err
	}
	return &viewResult{d: d, fingerprint: v.Fingerprint(), held: v.HeldRoles(), active: v.ActiveRoles(), user: v.User()}, nil
}

// TestDecisionMemoSharesOnlyReadOnlyContents: two callers who get the same
// decision get Decisions of their own (with the table as each asked for
// it) that share their maps, and appending to one's row filters does not
// reach the other's.
func TestDecisionMemoSharesOnlyReadOnlyContents(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	support := session.User{Name: "s1", Roles: []string{"support"}}
	decide(t, c, support, "shop.customers") // seen once: not kept yet
	d1 := decide(t, c, support, "shop.customers")
	v2, _ := c.View(session.User{Name: "s2", Roles: []string{"support"}})
	d2, _ := v2.Decide(TableName{"Shop", "CUSTOMERS"})
	if d1 == d2 {
		t.Fatal("two Views share a Decision")
	}
	if d1.Table != (TableName{"shop", "customers"}) || d2.Table != (TableName{"Shop", "CUSTOMERS"}) {
		t.Errorf("tables %v, %v", d1.Table, d2.Table)
	}
	d1c := *d1
	d1c.Table = d2.Table
	if !reflect.DeepEqual(&d1c, d2) {
		t.Fatalf("same rules, different decisions:\n%+v\n%+v", d1, d2)
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	if !same(d1.Masks, d2.Masks) || !same(d1.Restricted, d2.Restricted) || !same(d1.DeniedBy, d2.DeniedBy) {
		t.Error("equal decisions do not share their maps")
	}
	if len(d1.RowFilters) == 0 || cap(d1.RowFilters) != len(d1.RowFilters) {
		t.Fatalf("row filters %d, cap %d: an append would write into the shared array", len(d1.RowFilters), cap(d1.RowFilters))
	}
	n := len(d2.RowFilters)
	d1.RowFilters = append(d1.RowFilters, RowFilter{Expr: "FALSE", Policy: "added"})
	if len(d2.RowFilters) != n || cap(d2.RowFilters) > n && d2.RowFilters[:n+1][n].Policy == "added" {
		t.Error("appending to one Decision's row filters changed another's")
	}
	// The copy a caller may modify is private.
	cl := d2.Clone()
	cl.Masks["ssn"] = Mask{Type: "MASK_NONE"}
	cl.Restricted["x"] = "y"
	if d3 := decide(t, c, support, "shop.customers"); d3.Masks["ssn"].Type != "MASK_SHOW_LAST_4" || d3.Restricted["x"] != "" {
		t.Error("changing a clone changed the shared contents")
	}
}

// TestDecisionMemoConcurrent decides concurrently on a snapshot whose memo
// has two slots, so that entries are replaced while others read them.
func TestDecisionMemoConcurrent(t *testing.T) {
	f := mustParse(t, evalPolicy)
	plain, _ := Compile(f, 1, WithMemoSize(0))
	tiny, _ := Compile(f, 1, WithMemoSize(2))
	type query struct {
		u    session.User
		tn   TableName
		want *viewResult
		err  string
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var qs []query
	for len(qs) < 200 {
		u := randomCaller(rng)
		tn := memoTables[rng.IntN(len(memoTables))]
		d, err := decideOn(plain, u, tn)
		qs = append(qs, query{u, tn, d, fmt.Sprint(err)})
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				q := &qs[(i*7+g*13)%len(qs)]
				d, err := decideOn(tiny, q.u, q.tn)
				if fmt.Sprint(err) != q.err || !reflect.DeepEqual(d, q.want) {
					t.Errorf("%+v on %v: %+v, %v; want %+v, %s", q.u, q.tn, d, err, q.want, q.err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestMemoSharedCallerConcurrent: Views for one caller, built and used
// concurrently, share its principals and build their lazy parts (role
// names, fingerprint) once.
func TestMemoSharedCallerConcurrent(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	u := session.User{Name: "carol", Groups: []string{"eu-team"}, Roles: []string{"support"}}
	plain, _ := Compile(mustParse(t, evalPolicy), 7, WithMemoSize(0))
	want, err := decideOn(plain, u, TableName{"shop", "customers"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				got, err := decideOn(c, u, TableName{"shop", "customers"})
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%+v, %v; want %+v", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestDecisionMemoLargeSet compares memoized and fresh Decisions on the
// benchmarks' synthetic policy set for callers holding random roles.
func TestDecisionMemoLargeSet(t *testing.T) {
	s := synthPolicies(6000)
	plain, err := Compile(s.f, 1, WithMemoSize(0))
	if err != nil {
		t.Fatal(err)
	}
	memo, _ := Compile(s.f, 1, WithMemoSize(64))
	// The roles that have rules on the first 50 tables (and their
	// containers), so that callers hit rules.
	var tables []TableName
	var roles []string
	for j := 0; j < 50; j++ {
		ft := &s.f.Tables[j]
		tables = append(tables, TableName{ft.Schema, ft.Table})
		add := func(ps []Principal) {
			for _, p := range ps {
				var i int
				if _, err := fmt.Sscanf(p.Name, "r%d", &i); err == nil {
					roles = append(roles, p.Name, roleName(i-i%10))
				}
			}
		}
		for _, r := range ft.Access {
			add(r.Principals)
		}
		for _, r := range ft.RowFilters {
			add(r.Principals)
		}
		for _, r := range ft.Masks {
			add(r.Principals)
		}
		for _, r := range ft.Restricted {
			add(r.Principals)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 4000; i++ {
		u := session.User{Name: "caller"}
		for n := rng.IntN(4); n > 0; n-- {
			u.Roles = append(u.Roles, roles[rng.IntN(len(roles))])
		}
		tn := tables[rng.IntN(len(tables))]
		want, wantErr := decideOn(plain, u, tn)
		got, err := decideOn(memo, u, tn)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v on %v: memo gives %+v, %v; want %+v, %v", u, tn, got, err, want, wantErr)
		}
	}
}

// TestMemoSharesCallers: Views for the same caller share what they
// resolved (and nothing else); callers that differ in anything User
// reports do not, and the memo keeps copies of the caller's strings.
func TestMemoSharesCallers(t *testing.T) {
	c := mustCompile(t, evalPolicy)
	build := func(u session.User) *fileView {
		t.Helper()
		v, err := c.view(u)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	long := "alice and some more text the memo must not keep"
	u := session.User{Name: long[:5], Groups: []string{"ops"}, Roles: []string{"support"}, Attributes: map[string]string{"k": "v"}}
	build(u) // seen once: not kept yet
	v1, v2 := build(u), build(u.Clone())
	if uc := u.Clone(); !v1.sameCaller(&uc) {
		t.Error("a copy of the caller is taken for another caller")
	}
	if v1 == v2 || v1.viewPrincipals != v2.viewPrincipals {
		t.Fatal("Views for the same caller do not share its principals")
	}
	if unsafe.StringData(v1.user.Name) == unsafe.StringData(u.Name) {
		t.Error("the memo keeps the caller's string")
	}
	// Their Decisions have the same content; from the memo on, they are
	// one shared, read-only Decision.
	d1, _ := v1.Decide(TableName{"shop", "customers"})
	d2, _ := v2.Decide(TableName{"shop", "customers"})
	if !reflect.DeepEqual(d1, d2) {
		t.Errorf("Views for the same caller decide differently:\n%+v\n%+v", d1, d2)
	}
	for name, w := range map[string]session.User{
		"name":            {Name: "bob", Groups: u.Groups, Roles: u.Roles, Attributes: u.Attributes},
		"nil groups":      {Name: u.Name, Roles: u.Roles, Attributes: u.Attributes},
		"group order":     {Name: u.Name, Groups: []string{"ops", "eu-team"}, Roles: u.Roles, Attributes: u.Attributes},
		"other order":     {Name: u.Name, Groups: []string{"eu-team", "ops"}, Roles: u.Roles, Attributes: u.Attributes},
		"empty roles":     {Name: u.Name, Groups: u.Groups, Roles: []string{}, Attributes: u.Attributes},
		"nil roles":       {Name: u.Name, Groups: u.Groups, Attributes: u.Attributes},
		"primary":         {Name: u.Name, Groups: u.Groups, Roles: u.Roles, PrimaryRole: "support", Attributes: u.Attributes},
		"secondary":       {Name: u.Name, Groups: u.Groups, Roles: u.Roles, PrimaryRole: "support", SecondaryRoles: []string{}, Attributes: u.Attributes},
		"attribute":       {Name: u.Name, Groups: u.Groups, Roles: u.Roles, Attributes: map[string]string{"k": "w"}},
		"no attributes":   {Name: u.Name, Groups: u.Groups, Roles: u.Roles},
		"empty attribute": {Name: u.Name, Groups: u.Groups, Roles: u.Roles, Attributes: map[string]string{}},
	} {
		if v1.sameCaller(&w) {
			t.Errorf("%s: taken for the same caller", name)
		}
		for i := 0; i < 3; i++ { // the third View finds the second's in the memo
			v := build(w)
			if v.viewPrincipals == v1.viewPrincipals {
				t.Errorf("%s: shares the principals of another caller", name)
			}
			if got := v.User(); !reflect.DeepEqual(got, w.Clone()) {
				t.Errorf("%s: User() = %#v, want %#v", name, got, w)
			}
		}
	}
	// A failed resolution is not kept.
	bad := session.User{Name: "x", PrimaryRole: "admin"}
	for i := 0; i < 2; i++ {
		if _, err := c.View(bad); !errors.Is(err, ErrAccessDenied) {
			t.Fatalf("primary role not held: %v", err)
		}
	}
	if n := c.Counters().Stats().FailClosed[FailRoleNotGranted]; n != 2 {
		t.Errorf("%d refusals counted, want 2", n)
	}
	// Without a memo, every View resolves its own.
	plain, _ := Compile(mustParse(t, evalPolicy), 1, WithMemoSize(0))
	p1, _ := plain.view(u)
	p2, _ := plain.view(u)
	if p1.viewPrincipals == p2.viewPrincipals {
		t.Error("shared principals without a memo")
	}
}

// BenchmarkViewNoMemo and BenchmarkDecideNoMemo are BenchmarkView and
// BenchmarkDecide on a snapshot without a memo: every View resolves its
// caller and every Decide evaluates and builds its Decision.
func BenchmarkViewNoMemo(b *testing.B) {
	c, err := Compile(mustParse(b, bigPolicy(5000)), 1, WithMemoSize(0))
	if err != nil {
		b.Fatal(err)
	}
	u := session.User{Name: "u", Groups: []string{"g1", "g2"}, Roles: []string{"r1", "r2", "r3"}, Attributes: map[string]string{"tenant": "7"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.View(u); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecideNoMemo(b *testing.B) {
	c, err := Compile(mustParse(b, bigPolicy(5000)), 1, WithMemoSize(0))
	if err != nil {
		b.Fatal(err)
	}
	u := session.User{Name: "u", Roles: []string{"r1", "r2", "r3"}}
	tn := TableName{"s", "t2"}
	b.ReportAllocs()
	for b.Loop() {
		v, _ := c.View(u)
		if d, _ := v.Decide(tn); !d.Allows(Select) {
			b.Fatal("denied")
		}
	}
}
