package testenv

import "testing"

// fakeTB records a Fatalf instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Fatalf(s string, a ...any) { f.failed = s }

// TestNoCanaryFollowsPointers: a canary behind a pointer (a preloaded
// association) or in a byte slice fails the check; a pointer's address
// never does.
func TestNoCanaryFollowsPointers(t *testing.T) {
	type cust struct {
		Salary int
		SSN    []byte
	}
	type order struct {
		ID int
		C  *cust
	}
	f := &fakeTB{}
	NoCanary(f, Analyst, "x", []order{{1, &cust{Salary: 52000}}})
	if f.failed == "" {
		t.Fatal("a canary behind a pointer went unseen")
	}
	f = &fakeTB{}
	NoCanary(f, Support, "x", []order{{1, &cust{SSN: []byte("111-22-9999")}}})
	if f.failed == "" {
		t.Fatal("a canary in bytes went unseen")
	}
	f = &fakeTB{}
	NoCanary(f, Analyst, "x", []order{{1, &cust{Salary: 1}}, {2, nil}})
	if f.failed != "" {
		t.Fatal("false positive")
	}
}
