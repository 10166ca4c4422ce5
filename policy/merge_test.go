package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/session"
)

// randomRolePolicy gives each of nRoles roles random rules (allow, deny,
// filter, mask, restricted) on random tables of nTables, plus wildcard
// entries and public rules.
func randomRolePolicy(seed uint64, nRoles, nTables, nRules int) *File {
	rng := rand.New(rand.NewPCG(seed, 3))
	f := &File{Name: "random", Version: FileVersion}
	tables := make([]FileTable, nTables)
	for i := range tables {
		tables[i].Schema, tables[i].Table = "s", fmt.Sprintf("t%d", i)
	}
	tables = append(tables,
		FileTable{Schema: "s", Table: "t1*"},
		FileTable{Schema: "*", Table: "t?"},
		FileTable{Schema: "s", Table: "*"},
	)
	for i := 0; i < nRoles; i += 5 {
		if i+1 < nRoles {
			f.Roles = append(f.Roles, FileRole{Name: fmt.Sprintf("r%d", i), Contains: []string{fmt.Sprintf("r%d", i+1)}})
		}
	}
	for i := 0; i < nRules; i++ {
		t := &tables[rng.IntN(len(tables))]
		p := []Principal{{Kind: PrincipalRole, Name: fmt.Sprintf("r%d", rng.IntN(nRoles))}}
		if rng.IntN(20) == 0 {
			p = []Principal{{Kind: PrincipalPublic}}
		}
		a := Accesses[rng.IntN(len(Accesses))]
		name := fmt.Sprintf("rule%d", i)
		switch rng.IntN(6) {
		case 0, 1:
			t.Access = append(t.Access, AccessRule{Name: name, Principals: p, Allow: []Access{a}})
		case 2:
			t.Access = append(t.Access, AccessRule{Name: name, Principals: p, Deny: []Access{a}})
		case 3:
			t.RowFilters = append(t.RowFilters, FilterRule{Name: name, Principals: p, Filter: fmt.Sprintf("x = %d", i)})
		case 4:
			t.Masks = append(t.Masks, MaskRule{Name: name, Principals: p, Column: fmt.Sprintf("c%d", rng.IntN(4)), Type: "MASK_HASH"})
		case 5:
			t.Restricted = append(t.Restricted, RestrictRule{Name: name, Principals: p, Columns: []string{fmt.Sprintf("c%d", rng.IntN(4))}})
		}
	}
	f.Tables = tables
	return f
}

// TestMergedIndexDecidesTheSame compares a View that merges its many
// principals' indexes with one that never merges, on every table, for
// users with all roles active and with a primary role (so that some held
// roles are inactive and contribute only deny and restricted rules).
func TestMergedIndexDecidesTheSame(t *testing.T) {
	f := randomRolePolicy(1, 60, 80, 3000)
	merging, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	probing, err := Compile(f, 1, WithMergeBound(0))
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for i := 0; i < 60; i += 2 {
		roles = append(roles, fmt.Sprintf("r%d", i))
	}
	users := []session.User{
		{Name: "all", Roles: roles},
		{Name: "primary", Roles: roles, PrimaryRole: "r10"},
		{Name: "secondary", Roles: roles, PrimaryRole: "r10", SecondaryRoles: []string{"r20", "r22"}},
	}
	for _, u := range users {
		mv, err := merging.view(u)
		if err != nil {
			t.Fatal(err)
		}
		pv, err := probing.view(u)
		if err != nil {
			t.Fatal(err)
		}
		if !mv.mergeable || pv.mergeable {
			t.Fatalf("%s: mergeable %v / %v (cost %d, %d pins)", u.Name, mv.mergeable, pv.mergeable, mv.mergeCost, len(mv.pins))
		}
		mergedAfter := -1
		for round := 0; round < 2; round++ {
			for i := 0; i < 100; i++ {
				tn := TableName{"s", fmt.Sprintf("t%d", i)}
				if round == 1 {
					tn = TableName{"S", fmt.Sprintf("T%d", i)} // not cached
				}
				md, err1 := mv.Decide(tn)
				pd, err2 := pv.Decide(tn)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if !reflect.DeepEqual(md, pd) {
					t.Fatalf("%s, %v: merged %+v\nprobed %+v", u.Name, tn, md, pd)
				}
				if mergedAfter < 0 && mv.merge.merged.Load() != nil {
					mergedAfter = i + round*100
				}
			}
		}
		// The merge waited until the probes had cost as much as it does.
		if mergedAfter < 1 {
			t.Errorf("%s: merged after %d decisions", u.Name, mergedAfter)
		}
		if pv.merge != nil {
			t.Errorf("%s: merge bound 0 merged", u.Name)
		}
	}
	if got := merging.Counters().Stats().MergesBuilt; got != uint64(len(users)) {
		t.Errorf("merges built %d", got)
	}
	if got := probing.Counters().Stats().MergesBuilt; got != 0 {
		t.Errorf("probing snapshot merged %d times", got)
	}
}

func TestMergeBound(t *testing.T) {
	f := randomRolePolicy(2, 40, 50, 2000)
	var roles []string
	for i := 0; i < 40; i++ {
		roles = append(roles, fmt.Sprintf("r%d", i))
	}
	u := session.User{Name: "u", Roles: roles}
	// Without the memo, so that every Decide evaluates (probes or uses the
	// merge).
	probe, _ := Compile(f, 1, WithMergeBound(0), WithMemoSize(0))
	pv, _ := probe.view(u)
	for _, tc := range []struct {
		opts  []Option
		merge bool
	}{
		{[]Option{WithMergeBound(int(pv.mergeCost))}, true},      // exactly at the bound
		{[]Option{WithMergeBound(int(pv.mergeCost) - 1)}, false}, // beyond it: keeps probing
		{[]Option{WithMergeMinPrincipals(len(pv.pins) + 1)}, false},
		{nil, true},
	} {
		c, err := Compile(f, 1, append(tc.opts, WithMemoSize(0))...)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.view(u)
		v.cacheSize = 0 // every Decide probes (or uses the merge)
		for i := 0; i < 300; i++ {
			tn := TableName{"s", fmt.Sprintf("t%d", i%60)}
			d, _ := v.Decide(tn)
			want, _ := pv.Decide(tn)
			if !reflect.DeepEqual(d, want) {
				t.Fatalf("%v: %+v / %+v", tn, d, want)
			}
		}
		if got := v.merge != nil && v.merge.merged.Load() != nil; got != tc.merge {
			t.Errorf("options %d: merged %v (cost %d, bound %d)", len(tc.opts), got, v.mergeCost, c.opts.mergeBound)
		}
		if got := c.Counters().Stats().MergesBuilt; got != map[bool]uint64{true: 1}[tc.merge] {
			t.Errorf("merges built %d", got)
		}
	}
}
