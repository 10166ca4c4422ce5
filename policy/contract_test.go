package policy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// TestBaseViewDefaults: the defaults say "none" and fail closed where an
// answer would grant something.
func TestBaseViewDefaults(t *testing.T) {
	var b BaseView
	tn := TableName{Schema: "shop", Table: "t"}
	if b.HeldRoles() != nil || b.ActiveRoles() != nil || b.NamedColumns(tn) != nil || b.MaskConditions(tn) != nil ||
		b.AllowedFunctions() != nil || b.SnapshotVersion() != 0 || b.PolicyRevision() != "" {
		t.Fatal("a default is not the zero answer")
	}
	d, err := b.DecideColumnInfo(tn, []ColumnInfo{{Name: "id"}})
	if d != nil || !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("DecideColumnInfo = %v, %v; want a refusal", d, err)
	}
}

// TestNeedsColumnsIsADenial: a View's request for the columns, wrapped
// as a source wraps it, is found as ErrNeedsColumns and, by a caller that
// cannot supply the columns, as ErrAccessDenied.
func TestNeedsColumnsIsADenial(t *testing.T) {
	err := fmt.Errorf("table shop.t: %w", ErrNeedsColumns)
	if !errors.Is(err, ErrNeedsColumns) || !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("%v: Is(ErrNeedsColumns)=%v Is(ErrAccessDenied)=%v", err,
			errors.Is(err, ErrNeedsColumns), errors.Is(err, ErrAccessDenied))
	}
	if errors.Is(ErrAccessDenied, ErrNeedsColumns) {
		t.Fatal("every denial reads as a request for the columns")
	}
}

// TestFileViewDefaults: the native file's View resolves roles (a non-nil
// list when the user holds none) and does not decide by columns.
func TestFileViewDefaults(t *testing.T) {
	f, err := Parse("p.yaml", []byte("version: 1\ndefault: allow\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if v.HeldRoles() == nil || v.ActiveRoles() == nil || v.SnapshotVersion() != 3 || v.PolicyRevision() != "" {
		t.Fatalf("held %#v active %#v version %d revision %q", v.HeldRoles(), v.ActiveRoles(), v.SnapshotVersion(), v.PolicyRevision())
	}
	if _, err := v.DecideColumnInfo(TableName{Schema: "s", Table: "t"}, nil); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("DecideColumnInfo: %v", err)
	}
}
