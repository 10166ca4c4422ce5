package mysql

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// The application's SQL may call the built-in functions that compute only
// on their arguments (builtinFunctions, for calls the parser keeps as
// plain function calls, and safeExpr, for the ones it gives a node type of
// their own); any other function is refused, naming it, unless the
// application allowed it by name (rewriter.Request.AllowedFunctions). A
// function called as db.fn() is a stored function: refused unless allowed
// as "db.fn". sqe's own policy expressions are not checked.
//
// The names were derived from MariaDB 10.11's own lists
// (information_schema.SQL_FUNCTIONS and the function categories of
// mysql.help_topic), less the ones refusedWhy explains, and kept only if
// the server knows them as built-ins: an unqualified name the server lacks
// calls a stored function of the current database. So functions of
// MySQL 8 only (ANY_VALUE, REGEXP_LIKE, GROUPING, JSON_SCHEMA_VALID,
// STATEMENT_DIGEST, FORMAT_BYTES, …) and of later MariaDB versions
// (JSON_SCHEMA_VALID, KDF, UUID_V4, …) are refused until allowed by name.

// builtinFunctions are the allowed built-in function names.
var builtinFunctions = rewriter.NameSet(`
abs acos asin atan atan2 ceil ceiling conv cos cot crc32 crc32c degrees
exp floor ln log log10 log2 mod oct pi pow power radians rand round sign
sin sqrt tan truncate bit_count ascii bin bit_length char_length
character_length chr concat concat_ws elt export_set field find_in_set
format from_base64 hex instr lcase left length lengthb locate lower lpad
ltrim make_set mid natural_sort_key octet_length ord position quote
repeat replace reverse right rpad rtrim sformat soundex space strcmp
substr substring substring_index to_base64 to_char trim ucase unhex
upper insert regexp_instr regexp_replace regexp_substr
concat_operator_oracle lpad_oracle ltrim_oracle replace_oracle
rpad_oracle rtrim_oracle substr_oracle trim_oracle decode_oracle
column_add column_check column_create column_delete column_exists
column_get column_json column_list compress uncompress
uncompressed_length md5 sha sha1 sha2 aes_encrypt aes_decrypt
des_encrypt des_decrypt encode decode encrypt password old_password
random_bytes inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4
is_ipv4_compat is_ipv4_mapped is_ipv6 uuid sys_guid charset collation
coercibility name_const weight_string adddate addtime add_months
convert_tz curdate current_date current_time current_timestamp curtime
date datediff date_add date_format date_sub day dayname dayofmonth
dayofweek dayofyear extract from_days from_unixtime get_format hour
last_day localtime localtimestamp makedate maketime microsecond minute
month monthname now period_add period_diff quarter second sec_to_time
str_to_date subdate subtime sysdate time timediff timestamp timestampadd
timestampdiff time_format time_to_sec to_days to_seconds unix_timestamp
utc_date utc_time utc_timestamp week weekday weekofyear year yearweek if
ifnull nullif nvl nvl2 coalesce greatest least isnull interval avg
bit_and bit_or bit_xor count group_concat max min std stddev stddev_pop
stddev_samp sum variance var_pop var_samp json_arrayagg json_objectagg
median percentile_cont percentile_disc row_number rank dense_rank
percent_rank cume_dist ntile lag lead first_value last_value nth_value
json_array json_array_append json_array_insert json_compact
json_contains json_contains_path json_depth json_detailed json_equals
json_exists json_extract json_insert json_keys json_length json_loose
json_merge json_merge_patch json_merge_preserve json_normalize
json_object json_overlaps json_pretty json_query json_quote json_remove
json_replace json_search json_set json_type json_unquote json_valid
json_value extractvalue updatexml database schema version
decode_histogram
` + geometryFunctions)

// geometryFunctions compute on geometry values.
const geometryFunctions = `
area asbinary astext aswkb aswkt boundary buffer centroid contains
convexhull crosses dimension disjoint endpoint envelope equals
exteriorring geomcollfromtext geomcollfromwkb geometrycollection
geometrycollectionfromtext geometrycollectionfromwkb geometryfromtext
geometryfromwkb geometryn geometrytype geomfromtext geomfromwkb glength
interiorringn intersects isclosed isempty isring issimple linefromtext
linefromwkb linestring linestringfromtext linestringfromwkb mbrcontains
mbrdisjoint mbrequal mbrintersects mbroverlaps mbrtouches mbrwithin
mlinefromtext mlinefromwkb mpointfromtext mpointfromwkb mpolyfromtext
mpolyfromwkb multilinestring multilinestringfromtext
multilinestringfromwkb multipoint multipointfromtext multipointfromwkb
multipolygon multipolygonfromtext multipolygonfromwkb numgeometries
numinteriorrings numpoints overlaps point pointfromtext pointfromwkb
pointn pointonsurface polyfromtext polyfromwkb polygon polygonfromtext
polygonfromwkb srid startpoint st_area st_asbinary st_asgeojson
st_astext st_aswkb st_aswkt st_boundary st_buffer st_centroid
st_contains st_convexhull st_crosses st_difference st_dimension
st_disjoint st_distance st_distance_sphere st_endpoint st_envelope
st_equals st_exteriorring st_geomcollfromtext st_geomcollfromwkb
st_geometrycollectionfromtext st_geometrycollectionfromwkb
st_geometryfromtext st_geometryfromwkb st_geometryn st_geometrytype
st_geomfromgeojson st_geomfromtext st_geomfromwkb st_interiorringn
st_intersection st_intersects st_isclosed st_isempty st_isring
st_issimple st_length st_linefromtext st_linefromwkb
st_linestringfromtext st_linestringfromwkb st_mlinefromtext
st_mpointfromtext st_mpointfromwkb st_mpolyfromtext st_mpolyfromwkb
st_multilinestringfromtext st_multipointfromtext st_multipointfromwkb
st_multipolygonfromtext st_multipolygonfromwkb st_numgeometries
st_numinteriorrings st_numpoints st_overlaps st_pointfromtext
st_pointfromwkb st_pointn st_pointonsurface st_polyfromtext
st_polyfromwkb st_polygonfromtext st_polygonfromwkb st_relate st_srid
st_startpoint st_symdifference st_touches st_union st_within st_x st_y
touches within x y
`

// refusedWhy explains why a built-in that is not on the list is refused.
func refusedWhy(name string) string {
	switch name {
	case "last_insert_id":
		return "it reports the connection's last insert, which may be another caller's (the driver's result has the caller's own: sql.Result.LastInsertId)"
	case "connection_id":
		return "it tells about the connection, not about the arguments"
	case "sleep", "benchmark":
		return "it holds the connection to measure time; allow it by name if the application needs it"
	case "get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock":
		return "locks outlive the statement on a connection other callers share"
	case "nextval", "lastval", "setval":
		return "sequence functions tell how many rows exist beyond the caller's filter and write with read access only; allow one by name if the application needs it"
	case "uuid_short":
		return "it reveals the server's id and start time"
	case "master_pos_wait", "master_gtid_wait", "binlog_gtid_pos", "source_pos_wait",
		"gtid_subset", "gtid_subtract", "wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids":
		return "it reads the server's replication state"
	case "ps_current_thread_id", "ps_thread_id":
		return "it reads the server's performance schema"
	}
	if strings.HasPrefix(name, "wsrep_") {
		return "it reads the server's replication state"
	}
	return ""
}

// checkFunc refuses a plain function call that is neither an allowed
// built-in nor allowed by name.
func (r *rewrite) checkFunc(e *sqlparser.FuncExpr) error {
	name := e.Name.Lowered()
	if e.Qualifier.IsEmpty() {
		if builtinFunctions[name] || r.Req.FunctionAllowed("", name) {
			return nil
		}
		return rewriter.FunctionRefused(name, refusedWhy(name))
	}
	schema := e.Qualifier.String()
	if r.Req.FunctionAllowed(schema, name) {
		return nil
	}
	return rewriter.FunctionRefused(schema+"."+name, "it is a stored function, which runs with the database user's rights; allow it by name with sqe.WithAllowedFunctions")
}

// checkExpr refuses an expression node that is no known-safe form: a
// function with a node type of its own whose name is not on the list
// (or reads the server's state: locks, replication, the performance
// schema), or a node type sqe does not know.
func (r *rewrite) checkExpr(n sqlparser.Expr) error {
	switch e := n.(type) {
	case *sqlparser.FuncExpr:
		return r.checkFunc(e)
	case *sqlparser.LockingFunc, *sqlparser.GTIDFuncExpr, *sqlparser.PerformanceSchemaFuncExpr:
		name := callName(e)
		if r.Req.FunctionAllowed("", name) {
			return nil
		}
		return rewriter.FunctionRefused(name, refusedWhy(name))
	}
	if structuralExpr(n) {
		return nil
	}
	if functionExpr(n) {
		// The server reads the printed name: it must be a built-in of
		// the list (a name the server lacks would call a stored
		// function of the current database).
		name := callName(n)
		if builtinFunctions[name] || syntaxNames[name] || r.Req.FunctionAllowed("", name) {
			return nil
		}
		return rewriter.FunctionRefused(name, refusedWhy(name))
	}
	return rewriter.Unsupported("expression %s is not supported", strings.TrimPrefix(fmt.Sprintf("%T", n), "*sqlparser."))
}

// syntaxNames are the names of built-in forms with a grammar of their
// own, as printed.
var syntaxNames = rewriter.NameSet(`cast convert match values char`)

// callName is the lower-cased name of a function node, as printed.
func callName(n sqlparser.Expr) string {
	name, _, _ := strings.Cut(sqlparser.String(n), "(")
	return strings.Trim(strings.ToLower(strings.TrimSpace(name)), "`")
}

// structuralExpr reports whether n is an operator, a literal, a
// reference, or a built-in form that prints no function name of its own.
func structuralExpr(n sqlparser.Expr) bool {
	switch n.(type) {
	case *sqlparser.AndExpr, *sqlparser.OrExpr, *sqlparser.XorExpr, *sqlparser.NotExpr,
		*sqlparser.ComparisonExpr, *sqlparser.BetweenExpr, *sqlparser.IsExpr, *sqlparser.ExistsExpr,
		*sqlparser.AssignmentExpr, *sqlparser.Literal, *sqlparser.Argument, *sqlparser.NullVal,
		sqlparser.BoolVal, *sqlparser.ColName, sqlparser.ValTuple, *sqlparser.Subquery,
		*sqlparser.BinaryExpr, *sqlparser.UnaryExpr, *sqlparser.IntroducerExpr, *sqlparser.CollateExpr,
		*sqlparser.CaseExpr, *sqlparser.Default, *sqlparser.Offset, *sqlparser.Variable, *sqlparser.NamedWindow,
		*sqlparser.IntervalDateExpr, *sqlparser.MemberOfExpr:
		return true
	}
	return false
}

// functionExpr reports whether n is a built-in function the parser gives
// a node type of its own; its printed name decides (checkExpr).
func functionExpr(n sqlparser.Expr) bool {
	switch n.(type) {
	case *sqlparser.TimestampDiffExpr, *sqlparser.ExtractFuncExpr, *sqlparser.WeightStringFuncExpr,
		*sqlparser.CurTimeFuncExpr, *sqlparser.ValuesFuncExpr, *sqlparser.CastExpr, *sqlparser.ConvertExpr,
		*sqlparser.SubstrExpr, *sqlparser.InsertExpr, *sqlparser.IntervalFuncExpr, *sqlparser.LocateExpr,
		*sqlparser.CharExpr, *sqlparser.ConvertUsingExpr, *sqlparser.MatchExpr, *sqlparser.TrimFuncExpr,
		*sqlparser.ExtractValueExpr, *sqlparser.UpdateXMLExpr,
		*sqlparser.RegexpInstrExpr, *sqlparser.RegexpLikeExpr, *sqlparser.RegexpReplaceExpr, *sqlparser.RegexpSubstrExpr:
		return true
	case *sqlparser.JSONSchemaValidFuncExpr, *sqlparser.JSONSchemaValidationReportFuncExpr, *sqlparser.JSONPrettyExpr,
		*sqlparser.JSONStorageFreeExpr, *sqlparser.JSONStorageSizeExpr, *sqlparser.JSONContainsExpr,
		*sqlparser.JSONContainsPathExpr, *sqlparser.JSONExtractExpr, *sqlparser.JSONKeysExpr, *sqlparser.JSONOverlapsExpr,
		*sqlparser.JSONSearchExpr, *sqlparser.JSONValueExpr, *sqlparser.JSONArrayExpr, *sqlparser.JSONArrayAgg,
		*sqlparser.JSONObjectExpr, *sqlparser.JSONObjectAgg, *sqlparser.JSONQuoteExpr, *sqlparser.JSONAttributesExpr,
		*sqlparser.JSONValueModifierExpr, *sqlparser.JSONValueMergeExpr, *sqlparser.JSONRemoveExpr, *sqlparser.JSONUnquoteExpr:
		return true
	case *sqlparser.ArgumentLessWindowExpr, *sqlparser.FirstOrLastValueExpr, *sqlparser.NtileExpr,
		*sqlparser.NTHValueExpr, *sqlparser.LagLeadExpr,
		*sqlparser.Sum, *sqlparser.Min, *sqlparser.Max, *sqlparser.Avg, *sqlparser.CountStar, *sqlparser.Count,
		*sqlparser.GroupConcatExpr, *sqlparser.AnyValue, *sqlparser.BitAnd, *sqlparser.BitOr, *sqlparser.BitXor,
		*sqlparser.Std, *sqlparser.StdDev, *sqlparser.StdPop, *sqlparser.StdSamp, *sqlparser.VarPop,
		*sqlparser.VarSamp, *sqlparser.Variance:
		return true
	case *sqlparser.PointExpr, *sqlparser.LineStringExpr, *sqlparser.PolygonExpr, *sqlparser.MultiPolygonExpr,
		*sqlparser.MultiPointExpr, *sqlparser.MultiLinestringExpr, *sqlparser.GeomFromTextExpr,
		*sqlparser.GeomFromWKBExpr, *sqlparser.GeomFormatExpr, *sqlparser.GeomPropertyFuncExpr,
		*sqlparser.PointPropertyFuncExpr, *sqlparser.LinestrPropertyFuncExpr, *sqlparser.PolygonPropertyFuncExpr,
		*sqlparser.GeomCollPropertyFuncExpr, *sqlparser.GeoHashFromLatLongExpr, *sqlparser.GeoHashFromPointExpr,
		*sqlparser.GeomFromGeoHashExpr, *sqlparser.GeoJSONFromGeomExpr, *sqlparser.GeomFromGeoJSONExpr:
		return true
	}
	return false
}
