package policy

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestLoadExampleFile(t *testing.T) {
	f, err := LoadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || f.DefaultAllow {
		t.Errorf("version %d, default allow %v", f.Version, f.DefaultAllow)
	}
	if got := len(f.Tables); got != 5 {
		t.Fatalf("tables: got %d, want 5", got)
	}
	if len(f.Tags) != 2 || len(f.TagMasks) != 3 || f.TagMasks[1].Tag != "PII" || f.Tables[4].RowFilters[0].Mapping == nil {
		t.Errorf("tags %+v, tag masks %+v", f.Tags, f.TagMasks)
	}
	keys := []string{}
	for _, tb := range f.Tables {
		keys = append(keys, tb.Key())
	}
	if want := []string{"shop.customers", "shop.orders", "*.audit_*", "shop.*", "shop.deals"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("table keys %q, want %q", keys, want)
	}
	c := f.Tables[0]
	if len(c.Access) != 3 || len(c.RowFilters) != 2 || len(c.Masks) != 4 || len(c.Restricted) != 1 {
		t.Errorf("customers: %d access, %d filters, %d masks, %d restricted", len(c.Access), len(c.RowFilters), len(c.Masks), len(c.Restricted))
	}
	wantP := []Principal{{PrincipalRole, "analyst"}, {PrincipalRole, "support"}, {PrincipalGroup, "ops"}}
	if !reflect.DeepEqual(c.Access[0].Principals, wantP) {
		t.Errorf("principals %v", c.Access[0].Principals)
	}
	if m := c.Masks[3]; m.Type != "MASK_SHOW_FIRST_N" || !reflect.DeepEqual(m.Args, []string{"2"}) || m.Column != "name" || m.When != "listed IS NOT TRUE" {
		t.Errorf("mask %+v", m)
	}
	if _, err := Compile(f, 1); err != nil {
		t.Fatal(err)
	}
}

func TestParseNormalises(t *testing.T) {
	f, err := Parse("p.yaml", []byte(`
version: 1
default: ALLOW
roles:
  Admin: {contains: [Analyst]}
  empty:
tables:
  Shop.Customers:
    access:
      - principals: [public]
        allow: [SELECT, Update]
    masks:
      - {principals: ["user:Bob"], column: SSN, type: mask_hash}
    restricted:
      - {principals: [group:Ops], columns: [Salary, NOTES]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.DefaultAllow {
		t.Error("default: ALLOW not read as allow")
	}
	if !reflect.DeepEqual(f.Roles, []FileRole{{Name: "Admin", Contains: []string{"Analyst"}, Line: 5}, {Name: "empty", Line: 6}}) {
		t.Errorf("roles %+v", f.Roles)
	}
	tb := f.Tables[0]
	if tb.Schema != "shop" || tb.Table != "customers" || tb.Line != 8 {
		t.Errorf("table %q.%q line %d", tb.Schema, tb.Table, tb.Line)
	}
	if a := tb.Access[0]; a.Name != "shop.customers/access[0]" || !reflect.DeepEqual(a.Allow, []Access{Select, Update}) || a.Line != 10 {
		t.Errorf("access %+v", a)
	}
	if m := tb.Masks[0]; m.Column != "ssn" || m.Type != "MASK_HASH" || m.Principals[0] != (Principal{PrincipalUser, "Bob"}) {
		t.Errorf("mask %+v", m)
	}
	if r := tb.Restricted[0]; !reflect.DeepEqual(r.Columns, []string{"salary", "notes"}) || r.Principals[0].Name != "Ops" {
		t.Errorf("restricted %+v", r)
	}
}

// TestParseYAMLSyntaxPosition checks that a YAML syntax error carries the
// line and column where the decoder found it.
func TestParseYAMLSyntaxPosition(t *testing.T) {
	_, err := Parse("policy.yaml", []byte("version: 1\ndefault: deny\n  tables: {}\n"))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error is not a *FileError: %v", err)
	}
	if fe.Line != 3 || fe.Column != 9 {
		t.Errorf("position %d:%d, want 3:9 (%v)", fe.Line, fe.Column, err)
	}
}

func TestParseErrors(t *testing.T) {
	const head = "version: 1\ndefault: deny\n"
	cases := []struct {
		name string
		src  string
		want []string // every line of the error, in order; a trailing "…" matches a prefix
	}{
		{"unknown mask type", head + `tables:
  shop.customers:
    masks:
      - {principals: [public], column: ssn, type: MASK_SHOW_LAST_4}
      - principals: [public]
        column: email
        type: MASK_FOO
`, []string{`policy.yaml:9: tables."shop.customers".masks[1].type: unknown mask type "MASK_FOO"`}},
		{"unknown top-level field", head + "tabels: {}\n",
			[]string{`policy.yaml:3: tabels: unknown field "tabels" (want version, default, roles, groups, users, tables, tags, tag_masks, functions)`}},
		{"unknown rule field", head + `tables:
  s.t:
    masks:
      - {principals: [public], colum: ssn, type: MASK}
`, []string{
			`policy.yaml:6: tables."s.t".masks[0].colum: unknown field "colum" (want name, description, principals, column, type, args, expr, when)`,
			`policy.yaml:6: tables."s.t".masks[0].column: required`,
		}},
		{"principals not a list", head + `tables:
  s.t:
    access:
      - name: r
        principals: role:admin
        allow: [select]
`, []string{`policy.yaml:7: tables."s.t".access[0].principals: expected a list, got "role:admin"`}},
		{"bad access type", head + `tables:
  s.t:
    access:
      - {principals: [public], allow: [select, selekt]}
`, []string{`policy.yaml:6: tables."s.t".access[0].allow[1]: unknown access type "selekt" (want select, update, create, drop, alter, index, lock or all)`}},
		{"bad principal", head + `tables:
  s.t:
    access:
      - principals:
          - role:admin
          - admin
          - "user:"
        deny: [all]
`, []string{
			`policy.yaml:8: tables."s.t".access[0].principals[1]: bad principal "admin": want user:NAME, group:NAME, role:NAME or public`,
			`policy.yaml:9: tables."s.t".access[0].principals[2]: bad principal "user:": empty name`,
		}},
		{"empty filter", head + `tables:
  s.t:
    row_filters:
      - {principals: [public], filter: "  "}
`, []string{`policy.yaml:6: tables."s.t".row_filters[0].filter: row filter must not be empty`}},
		{"missing filter", head + `tables:
  s.t:
    row_filters:
      - {principals: [public]}
`, []string{`policy.yaml:6: tables."s.t".row_filters[0].filter: required: a boolean SQL expression (or mapping: a mapping table)`}},
		{"duplicate table keys", head + `tables:
  shop.t: {}
  Shop.T: {}
`, []string{`policy.yaml:5: tables."Shop.T": duplicate entry "Shop.T" (first at line 4)`}},
		{"role cycle", head + `roles:
  a: {contains: [b]}
  b: {contains: [c]}
  c: {contains: [a]}
`, []string{`policy.yaml:6: roles.c.contains: role cycle: a -> b -> c -> a`}},
		{"self cycle", head + `roles:
  x: {contains: [x]}
`, []string{`policy.yaml:4: roles.x.contains: role cycle: x -> x`}},
		{"missing version", "default: deny\n", []string{`policy.yaml:1: version: required (want version: 1)`}},
		{"unsupported version", "version: 2\ndefault: deny\n", []string{`policy.yaml:1: version: unsupported version 2 (want 1)`}},
		{"version not a number", "version: [1]\ndefault: deny\n", []string{`policy.yaml:1: version: expected the number 1, got a list`}},
		{"missing default", "version: 1\n", []string{`policy.yaml:1: default: required: allow or deny`}},
		{"bad default", "version: 1\ndefault: maybe\n", []string{`policy.yaml:2: default: want allow or deny, got "maybe"`}},
		{"allow and deny", head + `tables:
  s.t:
    access:
      - principals: [public]
        allow: [select]
        deny: [update]
`, []string{`policy.yaml:8: tables."s.t".access[0].deny: an access rule has allow or deny, not both (write two rules)`}},
		{"neither allow nor deny", head + `tables:
  s.t:
    access:
      - {principals: [public]}
`, []string{`policy.yaml:6: tables."s.t".access[0]: an access rule needs allow: [...] or deny: [...]`}},
		{"empty allow", head + `tables:
  s.t:
    access:
      - {principals: [public], allow: []}
`, []string{`policy.yaml:6: tables."s.t".access[0].allow: must not be empty`}},
		{"empty principals", head + `tables:
  s.t:
    restricted:
      - {principals: [], columns: [a]}
`, []string{`policy.yaml:6: tables."s.t".restricted[0].principals: must not be empty`}},
		{"missing principals", head + `tables:
  s.t:
    restricted:
      - {columns: [a]}
`, []string{`policy.yaml:6: tables."s.t".restricted[0].principals: required: a list of user:NAME, group:NAME, role:NAME or public`}},
		{"custom without expr", head + `tables:
  s.t:
    masks:
      - {principals: [public], column: a, type: CUSTOM}
`, []string{`policy.yaml:6: tables."s.t".masks[0].expr: a CUSTOM mask needs a non-empty expr`}},
		{"expr on non-custom", head + `tables:
  s.t:
    masks:
      - {principals: [public], column: a, type: MASK, expr: "x"}
`, []string{`policy.yaml:6: tables."s.t".masks[0].expr: expr is only for type CUSTOM (type is MASK)`}},
		{"bad mask args", head + `tables:
  s.t:
    masks:
      - principals: [public]
        column: a
        type: MASK_SHOW_FIRST_N
        args: [many]
`, []string{`policy.yaml:9: tables."s.t".masks[0].args: mask MASK_SHOW_FIRST_N: character count: "many" is not a 32-bit integer`}},
		{"args on a no-argument mask", head + `tables:
  s.t:
    masks:
      - {principals: [public], column: a, type: MASK_NULL, args: ["1"]}
`, []string{`policy.yaml:6: tables."s.t".masks[0].args: mask MASK_NULL takes no arguments, got 1`}},
		{"missing mask args", head + `tables:
  s.t:
    masks:
      - {principals: [public], column: a, type: MASK_LAST_N}
`, []string{`policy.yaml:6: tables."s.t".masks[0].type: mask MASK_LAST_N needs the number of characters as its first argument`}},
		{"table key without schema", head + `tables:
  customers: {}
`, []string{`policy.yaml:4: tables.customers: table "customers": want schema.table (exactly one dot; * and ? are wildcards)`}},
		{"table key with two dots", head + `tables:
  db.s.t: {}
`, []string{`policy.yaml:4: tables."db.s.t": table "db.s.t": want schema.table (exactly one dot; * and ? are wildcards)`}},
		{"unknown table section", head + `tables:
  s.t:
    filters: []
`, []string{`policy.yaml:5: tables."s.t".filters: unknown field "filters" (want access, row_filters, masks, restricted)`}},
		{"rule not a mapping", head + `tables:
  s.t:
    masks:
      - ssn
`, []string{`policy.yaml:6: tables."s.t".masks[0]: expected a mapping, got "ssn"`}},
		{"duplicate field", head + `tables:
  s.t:
    masks:
      - principals: [public]
        column: a
        column: b
        type: MASK
`, []string{`policy.yaml:8: tables."s.t".masks[0].column: duplicate field (first at line 7)`}},
		{"duplicate role", head + `roles:
  a: {}
  a: {contains: [b]}
`, []string{`policy.yaml:5: roles.a: duplicate entry "a" (first at line 4)`}},
		{"group roles wrong type", head + `groups:
  ops: {roles: admin}
`, []string{`policy.yaml:4: groups.ops.roles: expected a list, got "admin"`}},
		{"user unknown field", head + `users:
  alice: {role: [admin]}
`, []string{`policy.yaml:4: users.alice.role: unknown field "role" (want roles)`}},
		{"columns entry not a string", head + `tables:
  s.t:
    restricted:
      - {principals: [public], columns: [[a]]}
`, []string{`policy.yaml:6: tables."s.t".restricted[0].columns[0]: expected a string, got a list`}},
		{"yaml syntax", "version: 1\ndefault: deny\ntables: [\n", []string{`policy.yaml:4: YAML syntax: …`}},
		{"yaml syntax in a flow list", "version: 1\ndefault: deny\ntables: [a,\n  b\nusers: {}\n", []string{
			`policy.yaml:5: YAML syntax: did not find expected ',' or ']' (while parsing a flow sequence from line 3)`}},
		{"yaml syntax mapping value", "version: 1\ndefault: deny\n  tables: {}\n", []string{
			`policy.yaml:3: YAML syntax: mapping values are not allowed in this context`}},
		{"top level list", "- 1\n", []string{`policy.yaml:1: expected a mapping at the top level, got a list`}},
		{"empty file", "", []string{`policy.yaml: empty policy file (want version: 1)`}},
		{"two documents", head + "---\nversion: 1\n", []string{`policy.yaml:3: more than one YAML document`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("policy.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error; parsed %+v", f)
			}
			if !errors.Is(err, ErrInvalidFile) {
				t.Errorf("error does not wrap ErrInvalidFile: %v", err)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("error is not a *FileError: %T", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d error lines, want %d:\n%s", len(lines), len(tc.want), err)
			}
			for i, w := range tc.want {
				if p, ok := strings.CutSuffix(w, "…"); ok {
					if !strings.HasPrefix(lines[i], p) || len(lines[i]) == len(p) {
						t.Errorf("error line %d:\n got %s\nwant %s…", i, lines[i], p)
					}
				} else if lines[i] != w {
					t.Errorf("error line %d:\n got %s\nwant %s", i, lines[i], w)
				}
			}
		})
	}
}

func TestParseUnknownMaskTypeMessage(t *testing.T) {
	_, err := Parse("policy.yaml", []byte(`version: 1
default: deny
tables:
  shop.customers:
    masks:
      - {principals: [public], column: ssn, type: MASK_FOO}
`))
	if err == nil || !strings.Contains(err.Error(), `policy.yaml:6: tables."shop.customers".masks[0].type: `) ||
		!strings.Contains(err.Error(), "MASK_FOO") {
		t.Fatalf("got %v", err)
	}
}

func TestParseAliases(t *testing.T) {
	f, err := Parse("p.yaml", []byte(`version: 1
default: deny
tables:
  s.a:
    access:
      - {principals: &staff [role:a, role:b], allow: [select]}
  s.b:
    access:
      - {principals: *staff, allow: [select]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Tables[1].Access[0].Principals; len(got) != 2 || got[1].Name != "b" {
		t.Errorf("aliased principals %v", got)
	}
}

func TestParseAliasBomb(t *testing.T) {
	// Aliases make a small document expand quadratically; the parser
	// bounds the expansion.
	var b strings.Builder
	b.WriteString("version: 1\ndefault: deny\nroles:\n  r0: {contains: &big [")
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("x")
	}
	b.WriteString("]}\n")
	for i := 1; i < 3000; i++ {
		fmt.Fprintf(&b, "  r%d: {contains: *big}\n", i)
	}
	_, err := Parse("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "alias expansion") {
		t.Fatalf("got %v", err)
	}
}

func TestParseManyErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\ndefault: deny\ntables:\n  s.t:\n    access:\n")
	for i := 0; i < 200; i++ {
		b.WriteString("      - {principals: [nobody], allow: [select]}\n")
	}
	_, err := Parse("p.yaml", []byte(b.String()))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxFileErrors+1 || lines[len(lines)-1] != "p.yaml: too many errors" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestParsePrincipal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Principal
		ok   bool
	}{
		{"public", Principal{Kind: PrincipalPublic}, true},
		{"user:alice", Principal{PrincipalUser, "alice"}, true},
		{"group:eu-team", Principal{PrincipalGroup, "eu-team"}, true},
		{"role:a:b", Principal{PrincipalRole, "a:b"}, true},
		{"Public", Principal{}, false},
		{"ROLE:x", Principal{}, false},
		{"role:", Principal{}, false},
		{"role: x", Principal{}, false},
		{"team:x", Principal{}, false},
		{"", Principal{}, false},
	} {
		got, err := ParsePrincipal(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParsePrincipal(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

func TestCompileChecksBuiltFiles(t *testing.T) {
	base := func() *File {
		return &File{Name: "built", Version: 1, Tables: []FileTable{{
			Schema: "s", Table: "t",
			Access: []AccessRule{{Name: "r", Principals: []Principal{{Kind: PrincipalPublic}}, Allow: []Access{Select}}},
		}}}
	}
	if _, err := Compile(base(), 1); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(f *File){
		"version":        func(f *File) { f.Version = 0 },
		"principal":      func(f *File) { f.Tables[0].Access[0].Principals = []Principal{{Kind: PrincipalRole}} },
		"no principals":  func(f *File) { f.Tables[0].Access[0].Principals = nil },
		"access type":    func(f *File) { f.Tables[0].Access[0].Allow = []Access{"read"} },
		"allow and deny": func(f *File) { f.Tables[0].Access[0].Deny = []Access{Update} },
		"upper table":    func(f *File) { f.Tables[0].Table = "T" },
		"bad key":        func(f *File) { f.Tables[0].Table = "" },
		"duplicate":      func(f *File) { f.Tables = append(f.Tables, f.Tables[0]) },
		"cycle":          func(f *File) { f.Roles = []FileRole{{Name: "a", Contains: []string{"a"}}} },
		"empty filter": func(f *File) {
			f.Tables[0].RowFilters = []FilterRule{{Principals: []Principal{{Kind: PrincipalPublic}}}}
		},
		"mask type": func(f *File) {
			f.Tables[0].Masks = []MaskRule{{Principals: []Principal{{Kind: PrincipalPublic}}, Column: "c", Type: "NOPE"}}
		},
		"custom without expr": func(f *File) {
			f.Tables[0].Masks = []MaskRule{{Principals: []Principal{{Kind: PrincipalPublic}}, Column: "c", Type: "CUSTOM"}}
		},
		"restricted empty": func(f *File) {
			f.Tables[0].Restricted = []RestrictRule{{Principals: []Principal{{Kind: PrincipalPublic}}}}
		},
	} {
		f := base()
		mut(f)
		if _, err := Compile(f, 1); !errors.Is(err, ErrInvalidFile) {
			t.Errorf("%s: got %v, want ErrInvalidFile", name, err)
		}
	}
	if _, err := Compile(nil, 1); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("nil file: %v", err)
	}
}

func TestParsePartial(t *testing.T) {
	src := `version: 1
default: deny
roles:
  ok: {contains: [a]}
  bad1: {contains: {x: 1}}
  "bad two": {contains: [a], bogus: 1}
  dup: {}
  dup: {contains: [a]}
  c1: {contains: [c2]}
  c2: {contains: [c1]}
  uses_cycle: {contains: [c1]}
groups:
  g1: {roles: [ok]}
  g2: {roles: 7}
users:
  u1: {roles: [" padded"]}
  u2: {roles: [ok]}
tables:
  s.t:
    access: [{principals: [role:ok], allow: [select]}]
`
	if _, err := Parse("p.yaml", []byte(src)); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("strict parse: %v", err)
	}
	f, err := ParsePartial("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range f.Unresolved {
		got[u.Principal.String()] = u.Reason
	}
	for p, reason := range map[string]string{
		"role:bad1":    `p.yaml:5: roles.bad1.contains: expected a list`,
		"role:bad two": `p.yaml:6: roles."bad two".bogus: unknown field "bogus"`,
		"role:dup":     `p.yaml:8: roles.dup: duplicate entry "dup" (first at line 7)`,
		"role:c1":      `role cycle: c1 -> c2 -> c1`,
		"role:c2":      `role cycle: c1 -> c2 -> c1`,
		"group:g2":     `p.yaml:14: groups.g2.roles: expected a list`,
		"user:u1":      `p.yaml:16: users.u1.roles[0]: bad role name`,
	} {
		if !strings.Contains(got[p], reason) {
			t.Errorf("%s: reason %q, want it to contain %q", p, got[p], reason)
		}
	}
	if len(got) != 7 {
		t.Errorf("unresolved %v", got)
	}
	var roles, groups, users []string
	for _, r := range f.Roles {
		roles = append(roles, r.Name)
	}
	for _, g := range f.Groups {
		groups = append(groups, g.Name)
	}
	for _, u := range f.Users {
		users = append(users, u.Name)
	}
	if strings.Join(roles, ",") != "ok,uses_cycle" || strings.Join(groups, ",") != "g1" || strings.Join(users, ",") != "u2" {
		t.Errorf("kept roles %q, groups %q, users %q", roles, groups, users)
	}
	if _, err := Compile(f, 1); err != nil {
		t.Fatalf("compile partial file: %v", err)
	}

	// Problems outside one hierarchy entry still fail the file.
	for _, bad := range []string{
		"version: 1\ndefault: deny\nroles: [a, b]\n",
		"version: 1\ndefault: deny\nroles:\n  \" a\": {}\n",
		"version: 1\ndefault: deny\ntables:\n  s.t:\n    access: [{principals: [role:x], allow: [nope]}]\n",
		"version: 1\ndefault: maybe\nroles:\n  a: {contains: 5}\n",
	} {
		if _, err := ParsePartial("p.yaml", []byte(bad)); !errors.Is(err, ErrInvalidFile) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// Many broken entries: still a partial load, not an aborted parse.
	var b strings.Builder
	b.WriteString("version: 1\ndefault: deny\nroles:\n")
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "  r%d: {contains: 5}\n", i)
	}
	if _, err := ParsePartial("p.yaml", []byte(b.String())); !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), "too many errors") {
		t.Errorf("80 broken entries: %v", err)
	}
}

func TestCompileChecksUnresolved(t *testing.T) {
	f := &File{Version: FileVersion, Unresolved: []Unresolved{{Principal: Principal{Kind: PrincipalRole}}}}
	if _, err := Compile(f, 1); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("unresolved principal without a name: %v", err)
	}
	f = &File{Version: FileVersion, Groups: []FileGrant{{Name: "g", Roles: []string{""}}}}
	if _, err := Compile(f, 1); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("empty role grant: %v", err)
	}
}
