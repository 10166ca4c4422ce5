package postgres

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

func TestSessionSearchPath(t *testing.T) {
	for _, path := range [][]string{nil, {"public"}, {"app", "public", "pg_temp"}, {"a,b", "c"}} {
		s := NewSession(path, false)
		if got := s.SearchPath(); !slices.Equal(got, path) {
			t.Errorf("%q: %q", path, got)
		}
		if s != NewSession(slices.Clone(path), false) {
			t.Errorf("%q: two sessions of the same path differ", path)
		}
	}
	if NewSession([]string{"a", "bc"}, false) == NewSession([]string{"ab", "c"}, false) {
		t.Error("different paths make the same session")
	}
}

func TestReadSession(t *testing.T) {
	answer := func(scs, enc string) rewriter.Query {
		return func(_ context.Context, q string, _ ...any) ([][]any, error) {
			if q == "SELECT current_setting('standard_conforming_strings'), current_setting('client_encoding'), current_database()::text" {
				return [][]any{{scs, enc, "shop"}}, nil
			}
			return [][]any{{"app"}, {"public"}}, nil
		}
	}
	s, err := Dialect{}.ReadSession(context.Background(), answer("off", "UTF8"))
	want := NewSession([]string{"app", "public"}, true)
	want.Database = "shop"
	if err != nil || s != want {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := (Dialect{}).ReadSession(context.Background(), answer("on", "SQL_ASCII")); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("want a refusal, got %v", err)
	}
}

func TestAnotherDialectsSessionIsRefused(t *testing.T) {
	req := request("SELECT 1", nil)
	req.Session = struct{ Database string }{"shop"}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("want a refusal, got %v", err)
	}
}

func TestConfirmingCodes(t *testing.T) {
	for _, c := range []struct {
		refusal *rewriter.Error
		want    []string
	}{
		{&rewriter.Error{Kind: rewriter.ErrSyntax}, []string{"42601"}},
		{&rewriter.Error{Kind: rewriter.ErrUnsupported, NotFound: true}, []string{"42P01"}},
		{&rewriter.Error{Kind: rewriter.ErrUnsupported, Unimplemented: true}, []string{"0A000"}},
		{&rewriter.Error{Kind: rewriter.ErrUnsupported}, nil},
	} {
		if got := (Dialect{}).ConfirmingCodes(c.refusal); !slices.Equal(got, c.want) {
			t.Errorf("%v: %q, want %q", c.refusal, got, c.want)
		}
	}
}
