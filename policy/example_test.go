package policy_test

import (
	"errors"
	"fmt"
	"log"
	"slices"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

func ExampleLoadFile() {
	f, err := policy.LoadFile("testdata/example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	snap, err := policy.Compile(f, policy.NextVersion())
	if err != nil {
		log.Fatal(err)
	}
	// A member of the helpdesk group: role support, through the file.
	view, err := snap.View(session.User{Name: "sam", Groups: []string{"helpdesk"}})
	if err != nil {
		log.Fatal(err)
	}
	d, err := view.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("select:", d.Allows(policy.Select))
	fmt.Println("update:", d.Allows(policy.Update), "-", d.Reason(policy.Update))
	for _, rf := range d.RowFilters {
		fmt.Printf("filter %s: %s\n", rf.Policy, rf.Expr)
	}
	cols := make([]string, 0, len(d.Masks))
	for c := range d.Masks {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	for _, c := range cols {
		fmt.Printf("mask %s: %s (%s)\n", c, d.Masks[c].Type, d.Masks[c].Policy)
	}
	fmt.Println("restricted salary:", d.Restricted["salary"])
	// Output:
	// select: true
	// update: false - no allow rule
	// filter active-customers: deleted_at IS NULL
	// mask card_number: MASK_HASH (hash-card-numbers)
	// mask email: CUSTOM (email-domain)
	// mask name: MASK_SHOW_FIRST_N (first-2)
	// mask ssn: MASK_SHOW_LAST_4 (ssn-last4)
	// restricted salary: no-salary
}

func ExampleParse() {
	_, err := policy.Parse("policy.yaml", []byte(`version: 1
default: deny
tables:
  shop.customers:
    access:
      - {principals: [role:analyst], allow: [select, selekt]}
`))
	fmt.Println(err)
	// Output:
	// policy.yaml:6: tables."shop.customers".access[0].allow[1]: unknown access type "selekt" (want select, update, create, drop, alter, index, lock or all)
}

func ExampleView_Decide() {
	f, err := policy.Parse("inline.yaml", []byte(`version: 1
default: deny
roles:
  admin: {contains: [analyst]}
tables:
  shop.orders:
    access:
      - {name: read, principals: [role:analyst], allow: [select]}
      - {name: write, principals: [role:admin], allow: [all]}
    row_filters:
      - {name: eu, principals: [role:analyst], filter: "region = 'EU'"}
`))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := policy.Compile(f, 1)
	if err != nil {
		log.Fatal(err)
	}
	orders := policy.TableName{Schema: "shop", Table: "orders"}
	for _, u := range []session.User{
		{Name: "ann", Roles: []string{"admin"}},
		{Name: "ann", Roles: []string{"admin"}, PrimaryRole: "analyst"},
		{Name: "bob"},
	} {
		v, err := snap.View(u)
		if err != nil {
			log.Fatal(err)
		}
		d, _ := v.Decide(orders)
		update := "allowed"
		if !d.Allows(policy.Update) {
			update = "denied by " + d.Reason(policy.Update)
		}
		fmt.Printf("%s (primary %q): select=%v, update %s, %d row filter(s)\n",
			u.Name, u.PrimaryRole, d.Allows(policy.Select), update, len(d.RowFilters))
	}
	_, err = snap.View(session.User{Name: "bob", PrimaryRole: "admin"})
	fmt.Println(err)
	// Output:
	// ann (primary ""): select=true, update allowed, 1 row filter(s)
	// ann (primary "analyst"): select=true, update denied by no allow rule, 1 row filter(s)
	// bob (primary ""): select=false, update denied by no allow rule, 0 row filter(s)
	// sqe: access denied: primary role "admin" is not granted to user "bob"
}

func ExampleViewWithRetry() {
	src := policy.NewMemorySource(policy.WithViewRetries(5))
	// A policy set built in code; the "ops" group's roles entry could not
	// be read, so the group is unresolved.
	f := &policy.File{
		Version: policy.FileVersion,
		Groups:  []policy.FileGrant{{Name: "eu", Roles: []string{"analyst"}}},
		Tables: []policy.FileTable{{
			Schema: "shop", Table: "orders",
			Access: []policy.AccessRule{{Name: "read", Principals: []policy.Principal{{Kind: policy.PrincipalRole, Name: "analyst"}}, Allow: []policy.Access{policy.Select}}},
		}},
		Unresolved: []policy.Unresolved{{Principal: policy.Principal{Kind: policy.PrincipalGroup, Name: "ops"}, Reason: "membership download failed"}},
	}
	if _, err := src.Publish(f); err != nil {
		log.Fatal(err)
	}
	orders := policy.TableName{Schema: "shop", Table: "orders"}
	for _, u := range []session.User{
		{Name: "ann", Groups: []string{"eu"}},
		{Name: "bob", Groups: []string{"ops"}},      // ops might grant analyst
		{Name: "cy", Groups: []string{"eu", "ops"}}, // analyst through eu: known
	} {
		v, err := policy.ViewWithRetry(src, u) // once per statement
		if err != nil {
			log.Fatal(err)
		}
		d, err := v.Decide(orders)
		if err != nil {
			fmt.Printf("%s: %v (access denied: %v)\n", u.Name, err, errors.Is(err, policy.ErrAccessDenied))
			continue
		}
		fmt.Printf("%s: select=%v\n", u.Name, d.Allows(policy.Select))
	}
	st := src.Stats()
	fmt.Println("reloads:", st.Reloads, "partial:", st.PartialLoads, "refused:", st.FailClosed)
	// Output:
	// ann: select=true
	// bob: sqe: access denied: table shop.orders: user "bob" holds unresolved principal group:ops (the table has rules for role "analyst", which may be granted through it): membership download failed (access denied: true)
	// cy: select=true
	// reloads: 1 partial: 1 refused: map[unresolved:1]
}
