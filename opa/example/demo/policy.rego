# The demo's policy (cmd/sqe/demo_policy.yaml) as a Rego bundle: three
# roles over one shop database, with the same decisions as the YAML file.
package sqe

import data.sqe.lib
import rego.v1

shop_tables := {"shop.customers", "shop.orders"}

# access: staff-read and admin-all, as the file's access rules.
grants contains "staff-read" if {
	lib.table in shop_tables
	input.action == "select"
	some r in ["analyst", "support"]
	lib.has_role(r)
}

grants contains "admin-all" if {
	lib.table in shop_tables
	lib.has_role("admin")
}

row_filters contains lib.filter("eu-only", "region = 'EU'") if {
	lib.table == "shop.customers"
	lib.has_role("eu_analyst")
}

masks["ssn"] := lib.named(lib.mask("MASK_SHOW_LAST_4"), "ssn-last-4") if {
	lib.table == "shop.customers"
	lib.has_role("support")
}

masks["email"] := lib.named(lib.mask("MASK"), "email-hash") if {
	lib.table == "shop.customers"
	lib.has_role("support")
}

restricted contains {"name": "no-salary", "column": "salary"} if {
	lib.table == "shop.customers"
	some r in ["support", "eu_analyst"]
	lib.holds_role(r)
}

decision := {
	"allow": count(grants) > 0,
	"row_filters": row_filters,
	"masks": masks,
	"restricted": restricted,
	"policies": grants,
}
