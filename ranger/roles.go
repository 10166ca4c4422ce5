package ranger

// roleIndex resolves role membership: a user holds the roles that name
// the user, one of the user's groups or the public group, and, transitively,
// every role that contains a role held (Ranger's RangerRolesUtil).
type roleIndex struct {
	byUser  map[string][]string // user -> roles naming the user directly
	byGroup map[string][]string // group -> roles naming the group directly
	parents map[string][]string // role -> roles that list it as a member
	names   map[string]bool
}

func newRoleIndex(r *Roles) *roleIndex {
	ix := &roleIndex{byUser: map[string][]string{}, byGroup: map[string][]string{}, parents: map[string][]string{}, names: map[string]bool{}}
	if r == nil {
		return ix
	}
	for _, role := range r.RangerRoles {
		if role == nil || role.Name == "" {
			continue
		}
		ix.names[role.Name] = true
		for _, u := range role.Users {
			ix.byUser[u.Name] = append(ix.byUser[u.Name], role.Name)
		}
		for _, g := range role.Groups {
			ix.byGroup[g.Name] = append(ix.byGroup[g.Name], role.Name)
		}
		for _, m := range role.Roles {
			ix.parents[m.Name] = append(ix.parents[m.Name], role.Name)
		}
	}
	return ix
}

// closure adds every role containing one of roles, transitively.
func (ix *roleIndex) closure(roles map[string]bool) map[string]bool {
	stack := make([]string, 0, len(roles))
	for r := range roles {
		stack = append(stack, r)
	}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range ix.parents[r] {
			if !roles[p] {
				roles[p] = true
				stack = append(stack, p)
			}
		}
	}
	return roles
}

func (ix *roleIndex) rolesFor(user string, groups map[string]bool) map[string]bool {
	out := map[string]bool{}
	if user != "" {
		for _, r := range ix.byUser[user] {
			out[r] = true
		}
	}
	for g := range groups {
		for _, r := range ix.byGroup[g] {
			out[r] = true
		}
	}
	for _, r := range ix.byGroup[groupPublic] {
		out[r] = true
	}
	return ix.closure(out)
}
