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
