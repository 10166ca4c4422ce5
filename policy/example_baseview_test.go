package policy_test

import (
	"fmt"
	"log"
	"strconv"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// tenantSnapshot is a policy of one rule, written in code: every caller
// reads the orders of its own tenant (the session attribute "tenant"),
// and nothing else.
type tenantSnapshot struct{ version uint64 }

func (s tenantSnapshot) Version() uint64 { return s.version }

func (s tenantSnapshot) View(u session.User) (policy.View, error) {
	return &tenantView{user: u, version: s.version}, nil
}

// tenantView implements Decide, Fingerprint and User (and, as it knows
// it, SnapshotVersion); BaseView answers the rest: no role hierarchy, no
// named columns, no decisions by columns.
type tenantView struct {
	policy.BaseView
	user    session.User
	version uint64
}

var _ policy.View = (*tenantView)(nil)

func (v *tenantView) Decide(t policy.TableName) (*policy.Decision, error) {
	d := &policy.Decision{Table: t, Allowed: map[policy.Access]bool{}}
	if t.Key() != "shop.orders" {
		return d, nil // nothing allowed
	}
	d.Allowed[policy.Select] = true
	d.RowFilters = []policy.RowFilter{{Expr: "tenant = session_attribute('tenant')", Policy: "own-tenant"}}
	return d, nil
}

func (v *tenantView) Fingerprint() string {
	return "tenant;v" + strconv.FormatUint(v.version, 10) + ";u" + strconv.Quote(v.user.Name) +
		";t" + strconv.Quote(v.user.Attributes["tenant"])
}

func (v *tenantView) User() session.User { return v.user.Clone() }

func (v *tenantView) SnapshotVersion() uint64 { return v.version }

func ExampleBaseView() {
	src := policy.NewStaticSource(tenantSnapshot{version: 1})
	v, err := policy.ViewWithRetry(src, session.User{Name: "ann", Attributes: map[string]string{"tenant": "acme"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range []string{"orders", "invoices"} {
		d, err := v.Decide(policy.TableName{Schema: "shop", Table: t})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: select=%v, %d row filter(s)\n", t, d.Allows(policy.Select), len(d.RowFilters))
	}
	fmt.Println("version:", v.SnapshotVersion(), "roles resolved:", v.HeldRoles() != nil)
	// Output:
	// orders: select=true, 1 row filter(s)
	// invoices: select=false, 0 row filter(s)
	// version: 1 roles resolved: false
}
