package postgres

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

type protoMessage = proto.Message

// forbiddenFunctions read or write files, reach other servers or sessions,
// change the session's identity or settings, run SQL given as text (which
// sqe never sees), or read storage below the tables (large objects, raw
// pages, WAL, replication slots). They are refused anywhere in a
// statement, whatever schema qualifies them, even when the application
// allows them by name (every other function off the allow-list in
// functions.go can be allowed). forbiddenPrefixes covers families.
var forbiddenFunctions = map[string]string{
	"pg_read_file":                   "reads files on the server",
	"pg_read_binary_file":            "reads files on the server",
	"pg_stat_file":                   "reads file metadata on the server",
	"pg_file_write":                  "writes files on the server",
	"pg_file_rename":                 "renames files on the server",
	"pg_file_unlink":                 "deletes files on the server",
	"pg_file_sync":                   "touches files on the server",
	"pg_logdir_ls":                   "lists server directories",
	"loread":                         "reads large objects, which no policy covers",
	"lowrite":                        "writes large objects, which no policy covers",
	"set_config":                     "changes session settings (search_path, role) behind sqe",
	"pg_terminate_backend":           "ends other sessions",
	"pg_cancel_backend":              "cancels other sessions' statements",
	"pg_reload_conf":                 "reloads the server configuration",
	"pg_rotate_logfile":              "rotates server logs",
	"pg_promote":                     "promotes a standby",
	"pg_switch_wal":                  "forces a WAL switch",
	"pg_create_restore_point":        "creates a WAL restore point",
	"pg_import_system_collations":    "changes the system catalogs",
	"pg_log_backend_memory_contexts": "writes server logs",
	"query_to_xml":                   "runs SQL given as text",
	"query_to_xmlschema":             "runs SQL given as text",
	"query_to_xml_and_xmlschema":     "runs SQL given as text",
	"cursor_to_xml":                  "reads a cursor sqe did not declare",
	"cursor_to_xmlschema":            "reads a cursor sqe did not declare",
	"ts_stat":                        "runs SQL given as text",
	"ts_rewrite":                     "may run SQL given as text",
	"crosstab":                       "runs SQL given as text",
	"crosstab2":                      "runs SQL given as text",
	"crosstab3":                      "runs SQL given as text",
	"crosstab4":                      "runs SQL given as text",
	"connectby":                      "reads a table named by text",
	"get_raw_page":                   "reads raw table pages",
	"tuple_data_split":               "reads raw tuples",
	"page_header":                    "reads raw table pages",
	"fsm_page_contents":              "reads raw table pages",
	"pg_stat_statements_reset":       "resets server statistics",
}

var forbiddenPrefixes = []struct{ prefix, why string }{
	{"pg_ls_", "lists server directories"},
	{"pg_read_", "reads files on the server"},
	{"lo_", "reads or writes large objects, which no policy covers"},
	{"dblink", "connects to other databases"},
	{"pg_logical_", "reads or writes logical replication data"},
	{"pg_replication_", "manages replication"},
	{"pg_create_", "creates replication slots or server objects"},
	{"pg_drop_replication", "manages replication"},
	{"pg_copy_", "copies replication slots"},
	{"pg_backup_", "controls backups"},
	{"pg_start_backup", "controls backups"},
	{"pg_stop_backup", "controls backups"},
	{"pg_wal_replay_", "controls recovery"},
	{"pg_get_wal_", "reads WAL records"},
	{"pg_stat_", "reads server statistics (row counts, other sessions' statements) or resets them"},
	{"table_to_xml", "reads a table named by text"},
	{"schema_to_xml", "reads tables named by text"},
	{"database_to_xml", "reads every table"},
	{"heap_page_", "reads raw table pages"},
	{"bt_page_", "reads raw index pages"},
	{"bt_metap", "reads raw index pages"},
	{"brin_page_", "reads raw index pages"},
	{"gin_page_", "reads raw index pages"},
	{"gist_page_", "reads raw index pages"},
	{"hash_page_", "reads raw index pages"},
}

// forbidden returns why a function may not be called, if it may not.
func forbidden(name string) (string, bool) {
	name = strings.ToLower(name)
	if why, ok := forbiddenFunctions[name]; ok {
		return why, true
	}
	for _, p := range forbiddenPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.why, true
		}
	}
	return "", false
}

// contextFunctions are called with function-call syntax and resolved from
// the session: the value is the user name, or the primary role.
var contextFunctions = map[string]bool{
	"current_user": false, "session_user": false, "system_user": false,
	"current_role": true, "invoker_role": true,
}

// exprs rewrites the expressions under the fields of m (except skip) in
// place: subqueries are rewritten as queries of their own (in a child
// scope), context functions become literals, columns are checked against
// restrictions and, in a write, a masked column of the target is read
// masked.
func (r *rewrite) exprs(m protoMessage, sc *scope, skip ...string) error {
	return walkFields(m, r.visitor(sc), skip...)
}

// expr rewrites one expression in place.
func (r *rewrite) expr(n *pg.Node, sc *scope) error {
	if n == nil {
		return nil
	}
	return walk(n, r.visitor(sc))
}

func (r *rewrite) visitor(sc *scope) visitor {
	return func(m protoMessage, w *pg.Node) (bool, error) {
		switch e := m.(type) {
		case *pg.SelectStmt:
			if r.ddl {
				return false, rewriter.Unsupported("a subquery in a schema change is not supported")
			}
			return false, r.selectStmt(e, sc)
		case *pg.InsertStmt, *pg.UpdateStmt, *pg.DeleteStmt, *pg.MergeStmt:
			return false, rewriter.Unsupported("a data-modifying statement in an unexpected place")
		case *pg.RangeVar:
			return false, rewriter.Unsupported("a table reference in an unexpected place")
		case *pg.RangeSubselect, *pg.JoinExpr, *pg.RangeFunction, *pg.RangeTableFunc, *pg.RangeTableSample,
			*pg.JsonTable, *pg.WithClause, *pg.CommonTableExpr, *pg.IntoClause, *pg.LockingClause:
			return false, rewriter.Unsupported("%s in an unexpected place", m.ProtoReflect().Descriptor().Name())
		case *pg.ColumnRef:
			return false, r.column(w, e, sc)
		case *pg.SQLValueFunction:
			return false, r.valueFunction(w, e)
		case *pg.FuncCall:
			if name, schema := funcName(e); schema == "" && isSessionRoleFunction(name) {
				return false, r.sessionRoleFunction(w, e, strings.ToLower(name), sc)
			}
			return r.funcCall(w, e, sc)
		case *pg.TypeName:
			if sc.policy || r.ddl {
				return false, nil
			}
			return false, r.checkType(e)
		case *pg.A_Expr:
			// BETWEEN's name is the keyword; the others name an operator.
			if !sc.policy && e.Kind < pg.A_Expr_Kind_AEXPR_BETWEEN {
				if err := r.checkOperator(e.Name); err != nil {
					return false, err
				}
			}
		case *pg.SubLink:
			if !sc.policy {
				if err := r.checkOperator(e.OperName); err != nil {
					return false, err
				}
			}
		case *pg.SortBy:
			if !sc.policy {
				if err := r.checkOperator(e.UseOp); err != nil {
					return false, err
				}
			}
		case *pg.ResTarget:
			return false, r.resTarget(e, sc)
		case *pg.CurrentOfExpr:
			return false, r.cursorName(&e.CursorName)
		}
		return true, nil
	}
}

// resTarget rewrites one output column. A column whose expression is
// replaced (a masked column, an inlined context function) keeps the name
// the server would have given it.
func (r *rewrite) resTarget(rt *pg.ResTarget, sc *scope) error {
	for _, ind := range rt.Indirection {
		if err := r.expr(ind, sc); err != nil {
			return err
		}
	}
	if rt.Val == nil {
		return nil
	}
	def := defaultName(rt.Val)
	orig := rt.Val.Node
	if err := r.expr(rt.Val, sc); err != nil {
		return err
	}
	if rt.Name == "" && def != "" && rt.Val.Node != orig {
		rt.Name = def
	}
	return nil
}

// defaultName is the output name the server gives an unnamed expression
// that sqe may replace.
func defaultName(n *pg.Node) string {
	switch e := n.Node.(type) {
	case *pg.Node_ColumnRef:
		names, star, ok := colFields(e.ColumnRef)
		if ok && !star && len(names) > 0 {
			return names[len(names)-1]
		}
	case *pg.Node_SqlvalueFunction:
		switch e.SqlvalueFunction.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER:
			return "current_user"
		case pg.SQLValueFunctionOp_SVFOP_USER:
			return "user"
		case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "session_user"
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "current_role"
		}
	case *pg.Node_FuncCall:
		if name, _ := funcName(e.FuncCall); name != "" {
			return name
		}
	}
	return ""
}

// funcName returns a function's name and schema ("" when unqualified).
func funcName(fc *pg.FuncCall) (name, schema string) {
	parts := make([]string, 0, len(fc.Funcname))
	for _, n := range fc.Funcname {
		s := n.GetString_()
		if s == nil {
			return "", ""
		}
		parts = append(parts, s.Sval)
	}
	switch len(parts) {
	case 1:
		return parts[0], ""
	case 2:
		return parts[1], parts[0]
	case 0:
		return "", ""
	}
	return parts[len(parts)-1], strings.Join(parts[:len(parts)-1], ".")
}

func (r *rewrite) funcCall(w *pg.Node, fc *pg.FuncCall, sc *scope) (bool, error) {
	name, schema := funcName(fc)
	if name == "" {
		return false, rewriter.Unsupported("unexpected function name")
	}
	if why, bad := forbidden(name); bad {
		return false, rewriter.Unsupported("function %s is not allowed through sqe: it %s", name, why)
	}
	role, isContext := contextFunctions[strings.ToLower(name)]
	if isContext && (schema == "" || schema == "pg_catalog") && len(fc.Args) == 0 && !fc.AggStar &&
		fc.Over == nil && fc.AggFilter == nil && len(fc.AggOrder) == 0 {
		if err := r.inline(w, role); err != nil {
			return false, err
		}
		return false, nil
	}
	if !sc.policy {
		if err := r.checkFunction(schema, name); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (r *rewrite) valueFunction(w *pg.Node, f *pg.SQLValueFunction) error {
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return r.inline(w, false)
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return r.inline(w, true)
	}
	return nil
}

// inline replaces a context function by the session's value: the user
// name, or the primary role (NULL when the session has none).
func (r *rewrite) inline(w *pg.Node, role bool) error {
	if r.ddl {
		return rewriter.Unsupported("a context function in a schema change is not supported: the server would evaluate it later, as its own user")
	}
	if w == nil {
		return rewriter.Unsupported("a context function in an unexpected place")
	}
	v := r.Req.User.Name
	if role {
		v = r.Req.User.PrimaryRole
		if v == "" {
			w.Node = &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}
			return nil
		}
	}
	c, err := stringConst(v)
	if err != nil {
		return err
	}
	w.Node = c.Node
	return nil
}

// stringConst is a string literal node; the deparser quotes it (and spells
// it E'…' when it holds a backslash, so that it reads the same whatever
// standard_conforming_strings is).
func stringConst(v string) (*pg.Node, error) {
	if strings.IndexByte(v, 0) >= 0 {
		return nil, rewriter.Unsupported("a session value with a NUL byte")
	}
	return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: v}}}}}, nil
}

// colFields splits a column reference into its names; star is set when it
// ends in *.
func colFields(c *pg.ColumnRef) (names []string, star bool, ok bool) {
	for i, f := range c.Fields {
		switch v := f.Node.(type) {
		case *pg.Node_String_:
			names = append(names, v.String_.Sval)
		case *pg.Node_AStar:
			if i != len(c.Fields)-1 {
				return nil, false, false
			}
			star = true
		default:
			return nil, false, false
		}
	}
	return names, star, len(c.Fields) > 0
}

func isStar(c *pg.ColumnRef) bool {
	_, star, _ := colFields(c)
	return star
}

func setFields(c *pg.ColumnRef, names []string, star bool) {
	fields := make([]*pg.Node, 0, len(names)+1)
	for _, n := range names {
		fields = append(fields, &pg.Node{Node: &pg.Node_String_{String_: &pg.String{Sval: n}}})
	}
	if star {
		fields = append(fields, &pg.Node{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}})
	}
	c.Fields = fields
}

// lookup finds the entry a qualifier names, innermost scope first: a name
// is an alias (or an unaliased table's name); schema and name are an
// unaliased table of that schema.
func lookup(sc *scope, schema, name string) *tableRef {
	for s := sc; s != nil; s = s.parent {
		for _, t := range s.tables {
			if t.alias != name {
				continue
			}
			if schema != "" && (t.aliased || t.plan == nil || t.table.Schema != schema) {
				continue
			}
			return t
		}
	}
	return nil
}

// findTarget returns the nearest write target in scope and how many query
// levels up it is.
func (s *scope) findTarget() (*tableRef, int) {
	depth := 0
	for sc := s; sc != nil; sc = sc.parent {
		if sc.target != nil {
			return sc.target, depth
		}
		depth++
	}
	return nil, 0
}

func columnDenied(t *tableRef, col string) error {
	if t.plan == nil {
		return nil
	}
	if pol, restricted := t.plan.RestrictedBy(col); restricted {
		return &rewriter.Error{Kind: policy.ErrColumnDenied, Table: t.table.String(), Column: col, Policy: pol}
	}
	return nil
}

// checkColumnName refuses an unqualified name that is a restricted column
// of any table in scope.
func (r *rewrite) checkColumnName(name string, sc *scope) error {
	if sc.policy {
		return nil
	}
	for s := sc; s != nil; s = s.parent {
		for _, t := range s.tables {
			if err := columnDenied(t, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// column checks one column reference of the application's SQL and
// rewrites it: schema.table.column of a derived table loses the schema; a
// masked column of a write's target is replaced by its mask expression.
func (r *rewrite) column(w *pg.Node, c *pg.ColumnRef, sc *scope) error {
	names, star, ok := colFields(c)
	if !ok {
		return rewriter.Unsupported("unexpected column reference")
	}
	if n := len(names); n == 4 || (star && n == 3) {
		// database.schema.table.column (or .*): the server reads the
		// first name as a database, which must be the connection's.
		if err := r.sameDatabase(names[0], strings.Join(names, ".")); err != nil {
			return err
		}
		names = names[1:]
		setFields(c, names, star)
	}
	if n := len(names); n > 3 || (star && n > 2) {
		return rewriter.Unsupported("column references with more than four names are not supported")
	}
	if sc.policy {
		return r.policyColumn(c, names, star, sc)
	}
	if r.ddl {
		return nil
	}
	target, _ := sc.findTarget()
	guarded := target != nil && !target.plan.Passthrough()
	if star {
		if len(names) == 0 {
			return nil
		}
		owner := lookupQualifier(sc, names)
		if owner == nil {
			// (composite).* : the composite is a column.
			return r.unqualified(w, names[len(names)-1], sc, true)
		}
		if owner.write && !owner.plan.Passthrough() {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: owner.table.String(),
				Detail: "a whole-row reference to the written table is not supported (name the columns)"}
		}
		if len(names) == 2 {
			return r.stripSchema(c, names, star, owner, sc)
		}
		return nil
	}
	switch len(names) {
	case 1:
		if guarded && names[0] == target.alias && !hasColumn(target.plan.All, names[0]) {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(),
				Detail: "a whole-row reference to the written table is not supported (name the columns)"}
		}
		return r.unqualified(w, names[0], sc, false)
	case 2:
		if owner := lookup(sc, "", names[0]); owner != nil {
			return r.qualified(w, owner, names[1])
		}
		// column.field of a composite column.
		return r.unqualified(w, names[0], sc, true)
	default:
		if owner := lookup(sc, names[0], names[1]); owner != nil {
			if err := r.stripSchema(c, names, star, owner, sc); err != nil {
				return err
			}
			return r.qualified(w, owner, names[2])
		}
		if owner := lookup(sc, "", names[0]); owner != nil {
			// table.column.field of a composite column.
			if err := columnDenied(owner, names[1]); err != nil {
				return err
			}
			return noMaskedField(owner, names[1])
		}
		return nil
	}
}

// lookupQualifier finds the entry a star's qualifier names.
func lookupQualifier(sc *scope, q []string) *tableRef {
	switch len(q) {
	case 1:
		return lookup(sc, "", q[0])
	case 2:
		return lookup(sc, q[0], q[1])
	}
	return nil
}

// stripSchema rewrites schema.table.column into table.column when the
// table became a derived table, which has no schema; the bare table name
// must then still name the same entry.
func (r *rewrite) stripSchema(c *pg.ColumnRef, names []string, star bool, owner *tableRef, sc *scope) error {
	if !owner.derived {
		return nil
	}
	if lookup(sc, "", names[1]) != owner {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: owner.table.String(),
			Detail: "a schema-qualified column of a table another table of the same name hides: use aliases"}
	}
	setFields(c, names[1:], star)
	return nil
}

// unqualified checks a column named without a table. field is set when
// the name is a composite column whose field (or *) is selected.
func (r *rewrite) unqualified(w *pg.Node, name string, sc *scope, field bool) error {
	if err := r.checkColumnName(name, sc); err != nil {
		return err
	}
	target, depth := sc.findTarget()
	if target == nil || target.plan.Passthrough() {
		return nil
	}
	if _, masked := target.plan.Mask(name); !masked || !hasColumn(target.plan.All, name) {
		return nil
	}
	if field {
		return noMaskedField(target, name)
	}
	if depth > 0 {
		// An unqualified name inside a subquery of the write may belong to
		// a table of the subquery or to the target; sqe cannot tell.
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(), Column: name,
			Detail: "qualify a masked column of the written table inside a subquery"}
	}
	return r.maskColumn(w, target, name)
}

// qualified checks owner.name. PostgreSQL reads owner.name that is no
// column of owner as name(owner), a function of the whole row (c.to_json
// is to_json(c)): on a table under policy that is refused, since on a
// write target it reads the raw row, and elsewhere it is a row-wide
// expression the fence rule does not see.
func (r *rewrite) qualified(w *pg.Node, owner *tableRef, name string) error {
	if err := columnDenied(owner, name); err != nil {
		return err
	}
	if owner.plan != nil && !owner.plan.Passthrough() && !hasColumn(owner.plan.All, name) {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: owner.table.String(), Column: name,
			Detail: "is not a column of the table: PostgreSQL would apply a function of that name to the whole row; call it with the columns it needs"}
	}
	if !owner.write || owner.plan.Passthrough() {
		return nil
	}
	if _, masked := owner.plan.Mask(name); !masked {
		return nil
	}
	return r.maskColumn(w, owner, name)
}

// noMaskedField refuses column.field of a masked column of a write target.
func noMaskedField(owner *tableRef, name string) error {
	if !owner.write || owner.plan.Passthrough() {
		return nil
	}
	if _, masked := owner.plan.Mask(name); masked {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: owner.table.String(), Column: name,
			Detail: "a field of a masked column of the written table is not supported"}
	}
	return nil
}

// maskColumn replaces a reference to a masked column of a write's target
// by the mask expression over the raw column, so that a write reads the
// value the caller may see.
func (r *rewrite) maskColumn(w *pg.Node, target *tableRef, name string) error {
	col, ok := target.plan.Column(name)
	if !ok {
		return nil
	}
	if w == nil {
		return rewriter.Unsupported("a masked column in an unexpected place")
	}
	e, err := r.maskExpr(target, col)
	if err != nil {
		return err
	}
	w.Node = e.Node
	return nil
}

// maskExpr is the parsed mask expression of a target's column, with its
// policy expressions rewritten.
func (r *rewrite) maskExpr(target *tableRef, col rewriter.Column) (*pg.Node, error) {
	ref := quoteQualified(append(append([]string{}, target.qualifier...), col.Name))
	text, masked, err := target.plan.MaskExpr(r.syntax, col, ref)
	if err != nil {
		return nil, err
	}
	if !masked {
		return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: columnRef(append(append([]string{}, target.qualifier...), col.Name))}}, nil
	}
	e, err := parseExpr(text)
	if err != nil {
		m, _ := target.plan.Mask(col.Name)
		return nil, &rewriter.Error{Kind: policy.ErrPolicy, Table: target.table.String(), Column: col.Name, Policy: m.Policy,
			Detail: "mask expression is not a single SQL expression"}
	}
	holder := &pg.ResTarget{Val: e}
	if err := r.policyExprs(policyBase(target), holder); err != nil {
		return nil, err
	}
	return holder.Val, nil
}

// policyBase is the base entry of a write target's policy expressions:
// found by the table's name, referenced by the target's name.
func policyBase(target *tableRef) *tableRef {
	return &tableRef{alias: target.table.Table, table: target.table, plan: target.plan, qualifier: target.qualifier}
}

func quoteQualified(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = Syntax.QuoteIdent(n)
	}
	return strings.Join(parts, ".")
}

func columnRef(names []string) *pg.ColumnRef {
	c := &pg.ColumnRef{}
	setFields(c, names, false)
	return c
}

// policyColumn places a column reference of a policy expression: at the
// top level an unqualified column is the policy's table's and is
// qualified; a reference to the policy's table by its name is rewritten
// to the name it has where the expression is placed. A reference that no
// table of the policy expression provides is refused: on the server it
// could resolve to a table of the application's statement.
func (r *rewrite) policyColumn(c *pg.ColumnRef, names []string, star bool, sc *scope) error {
	root := sc
	for root != nil && root.base == nil {
		root = root.parent
	}
	if root == nil {
		return rewriter.Unsupported("policy expression outside its scope")
	}
	base := root.base
	unknown := unknownPolicyColumn(base)
	if star && len(names) == 0 {
		return nil
	}
	if !star && len(names) == 1 {
		if sc == root {
			cols, known := r.columnsOf(base)
			if !known || !hasColumn(cols, names[0]) {
				return unknown
			}
			setFields(c, append(append([]string{}, base.qualifier...), names[0]), false)
			return nil
		}
		if r.resolvable(names[0], sc) {
			return nil
		}
		return unknown
	}
	qual := names
	if !star {
		qual = names[:len(names)-1]
	}
	var owner *tableRef
	var rest []string
	if slices.Equal(qual, base.qualifier) {
		owner, rest = base, names[len(qual):]
	} else if len(qual) == 2 {
		owner = lookup(sc, qual[0], qual[1])
		rest = names[2:]
	}
	if owner == nil && len(qual) > 0 {
		owner = lookup(sc, "", qual[0])
		rest = names[1:]
	}
	if owner == nil {
		if sc != root && r.resolvable(qual[0], sc) {
			return nil // column.field
		}
		return unknown
	}
	if owner == base {
		setFields(c, append(append([]string{}, base.qualifier...), rest...), star)
		return nil
	}
	if owner.derived && len(names)-len(rest) == 2 {
		if lookup(sc, "", qual[1]) != owner {
			return unknown
		}
		setFields(c, names[1:], star)
	}
	return nil
}

// resolvable reports whether an unqualified name inside a policy
// expression's subquery names a column (or an entry) of a table the policy
// expression itself reads.
func (r *rewrite) resolvable(name string, sc *scope) bool {
	for s := sc; s != nil; s = s.parent {
		for _, t := range s.tables {
			if t.alias == name {
				return true
			}
			cols, known := r.columnsOf(t)
			if !known || hasColumn(cols, name) {
				return true
			}
		}
		if s.base != nil {
			break
		}
	}
	return false
}

// isSessionRoleFunction names the Snowflake role functions that are
// resolved from the session (see rewriter.ContextFunctions).
func isSessionRoleFunction(name string) bool {
	switch strings.ToLower(name) {
	case "current_available_roles", "current_secondary_roles", "is_role_in_session",
		"is_group_in_session", "session_attribute":
		return true
	}
	return false
}

// sessionRoleFunction inlines current_available_roles(),
// current_secondary_roles(), session_attribute('k'), and
// is_role_in_session(x) and is_group_in_session(x): a constant argument
// becomes true or false, any other x IN (<the session's roles or groups>).
func (r *rewrite) sessionRoleFunction(w *pg.Node, fc *pg.FuncCall, name string, sc *scope) error {
	if r.ddl {
		return rewriter.Unsupported("a context function in a schema change is not supported")
	}
	if w == nil || fc.AggStar || fc.Over != nil || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return rewriter.Unsupported("%s in an unexpected form", name)
	}
	if name == "session_attribute" {
		if len(fc.Args) != 1 {
			return rewriter.Unsupported("session_attribute takes one argument")
		}
		c := fc.Args[0].GetAConst()
		if c == nil || c.GetSval() == nil {
			return rewriter.Unsupported("session_attribute takes a constant attribute name")
		}
		v, null := rewriter.SessionAttribute(r.Req, c.GetSval().Sval)
		if null {
			w.Node = &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}
			return nil
		}
		n, err := stringConst(v)
		if err != nil {
			return err
		}
		w.Node = n.Node
		return nil
	}
	roles, membership := rewriter.InSessionValues(r.Req, name)
	if !membership {
		if len(fc.Args) != 0 {
			return rewriter.Unsupported("%s takes no argument", name)
		}
		v, _ := rewriter.ContextValue(r.Req, name)
		c, err := stringConst(v)
		if err != nil {
			return err
		}
		w.Node = c.Node
		return nil
	}
	if len(fc.Args) != 1 {
		return rewriter.Unsupported("%s takes one argument", name)
	}
	arg := fc.Args[0]
	if c := arg.GetAConst(); c != nil && c.GetSval() != nil {
		w.Node = boolConst(slices.Contains(roles, c.GetSval().Sval))
		return nil
	}
	if err := r.expr(arg, sc); err != nil {
		return err
	}
	if len(roles) == 0 {
		w.Node = boolConst(false)
		return nil
	}
	items := make([]*pg.Node, len(roles))
	for i, role := range roles {
		c, err := stringConst(role)
		if err != nil {
			return err
		}
		items[i] = c
	}
	w.Node = &pg.Node_AExpr{AExpr: &pg.A_Expr{
		Kind:  pg.A_Expr_Kind_AEXPR_IN,
		Name:  []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: "="}}}},
		Lexpr: arg,
		Rexpr: &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}},
	}}
	return nil
}

func boolConst(b bool) *pg.Node_AConst {
	return &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: b}}}}
}
