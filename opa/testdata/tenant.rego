package sqe

import data.sqe.lib
import rego.v1

row_filters contains lib.filter("tenant", sprintf("tenant_id = %d", [to_number(lib.attribute("tenant"))])) if {
	not lib.has_role("admin")
	"tenant_id" in {c.name | some c in input.table.columns}
}

default masks := {}

masks := lib.tag_masks({"PII": lib.mask("MASK_HASH"), "EMAIL": lib.mask("MASK")}) if not lib.in_group("privacy-officers")

decision := {"allow": lib.has_role("analyst"), "row_filters": row_filters, "masks": masks}
