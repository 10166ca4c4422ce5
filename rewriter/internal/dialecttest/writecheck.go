package dialecttest

import (
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// Args are the statement arguments vs, in order.
func Args(vs ...any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vs))
	for i, v := range vs {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// WriteCheckVerdict verifies res's write checks against args: want ""
// means they pass; otherwise they fail with an error holding want, which
// is an ErrCheckViolation and an ErrAccessDenied and repeats none of the
// values.
func WriteCheckVerdict(t *testing.T, res *rewriter.Result, args []driver.NamedValue, want string, values ...string) {
	t.Helper()
	err := rewriter.VerifyAll(res.WriteChecks, args)
	switch {
	case want == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case want != "" && err == nil:
		t.Fatalf("passed, want %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q, want %q", err, want)
	}
	if err == nil {
		return
	}
	if !errors.Is(err, policy.ErrCheckViolation) || !errors.Is(err, policy.ErrAccessDenied) {
		t.Errorf("error %v is not ErrCheckViolation and ErrAccessDenied", err)
	}
	for _, v := range values {
		if strings.Contains(err.Error(), v) {
			t.Errorf("error %q repeats a value", err)
		}
	}
}
