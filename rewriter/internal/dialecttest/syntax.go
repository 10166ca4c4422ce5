package dialecttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// SyntaxErrorCase is a statement that does not parse, the error it must
// give and the position it must name.
type SyntaxErrorCase struct {
	SQL, Want string
	Pos       int
}

// SyntaxErrors checks that each case is an ErrSyntax (matching
// ErrUnsupported too) with its position and message, and that no error
// repeats a value of the statement.
func SyntaxErrors(t *testing.T, d Dialect, cases []SyntaxErrorCase) {
	t.Helper()
	for _, c := range cases {
		_, err := d.Rewriter.Rewrite(context.Background(), &rewriter.Request{SQL: c.SQL})
		if !errors.Is(err, rewriter.ErrSyntax) {
			t.Errorf("%q: %v, want ErrSyntax", c.SQL, err)
			continue
		}
		if !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("%q: a syntax error must also match ErrUnsupported", c.SQL)
		}
		var re *rewriter.Error
		if !errors.As(err, &re) || re.Position != c.Pos {
			t.Errorf("%q: position %d, want %d (%v)", c.SQL, re.Position, c.Pos, err)
		}
		if err.Error() != c.Want {
			t.Errorf("%q:\n got %s\nwant %s", c.SQL, err, c.Want)
		}
		for _, secret := range []string{"secret", "4111", "42", "never", "closed"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q: error repeats a value: %v", c.SQL, err)
			}
		}
	}
}

// UnsupportedIsNotSyntax checks that sql, which parses, is refused as
// unsupported and not as a syntax error.
func UnsupportedIsNotSyntax(t *testing.T, d Dialect, sql string) {
	t.Helper()
	_, err := d.Rewriter.Rewrite(context.Background(), &rewriter.Request{SQL: sql})
	if !errors.Is(err, rewriter.ErrUnsupported) || errors.Is(err, rewriter.ErrSyntax) {
		t.Fatalf("%v: want ErrUnsupported and not ErrSyntax", err)
	}
}

// SyntaxErrorsNeverRepeatALiteral places each literal at every word
// boundary of a few statements: whatever the parser stops at, no
// literal's value is in the error.
func SyntaxErrorsNeverRepeatALiteral(t *testing.T, d Dialect, literals []string) {
	t.Helper()
	stmts := []string{
		"SELECT a, b FROM t WHERE c = 1 AND d IN (2, 3) ORDER BY a",
		"UPDATE t SET a = 1 WHERE b = 2",
		"INSERT INTO t (a, b) VALUES (1, 2)",
	}
	refused := 0
	for _, s := range stmts {
		words := strings.Fields(s)
		for i := 0; i <= len(words); i++ {
			for _, lit := range literals {
				parts := append(append(append([]string{}, words[:i]...), lit), words[i:]...)
				sql := strings.Join(parts, " ")
				_, err := d.Rewriter.Rewrite(context.Background(), &rewriter.Request{SQL: sql})
				if !errors.Is(err, rewriter.ErrSyntax) {
					continue
				}
				refused++
				for _, v := range []string{"SECRET", "98765", "5345435245"} {
					if strings.Contains(err.Error(), v) {
						t.Errorf("%s: %v", sql, err)
					}
				}
			}
		}
	}
	if refused < 100 {
		t.Fatalf("only %d of the statements were syntax errors", refused)
	}
}

// TransactionControl checks, for each statement, whether the rewrite
// classifies it as transaction control: the parser decides, not the
// first word.
func TransactionControl(t *testing.T, d Dialect, want map[string]bool) {
	t.Helper()
	for sql, w := range want {
		res, err := d.Rewriter.Rewrite(context.Background(), d.Request(sql, nil))
		if err != nil {
			t.Errorf("%q: %v", sql, err)
			continue
		}
		if res.Effect.TransactionControl != w {
			t.Errorf("%q: TransactionControl = %v, want %v", sql, res.Effect.TransactionControl, w)
		}
	}
}
