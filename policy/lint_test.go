package policy

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	f, err := Parse("p.yaml", []byte(`version: 1
default: allow
roles:
  lead: {contains: [analyst]}
users:
  ann: {roles: [lead]}
tables:
  shop.t:
    masks:
      - {name: broad, principals: [role:analyst], column: ssn, type: MASK_NULL}
      - {name: narrow, principals: [role:lead], column: ssn, type: MASK_SHOW_LAST_4}
      - {name: other-col, principals: [role:lead], column: name, type: MASK_NULL}
      - {name: gone, principals: [user:bob], column: salary, type: MASK_NULL}
      - {name: public-first, principals: [public], column: email, type: MASK_NULL}
      - {name: later, principals: [role:orphan], column: email, type: MASK_HASH}
    restricted:
      - {name: no-salary, principals: [public], columns: [salary]}
    access:
      - {name: lead-read, principals: [role:lead], allow: [select]}
      - {name: no-analysts, principals: [role:analyst], deny: [select, update]}
      - {name: ann-all, principals: [user:ann], allow: [all]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range Lint(f) {
		got = append(got, x.String())
	}
	want := []string{
		`19: warning: tables."shop.t".access[0]: allow "lead-read" never grants: deny "no-analysts" (line 20) denies what it allows to every caller it matches (a deny wins whatever the order)`,
		`11: warning: tables."shop.t".masks[1]: mask "narrow" never applies: mask "broad" (line 10) on column ssn comes first and matches every caller it matches`,
		`13: warning: tables."shop.t".masks[3]: mask "gone" never applies: restricted entry "no-salary" (line 17) removes column salary for every caller it matches`,
		`15: warning: tables."shop.t".masks[5]: mask "later" never applies: mask "public-first" (line 14) on column email comes first and matches every caller it matches`,
		`15: warning: tables."shop.t".masks[5]: role orphan is granted by no users or groups entry (nor contained in a granted role): only a session that lists it holds it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Lint:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLintMappingFilterChecks(t *testing.T) {
	f, err := Parse("p.yaml", []byte(`version: 1
default: allow
tables:
  shop.t:
    row_filters:
      - name: by-role
        principals: [public]
        mapping: {table: shop.m, column: region, key: region, match: role, match_column: role}
      - name: reads-only
        principals: [public]
        mapping: {table: shop.m, column: region, key: region, match: role, match_column: role}
        check: false
      - name: own-check
        principals: [public]
        mapping: {table: shop.m, column: region, key: region, match: role, match_column: role}
        check: "region IN ('EU', 'UK')"
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range Lint(f) {
		got = append(got, x.String())
	}
	if len(got) != 1 || !strings.Contains(got[0], `row_filters[0]: row filter "by-role" checks written rows with its mapping subquery`) ||
		!strings.Contains(got[0], "UPDATE of region") {
		t.Fatalf("findings %q", got)
	}
}
