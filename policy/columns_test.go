package policy

import (
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/session"
)

func TestNamedColumns(t *testing.T) {
	f, err := Parse("p.yaml", []byte(`version: 1
default: allow
tables:
  shop.customers:
    masks:
      - {name: ssn-4, principals: [public], column: SSN, type: MASK_SHOW_LAST_4}
    restricted:
      - {principals: [role:x], columns: [salary, bonus]}
    row_filters:
      - {name: f, principals: [public], filter: "region = 'EU'"}
      - {name: m, principals: [public], mapping: {table: shop.map, column: r, key: region, match: user, match_column: u}}
  "shop.*":
    masks:
      - {name: wild, principals: [public], column: anything, type: MASK_NULL}
tags:
  shop.customers.email: [PII]
  shop.customers: [ALL]
`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []ColumnRef{
		{Rule: "m", Section: "row_filters", Column: "region", Line: 11, Path: `tables."shop.customers".row_filters[1].mapping.key`},
		{Rule: "ssn-4", Section: "masks", Column: "ssn", Line: 6, Path: `tables."shop.customers".masks[0].column`},
		{Rule: "shop.customers/restricted[0]", Section: "restricted", Column: "salary", Line: 8, Path: `tables."shop.customers".restricted[0].columns`},
		{Rule: "shop.customers/restricted[0]", Section: "restricted", Column: "bonus", Line: 8, Path: `tables."shop.customers".restricted[0].columns`},
		{Rule: "tags:shop.customers.email", Section: "tags", Column: "email", Line: 16, Path: `tags."shop.customers.email"`},
	}
	got := c.NamedColumns(TableName{Schema: "Shop", Table: "CUSTOMERS"})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NamedColumns:\n got %+v\nwant %+v", got, want)
	}
	// Wildcard entries are not checked: their columns exist only in some
	// of the tables they match.
	if got := c.NamedColumns(TableName{Schema: "shop", Table: "orders"}); got != nil {
		t.Fatalf("a table with only wildcard rules: %+v", got)
	}
	v, err := c.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.NamedColumns(TableName{Schema: "shop", Table: "customers"}), want) {
		t.Fatalf("the View does not report the snapshot's named columns")
	}
}
