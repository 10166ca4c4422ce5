package ranger_test

import (
	"fmt"
	"log"
	"sort"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/session"
)

// A bundle file (written by "sqe fetch", or a Ranger policy download) is a
// policy source; with the driver it is sqe.WithPolicy(src) or
// sqe.WithPolicyFile(path).
func ExampleLoadBundle() {
	src, err := ranger.LoadBundle("testdata/shop_bundle.json")
	if err != nil {
		log.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	view, err := snap.View(session.User{Name: "ann", Groups: []string{"analysts"}})
	if err != nil {
		log.Fatal(err)
	}

	d, err := view.Decide(policy.TableName{Schema: "shop", Table: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("orders: select", d.Allows(policy.Select), "update", d.Allows(policy.Update))
	for _, f := range d.RowFilters {
		fmt.Printf("orders: row filter %q from %s\n", f.Expr, f.Policy)
	}

	d, err = view.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if err != nil {
		log.Fatal(err)
	}
	cols := make([]string, 0, len(d.Masks))
	for c := range d.Masks {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		fmt.Printf("customers.%s: %s from %s\n", c, d.Masks[c].Type, d.Masks[c].Policy)
	}

	// Contractors are denied the payments table by a tag policy.
	view, _ = snap.View(session.User{Name: "carl", Groups: []string{"contractors"}})
	d, _ = view.Decide(policy.TableName{Schema: "shop", Table: "payments"})
	fmt.Println("payments for a contractor:", d.Allows(policy.Select), "denied by", d.Reason(policy.Select))
	// Output:
	// orders: select true update false
	// orders: row filter "region = 'EU'" from ranger policy 10
	// customers.email: CUSTOM from ranger policy 21
	// customers.phone: MASK_HASH from ranger tag policy 100
	// customers.ssn: MASK_SHOW_LAST_4 from ranger policy 20
	// payments for a contractor: false denied by ranger tag policy 101
}
