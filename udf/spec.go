package udf

// Mask types: the Ranger hive service-def's vocabulary and sqe's additions.
//
// Arguments are strings, in Hive's order for the function the type stands
// for. A replacement-character argument is "-1" (keep the character), ""
// (the function's default) or a string whose first character is the
// replacement; a numeric argument (n, numberChar, day, month, year) is a
// decimal integer.
const (
	TypeMask          = "MASK"              // mask({col}): X x n, others kept; args: [upper, lower, digit, other, number, day, month, year]
	TypeShowLast4     = "MASK_SHOW_LAST_4"  // mask_show_last_n({col}, 4, 'x', 'x', 'x', -1, '1')
	TypeShowFirst4    = "MASK_SHOW_FIRST_4" // mask_show_first_n({col}, 4, 'x', 'x', 'x', -1, '1')
	TypeHash          = "MASK_HASH"         // mask_hash({col}); args: [algorithm: sha256 (default), sha512, md5]
	TypeNull          = "MASK_NULL"         // NULL
	TypeNone          = "MASK_NONE"         // the raw value
	TypeDateShowYear  = "MASK_DATE_SHOW_YEAR"
	TypeCustom        = "CUSTOM"            // an expression with {col}
	TypeShowFirstN    = "MASK_SHOW_FIRST_N" // args: n [, upper, lower, digit, other, number, day, month, year]
	TypeShowLastN     = "MASK_SHOW_LAST_N"  // args: n [, upper, lower, digit, other, number, day, month, year]
	TypeFirstN        = "MASK_FIRST_N"      // mask_first_n; args: n [, upper, lower, digit, other, number, day, month, year]
	TypeLastN         = "MASK_LAST_N"       // mask_last_n; args: n [, upper, lower, digit, other, number, day, month, year]
	TypeRedact        = "REDACT"            // args: [constant] (default "REDACTED" for strings, NULL for other types)
	TypeRegexpReplace = "REGEXP_REPLACE"    // args: pattern, replacement
)
