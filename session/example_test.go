package session_test

import (
	"context"
	"fmt"

	"github.com/sqe-project/sqe/session"
)

// The caller goes on the context the application already passes to
// database/sql; sqe reads it for every statement.
func ExampleNewContext() {
	ctx := session.NewContext(context.Background(), session.User{
		Name:           "sam",
		Groups:         []string{"support"},
		Roles:          []string{"support", "analyst"},
		PrimaryRole:    "support",
		SecondaryRoles: []string{session.AllSecondaryRoles},
		Attributes:     map[string]string{"tenant": "42"},
	})
	u, ok := session.FromContext(ctx)
	fmt.Println(ok, u.Name, u.PrimaryRole, u.AllSecondary(), u.Attributes["tenant"])
	_, ok = session.FromContext(context.Background())
	fmt.Println(ok)
	// Output:
	// true sam support true 42
	// false
}

// Peek reads the caller in place, for code on a hot path that only looks;
// FromContext returns a copy that is the caller's to change.
func ExamplePeek() {
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}})
	u, ok := session.Peek(ctx)
	fmt.Println(ok, u.Name, u.Groups)
	copied, _ := session.FromContext(ctx)
	copied.Groups[0] = "changed"
	again, _ := session.Peek(ctx)
	fmt.Println(again.Groups, again == u)
	_, ok = session.Peek(context.Background())
	fmt.Println(ok)
	// Output:
	// true ann [ops]
	// [ops] true
	// false
}
