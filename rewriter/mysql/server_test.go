package mysql

import (
	"context"
	"errors"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

func TestGeneratedExtra(t *testing.T) {
	for extra, want := range map[string]bool{
		"VIRTUAL GENERATED": true, "STORED GENERATED": true, "PERSISTENT GENERATED": true,
		"on update current_timestamp()": true, "DEFAULT_GENERATED": false, "auto_increment": false, "": false,
		"DEFAULT_GENERATED on update CURRENT_TIMESTAMP": true,
	} {
		if got := generatedExtra(extra); got != want {
			t.Errorf("%q: %v, want %v", extra, got, want)
		}
	}
}

// TestReadSession reads the session state from the server's answers: the
// modes from sql_mode, and refuses an unsafe character set or MariaDB's
// regular-expression flags that change masks.
func TestReadSession(t *testing.T) {
	answer := func(mode, version, client string, flags string) rewriter.Query {
		return func(_ context.Context, q string, _ ...any) ([][]any, error) {
			if q == "SELECT @@SESSION.default_regex_flags" {
				return [][]any{{flags}}, nil
			}
			return [][]any{{[]byte("shop"), mode, version, client, "utf8mb4"}}, nil
		}
	}
	s, err := Dialect{}.ReadSession(context.Background(), answer("STRICT_TRANS_TABLES,ANSI,NO_BACKSLASH_ESCAPES", "8.0.40", "utf8mb4", ""))
	if err != nil || s != (Session{Database: "shop", NoBackslashEscapes: true, ANSIQuotes: true}) {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = Dialect{}.ReadSession(context.Background(), answer("", "11.4.2-MariaDB", "latin1", "DOTALL"))
	if err != nil || s != (Session{Database: "shop"}) {
		t.Fatalf("%+v %v", s, err)
	}
	for _, q := range []rewriter.Query{answer("", "8.0.40", "gbk", ""), answer("", "11.4.2-MariaDB", "utf8mb4", "DOTALL,UNGREEDY")} {
		if _, err := (Dialect{}).ReadSession(context.Background(), q); !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("want a refusal, got %v", err)
		}
	}
}

// TestAnotherDialectsSessionIsRefused: a session state the dialect did not
// make is never taken for its default.
func TestAnotherDialectsSessionIsRefused(t *testing.T) {
	req := request("SELECT 1", nil)
	req.Session = struct{ Path string }{"shop"}
	if _, err := (Dialect{}).Rewrite(context.Background(), req); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("want a refusal, got %v", err)
	}
}

// TestNoConfirmingCodes: a statement the MySQL dialect refused is never
// sent to the server to be prepared.
func TestNoConfirmingCodes(t *testing.T) {
	for _, e := range []*rewriter.Error{{Kind: rewriter.ErrSyntax}, {Kind: rewriter.ErrUnsupported, NotFound: true}} {
		if got := (Dialect{}).ConfirmingCodes(e); got != nil {
			t.Errorf("%v: %q", e, got)
		}
	}
}
