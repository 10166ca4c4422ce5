package postgres

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
		{"SELECT * FRO t", "sqe: syntax error at position 10 near 'FRO'", 10},
		{"SELECT a FROM t WHERE", "sqe: syntax error at position 22 near end of input", 22},
		{"SELECT a FROM t WHERE a = 'secret@example.com' 'x'", "sqe: syntax error at position 48 near a literal", 48},
		{"SELECT a FROM t WHERE a = 4111111111111111 42", "sqe: syntax error at position 44 near a literal", 44},
		{"SELECT a FROM t WHERE a = 'never closed", "sqe: syntax error: unterminated quoted string at position 27", 27},
		{"SELECT 1; SELECT a b c FROM t", "sqe: syntax error at position 22 near 'c'", 22},
		{`SELECT "x y" "z" q FROM t`, "sqe: syntax error at position 18 near 'q'", 18},
		{`SELECT a "b" "c" FROM t`, "sqe: syntax error at position 14 near '\"c\"'", 14},
		{"SELECT 'é' FROM t WHER a = 1", "sqe: syntax error at position 24 near 'a'", 24},
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
		if err.Error() != c.want {
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
	_, err := Dialect{}.Rewrite(context.Background(), &rewriter.Request{SQL: "COPY t TO '/tmp/x'"})
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
	// ("SECRETVAL" is an identifier in PostgreSQL, and is shown.)
	literals := []string{"'SECRETVAL'", "98765", "'SECRET''VAL'", "X'5345435245'", "'SECRET", "E'SECRET\\'VAL'",
		"$$SECRETVAL$$", "$q$SECRETVAL$q$", "U&'SECRETVAL'", "9876.5e3", "B'0101'"}
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
