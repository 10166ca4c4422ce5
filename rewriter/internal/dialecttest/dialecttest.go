// Package dialecttest holds what the MySQL and PostgreSQL dialects' tests
// share: the test policy view and decisions, the request builder, and the
// table-driven cases both dialects run, each driven by a Dialect the
// dialect's tests describe. Only _test.go files import it.
package dialecttest

import (
	"context"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// Dialect is what a dialect's tests give the shared cases.
type Dialect struct {
	// Rewriter is the dialect under test.
	Rewriter rewriter.Dialect
	// Syntax is the dialect's Syntax.
	Syntax rewriter.Syntax
	// Request builds a request for sql over the dialect's test catalog,
	// with the given decisions.
	Request func(sql string, decisions map[string]*policy.Decision) *rewriter.Request
	// Rewrite rewrites req, checking what the dialect checks of every
	// output (that it parses, that it is cacheable).
	Rewrite func(t testing.TB, req *rewriter.Request) (*rewriter.Result, error)
	// FoldedNames: the dialect's function names have no case, and its
	// errors may name a function in another case than the test.
	FoldedNames bool
}

// RewriteSQL rewrites sql under the decisions and returns the output text.
func (d Dialect) RewriteSQL(t testing.TB, sql string, decisions map[string]*policy.Decision) (string, error) {
	t.Helper()
	res, err := d.Rewrite(t, d.Request(sql, decisions))
	if err != nil {
		return "", err
	}
	return res.SQL, nil
}

// View decides from a fixed map of decisions keyed by schema.table;
// tables it does not list are open to every access.
type View struct {
	policy.BaseView
	Caller    session.User
	Decisions map[string]*policy.Decision
}

var _ policy.View = (*View)(nil)

// Decide returns a copy of the listed decision, naming t, or one that
// allows everything.
func (v *View) Decide(t policy.TableName) (*policy.Decision, error) {
	if d, ok := v.Decisions[t.Key()]; ok {
		c := *d
		c.Table = t
		return &c, nil
	}
	return &policy.Decision{Table: t, Allowed: AllAccess()}, nil
}

// Fingerprint is the caller's name: the view's decisions are fixed.
func (v *View) Fingerprint() string { return v.Caller.Name }

// User is the caller.
func (v *View) User() session.User { return v.Caller }

// AllAccess allows every access.
func AllAccess() map[policy.Access]bool {
	m := map[policy.Access]bool{}
	for _, a := range policy.Accesses {
		m[a] = true
	}
	return m
}

// AccessExcept allows every access but the denied ones.
func AccessExcept(denied ...policy.Access) map[policy.Access]bool {
	m := AllAccess()
	for _, a := range denied {
		delete(m, a)
	}
	return m
}

// CustomersDecision filters shop.customers to region EU, masks ssn (last
// four) and email (NULL), and restricts salary.
func CustomersDecision() *policy.Decision {
	return &policy.Decision{
		Table:      policy.TableName{Schema: "shop", Table: "customers"},
		Allowed:    AllAccess(),
		RowFilters: []policy.RowFilter{{Expr: "region = 'EU'", Policy: "eu-only"}},
		Masks: map[string]policy.Mask{
			"ssn":   {Type: "MASK_SHOW_LAST_4", Policy: "ssn-last4"},
			"email": {Type: "MASK_NULL", Policy: "email-null"},
		},
		Restricted: map[string]string{"salary": "no-salary"},
	}
}

// User is the caller of the test requests: a name with a quote and a
// backslash, which every literal of it must escape.
func User() session.User {
	return session.User{Name: `al'ice\`, PrimaryRole: "support"}
}

// Request is a request for sql by User, decided by the decisions, over
// the catalog and in the session.
func Request(sql string, decisions map[string]*policy.Decision, cat rewriter.Catalog, sess rewriter.Session) *rewriter.Request {
	u := User()
	return &rewriter.Request{
		SQL:     sql,
		View:    &View{Caller: u, Decisions: decisions},
		User:    u,
		Catalog: cat,
		Session: sess,
	}
}

// Short keeps failure messages readable: mask expressions are long.
func Short(s string) string {
	if len(s) > 900 {
		return s[:450] + " … " + s[len(s)-450:]
	}
	return s
}

// Plain rewrites req with the dialect, checking nothing more.
func Plain(dialect rewriter.Dialect) func(testing.TB, *rewriter.Request) (*rewriter.Result, error) {
	return func(_ testing.TB, req *rewriter.Request) (*rewriter.Result, error) {
		return dialect.Rewrite(context.Background(), req)
	}
}
