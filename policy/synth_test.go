package policy

import (
	"fmt"
	"math/rand/v2"

	"github.com/sqe-project/sqe/session"
)

// synthSet is a large synthetic policy set, built in code: the File and
// the caller and the table the benchmarks resolve.
type synthSet struct {
	n     int
	f     *File
	user  session.User
	table TableName
}

const synthRoles = 10_000

func roleName(i int) string { return fmt.Sprintf("r%05d", i) }

// synthPolicies builds n policies over synthRoles roles and n/10 tables
// (so a table has about ten rules at every size), plus n/1000 wildcard
// entries on unrelated tables and one wildcard entry that covers the
// benchmark table. Every tenth role contains the next two, so the caller,
// granted r00000, r00003 and r00004, holds five roles. The first five
// policies are the caller's roles' rules on the benchmark table.
func synthPolicies(n int) *synthSet {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	s := &synthSet{n: n, table: TableName{"db0", "t0"}}
	f := &File{Name: fmt.Sprintf("synthetic-%d", n), Version: FileVersion}
	for i := 0; i+2 < synthRoles; i += 10 {
		f.Roles = append(f.Roles, FileRole{Name: roleName(i), Contains: []string{roleName(i + 1), roleName(i + 2)}})
	}
	s.user = session.User{Name: "caller", Roles: []string{roleName(0), roleName(3), roleName(4)}}
	nTables := max(n/10, 1)
	nWild := n / 1000
	exact := make([]FileTable, nTables)
	for j := range exact {
		exact[j].Schema, exact[j].Table = fmt.Sprintf("db%d", j%100), fmt.Sprintf("t%d", j)
	}
	wild := make([]FileTable, nWild+1)
	wild[0].Schema, wild[0].Table = "db0", "t*"
	for k := 1; k <= nWild; k++ {
		wild[k].Schema, wild[k].Table = fmt.Sprintf("db%d", k%100), fmt.Sprintf("log%d_*", k)
	}
	wild[0].Masks = append(wild[0].Masks, MaskRule{Name: "wild-mask", Principals: []Principal{{Kind: PrincipalPublic}}, Column: "secret", Type: "MASK_NULL"})
	role := func(i int) []Principal { return []Principal{{Kind: PrincipalRole, Name: roleName(i)}} }
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%d", i)
		var t *FileTable
		var r int
		kind := 0
		switch {
		case i < 5:
			t, r, kind = &exact[0], []int{0, 1, 2, 3, 4}[i], []int{0, 0, 2, 3, 1}[i]
		case i%1000 == 999 && nWild > 0:
			t, r, kind = &wild[1+rng.IntN(nWild)], rng.IntN(synthRoles), 3
		default:
			t, r = &exact[i%nTables], rng.IntN(synthRoles)
			switch x := rng.IntN(100); {
			case x < 60:
				kind = 0
			case x < 70:
				kind = 1
			case x < 85:
				kind = 2
			case x < 95:
				kind = 3
			default:
				kind = 4
			}
		}
		switch kind {
		case 0, 1:
			a := Accesses[rng.IntN(len(Accesses))]
			if i < 5 {
				a = []Access{Select, Update, "", "", Drop}[i]
			}
			rule := AccessRule{Name: name, Principals: role(r)}
			if kind == 0 {
				rule.Allow = []Access{a}
			} else {
				rule.Deny = []Access{a}
			}
			t.Access = append(t.Access, rule)
		case 2:
			t.RowFilters = append(t.RowFilters, FilterRule{Name: name, Principals: role(r), Filter: fmt.Sprintf("tenant = %d", i)})
		case 3:
			t.Masks = append(t.Masks, MaskRule{Name: name, Principals: role(r), Column: fmt.Sprintf("c%d", i%7), Type: "MASK_SHOW_LAST_4"})
		case 4:
			t.Restricted = append(t.Restricted, RestrictRule{Name: name, Principals: role(r), Columns: []string{fmt.Sprintf("c%d", i%5)}})
		}
	}
	f.Tables = append(exact, wild...)
	s.f = f
	return s
}
