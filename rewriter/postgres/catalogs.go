package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// The system catalogs are relations like any other for the policy (a
// file's default decides them), but some of them carry data no policy can
// shape, and the column listings must not show the columns a caller's
// policy restricts.
//
//   - Refused (refusedCatalogs): column statistics with stored values
//     (pg_statistic, pg_stats, …), the statistics views that count rows or
//     show other sessions' statements (pg_stat_*, pg_statio_*), prepared
//     statements and cursors of the session (which may be another caller's),
//     large objects, credentials and server files.
//   - The column listings (information_schema.columns and the other views
//     that name a column by table_schema, table_name, column_name, and
//     pg_catalog.pg_attribute) get a row filter that removes the caller's
//     restricted (schema, table, column) triples.
//   - pg_class's row and page counts (reltuples, relpages, relallvisible)
//     read as NULL, so that no listing counts the rows a row filter hides.

var refusedCatalogs = map[string]string{
	"pg_statistic":                 "holds column statistics with stored values",
	"pg_statistic_ext":             "holds column statistics",
	"pg_statistic_ext_data":        "holds column statistics with stored values",
	"pg_stats":                     "shows column statistics with stored values",
	"pg_stats_ext":                 "shows column statistics with stored values",
	"pg_stats_ext_exprs":           "shows column statistics with stored values",
	"pg_prepared_statements":       "shows the session's statements, which may be another caller's",
	"pg_cursors":                   "shows the session's cursors, which may be another caller's",
	"pg_prepared_xacts":            "shows prepared transactions",
	"pg_largeobject":               "holds large objects, which no policy covers",
	"pg_largeobject_metadata":      "describes large objects, which no policy covers",
	"pg_authid":                    "holds credentials",
	"pg_shadow":                    "holds credentials",
	"pg_user_mappings":             "holds credentials of foreign servers",
	"pg_user_mapping":              "holds credentials of foreign servers",
	"pg_file_settings":             "reads server configuration files",
	"pg_hba_file_rules":            "reads server configuration files",
	"pg_ident_file_mappings":       "reads server configuration files",
	"pg_backend_memory_contexts":   "shows server internals",
	"pg_shmem_allocations":         "shows server internals",
	"pg_replication_slots":         "shows replication state",
	"pg_replication_origin":        "shows replication state",
	"pg_replication_origin_status": "shows replication state",
	"pg_subscription":              "holds connection strings",
}

// refusedCatalogPrefixes cover families of statistics views.
var refusedCatalogPrefixes = []string{"pg_stat_", "pg_statio_"}

// columnListings name a column by table_schema, table_name, column_name.
var columnListings = map[string]bool{
	"columns": true, "column_privileges": true, "role_column_grants": true, "column_udt_usage": true,
	"column_domain_usage": true, "column_column_usage": true, "column_options": true, "key_column_usage": true,
	"constraint_column_usage": true, "view_column_usage": true, "routine_column_usage": true,
}

// refusedSystemRelation refuses the catalogs listed above, in any schema
// (pg_stat_statements lives in the extension's schema).
func refusedSystemRelation(t policy.TableName) error {
	name := strings.ToLower(t.Table)
	why, ok := refusedCatalogs[name]
	if ok && !strings.EqualFold(t.Schema, "pg_catalog") {
		ok = false
	}
	if !ok {
		for _, p := range refusedCatalogPrefixes {
			if strings.HasPrefix(name, p) {
				why, ok = "shows row counts or other sessions' statements", true
			}
		}
	}
	if ok {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "this catalog " + why + ": not readable through sqe"}
	}
	return nil
}

// systemTables answers the core about the server's own relations.
type systemTables struct{ r *rewrite }

func (systemTables) Refused(t policy.TableName) error { return refusedSystemRelation(t) }

// Listing describes sqe's additions to a column listing (its rows naming
// a restricted column left out) or to pg_class (its row statistics read
// as NULL).
func (s systemTables) Listing(t policy.TableName) (*rewriter.Listing, error) {
	schema, name := strings.ToLower(t.Schema), strings.ToLower(t.Table)
	switch {
	case schema == "information_schema" && columnListings[name]:
		return &rewriter.Listing{Filter: listingFilter}, nil
	case schema == "pg_catalog" && name == "pg_attribute":
		return &rewriter.Listing{Filter: attributeFilter}, nil
	case schema == "pg_catalog" && name == "pg_class":
		r := s.r
		if r.Req.Catalog == nil {
			return nil, rewriter.Unsupported("no catalog to read the columns of pg_catalog.pg_class")
		}
		cols, found, err := r.Req.Catalog.Columns(r.Ctx, t)
		if err != nil || !found {
			return nil, rewriter.Unsupported("reading the columns of pg_catalog.pg_class failed")
		}
		var nulls []string
		for _, c := range cols {
			switch c.Name {
			case "reltuples", "relpages", "relallvisible":
				nulls = append(nulls, c.Name)
			}
		}
		if len(nulls) == 0 {
			return nil, nil
		}
		return &rewriter.Listing{NullColumns: nulls}, nil
	}
	return nil, nil
}

// listingFilter is false for the rows of an information_schema view that
// name a restricted column (names compared as the policy does, ignoring
// case).
func listingFilter(cols []rewriter.RestrictedColumn) string {
	lower := func(c string) *pg.Node {
		return funcNode("lower", castNode(colNode(c), "text"))
	}
	left := rowNode(lower("table_schema"), lower("table_name"), lower("column_name"))
	var items []*pg.Node
	for _, c := range cols {
		items = append(items, rowNode(strNode(strings.ToLower(c.Schema)), strNode(strings.ToLower(c.Table)), strNode(c.Column)))
	}
	return notIn(left, items)
}

// attributeFilter is false for the pg_attribute rows of restricted columns.
func attributeFilter(cols []rewriter.RestrictedColumn) string {
	left := rowNode(colNode("attrelid"), funcNode("lower", castNode(colNode("attname"), "text")))
	var items []*pg.Node
	for _, c := range cols {
		rel := Syntax.QuoteIdent(c.Schema) + "." + Syntax.QuoteIdent(c.Table)
		items = append(items, rowNode(castNode(funcNode("to_regclass", strNode(rel)), "oid"), strNode(c.Column)))
	}
	return notIn(left, items)
}

// notIn prints NOT COALESCE(left IN (items), false): a row whose
// comparison is unknown stays.
func notIn(left *pg.Node, items []*pg.Node) string {
	in := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_IN,
		Name:  []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "="}}}},
		Lexpr: left, Rexpr: &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}}}}}
	co := &pg.Node{Node: &pg.Node_CoalesceExpr{CoalesceExpr: &pg.CoalesceExpr{Args: []*pg.Node{in,
		{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: false}}}}}}}}}
	not := &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_NOT_EXPR, Args: []*pg.Node{co}}}}
	text, err := deparseExpr(not)
	if err != nil {
		return "false" // fail closed: the listing shows nothing
	}
	return text
}

func colNode(name string) *pg.Node {
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: columnRef([]string{name})}}
}

func strNode(s string) *pg.Node {
	return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: s}}}}}
}

func funcNode(name string, args ...*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{
		Funcname: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "pg_catalog"}}}, {Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}},
		Args:     args, Funcformat: pg.CoercionForm_COERCE_EXPLICIT_CALL}}}
}

func castNode(n *pg.Node, typ string) *pg.Node {
	return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: n, TypeName: &pg.TypeName{
		Names:   []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "pg_catalog"}}}, {Node: &pg.Node_String_{String_: &pg.String{Sval: typ}}}},
		Typemod: -1}}}}
}

func rowNode(items ...*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_RowExpr{RowExpr: &pg.RowExpr{Args: items, RowFormat: pg.CoercionForm_COERCE_IMPLICIT_CAST}}}
}
