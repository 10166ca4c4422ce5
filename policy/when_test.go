package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/session"
)

const whenFile = `version: 1
default: allow
tables:
  shop.t:
    masks:
      - {name: mail, principals: [public], column: email, type: MASK_SHOW_LAST_4, when: "visibility <> 'public'"}
      - {principals: [public], column: note, type: CUSTOM, expr: "UPPER({col})", when: "kind = 'x'"}
      - {name: plain, principals: [public], column: ssn, type: MASK_NULL}
  "shop.*":
    masks:
      - {name: wild, principals: [public], column: phone, type: MASK, when: "a = 1"}
tag_masks:
  - {name: pii, principals: [public], tag: PII, type: MASK_HASH, when: "owner <> current_user"}
`

func TestMaskWhenParsesAndCompiles(t *testing.T) {
	f, err := Parse("p.yaml", []byte(whenFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Tables[0].Masks[0].When; got != "visibility <> 'public'" {
		t.Fatalf("MaskRule.When = %q", got)
	}
	if got := f.TagMasks[0].When; got != "owner <> current_user" {
		t.Fatalf("TagMaskRule.When = %q", got)
	}
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(TableName{Schema: "shop", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Masks["email"]; m.When != "visibility <> 'public'" || m.Type != "MASK_SHOW_LAST_4" || m.Policy != "mail" {
		t.Fatalf("email mask = %+v", m)
	}
	if m := d.Masks["note"]; m.When != "kind = 'x'" || m.Expr != "UPPER({col})" {
		t.Fatalf("note mask = %+v", m)
	}
	if m := d.Masks["ssn"]; m.When != "" {
		t.Fatalf("ssn mask = %+v", m)
	}
	if m := d.Masks["phone"]; m.When != "a = 1" {
		t.Fatalf("phone mask (wildcard entry) = %+v", m)
	}
	if m := d.TagMasks["PII"]; m.When != "owner <> current_user" || m.Policy != "pii" {
		t.Fatalf("tag mask = %+v", m)
	}

	wantExprs := []Expression{
		{Kind: ExprMaskWhen, Text: "visibility <> 'public'", Rule: "mail", Line: 6, Path: `tables."shop.t".masks[0].when`},
		{Kind: ExprCustomMask, Text: "UPPER({col})", Rule: "shop.t/masks[1]", Line: 7, Path: `tables."shop.t".masks[1].expr`},
		{Kind: ExprMaskWhen, Text: "kind = 'x'", Rule: "shop.t/masks[1]", Line: 7, Path: `tables."shop.t".masks[1].when`},
		{Kind: ExprMaskWhen, Text: "a = 1", Rule: "wild", Line: 11, Path: `tables."shop.*".masks[0].when`},
		{Kind: ExprMaskWhen, Text: "owner <> current_user", Rule: "pii", Line: 13, Path: "tag_masks[0].when"},
	}
	if got := c.Expressions(); !reflect.DeepEqual(got, wantExprs) {
		t.Fatalf("Expressions:\n got %+v\nwant %+v", got, wantExprs)
	}

	// Only the exact entry's conditions are named for the column check.
	wantConds := []MaskCondition{
		{Rule: "mail", Column: "email", When: "visibility <> 'public'", Line: 6, Path: `tables."shop.t".masks[0].when`},
		{Rule: "shop.t/masks[1]", Column: "note", When: "kind = 'x'", Line: 7, Path: `tables."shop.t".masks[1].when`},
	}
	if got := c.MaskConditions(TableName{Schema: "SHOP", Table: "T"}); !reflect.DeepEqual(got, wantConds) {
		t.Fatalf("MaskConditions:\n got %+v\nwant %+v", got, wantConds)
	}
	if got := v.MaskConditions(TableName{Schema: "shop", Table: "other"}); got != nil {
		t.Fatalf("MaskConditions of a table without conditions = %+v", got)
	}

	// A validator refusing a condition names the file, line and field.
	err = c.CheckExpressions(func(e Expression) error {
		if e.Kind == ExprMaskWhen && strings.Contains(e.Text, "kind") {
			return errors.New("mask condition (when): a subquery may not be read")
		}
		return nil
	})
	if !errors.Is(err, ErrInvalidFile) ||
		err.Error() != `p.yaml:7: tables."shop.t".masks[1].when: rule "shop.t/masks[1]": mask condition (when): a subquery may not be read` {
		t.Fatalf("CheckExpressions: %v", err)
	}
}

func TestMaskWhenErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"blank", `
tables:
  shop.t:
    masks:
      - {name: m, principals: [public], column: email, type: MASK, when: "  "}
`, `p.yaml:6: tables."shop.t".masks[0].when: when must not be empty`},
		{"not a string", `
tables:
  shop.t:
    masks:
      - name: m
        principals: [public]
        column: email
        type: MASK
        when: [a, b]
`, `p.yaml:10: tables."shop.t".masks[0].when: expected a string`},
		{"tag mask blank", `
tag_masks:
  - {name: m, principals: [public], tag: PII, type: MASK, when: ""}
`, `p.yaml:4: tag_masks[0].when: when must not be empty`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte("version: 1\ndefault: allow"+c.body))
			if !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	// A File built in code is checked the same way.
	f := &File{Version: 1, DefaultAllow: true, Tables: []FileTable{{Schema: "shop", Table: "t", Masks: []MaskRule{
		{Name: "m", Principals: []Principal{{Kind: PrincipalPublic}}, Column: "email", Type: "MASK", When: " "}}}}}
	if _, err := Compile(f, 1); err == nil || !strings.Contains(err.Error(), "masks[0].when: when must not be blank") {
		t.Fatalf("Compile: %v", err)
	}
	f = &File{Version: 1, DefaultAllow: true, TagMasks: []TagMaskRule{{Name: "m", Principals: []Principal{{Kind: PrincipalPublic}}, Tag: "PII", Type: "MASK", When: "\t"}}}
	if _, err := Compile(f, 1); err == nil || !strings.Contains(err.Error(), "when must not be blank") {
		t.Fatalf("Compile tag mask: %v", err)
	}
}
