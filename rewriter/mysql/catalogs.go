package mysql

import (
	"maps"
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// The server's own schemas are tables like any other for the policy (a
// file's default decides them), but some of them carry data no policy can
// shape, and the column listings must not show the columns a caller's
// policy restricts.
//
//   - mysql, performance_schema and sys are refused: they hold statement
//     texts of other sessions (performance_schema, mysql.general_log),
//     column statistics with stored values (mysql.column_stats) and
//     credentials.
//   - information_schema tables are let through only when listed in
//     infoSchemaTables: the others expose other sessions' statements
//     (PROCESSLIST), optimizer traces, per-table row counts and storage
//     internals (INNODB_*, TABLE_STATISTICS, …).
//   - The column listings (COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
//     COLUMN_PRIVILEGES) get a row filter that removes the caller's
//     restricted (schema, table, column) triples, and the statistics that
//     count rows (TABLES.TABLE_ROWS, STATISTICS.CARDINALITY, …) read as
//     NULL, so that no listing counts the rows a row filter hides.

var refusedSchemas = map[string]string{
	"mysql":              "the mysql schema holds credentials, logs and column statistics",
	"performance_schema": "performance_schema holds other sessions' statements",
	"sys":                "the sys schema reads performance_schema",
}

// infoSchemaTable is how sqe lets one information_schema table through.
type infoSchemaTable struct {
	// columnFilter: the rows name a column in TABLE_SCHEMA, TABLE_NAME,
	// COLUMN_NAME and are filtered by the caller's restricted columns.
	columnFilter bool
	// nullColumns read as NULL (statistics that count rows).
	nullColumns []string
}

var infoSchemaTables = map[string]infoSchemaTable{
	"schemata":                              {},
	"schema_privileges":                     {},
	"tables":                                {nullColumns: tableStatistics},
	"table_privileges":                      {},
	"table_constraints":                     {},
	"referential_constraints":               {},
	"check_constraints":                     {},
	"views":                                 {},
	"columns":                               {columnFilter: true},
	"column_privileges":                     {columnFilter: true},
	"key_column_usage":                      {columnFilter: true},
	"statistics":                            {columnFilter: true, nullColumns: []string{"CARDINALITY"}},
	"routines":                              {},
	"parameters":                            {},
	"triggers":                              {},
	"events":                                {},
	"character_sets":                        {},
	"collations":                            {},
	"collation_character_set_applicability": {},
	"engines":                               {},
	"plugins":                               {},
	"keywords":                              {},
	"sql_functions":                         {},
	"user_privileges":                       {},
	"enabled_roles":                         {},
	"applicable_roles":                      {},
	"session_variables":                     {},
	"global_variables":                      {},
	"system_variables":                      {},
}

var tableStatistics = []string{"TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH",
	"DATA_FREE", "AUTO_INCREMENT", "CHECKSUM"}

// refusedSystemTable refuses the server schemas and the information_schema
// tables sqe does not let through.
func refusedSystemTable(t policy.TableName) error {
	schema := strings.ToLower(t.Schema)
	if why, ok := refusedSchemas[schema]; ok {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: why + ": not readable through sqe"}
	}
	if schema == "information_schema" {
		if _, ok := infoSchemaTables[strings.ToLower(t.Table)]; !ok {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
				Detail: "this information_schema table exposes data no policy shapes (other sessions, statistics): not readable through sqe"}
		}
	}
	return nil
}

// systemTables answers the core about the server's own tables.
type systemTables struct{}

func (systemTables) Refused(t policy.TableName) error { return refusedSystemTable(t) }

// Listing describes sqe's additions to an information_schema table: its
// statistics columns read as NULL, its rows naming a restricted column
// left out.
func (systemTables) Listing(t policy.TableName) (*rewriter.Listing, error) {
	if !strings.EqualFold(t.Schema, "information_schema") {
		return nil, nil
	}
	spec := infoSchemaTables[strings.ToLower(t.Table)]
	if !spec.columnFilter && len(spec.nullColumns) == 0 {
		return nil, nil
	}
	l := &rewriter.Listing{NullColumns: spec.nullColumns, FoldNames: true}
	if spec.columnFilter {
		l.Filter = func(cols []rewriter.RestrictedColumn) string { return restrictedColumnsFilter(cols, true) }
	}
	return l, nil
}

// restrictedColumnsFilter is a condition over TABLE_SCHEMA, TABLE_NAME and
// COLUMN_NAME that is false for the restricted columns ("" when there are
// none). withTable is false when the rows are already those of one table.
func restrictedColumnsFilter(cols []rewriter.RestrictedColumn, withTable bool) string {
	if len(cols) == 0 {
		return ""
	}
	var left sqlparser.Expr
	tuple := make(sqlparser.ValTuple, 0, len(cols))
	lower := func(col string) sqlparser.Expr {
		return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("lower"),
			Exprs: []sqlparser.Expr{&sqlparser.ColName{Name: sqlparser.NewIdentifierCI(col)}}}
	}
	if withTable {
		left = sqlparser.ValTuple{lower("TABLE_SCHEMA"), lower("TABLE_NAME"), lower("COLUMN_NAME")}
		for _, c := range cols {
			tuple = append(tuple, sqlparser.ValTuple{sqlparser.NewStrLiteral(c.Schema), sqlparser.NewStrLiteral(c.Table),
				sqlparser.NewStrLiteral(c.Column)})
		}
	} else {
		left = lower("COLUMN_NAME")
		for _, c := range cols {
			tuple = append(tuple, sqlparser.NewStrLiteral(c.Column))
		}
	}
	return sqlparser.String(&sqlparser.NotExpr{Expr: &sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: left, Right: tuple}})
}

// showColumns turns SHOW [FULL] COLUMNS FROM t [LIKE … | WHERE …] and
// DESCRIBE t into the equivalent query of information_schema.COLUMNS, with
// the caller's restricted columns left out. It needs select access on t.
func (r *rewrite) showColumns(tn sqlparser.TableName, full bool, like string, where sqlparser.Expr) (*rewriter.Result, error) {
	t, err := r.resolve(tn)
	if err != nil {
		return nil, err
	}
	plan, err := r.plan(t, policy.Select)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("select COLUMN_NAME as `Field`, COLUMN_TYPE as `Type`")
	if full {
		b.WriteString(", COLLATION_NAME as `Collation`")
	}
	// MariaDB's COLUMN_DEFAULT quotes literals and spells a NULL default
	// 'NULL'; SHOW COLUMNS gives the value itself.
	b.WriteString(", IS_NULLABLE as `Null`, COLUMN_KEY as `Key`")
	b.WriteString(", case when COLUMN_DEFAULT = 'NULL' then null when COLUMN_DEFAULT like '''%''' " +
		"then replace(substring(COLUMN_DEFAULT, 2, char_length(COLUMN_DEFAULT) - 2), '''''', '''') " +
		"else COLUMN_DEFAULT end as `Default`")
	b.WriteString(", EXTRA as `Extra`")
	if full {
		b.WriteString(", `PRIVILEGES` as `Privileges`, COLUMN_COMMENT as `Comment`")
	}
	b.WriteString(" from information_schema.COLUMNS where TABLE_SCHEMA = :sqe_schema and TABLE_NAME = :sqe_table")
	var restricted []rewriter.RestrictedColumn
	for _, c := range slices.Sorted(maps.Keys(plan.Decision.Restricted)) {
		restricted = append(restricted, rewriter.RestrictedColumn{Column: c})
	}
	if f := restrictedColumnsFilter(restricted, false); f != "" {
		b.WriteString(" and " + f)
	}
	if like != "" {
		b.WriteString(" and COLUMN_NAME like :sqe_like")
	}
	b.WriteString(" order by ORDINAL_POSITION")
	stmt, err := parse(b.String())
	if err != nil {
		return nil, rewriter.Unsupported("column listing does not parse")
	}
	sel := stmt.(*sqlparser.Select)
	// Bind the names as literals (the placeholders only mark their places).
	sqlparser.Rewrite(sel, func(c *sqlparser.Cursor) bool {
		if a, ok := c.Node().(*sqlparser.Argument); ok {
			switch a.Name {
			case "sqe_schema":
				c.Replace(sqlparser.NewStrLiteral(t.Schema))
			case "sqe_table":
				c.Replace(sqlparser.NewStrLiteral(t.Table))
			case "sqe_like":
				c.Replace(sqlparser.NewStrLiteral(like))
			}
		}
		return true
	}, nil)
	for _, te := range sel.From {
		if ate, ok := te.(*sqlparser.AliasedTableExpr); ok {
			r.Sanction(ate)
		}
	}
	var out sqlparser.Statement = sel
	if where != nil {
		// WHERE of SHOW COLUMNS names the output columns (Field, Type, …).
		outer := &sqlparser.Select{
			SelectExprs: &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.StarExpr{}}},
			From:        []sqlparser.TableExpr{&sqlparser.AliasedTableExpr{Expr: &sqlparser.DerivedTable{Select: sel}, As: sqlparser.NewIdentifierCS("columns")}},
		}
		outer.Where = sqlparser.NewWhere(sqlparser.WhereClause, where)
		sc := &scope{tables: []*tableRef{{alias: "columns"}}}
		if err := r.exprs(outer.Where, sc, nil); err != nil {
			return nil, err
		}
		out = outer
	}
	r.replacement = out
	return &rewriter.Result{Kind: rewriter.KindSelect}, nil
}

// showCreate lets SHOW CREATE TABLE/VIEW through when the caller may read
// the table and its policy neither filters rows (the text names the next
// AUTO_INCREMENT value, a count of the rows) nor restricts columns.
func (r *rewrite) showCreate(s *sqlparser.ShowCreate) (*rewriter.Result, error) {
	t, err := r.resolve(s.Op)
	if err != nil {
		return nil, err
	}
	plan, err := r.plan(t, policy.Select)
	if err != nil {
		return nil, err
	}
	d := plan.Decision
	if len(d.RowFilters) > 0 || len(d.Restricted) > 0 {
		pol := ""
		if len(d.RowFilters) > 0 {
			pol = d.RowFilters[0].Policy
		} else {
			cols := make([]string, 0, len(d.Restricted))
			for c := range d.Restricted {
				cols = append(cols, c)
			}
			slices.Sort(cols)
			pol = d.Restricted[cols[0]]
		}
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Policy: pol,
			Detail: "SHOW CREATE of a table whose rows or columns a policy hides is not supported through sqe"}
	}
	s.Op = qualified(t)
	return &rewriter.Result{Kind: rewriter.KindSession}, nil
}

// showTableStatus turns SHOW TABLE STATUS [FROM db] [LIKE … | WHERE …]
// into the equivalent query of information_schema.TABLES. Its rows name
// every table of the database, as SHOW TABLES does; their statistics
// (tableStatistics: Rows, Data_length, Auto_increment, …, which count the
// rows a row filter hides) are shown only for the tables the caller reads
// under no policy at all, and read as NULL for every other table — one
// under a filter, a mask or a restriction, one the caller may not read,
// one created after the statement was rewritten. The server's own schemas
// that sqe refuses are refused here too.
func (r *rewrite) showTableStatus(in *sqlparser.ShowBasic) (*rewriter.Result, error) {
	schema := in.DbName.String()
	if schema == "" {
		schema = r.session.Database
	}
	if schema == "" {
		return nil, rewriter.Unsupported("SHOW TABLE STATUS with no current database")
	}
	if err := refusedSystemTable(policy.TableName{Schema: schema, Table: "tables"}); err != nil {
		return nil, err
	}
	open, err := r.UnpolicedTables(schema, true)
	if err != nil {
		return nil, err
	}
	stat := func(col string) string {
		if len(open) == 0 {
			return "null"
		}
		var b strings.Builder
		b.WriteString("case when (cast(TABLE_SCHEMA as binary), cast(TABLE_NAME as binary)) in (")
		for i, t := range open {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + sqlparser.String(sqlparser.NewStrLiteral(t.Schema)) + ", " + sqlparser.String(sqlparser.NewStrLiteral(t.Table)) + ")")
		}
		b.WriteString(") then " + col + " end")
		return b.String()
	}
	isStat := map[string]bool{}
	for _, c := range tableStatistics {
		isStat[c] = true
	}
	cols := [][2]string{
		{"TABLE_NAME", "Name"}, {"ENGINE", "Engine"}, {"VERSION", "Version"}, {"ROW_FORMAT", "Row_format"},
		{"TABLE_ROWS", "Rows"}, {"AVG_ROW_LENGTH", "Avg_row_length"}, {"DATA_LENGTH", "Data_length"},
		{"MAX_DATA_LENGTH", "Max_data_length"}, {"INDEX_LENGTH", "Index_length"}, {"DATA_FREE", "Data_free"},
		{"AUTO_INCREMENT", "Auto_increment"}, {"CREATE_TIME", "Create_time"}, {"UPDATE_TIME", "Update_time"},
		{"CHECK_TIME", "Check_time"}, {"TABLE_COLLATION", "Collation"}, {"CHECKSUM", "Checksum"},
		{"CREATE_OPTIONS", "Create_options"}, {"TABLE_COMMENT", "Comment"},
	}
	if r.session.MariaDB {
		cols = append(cols, [2]string{"MAX_INDEX_LENGTH", "Max_index_length"}, [2]string{"`TEMPORARY`", "Temporary"})
	}
	var b strings.Builder
	b.WriteString("select ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		expr := c[0]
		if isStat[c[0]] {
			expr = stat(c[0])
		}
		b.WriteString(expr + " as `" + c[1] + "`")
	}
	b.WriteString(" from information_schema.`TABLES` where TABLE_SCHEMA = :sqe_schema")
	like := ""
	var where sqlparser.Expr
	if in.Filter != nil {
		like, where = in.Filter.Like, in.Filter.Filter
	}
	if like != "" {
		b.WriteString(" and TABLE_NAME like :sqe_like")
	}
	b.WriteString(" order by TABLE_NAME")
	stmt, err := parse(b.String())
	if err != nil {
		return nil, rewriter.Unsupported("table status listing does not parse")
	}
	sel := stmt.(*sqlparser.Select)
	sqlparser.Rewrite(sel, func(c *sqlparser.Cursor) bool {
		if a, ok := c.Node().(*sqlparser.Argument); ok {
			switch a.Name {
			case "sqe_schema":
				c.Replace(sqlparser.NewStrLiteral(schema))
			case "sqe_like":
				c.Replace(sqlparser.NewStrLiteral(like))
			}
		}
		return true
	}, nil)
	for _, te := range sel.From {
		if ate, ok := te.(*sqlparser.AliasedTableExpr); ok {
			r.Sanction(ate)
		}
	}
	var out sqlparser.Statement = sel
	if where != nil {
		// WHERE of SHOW TABLE STATUS names the output columns (Name, …).
		outer := &sqlparser.Select{
			SelectExprs: &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.StarExpr{}}},
			From:        []sqlparser.TableExpr{&sqlparser.AliasedTableExpr{Expr: &sqlparser.DerivedTable{Select: sel}, As: sqlparser.NewIdentifierCS("status")}},
		}
		outer.Where = sqlparser.NewWhere(sqlparser.WhereClause, where)
		sc := &scope{tables: []*tableRef{{alias: "status"}}}
		if err := r.exprs(outer.Where, sc, nil); err != nil {
			return nil, err
		}
		out = outer
	}
	r.replacement = out
	return &rewriter.Result{Kind: rewriter.KindSelect}, nil
}
