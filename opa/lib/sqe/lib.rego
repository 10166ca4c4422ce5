# Helpers for sqe decision documents. sqe compiles this module with every
# bundle that does not define package sqe.lib itself; import it with
# "import data.sqe.lib".
#
# Principals. The roles a user holds are the closure, over
# data.sqe.principals.roles[ROLE].contains, of input.user.roles and the
# roles data.sqe.principals grants to the user (users[NAME].roles) and to
# the user's groups (groups[NAME].roles). With no primary role every held
# role is active; with one, the primary role and what it contains, the
# listed secondary roles (or every held role for ["ALL"]) and what they
# contain, among the held roles only. Rules that grant or shape access
# (allow, row filters, masks) should test active roles (has_role), rules
# that take away (deny, restricted) held roles (holds_role).
package sqe.lib

import rego.v1

granted contains r if some r in input.user.roles

granted contains r if some r in data.sqe.principals.users[input.user.name].roles

granted contains r if {
	some g in input.user.groups
	some r in data.sqe.principals.groups[g].roles
}

# role_graph maps each role to the roles it contains.
# Every role named anywhere in the hierarchy is a node, so that a role
# that contains nothing is reached too.
default role_data := {}

role_data := data.sqe.principals.roles

role_graph := object.union(
	{r: [] |
		some v in role_data
		some r in object.get(v, "contains", [])
	},
	{r: object.get(v, "contains", []) | some r, v in role_data},
)

# held is every role the user holds.
held := granted | graph.reachable(role_graph, granted)

default primary := ""

primary := input.user.primary_role if is_string(input.user.primary_role)

all_secondary if "ALL" in input.user.secondary_roles

chosen contains primary

chosen contains r if {
	some r in input.user.secondary_roles
	r != ""
}

# active is the roles active in the session.
active := held if primary == ""

active := held if {
	primary != ""
	all_secondary
}

active := (chosen | graph.reachable(role_graph, chosen)) & held if {
	primary != ""
	not all_secondary
	primary in held
}

active := set() if {
	primary != ""
	not primary in held
}

# has_role(r): r is active (for allow rules, row filters and masks).
has_role(r) if r in active

# holds_role(r): the user holds r, active or not (for deny and restricted).
holds_role(r) if r in held

# in_group(g): the user is in group g.
in_group(g) if g in input.user.groups

# attribute(k) is the session attribute k ("" when absent).
attribute(k) := object.get(object.get(input.user, "attributes", {}), k, "")

# table is the lower-cased "schema.table" the decision is for.
table := lower(concat(".", [input.table.schema, input.table.name]))

# table_in(names): the table is one of names ("schema.table", any case).
table_in(names) if table in {lower(n) | some n in names}

# reading: the decision is for a read (select).
reading if input.action == "select"

# writing: the decision is for INSERT, UPDATE or DELETE.
writing if input.action == "update"

# tagged(tag) is the set of the table's columns (lower-cased) that carry
# tag (case-insensitive).
tagged(tag) := {lower(c.name) |
	some c in input.table.columns
	some t in object.get(c, "tags", [])
	upper(t) == upper(tag)
}

# typed(kind) is the set of the table's columns whose type's name
# starts with kind ("varchar", "date", …).
typed(kind) := {lower(c.name) |
	some c in input.table.columns
	startswith(lower(object.get(c, "type", "")), lower(kind))
}

# mask(type) is a mask of a Ranger hive type without arguments.
mask(type) := {"type": type}

# mask_args(type, args) is a mask with arguments (MASK_SHOW_FIRST_N, …).
mask_args(type, args) := {"type": type, "args": args}

# custom(expr) is a CUSTOM mask; {col} in expr stands for the column.
custom(expr) := {"type": "CUSTOM", "expr": expr}

# named(m, name) is mask or row filter m with its rule's name, for errors
# and audit records.
named(m, name) := object.union(m, {"name": name})

# filter(name, expr) is a named row filter.
filter(name, expr) := {"name": name, "filter": expr}

# tag_masks(bindings) masks every column carrying a tag of bindings
# (TAG: mask), the first tag in sorted order winning for a column with
# several.
tag_masks(bindings) := {c: bindings[t] |
	some c in {c | some t, _ in bindings; some c in tagged(t)}
	t := min({t | some t, _ in bindings; c in tagged(t)})
}
