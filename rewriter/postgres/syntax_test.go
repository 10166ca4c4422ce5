package postgres

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
)

func TestSyntaxErrorPositionAndToken(t *testing.T) {
	dialecttest.SyntaxErrors(t, testDialect, []dialecttest.SyntaxErrorCase{
		{SQL: "SELECT * FRO t", Want: "sqe: syntax error at position 10 near 'FRO'", Pos: 10},
		{SQL: "SELECT a FROM t WHERE", Want: "sqe: syntax error at position 22 near end of input", Pos: 22},
		{SQL: "SELECT a FROM t WHERE a = 'secret@example.com' 'x'", Want: "sqe: syntax error at position 48 near a literal", Pos: 48},
		{SQL: "SELECT a FROM t WHERE a = 4111111111111111 42", Want: "sqe: syntax error at position 44 near a literal", Pos: 44},
		{SQL: "SELECT a FROM t WHERE a = 'never closed", Want: "sqe: syntax error: unterminated quoted string at position 27", Pos: 27},
		{SQL: "SELECT 1; SELECT a b c FROM t", Want: "sqe: syntax error at position 22 near 'c'", Pos: 22},
		{SQL: `SELECT "x y" "z" q FROM t`, Want: "sqe: syntax error at position 18 near 'q'", Pos: 18},
		{SQL: `SELECT a "b" "c" FROM t`, Want: "sqe: syntax error at position 14 near '\"c\"'", Pos: 14},
		{SQL: "SELECT 'é' FROM t WHER a = 1", Want: "sqe: syntax error at position 24 near 'a'", Pos: 24},
	})
}

func TestUnsupportedIsNotSyntax(t *testing.T) {
	dialecttest.UnsupportedIsNotSyntax(t, testDialect, "COPY t TO '/tmp/x'")
}

// TestSyntaxErrorsNeverRepeatALiteral places literals at every word
// boundary of statements: whatever the parser stops at, no literal's
// value is in the error.
func TestSyntaxErrorsNeverRepeatALiteral(t *testing.T) {
	// ("SECRETVAL" is an identifier in PostgreSQL, and is shown.)
	dialecttest.SyntaxErrorsNeverRepeatALiteral(t, testDialect, []string{"'SECRETVAL'", "98765", "'SECRET''VAL'", "X'5345435245'", "'SECRET", "E'SECRET\\'VAL'",
		"$$SECRETVAL$$", "$q$SECRETVAL$q$", "U&'SECRETVAL'", "9876.5e3", "B'0101'"})
}
