package mysql

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestSyntaxErrorPositionAndToken(t *testing.T) {
	dialecttest.SyntaxErrors(t, testDialect, []dialecttest.SyntaxErrorCase{
		{SQL: "select * fro t", Want: "sqe: syntax error at position 10 near 'fro'", Pos: 10},
		{SQL: "select a from t where", Want: "sqe: syntax error at position 22 near end of input", Pos: 22},
		{SQL: "select a from t where a = 'secret@example.com' 'x' b", Want: "sqe: syntax error at position 52 near 'b'", Pos: 52},
		{SQL: "select a from t where a = b 'secret@example.com'", Want: "sqe: syntax error at position 29 near a literal", Pos: 29},
		{SQL: "select a from t where a = 4111111111111111 42", Want: "sqe: syntax error at position 44 near a literal", Pos: 44},
		{SQL: "select a from t where a = 'never closed", Want: "sqe: syntax error at position 27 near a literal", Pos: 27},
		{SQL: "select 1; select a b c from t", Want: "sqe: syntax error at position 22 near 'c'", Pos: 22},
		{SQL: "select `x y` `z` q from t", Want: "sqe: syntax error at position 18 near 'q'", Pos: 18},
		{SQL: "select 'é' from t wher a = 1", Want: "sqe: syntax error at position 24 near 'a'", Pos: 24},
	})
}

func TestUnsupportedIsNotSyntax(t *testing.T) {
	dialecttest.UnsupportedIsNotSyntax(t, testDialect, "select load_file('/etc/passwd')")
}

// TestSyntaxErrorsNeverRepeatALiteral places literals at every word
// boundary of statements: whatever the parser stops at, no literal's
// value is in the error.
func TestSyntaxErrorsNeverRepeatALiteral(t *testing.T) {
	dialecttest.SyntaxErrorsNeverRepeatALiteral(t, testDialect, []string{"'SECRETVAL'", "98765", "'SECRET''VAL'", "X'5345435245'", "'SECRET", "\"SECRETVAL\"",
		"_utf8mb4'SECRETVAL'", "N'SECRETVAL'", "0x5345435245", "9876.5e3", "b'0101'", "'SECRET\\'VAL'"})
}
