package redact

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// pgLikeError has the shape of pgconn.PgError's text fields.
type pgLikeError struct {
	Severity, Code, Message, Detail, Hint string
	Line                                  int32
}

func (e *pgLikeError) Error() string { return e.Severity + ": " + e.Message + " (" + e.Detail + ")" }

func TestValuesKeepsTypesAndDropsValues(t *testing.T) {
	myErr := &mysql.MySQLError{Number: 1105, Message: "XPATH syntax error: '~Cy-US-CANARY'"}
	got := Values(myErr)
	var asMy *mysql.MySQLError
	if !errors.As(got, &asMy) || asMy.Number != 1105 || strings.Contains(got.Error(), "CANARY") {
		t.Fatalf("mysql error: %#v", got)
	}
	if !strings.Contains(myErr.Message, "CANARY") {
		t.Fatal("the original error must not be modified")
	}
	pgErr := &pgLikeError{Severity: "ERROR", Code: "23505", Message: `invalid input syntax for type integer: "555-55-5555"`,
		Detail: "Key (ssn)=(555-55-5555) already exists."}
	got = Values(pgErr)
	var asPg *pgLikeError
	if !errors.As(got, &asPg) || asPg.Code != "23505" || strings.Contains(got.Error(), "555-55-5555") {
		t.Fatalf("pg-like error: %v", got)
	}
	plain := errors.New(`cannot convert "111-22-9999" to int`)
	if got := Values(plain); strings.Contains(got.Error(), "111-22-9999") || errors.Unwrap(got) != nil {
		t.Fatalf("plain error: %v", got)
	}
	for in, want := range map[string]string{
		`Duplicate entry 'a''b' for key 'email'`:         `Duplicate entry '<redacted>' for key 'email'`,
		`Unknown column ` + "`x`" + ` in 'where clause'`: `Unknown column ` + "`x`" + ` in 'where clause'`,
		// A value that imitates the message's form cannot pass for a name:
		// the names are the server's last ones.
		`Duplicate entry 'x' for key 'secret' for key 'customers.PRIMARY'`: `Duplicate entry '<redacted>' for key 'customers.PRIMARY'`,
		`Unknown column 'foo' in 'field list'`:                             `Unknown column 'foo' in 'field list'`,
		`Truncated incorrect INTEGER value: '555-55-5555'`:                 `Truncated incorrect INTEGER value: '<redacted>'`,
		`column "foo" does not exist`:                                      `column "foo" does not exist`,
		`column "foo" of relation "customers" does not exist`:              `column "foo" of relation "customers" does not exist`,
		`relation "nope" does not exist`:                                   `relation "nope" does not exist`,
		`invalid input syntax for type integer: "secret"`:                  `invalid input syntax for type integer: '<redacted>'`,
		// A message of a known form with a quote in a name is redacted whole.
		`column "a""b" does not exist`:           `column '<redacted>' does not exist`,
		`Key (id, ssn)=(1, 'x') already exists.`: `Key (id, ssn)=(<redacted>) already exists.`,
		`unterminated 'abc`:                      `unterminated '<redacted>'`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTextValuesThatImitateNames: a value holding quotes and the
// words of a message's form never survives redaction.
func TestTextValuesThatImitateNames(t *testing.T) {
	forms := []string{
		"Duplicate entry '%s' for key 'PRIMARY'",
		"Duplicate entry '%s' for key 'customers.email'",
		"Truncated incorrect INTEGER value: '%s'",
		"Incorrect integer value: '%s' for column `shop`.`customers`.`id` at row 1",
		`invalid input syntax for type integer: "%s"`,
		`value "%s" is out of range for type integer`,
	}
	values := []string{
		"SECRET", "x' for key 'SECRET", "SECRET' for key 'k", "a'b'SECRET", `SECRET" does not exist`,
		`x"SECRET"`, "SECRET`", "`SECRET`", "x' in 'SECRET", `column "SECRET`, "SECRET\\",
	}
	for _, f := range forms {
		for _, v := range values {
			msg := fmt.Sprintf(f, v)
			if got := Text(msg); strings.Contains(got, "SECRET") {
				t.Errorf("Text(%q) = %q", msg, got)
			}
		}
	}
}
