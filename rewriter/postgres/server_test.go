package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
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
			switch {
			case q == settingsQuery:
				return [][]any{{scs, enc, "shop", ""}}, nil
			case strings.Contains(q, "generate_series"):
				return nil, errors.New("no ICU")
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

// TestReadSessionNamedClasses: a server whose probe answers Go's
// classification gets NamedClasses, any other answer or an error does
// not, and the answer is kept per server instance.
func TestReadSessionNamedClasses(t *testing.T) {
	probes := 0
	dialecttest.ReadSessionNamedClasses(t, dialecttest.ClassProbeServer{
		Dialect: Dialect{}, Target: udf.Postgres, Probes: &probes,
		ProbeError: errors.New(`collation "pg_catalog.und-x-icu" does not exist`),
		Connect: func(instance, probe string, probeErr error) rewriter.Query {
			return func(_ context.Context, q string, _ ...any) ([][]any, error) {
				switch {
				case q == settingsQuery:
					return [][]any{{"on", "UTF8", "shop", "postgres | " + instance}}, nil
				case strings.Contains(q, "generate_series"):
					probes++
					return [][]any{{probe}}, probeErr
				}
				return [][]any{{"public"}}, nil
			}
		},
		Named: func(s rewriter.Session) bool { return s.(Session).NamedClasses },
	})
}

// TestNamedClassesReachTheMasks: a connection whose server classifies as
// Go does gets masks that name the classes, the others the code point
// lists, in the read form and in a write's guard alike.
func TestNamedClassesReachTheMasks(t *testing.T) {
	for _, sql := range []string{"SELECT ssn FROM customers", "UPDATE customers SET name = 'x' WHERE ssn = '1234'"} {
		for _, named := range []bool{false, true} {
			req := request(sql, map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()})
			sess := req.Session.(Session)
			sess.NamedClasses = named
			req.Session = sess
			res, err := Dialect{}.Rewrite(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if got := strings.Contains(res.SQL, "[:upper:]"); got != named || len(res.SQL) > 2000 != !named {
				t.Errorf("%s, named classes %v: %d bytes: %.300s", sql, named, len(res.SQL), res.SQL)
			}
		}
	}
}

func TestAnotherDialectsSessionIsRefused(t *testing.T) {
	dialecttest.AnotherDialectsSessionIsRefused(t, testDialect, struct{ Database string }{"shop"})
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
