package sqe

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/rewriter"
)

// TestRedactErrorOnlyForProtectedStatements: the error of a statement
// that read data under policy loses its values and keeps its type; the
// error of one that read nothing under policy reaches the caller as the
// server sent it. (Package internal/redact tests the redaction itself.)
func TestRedactErrorOnlyForProtectedStatements(t *testing.T) {
	myErr := &mysql.MySQLError{Number: 1105, Message: "XPATH syntax error: '~Cy-US-CANARY'"}
	protected := &engine.Plan{Result: &rewriter.Result{Protected: true}}
	got := redactError(protected, myErr)
	var asMy *mysql.MySQLError
	if !errors.As(got, &asMy) || asMy.Number != 1105 || strings.Contains(got.Error(), "CANARY") {
		t.Fatalf("protected statement: %#v", got)
	}
	if !strings.Contains(myErr.Message, "CANARY") {
		t.Fatal("the original error must not be modified")
	}
	open := &engine.Plan{Result: &rewriter.Result{}}
	if got := redactError(open, myErr); got != error(myErr) {
		t.Fatalf("unprotected statement: %v", got)
	}
	if got := redactError(nil, myErr); got != error(myErr) {
		t.Fatalf("no plan: %v", got)
	}
}
