package opa_test

import (
	"fmt"
	"sort"

	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// The example bundle reproduces the demo's policy: an EU analyst reads
// EU customers only, without their salaries. With a database,
// sqe.Open(driverName, dsn, sqe.WithPolicy(src)) enforces it.
func ExampleNew() {
	src, err := opa.New("example/demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	snap, _ := src.Snapshot()
	v, _ := snap.View(session.User{Name: "erin", Roles: []string{"eu_analyst"}})
	d, err := v.DecideColumnInfo(policy.TableName{Schema: "shop", Table: "customers"}, []policy.ColumnInfo{
		{Name: "id", Type: "int"}, {Name: "region", Type: "varchar(8)"}, {Name: "salary", Type: "int"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("revision:", src.Revision())
	fmt.Println("select:", d.Allows(policy.Select), "by", d.AllowedBy[policy.Select])
	fmt.Println("update:", d.Allows(policy.Update))
	for _, f := range d.RowFilters {
		fmt.Printf("row filter %s: %s\n", f.Policy, f.Expr)
	}
	for c, p := range d.Restricted {
		fmt.Printf("restricted %s by %s\n", c, p)
	}
	// Output:
	// revision: demo-1
	// select: true by staff-read
	// update: false
	// row filter eu-only: region = 'EU'
	// restricted salary by no-salary
}

// A support user sees masked SSNs and e-mail addresses.
func ExampleCompile() {
	b, err := opa.LoadBundle("example/demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := opa.Compile(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := snap.View(session.User{Name: "sam", Roles: []string{"support"}})
	d, _ := v.DecideColumnInfo(policy.TableName{Schema: "shop", Table: "customers"}, []policy.ColumnInfo{
		{Name: "id"}, {Name: "ssn"}, {Name: "email"}, {Name: "salary"},
	})
	cols := make([]string, 0, len(d.Masks))
	for c := range d.Masks {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		fmt.Printf("%s: %s (%s)\n", c, d.Masks[c].Type, d.Masks[c].Policy)
	}
	// Output:
	// email: MASK (email-hash)
	// ssn: MASK_SHOW_LAST_4 (ssn-last-4)
}
