package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// The application's SQL may call the built-in functions that compute
// only on their arguments (builtinFunctions, functions_list.go), cast to
// the built-in types (builtinTypes) and use the built-in operators
// (builtinOperators); anything else is refused, naming it, unless the
// application allowed it by name (rewriter.Request.AllowedFunctions,
// AllowedTypes). sqe's own policy expressions are not checked.
//
// Left off the list on purpose (refusedWhy gives the reason in errors):
// every pg_* function but a few that only measure or convert their
// argument (pg_typeof, pg_column_size, …): they read the catalogs,
// statistics, other sessions, locks, the server's files or settings, or
// the connection's prepared statements and cursors (another caller's
// rewritten SQL); has_*_privilege, obj_description and the other catalog
// readers; the sequence functions; current_setting and set_config;
// current_query (the rewritten statement, with its policy); the
// connection's addresses; setseed (the next caller's random()); txid_*;
// large objects; the *_to_xml functions that read tables or run SQL
// given as text; ts_stat and ts_rewrite (SQL given as text); currtid2;
// the index maintenance functions; getpgusername (the database account).

// pgMeasures are the pg_* functions allowed: they measure or convert
// their argument, or name the connection's encoding.
var pgMeasures = rewriter.NameSet(`
pg_typeof pg_column_size pg_column_compression pg_size_pretty
pg_size_bytes pg_client_encoding pg_char_to_encoding pg_encoding_to_char
pg_encoding_max_length pg_collation_for
`)

// builtin reports whether name is an allowed built-in function.
func builtin(name string) bool {
	return builtinFunctions[name] || pgMeasures[name]
}

// refusedWhy explains why a built-in that is not on the list is refused.
func refusedWhy(name string) string {
	switch name {
	case "nextval", "setval", "currval", "lastval", "pg_sequence_last_value", "pg_sequence_parameters":
		return "sequence functions tell how many rows exist beyond the caller's filter and write with read access only; allow one by name if the application needs it"
	case "current_setting", "set_config":
		return "it reads or changes the connection's settings, which another caller may have set"
	case "current_query":
		return "it returns the statement the server runs, with its policy"
	case "inet_client_addr", "inet_client_port", "inet_server_addr", "inet_server_port", "getpgusername":
		return "it tells about the connection, not about the arguments"
	case "setseed":
		return "it changes random() for the next caller of the connection"
	case "pg_sleep", "pg_sleep_for", "pg_sleep_until":
		return "it holds the connection to measure time; allow it by name if the application needs it"
	}
	switch {
	case strings.HasPrefix(name, "pg_prepared_statement"), strings.HasPrefix(name, "pg_cursor"):
		return "it lists the connection's statements, which another caller's rewritten SQL may be"
	case strings.HasPrefix(name, "pg_advisory"), strings.HasPrefix(name, "pg_try_advisory"):
		return "locks outlive the statement on a connection other callers share"
	case strings.HasPrefix(name, "pg_"):
		return "it reads the server's catalogs, statistics, sessions, locks, files or settings"
	case strings.HasPrefix(name, "has_") && strings.HasSuffix(name, "_privilege"),
		name == "obj_description", name == "col_description", name == "shobj_description":
		return "it reads the server's catalogs"
	case strings.HasPrefix(name, "txid_"):
		return "it reads the server's transaction state"
	}
	return ""
}

// checkFunction refuses a function of the application's SQL that is
// neither an allowed built-in nor allowed by name.
func (r *rewrite) checkFunction(schema, name string) error {
	if (schema == "" || schema == "pg_catalog") && builtin(name) {
		return nil
	}
	if r.Req.FunctionAllowed(schema, name) {
		return nil
	}
	full := name
	if schema != "" {
		full = schema + "." + name
	}
	why := ""
	if schema == "" || schema == "pg_catalog" {
		why = refusedWhy(name)
	}
	return rewriter.FunctionRefused(full, why)
}

// builtinTypes are the types of pg_catalog a value may be cast to: base,
// range and multirange types (arrays of them too), record, and the
// SQL-standard spellings the grammar keeps. A table's row type, or any
// other composite type, is not one: casting to it (null::customers,
// ROW(…)::customers) names the table's columns and their types.
var builtinTypes = rewriter.NameSet(`
bit bool box bpchar bytea char cid cidr circle date float4 float8 inet
int2 int2vector int4 int8 interval json jsonb jsonpath line lseg macaddr
macaddr8 money name numeric oid oidvector path pg_lsn pg_snapshot point
polygon refcursor regclass regcollation regconfig regdictionary
regnamespace regoper regoperator regproc regprocedure regrole regtype
text tid time timestamp timestamptz timetz tsquery tsvector txid_snapshot
uuid varbit varchar xid xid8 xml
datemultirange int4multirange int8multirange nummultirange tsmultirange
tstzmultirange daterange int4range int8range numrange tsrange tstzrange
record
int integer smallint bigint real float double decimal boolean character
`)

// checkType refuses a type name of the application's SQL that is neither
// a built-in type nor allowed by name.
func (r *rewrite) checkType(tn *pg.TypeName) error {
	if len(tn.Names) == 0 {
		return rewriter.Unsupported("a type given by its number is not supported")
	}
	parts := make([]string, 0, len(tn.Names))
	for _, n := range tn.Names {
		s := n.GetString_()
		if s == nil {
			return rewriter.Unsupported("unexpected type name")
		}
		parts = append(parts, s.Sval)
	}
	if tn.PctType {
		return rewriter.Unsupported("%%TYPE is not supported")
	}
	name := parts[len(parts)-1]
	schema := strings.Join(parts[:len(parts)-1], ".")
	if (schema == "" || schema == "pg_catalog") && builtinTypes[name] {
		return nil
	}
	if r.Req.TypeAllowed(schema, name) {
		return nil
	}
	full := strings.Join(parts, ".")
	return &rewriter.Error{Kind: rewriter.ErrUnsupported,
		Detail: "type " + full + " is not allowed through sqe: only built-in types are (a table's row type would tell its columns); allow an application type by name with sqe.WithAllowedTypes"}
}

// builtinOperators are the names of pg_catalog's operators. An operator
// is a function: OPERATOR(schema.op) of another schema, or a symbol no
// built-in operator has, is refused.
var builtinOperators = rewriter.NameSet(`
!! !~ !~* !~~ !~~* # ## #- #> #>> % & && &< &<| &> * *< *<= *<> *= *> *>=
+ - -> ->> -|- / < <-> << <<= <<| <= <> <@ <^ = > >= >> >>= >^ ? ?# ?& ?-
?-| ?| ?|| @ @-@ @> @? @@ @@@ ^ ^@ | |&> |/ |>> || ||/ ~ ~* ~<=~ ~<~ ~=
~>=~ ~>~ ~~ ~~* !=
`)

// checkOperator refuses an operator name that is not a built-in one.
func (r *rewrite) checkOperator(names []*pg.Node) error {
	if len(names) == 0 {
		return nil
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		s := n.GetString_()
		if s == nil {
			return rewriter.Unsupported("unexpected operator name")
		}
		parts = append(parts, s.Sval)
	}
	op := parts[len(parts)-1]
	schema := strings.Join(parts[:len(parts)-1], ".")
	if (schema == "" || schema == "pg_catalog") && builtinOperators[op] {
		return nil
	}
	if r.Req.FunctionAllowed(schema, op) {
		return nil
	}
	return &rewriter.Error{Kind: rewriter.ErrUnsupported,
		Detail: "operator " + strings.Join(parts, ".") + " is not allowed through sqe: only the built-in operators are"}
}
