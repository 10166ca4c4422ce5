package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func TestFunctionsAllowList(t *testing.T) {
	f, err := Parse("p.yaml", []byte("version: 1\ndefault: deny\nfunctions:\n  allow: [calc_tax, billing.fx_rate]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"calc_tax", "billing.fx_rate"}; !reflect.DeepEqual(f.AllowedFunctions, want) {
		t.Fatalf("allowed %q, want %q", f.AllowedFunctions, want)
	}
	c, err := Compile(f, NextVersion())
	if err != nil {
		t.Fatal(err)
	}
	f.AllowedFunctions[0] = "changed"
	v, err := c.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.AllowedFunctions(), []string{"calc_tax", "billing.fx_rate"}) {
		t.Fatalf("the view does not carry the snapshot's list: %v", v)
	}
	if got := c.AllowedFunctions(); !reflect.DeepEqual(got, []string{"calc_tax", "billing.fx_rate"}) {
		t.Fatalf("snapshot: %q", got)
	}

	for doc, want := range map[string]string{
		"functions:\n  allow: ['a; drop']\n": "want a function name",
		"functions:\n  allow: [a.b.c]\n":     "want a function name",
		"functions:\n  deny: [x]\n":          "deny",
		"functions:\n  allow: calc\n":        "functions.allow",
		"functions: [calc]\n":                "functions",
	} {
		_, err := Parse("p.yaml", []byte("version: 1\ndefault: deny\n"+doc))
		if !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want an error mentioning %q, got %v", doc, want, err)
		}
	}
}
