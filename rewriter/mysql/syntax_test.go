package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

func TestSyntaxErrorPositionAndToken(t *testing.T) {
	cases := []struct {
		sql, want string
		pos       int
	}{
		{"select * fro t", "sqe: syntax error at position 10 near 'fro'", 10},
		{"select a from t where", "sqe: syntax error at position 22 near end of input", 22},
		{"select a from t where a = 'secret@example.com' 'x' b", "sqe: syntax error at position 52 near 'b'", 52},
		{"select a from t where a = b 'secret@example.com'", "sqe: syntax error at position 29 near a literal", 29},
		{"select a from t where a = 4111111111111111 42", "sqe: syntax error at position 44 near a literal", 44},
		{"select a from t where a = 'never closed", "sqe: syntax error at position 27 near a literal", 27},
		{"select 1; select a b c from t", "sqe: syntax error at position 22 near 'c'", 22},
		{"select `x y` `z` q from t", "sqe: syntax error at position 18 near 'q'", 18},
		{"select 'é' from t wher a = 1", "sqe: syntax error at position 24 near 'a'", 24},
	}
	for _, c := range cases {
		_, err := Dialect{}.Rewrite(context.Background(), &rewriter.Request{SQL: c.sql})
		if !errors.Is(err, rewriter.ErrSyntax) {
			t.Errorf("%q: %v, want ErrSyntax", c.sql, err)
			continue
		}
		if !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("%q: a syntax error must also match ErrUnsupported", c.sql)
		}
		var re *rewriter.Error
		if !errors.As(err, &re) || re.Position != c.pos {
			t.Errorf("%q: position %d, want %d (%v)", c.sql, re.Position, c.pos, err)
		}
		if c.want != "" && err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.sql, err, c.want)
		}
		for _, secret := range []string{"secret", "4111", "42", "never", "closed"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q: error repeats a value: %v", c.sql, err)
			}
		}
	}
}

func TestUnsupportedIsNotSyntax(t *testing.T) {
	_, err := Dialect{}.Rewrite(context.Background(), &rewriter.Request{SQL: "select load_file('/etc/passwd')"})
	if !errors.Is(err, rewriter.ErrUnsupported) || errors.Is(err, rewriter.ErrSyntax) {
		t.Fatalf("%v: want ErrUnsupported and not ErrSyntax", err)
	}
}

// TestSyntaxErrorsNeverRepeatALiteral places literals at every word
// boundary of statements: whatever the parser stops at, no literal's
// value is in the error.
func TestSyntaxErrorsNeverRepeatALiteral(t *testing.T) {
	stmts := []string{
		"SELECT a, b FROM t WHERE c = 1 AND d IN (2, 3) ORDER BY a",
		"UPDATE t SET a = 1 WHERE b = 2",
		"INSERT INTO t (a, b) VALUES (1, 2)",
	}
	literals := []string{"'SECRETVAL'", "98765", "'SECRET''VAL'", "X'5345435245'", "'SECRET", "\"SECRETVAL\"",
		"_utf8mb4'SECRETVAL'", "N'SECRETVAL'", "0x5345435245", "9876.5e3", "b'0101'", "'SECRET\\'VAL'"}
	refused := 0
	for _, s := range stmts {
		words := strings.Fields(s)
		for i := 0; i <= len(words); i++ {
			for _, lit := range literals {
				parts := append(append(append([]string{}, words[:i]...), lit), words[i:]...)
				sql := strings.Join(parts, " ")
				_, err := Dialect{}.Rewrite(context.Background(), &rewriter.Request{SQL: sql})
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
