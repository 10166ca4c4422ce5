package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// rewrite is the state of rewriting one statement: the core's state
// (rewriter.Statement, over pg_query's relation references) and
// PostgreSQL's own.
type rewrite struct {
	rewriter.Statement[*pg.RangeVar]
	// nondeterministic names the columns of filtered tables whose
	// collation is nondeterministic (see refuseLikeOnNondeterministic).
	nondeterministic map[string]bool
	// columns caches catalog lookups of tables read as they are.
	columns map[string][]rewriter.Column
	// ddl is set while walking the expressions of a schema change, which
	// the server evaluates later and as its own user.
	ddl bool
	// creating is the table a CREATE TABLE makes, while its clauses are
	// walked: a foreign key of the table to itself names it before it
	// exists.
	creating *policy.TableName
	// cursorPrefix names the caller's cursors.
	cursorPrefix string
	// path is the connection's search path (req.Session).
	path []string
	// fallible are the positions of the WHERE conjuncts that can fail of a
	// read of inner-joined tables that is otherwise mergeable
	// (guardableConditions); guards are the filters of its tables over
	// their read forms' columns, by alias (in guardOrder, FROM order), for
	// the tables guarded rather than fenced.
	fallible   []int
	guards     map[string]*pg.Node
	guardOrder []string
	// guardTargets are that read's table references: each guarded, or
	// fenced.
	guardTargets []*pg.RangeVar
	// database is the connection's database (req.Session).
	database string
	// syntax is the Syntax of the statement's connection.
	syntax rewriter.Syntax
	// fencedListings are the fenced derived tables of column listings
	// (listingconds.go), by their select.
	fencedListings map[*pg.SelectStmt]*tableRef
	// temps are the temporary tables the earlier statements of the
	// string create, drop or change (shared by the string's statements).
	temps *stringTables
	// readForms are the tables' read forms the rewrite placed (see
	// derivedTable), whose targets print splices (splice.go).
	readForms []placedForm
}

// newRewrite starts the rewrite of one statement of req's string; temps
// are the temporary tables the string's earlier statements leave (nil for
// a statement rewritten on its own).
func newRewrite(ctx context.Context, req *rewriter.Request, temps *stringTables) *rewrite {
	sess, _ := req.Session.(Session) // rewriteAll refused another dialect's
	if temps == nil {
		temps = &stringTables{}
	}
	req = temps.request(req)
	r := &rewrite{path: sess.SearchPath(), database: sess.Database, columns: map[string][]rewriter.Column{},
		syntax: syntax{rewriter.SyntaxBase{Named: sess.NamedClasses, Server: sess.ServerMasks}}, temps: temps}
	r.Statement = rewriter.NewStatement[*pg.RangeVar](ctx, req, systemTables{r})
	return r
}

// tableRef is a FROM entry (or a write's target) as the expressions of its
// scope see it.
type tableRef struct {
	alias   string // the name the statement uses for it (alias, else table name)
	aliased bool   // written with an alias: schema.table.column cannot name it
	table   policy.TableName
	plan    *rewriter.TablePlan // nil for CTE, subquery and function entries
	derived bool                // replaced by the policy's derived table
	write   bool                // the target of a write: read raw, so masks apply
	// qualifier is how a raw column of a write target (or of the base of
	// policy expressions) is referenced.
	qualifier []string
}

// scope is one level of name visibility: the CTEs defined at this level
// and the FROM entries of one query (or the target of a write).
type scope struct {
	parent *scope
	ctes   map[string]bool
	tables []*tableRef
	// policy marks the expressions of a policy (filters, masks): they read
	// raw columns and see no CTE or table of the application's statement.
	policy bool
	// target is the write target whose masked columns are read masked.
	target *tableRef
	// base is set on the top level of a policy's expressions: the table
	// the policy belongs to. Unqualified columns there are its columns and
	// are qualified, so that no table of the application's statement can
	// capture them.
	base *tableRef
}

func (s *scope) child() *scope { return &scope{parent: s, policy: s.policy} }

func (s *scope) isCTE(name string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		if sc.ctes[name] {
			return true
		}
	}
	return false
}

// plan asks for the table's decision and checks the access.
func (r *rewrite) plan(t policy.TableName, access policy.Access) (*rewriter.TablePlan, error) {
	p, err := r.Plan(t, access)
	if err == nil && len(p.Decision.RowFilters) > 0 {
		for _, c := range p.All {
			if c.Nondeterministic {
				if r.nondeterministic == nil {
					r.nondeterministic = map[string]bool{}
				}
				r.nondeterministic[c.Name] = true
			}
		}
	}
	return p, err
}

// searchPath is the path unqualified relation names resolve in, as the
// server searches it: the session's temporary schema and pg_catalog come
// first unless the path names them.
func (r *rewrite) searchPath() []string {
	var temp, catalog bool
	for _, s := range r.path {
		switch {
		case s == "pg_temp" || strings.HasPrefix(s, "pg_temp_"):
			temp = true
		case s == "pg_catalog":
			catalog = true
		}
	}
	var path []string
	if !temp {
		path = append(path, "pg_temp")
	}
	if !catalog {
		path = append(path, "pg_catalog")
	}
	return append(path, r.path...)
}

// lookupTable reports whether the catalog has the table.
func (r *rewrite) lookupTable(t policy.TableName) (bool, error) {
	if r.Req.Catalog == nil {
		return false, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.Table, Detail: "no catalog to resolve an unqualified table name"}
	}
	cols, found, err := r.Req.Catalog.Columns(r.Ctx, t)
	if err != nil {
		return false, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "reading table metadata failed: " + err.Error()}
	}
	if found {
		r.columns[t.Key()] = cols
	}
	return found, nil
}

// resolve turns a relation name into the table it names on the server: a
// qualified name as written, an unqualified one in the first schema of the
// search path that has it. missingOK resolves a table that does not exist
// in the first schema of the path (DROP … IF EXISTS).
func (r *rewrite) resolve(rv *pg.RangeVar, missingOK bool) (policy.TableName, error) {
	return r.resolveIn(rv, r.searchPath(), missingOK)
}

// policyPath is where an unqualified table name in a policy expression
// resolves: pg_catalog, then the schema of the policy's own table — never
// the session's search path or temporary schema, which the application
// controls (it could otherwise put a table of its own in front of a
// mapping table).
func policyPath(sc *scope) []string {
	for s := sc; s != nil; s = s.parent {
		if s.base != nil {
			return []string{"pg_catalog", s.base.table.Schema}
		}
	}
	return nil
}

func (r *rewrite) resolveIn(rv *pg.RangeVar, path []string, missingOK bool) (policy.TableName, error) {
	if err := r.catalogName(rv); err != nil {
		return policy.TableName{}, err
	}
	if rv.Relname == "" {
		return policy.TableName{}, rewriter.Unsupported("table reference without a name")
	}
	if rv.Schemaname != "" {
		return policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}, nil
	}
	for _, s := range path {
		t := policy.TableName{Schema: s, Table: rv.Relname}
		if r.creating != nil && *r.creating == t {
			return t, nil
		}
		known, found, err := r.resolveString(s, rv.Relname)
		if err != nil {
			return policy.TableName{}, err
		}
		if known {
			if found {
				return t, nil
			}
			continue
		}
		found, err = r.lookupTable(t)
		if err != nil {
			return policy.TableName{}, err
		}
		if found {
			return t, nil
		}
	}
	if missingOK && len(r.path) > 0 {
		return policy.TableName{Schema: r.path[0], Table: rv.Relname}, nil
	}
	return policy.TableName{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rv.Relname,
		Detail: fmt.Sprintf("table not found in %v", path), NotFound: true}
}

// catalogName removes the database of a three-part name db.schema.table
// that names the connection's own database, which the server reads as
// schema.table. Another database's name is refused as the server refuses
// it (cross-database references are not implemented); so is every
// three-part name when the connection's database is unknown.
func (r *rewrite) catalogName(rv *pg.RangeVar) error {
	if rv.Catalogname == "" {
		return nil
	}
	name := rv.Catalogname + "." + rv.Schemaname + "." + rv.Relname
	if err := r.sameDatabase(rv.Catalogname, name); err != nil {
		return err
	}
	rv.Catalogname = ""
	return nil
}

// sameDatabase refuses db, the database part of the three-part name
// name, unless it is the connection's database.
func (r *rewrite) sameDatabase(db, name string) error {
	if r.database == "" {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: name,
			Detail: "a database-qualified name needs the connection's database, which sqe does not know here"}
	}
	if db != r.database {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: name, Unimplemented: true,
			Detail: "cross-database references are not implemented"}
	}
	return nil
}

// creationName is the table a CREATE makes: a qualified name as written, a
// temporary one in pg_temp, an unqualified one in the first schema of the
// search path (where the server creates it).
func (r *rewrite) creationName(rv *pg.RangeVar) (policy.TableName, error) {
	if err := r.catalogName(rv); err != nil {
		return policy.TableName{}, err
	}
	if rv.Schemaname != "" {
		return policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}, nil
	}
	if rv.Relpersistence == "t" {
		return policy.TableName{Schema: "pg_temp", Table: rv.Relname}, nil
	}
	if len(r.path) == 0 {
		return policy.TableName{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rv.Relname, Detail: "no schema in search_path to create the table in"}
	}
	return policy.TableName{Schema: r.path[0], Table: rv.Relname}, nil
}

// columnsOf returns the columns of a table, when the catalog knows them.
func (r *rewrite) columnsOf(t *tableRef) ([]rewriter.Column, bool) {
	if t.plan == nil {
		return nil, false
	}
	if t.plan.All != nil {
		return t.plan.All, true
	}
	if cols, ok := r.columns[t.table.Key()]; ok {
		return cols, true
	}
	if r.Req.Catalog == nil {
		return nil, false
	}
	cols, found, err := r.Req.Catalog.Columns(r.Ctx, t.table)
	if err != nil || !found {
		return nil, false
	}
	r.columns[t.table.Key()] = cols
	return cols, true
}

func hasColumn(cols []rewriter.Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// systemSchema reports the schemas whose relations sqe never writes.
func systemSchema(s string) bool {
	switch s {
	case "pg_catalog", "information_schema", "pg_toast":
		return true
	}
	return false
}

// query rewrites a query found in a FROM item, a CTE, a subquery or a
// statement that embeds one.
func (r *rewrite) query(n *pg.Node, outer *scope) error {
	sel := n.GetSelectStmt()
	if sel == nil {
		return rewriter.Unsupported("%s where a query is expected is not supported", nodeName(n))
	}
	return r.selectStmt(sel, outer)
}

// selectStmt rewrites a SELECT, VALUES or set operation in place.
func (r *rewrite) selectStmt(s *pg.SelectStmt, outer *scope) error {
	if s == nil {
		return rewriter.Unsupported("missing query")
	}
	if s.IntoClause != nil {
		return rewriter.Unsupported("SELECT … INTO is not supported (use CREATE TABLE … AS)")
	}
	sc := outer.child()
	if err := r.with(s.WithClause, sc); err != nil {
		return err
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		if s.Larg == nil || s.Rarg == nil {
			return rewriter.Unsupported("set operation without both branches")
		}
		if err := r.selectStmt(s.Larg, sc); err != nil {
			return err
		}
		if err := r.selectStmt(s.Rarg, sc); err != nil {
			return err
		}
		if len(s.FromClause) > 0 || len(s.TargetList) > 0 {
			return rewriter.Unsupported("set operation with a FROM clause")
		}
		if err := r.locking(s, r.ReadCount()); err != nil {
			return err
		}
		return r.exprs(s, sc, "with_clause", "larg", "rarg", "locking_clause")
	}
	start := r.ReadCount()
	for _, item := range s.FromClause {
		if err := r.fromItem(item, sc); err != nil {
			return err
		}
	}
	if err := checkAliases(sc); err != nil {
		return err
	}
	r.copyListingConditions(s)
	if err := r.locking(s, start); err != nil {
		return err
	}
	// Everything but FROM and WITH: select list, WHERE, GROUP BY, HAVING,
	// windows, VALUES, ORDER BY, LIMIT.
	return r.exprs(s, sc, "with_clause", "from_clause", "locking_clause", "larg", "rarg", "into_clause")
}

// locking handles FOR UPDATE/SHARE: the tables it locks need update
// access (as the server requires), and OF names entries of this query.
func (r *rewrite) locking(s *pg.SelectStmt, start int) error {
	if len(s.LockingClause) == 0 {
		return nil
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		return rewriter.Unsupported("FOR UPDATE/SHARE on a set operation")
	}
	for _, n := range s.LockingClause {
		lc := n.GetLockingClause()
		if lc == nil {
			return rewriter.Unsupported("unexpected locking clause")
		}
		for _, ln := range lc.LockedRels {
			rv := ln.GetRangeVar()
			if rv == nil || rv.Schemaname != "" || rv.Catalogname != "" {
				return rewriter.Unsupported("FOR UPDATE OF must name tables of the query without a schema")
			}
			r.Sanction(rv)
		}
	}
	return r.LockReads(start)
}

// checkAliases refuses two unaliased references to same-named tables of
// different schemas when one becomes a derived table: both would be
// named by the bare table name.
func checkAliases(sc *scope) error {
	seen := map[string]*tableRef{}
	for _, t := range sc.tables {
		prev, ok := seen[t.alias]
		if ok && !t.aliased && !prev.aliased && (t.derived || prev.derived) {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.table.String(),
				Detail: fmt.Sprintf("tables %s and %s are both named %s: use aliases", prev.table, t.table, t.alias)}
		}
		if !ok {
			seen[t.alias] = t
		}
	}
	return nil
}

// with rewrites the CTE bodies of a WITH clause and makes the names
// visible in sc: a CTE sees the ones before it, and under RECURSIVE all
// of them, itself included.
func (r *rewrite) with(w *pg.WithClause, sc *scope) error {
	if w == nil {
		return nil
	}
	if sc.ctes == nil {
		sc.ctes = map[string]bool{}
	}
	if w.Recursive {
		for _, n := range w.Ctes {
			if cte := n.GetCommonTableExpr(); cte != nil {
				sc.ctes[cte.Ctename] = true
			}
		}
	}
	for _, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		if cte == nil || cte.Ctequery == nil {
			return rewriter.Unsupported("unexpected WITH entry")
		}
		var err error
		switch q := cte.Ctequery.Node.(type) {
		case *pg.Node_SelectStmt:
			err = r.selectStmt(q.SelectStmt, sc)
		case *pg.Node_InsertStmt:
			err = r.insert(q.InsertStmt, sc)
		case *pg.Node_UpdateStmt:
			err = r.update(q.UpdateStmt, sc)
		case *pg.Node_DeleteStmt:
			err = r.delete(q.DeleteStmt, sc)
		case *pg.Node_MergeStmt:
			err = r.merge(q.MergeStmt, sc)
		default:
			err = rewriter.Unsupported("%s in WITH is not supported", nodeName(cte.Ctequery))
		}
		if err != nil {
			return err
		}
		sc.ctes[cte.Ctename] = true
	}
	return nil
}

func aliasName(a *pg.Alias, def string) string {
	if a != nil && a.Aliasname != "" {
		return a.Aliasname
	}
	return def
}

// fromItem rewrites one FROM entry in place and registers it in the scope.
// Entries to its left are already in the scope, which is what LATERAL
// sees.
func (r *rewrite) fromItem(n *pg.Node, sc *scope) error {
	if n == nil {
		return rewriter.Unsupported("empty FROM entry")
	}
	switch t := n.Node.(type) {
	case *pg.Node_RangeVar:
		return r.tableRef(n, t.RangeVar, sc)
	case *pg.Node_JoinExpr:
		j := t.JoinExpr
		if err := r.fromItem(j.Larg, sc); err != nil {
			return err
		}
		if err := r.fromItem(j.Rarg, sc); err != nil {
			return err
		}
		if j.Quals != nil {
			if err := r.expr(j.Quals, sc); err != nil {
				return err
			}
		}
		for _, u := range j.UsingClause {
			name := u.GetString_()
			if name == nil {
				return rewriter.Unsupported("unexpected USING entry")
			}
			if err := r.checkColumnName(name.Sval, sc); err != nil {
				return err
			}
		}
		if j.JoinUsingAlias != nil {
			sc.tables = append(sc.tables, &tableRef{alias: j.JoinUsingAlias.Aliasname, aliased: true})
		}
		if j.Alias != nil {
			sc.tables = append(sc.tables, &tableRef{alias: j.Alias.Aliasname, aliased: true})
		}
		return nil
	case *pg.Node_RangeSubselect:
		if err := r.query(t.RangeSubselect.Subquery, sc); err != nil {
			return err
		}
		sc.tables = append(sc.tables, &tableRef{alias: aliasName(t.RangeSubselect.Alias, ""), aliased: true})
		return nil
	case *pg.Node_RangeFunction:
		if err := r.exprs(t.RangeFunction, sc, "alias"); err != nil {
			return err
		}
		sc.tables = append(sc.tables, &tableRef{alias: aliasName(t.RangeFunction.Alias, functionAlias(t.RangeFunction)), aliased: true})
		return nil
	case *pg.Node_RangeTableFunc:
		if err := r.exprs(t.RangeTableFunc, sc, "alias"); err != nil {
			return err
		}
		sc.tables = append(sc.tables, &tableRef{alias: aliasName(t.RangeTableFunc.Alias, "xmltable"), aliased: true})
		return nil
	case *pg.Node_JsonTable:
		if err := r.exprs(t.JsonTable, sc, "alias"); err != nil {
			return err
		}
		sc.tables = append(sc.tables, &tableRef{alias: aliasName(t.JsonTable.Alias, "json_table"), aliased: true})
		return nil
	case *pg.Node_RangeTableSample:
		ts := t.RangeTableSample
		rv := ts.Relation.GetRangeVar()
		if rv == nil {
			return rewriter.Unsupported("TABLESAMPLE of something other than a table")
		}
		if err := r.tableRef(ts.Relation, rv, sc); err != nil {
			return err
		}
		if ts.Relation.GetRangeVar() == nil {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: sc.tables[len(sc.tables)-1].table.String(),
				Detail: "TABLESAMPLE of a table under a read policy is not supported"}
		}
		return r.exprs(ts, sc, "relation")
	}
	return rewriter.Unsupported("FROM entry %s is not supported", nodeName(n))
}

// functionAlias is the name the server gives an unaliased function in FROM.
func functionAlias(rf *pg.RangeFunction) string {
	if len(rf.Functions) == 1 {
		if l := rf.Functions[0].GetList(); l != nil && len(l.Items) > 0 {
			if fc := l.Items[0].GetFuncCall(); fc != nil && len(fc.Funcname) > 0 {
				if s := fc.Funcname[len(fc.Funcname)-1].GetString_(); s != nil {
					return s.Sval
				}
			}
		}
	}
	return ""
}

// tableRef rewrites a reference to a named relation: a CTE stays; a base
// table is qualified, and replaced by its policy's derived table when the
// policy changes what the caller reads. n is the Node holding rv.
func (r *rewrite) tableRef(n *pg.Node, rv *pg.RangeVar, sc *scope) error {
	if rv.Schemaname == "" && rv.Catalogname == "" && sc.isCTE(rv.Relname) {
		r.Sanction(rv)
		sc.tables = append(sc.tables, &tableRef{alias: aliasName(rv.Alias, rv.Relname), aliased: rv.Alias != nil})
		return nil
	}
	path := r.searchPath()
	if sc.policy {
		path = policyPath(sc)
	}
	t, err := r.resolveIn(rv, path, false)
	if err != nil {
		return err
	}
	plan, err := r.plan(t, policy.Select)
	if err != nil {
		return err
	}
	ref := &tableRef{alias: aliasName(rv.Alias, rv.Relname), aliased: rv.Alias != nil, table: t, plan: plan}
	sc.tables = append(sc.tables, ref)
	if !sc.policy {
		r.AddRead(t)
	}
	rv.Schemaname = t.Schema
	if plan.Passthrough() {
		r.Sanction(rv)
		return nil
	}
	alias := &pg.Alias{Aliasname: rv.Relname}
	if rv.Alias != nil {
		if len(rv.Alias.Colnames) > 0 && len(plan.Decision.Restricted) > 0 {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
				Detail: "a column alias list on a table with restricted columns would shift names"}
		}
		alias = rv.Alias
	}
	derived, err := r.derivedTable(plan, rv.Inh, sc)
	if err != nil {
		return err
	}
	if slices.Contains(r.guardTargets, rv) && derived.LimitOffset == nil && len(plan.Decision.RowFilters) > 0 {
		guard, ok, err := conjunctGuard(plan, alias.Aliasname)
		if err != nil {
			return err
		}
		if _, twice := r.guards[alias.Aliasname]; ok && len(alias.Colnames) == 0 && !twice {
			if r.guards == nil {
				r.guards = map[string]*pg.Node{}
			}
			r.guards[alias.Aliasname] = guard
			r.guardOrder = append(r.guardOrder, alias.Aliasname)
		} else {
			derived.LimitOffset = fenceOffset()
		}
	}
	ref.derived = true
	if derived.LimitOffset != nil && !sc.policy && listingColumns(t) {
		if r.fencedListings == nil {
			r.fencedListings = map[*pg.SelectStmt]*tableRef{}
		}
		r.fencedListings[derived] = ref
	}
	n.Node = &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
		Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: derived}},
		Alias:    alias,
	}}
	r.readForms[len(r.readForms)-1].from = n
	return nil
}

// derivedTable builds the policy's read form of a table, referenced in
// scope sc, with its policy expressions rewritten (context functions,
// tables they read), fenced when needsFence says so.
func (r *rewrite) derivedTable(plan *rewriter.TablePlan, inh bool, sc *scope) (*pg.SelectStmt, error) {
	text, err := plan.DerivedSelect(r.syntax, filterIsSimple(plan))
	if err != nil {
		return nil, err
	}
	bad := &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(), Detail: "policy read form is not a plain select of the table"}
	form, ok := readFormOf(text)
	if !ok || len(form.targets) != len(plan.Columns) {
		return nil, bad
	}
	sel, frozen := form.instance()
	base := sel.FromClause[0].GetRangeVar()
	if base.Schemaname != plan.Table.Schema || base.Relname != plan.Table.Table {
		return nil, bad
	}
	base.Inh = inh
	r.Sanction(base)
	ref := &tableRef{alias: plan.Table.Table, table: plan.Table, plan: plan,
		qualifier: []string{plan.Table.Schema, plan.Table.Table}}
	if frozen == nil {
		if err := r.policyExprs(ref, sel, "from_clause"); err != nil {
			return nil, err
		}
		form.freeze(sel)
	} else if err := r.policyExprsUnfrozen(ref, sel, form, frozen); err != nil {
		return nil, err
	}
	if r.needsFence(plan, sel.WhereClause, sc) {
		sel.LimitOffset = fenceOffset()
	}
	r.readForms = append(r.readForms, placedForm{form: form, sel: sel, frozen: frozen})
	return sel, nil
}

// policyExprsUnfrozen is policyExprs over an instance of form whose
// frozen targets are placed: it checks that the table has every column
// they name, which is all the policy rewrite does with them, and rewrites
// the rest.
func (r *rewrite) policyExprsUnfrozen(ref *tableRef, sel *pg.SelectStmt, form *readForm, frozen []*frozenTarget) error {
	cols, known := r.columnsOf(ref)
	all := sel.TargetList
	rest := make([]*pg.Node, 0, len(all))
	for i, t := range all {
		if frozen[i] == nil {
			rest = append(rest, t)
			continue
		}
		for _, c := range form.columns[i] {
			if !known || !hasColumn(cols, c) {
				return unknownPolicyColumn(ref)
			}
		}
	}
	sel.TargetList = rest
	err := r.policyExprs(ref, sel, "from_clause")
	sel.TargetList = all
	return err
}

// policyExprs rewrites the expressions a table's policy contributes, in a
// scope of their own that sees the raw table and none of the statement's
// CTEs or tables, guarded against a policy reaching its own table again.
// base.qualifier is how the policy's columns are referenced where the
// expressions are placed.
func (r *rewrite) policyExprs(base *tableRef, m protoMessage, skip ...string) error {
	if err := r.EnterPolicy(base.table); err != nil {
		return err
	}
	defer r.LeavePolicy()
	saved := r.ddl
	r.ddl = false
	defer func() { r.ddl = saved }()
	psc := &scope{policy: true, base: base, tables: []*tableRef{base}}
	return r.exprs(m, psc, skip...)
}
