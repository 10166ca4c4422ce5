package mysql

import (
	"context"
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// rewrite is the state of rewriting one statement: the core's state
// (rewriter.Statement, over vitess's table references) and MySQL's own.
type rewrite struct {
	rewriter.Statement[*sqlparser.AliasedTableExpr]
	// replacement, when set, is the statement sent instead of the parsed
	// one (SHOW COLUMNS and DESCRIBE become queries).
	replacement sqlparser.Statement
	// top is the statement's own top-level query (the only one that may
	// store INTO variables).
	top sqlparser.TableStatement
	// renamed are the user variables already given the caller's names.
	renamed   map[*sqlparser.Variable]bool
	varPrefix string
	// session is the connection's state (req.Session).
	session Session
	// returning is the RETURNING list of a MariaDB write, until the
	// write's rewrite takes it (returningOf).
	returning *sqlparser.SelectExprs
	// joinGuard, for a read of inner-joined tables whose only conditions
	// that can fail are WHERE conjuncts, guards those conjuncts by the
	// filters of the tables they read instead of fencing the tables
	// (joinguard.go); nil otherwise.
	joinGuard *joinGuard
	// frozen are the prints of the frozen masks the statement placed, by
	// node (frozen.go); frozenPlaced the masks themselves, under the
	// tests' check.
	frozen       map[sqlparser.Expr]frozenPrint
	frozenPlaced []*frozenMask
	// staticForms are the instances of static read forms the statement
	// placed, by select (readform.go, formText).
	staticForms map[*sqlparser.Select]*readForm
}

func newRewrite(ctx context.Context, req *rewriter.Request) *rewrite {
	sess, _ := req.Session.(Session) // rewriteAll refused another dialect's
	r := &rewrite{session: sess}
	r.Statement = rewriter.NewStatement[*sqlparser.AliasedTableExpr](ctx, req, systemTables{})
	return r
}

// syntax is the Syntax of the statement's connection.
func (r *rewrite) syntax() rewriter.Syntax {
	return syntax{rewriter.SyntaxBase{Named: r.session.NamedClasses, Server: r.session.ServerMasks}}
}

// tableRef is a table in a FROM clause (or a write's target) as the
// expressions of its scope see it.
type tableRef struct {
	alias   string // the name the statement uses for it (alias, else table name)
	table   policy.TableName
	plan    *rewriter.TablePlan // nil for CTE and derived-table references
	derived bool                // replaced by the policy's derived table
	// qualifier is how a raw column of a write target is referenced.
	qualifier sqlparser.TableName
	// ate is a write target's FROM entry.
	ate *sqlparser.AliasedTableExpr
	// guard, on a flattened read's table, is its row filter: each mask
	// that replaces a column reference is computed only where it holds
	// (see rewriter.TablePlan.DerivedSelect).
	guard sqlparser.Expr
	// guardText is guard's print, once it has been asked for
	// (guardedFrozenMask); guardPrinted says that it has.
	guardText    string
	guardPrinted bool
}

// scope is one level of name visibility: the CTEs defined at this level
// and the FROM entries of one SELECT (or the target of a write).
type scope struct {
	parent *scope
	ctes   map[string]bool
	tables []*tableRef
	// policy marks the expressions of a policy (filters, masks): they read
	// raw columns and see no CTE of the application's statement.
	policy bool
	// targets are the write targets whose masked columns are read masked
	// (several in a multi-table UPDATE or DELETE; a flattened read's table).
	targets []*tableRef
	// writeTargets marks the FROM entries of a multi-table write that are
	// written (kept as base tables) rather than read.
	writeTargets map[*sqlparser.AliasedTableExpr]bool
	// base is set on the top level of a policy's expressions: unqualified
	// columns there are the base table's, and are qualified so that no
	// table of the application's statement can capture them.
	base *sqlparser.TableName
	// policySchema is the schema of the table whose policy expressions
	// these are: unqualified tables in them resolve there, never in the
	// connection's current database (which the application chooses).
	policySchema string
}

func (s *scope) child() *scope {
	return &scope{parent: s, policy: s.policy, policySchema: s.policySchema}
}

func (s *scope) isCTE(name string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		if sc.ctes[name] {
			return true
		}
	}
	return false
}

// resolve turns a table name into the table it names on the server.
func (r *rewrite) resolve(tn sqlparser.TableName) (policy.TableName, error) {
	return r.resolveIn(tn, nil)
}

// resolveIn resolves a table name seen in scope sc (nil: the statement's
// top level).
func (r *rewrite) resolveIn(tn sqlparser.TableName, sc *scope) (policy.TableName, error) {
	schema := tn.Qualifier.String()
	if schema == "" && sc != nil && sc.policySchema != "" {
		schema = sc.policySchema
	}
	if schema == "" {
		schema = r.session.Database
		if schema == "" {
			return policy.TableName{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: tn.Name.String(),
				Detail: "unqualified table name with no current database"}
		}
	}
	return policy.TableName{Schema: schema, Table: tn.Name.String()}, nil
}

func (r *rewrite) plan(t policy.TableName, access policy.Access) (*rewriter.TablePlan, error) {
	return r.Plan(t, access)
}

func qualified(t policy.TableName) sqlparser.TableName {
	return sqlparser.TableName{Name: sqlparser.NewIdentifierCS(t.Table), Qualifier: sqlparser.NewIdentifierCS(t.Schema)}
}

// statement rewrites a top-level statement in place.
func (r *rewrite) statement(stmt sqlparser.Statement) (*rewriter.Result, error) {
	root := &scope{}
	switch s := stmt.(type) {
	case *sqlparser.Select:
		r.top = s
		return &rewriter.Result{Kind: rewriter.KindSelect}, r.tableStatement(s, root)
	case *sqlparser.Union:
		r.top = s
		return &rewriter.Result{Kind: rewriter.KindSelect}, r.tableStatement(s, root)
	case *sqlparser.Insert:
		return &rewriter.Result{Kind: rewriter.KindInsert}, r.insert(s, root)
	case *sqlparser.Update:
		return &rewriter.Result{Kind: rewriter.KindUpdate}, r.update(s, root)
	case *sqlparser.Delete:
		return &rewriter.Result{Kind: rewriter.KindDelete}, r.delete(s, root)
	case *sqlparser.ExplainStmt:
		switch s.Statement.(type) {
		case *sqlparser.Select, *sqlparser.Union, *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
			res, err := r.statement(s.Statement)
			if err != nil {
				return nil, err
			}
			if err := r.explainable(); err != nil {
				return nil, err
			}
			res.Kind = rewriter.KindOther
			return res, nil
		}
		return nil, rewriter.Unsupported("EXPLAIN of this statement is not supported")
	case *sqlparser.ExplainTab:
		return r.showColumns(s.Table, false, s.Wild, nil)
	case *sqlparser.ValuesStatement:
		if s.ListArg != "" {
			return nil, rewriter.Unsupported("VALUES with a list argument is not supported")
		}
		sc := root.child()
		if err := r.with(s.With, sc); err != nil {
			return nil, err
		}
		return &rewriter.Result{Kind: rewriter.KindSelect}, r.exprs(s, sc, func(n, parent sqlparser.SQLNode) bool {
			_, isWith := n.(*sqlparser.With)
			return isWith && parent == s
		})
	case *sqlparser.Set:
		return r.set(s, root)
	case *sqlparser.Use:
		if s.DBName.IsEmpty() {
			return nil, rewriter.Unsupported("USE without a database")
		}
		if strings.Contains(s.DBName.String(), "@") {
			// The parser reads USE db@replica as Vitess's tablet target,
			// which MySQL and MariaDB do not; sqe would print it as a
			// database named db@replica.
			return nil, rewriter.Unsupported("USE of a database whose name holds @ is not supported through sqe")
		}
		return &rewriter.Result{Kind: rewriter.KindSession, Effect: rewriter.Effect{Session: r.session.use(s.DBName.String()), Holds: rewriter.HoldsDatabase}}, nil
	case *sqlparser.Begin:
		return &rewriter.Result{Kind: rewriter.KindSession, Effect: rewriter.Effect{BeginsTransaction: true, TransactionControl: true}}, nil
	case *sqlparser.Commit, *sqlparser.Rollback:
		return &rewriter.Result{Kind: rewriter.KindSession, Effect: rewriter.Effect{EndsTransaction: true, TransactionControl: true}}, nil
	case *sqlparser.SRollback, *sqlparser.Savepoint, *sqlparser.Release:
		return &rewriter.Result{Kind: rewriter.KindSession, Effect: rewriter.Effect{TransactionControl: true}}, nil
	case *sqlparser.Show:
		return r.show(s)
	case sqlparser.DDLStatement:
		return r.ddl(s, root)
	}
	return nil, rewriter.Unsupported("%s is not supported through sqe", statementName(stmt))
}

func statementName(stmt sqlparser.Statement) string {
	switch stmt.(type) {
	case *sqlparser.CallProc:
		return "CALL"
	case *sqlparser.PrepareStmt:
		return "PREPARE"
	case *sqlparser.ExecuteStmt:
		return "EXECUTE"
	case *sqlparser.DeallocateStmt:
		return "DEALLOCATE PREPARE"
	case *sqlparser.LockTables:
		return "LOCK TABLES"
	case *sqlparser.UnlockTables:
		return "UNLOCK TABLES"
	case *sqlparser.Load:
		return "LOAD DATA"
	case *sqlparser.OtherAdmin:
		return "this administrative statement (DO, HANDLER, …)"
	case sqlparser.DBDDLStatement:
		return "CREATE/ALTER/DROP DATABASE"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", stmt), "*sqlparser.")
}

// explainable refuses EXPLAIN of a statement that reads a table under a
// read policy: the plan's row estimates come from statistics over every
// row, the ones the policy hides included.
func (r *rewrite) explainable() error {
	return r.RefuseReadPolicies(r.Tables(),
		"EXPLAIN of a statement reading a table under a read policy is not supported through sqe: its estimates count the rows the policy hides")
}

// locking checks FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE: the tables
// the query reads need update access, as on the server (and as for the
// PostgreSQL dialect), since the lock reaches the rows of the base tables.
func (r *rewrite) locking(lock sqlparser.Lock, start int) error {
	if lock == sqlparser.NoLock {
		return nil
	}
	return r.LockReads(start)
}

// checkInto accepts SELECT … INTO @var, … on the statement's own top level
// (the values are the masked, filtered ones); INTO elsewhere, into anything
// but user variables, or into files is refused.
func (r *rewrite) checkInto(owner sqlparser.TableStatement, into *sqlparser.SelectInto) error {
	if into == nil {
		return nil
	}
	if into.Type != sqlparser.IntoVariables {
		return rewriter.Unsupported("SELECT … INTO OUTFILE/DUMPFILE writes files on the server")
	}
	if owner != r.top {
		return rewriter.Unsupported("SELECT … INTO inside another query is not supported")
	}
	for _, v := range into.VarList {
		if v.Scope != sqlparser.VariableScope {
			return rewriter.Unsupported("SELECT … INTO stores only into user variables (@name) through sqe")
		}
	}
	return nil
}

// tableStatement rewrites a SELECT or UNION in place.
func (r *rewrite) tableStatement(ts sqlparser.TableStatement, outer *scope) error {
	switch s := ts.(type) {
	case *sqlparser.Select:
		return r.selectStmt(s, outer)
	case *sqlparser.Union:
		sc := outer.child()
		if err := r.with(s.With, sc); err != nil {
			return err
		}
		if s.Into != nil {
			return rewriter.Unsupported("SELECT … INTO on a UNION is not supported through sqe")
		}
		start := r.ReadCount()
		if err := r.exprs(s, sc, func(n sqlparser.SQLNode, parent sqlparser.SQLNode) bool {
			_, isWith := n.(*sqlparser.With)
			return isWith && parent == s
		}); err != nil {
			return err
		}
		return r.locking(s.Lock, start)
	}
	return rewriter.Unsupported("query form %T is not supported", ts)
}

func (r *rewrite) selectStmt(s *sqlparser.Select, outer *scope) error {
	start := r.ReadCount()
	if err := r.selectBody(s, outer); err != nil {
		return err
	}
	return r.locking(s.Lock, start)
}

func (r *rewrite) selectBody(s *sqlparser.Select, outer *scope) error {
	sc := outer.child()
	if err := r.with(s.With, sc); err != nil {
		return err
	}
	if err := r.checkInto(s, s.Into); err != nil {
		return err
	}
	if done, err := r.flatten(s, sc); done || err != nil {
		return err
	}
	for i, te := range s.From {
		nte, err := r.tableExpr(te, sc)
		if err != nil {
			return err
		}
		s.From[i] = nte
	}
	if err := r.checkAliases(sc); err != nil {
		return err
	}
	// Everything but FROM and WITH: select list, WHERE, GROUP BY, HAVING,
	// windows, ORDER BY, LIMIT.
	return r.exprs(s, sc, func(n, parent sqlparser.SQLNode) bool {
		if parent != s {
			return false
		}
		switch n.(type) {
		case *sqlparser.With, sqlparser.TableExpr:
			return true
		}
		return false
	})
}

// checkAliases refuses two references that the rewrite would give the
// same name.
func (r *rewrite) checkAliases(sc *scope) error {
	seen := map[string]policy.TableName{}
	for _, t := range sc.tables {
		if prev, ok := seen[strings.ToLower(t.alias)]; ok && t.derived {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.table.String(),
				Detail: fmt.Sprintf("tables %s and %s need distinct aliases", prev, t.table)}
		}
		seen[strings.ToLower(t.alias)] = t.table
	}
	return nil
}

func (r *rewrite) with(w *sqlparser.With, sc *scope) error {
	if w == nil {
		return nil
	}
	if sc.ctes == nil {
		sc.ctes = map[string]bool{}
	}
	for _, cte := range w.CTEs {
		name := cte.ID.String()
		if w.Recursive {
			sc.ctes[name] = true
		}
		if err := r.tableStatement(cte.Subquery, sc); err != nil {
			return err
		}
		sc.ctes[name] = true
	}
	return nil
}

// tableExpr rewrites one FROM entry and registers it in the scope.
func (r *rewrite) tableExpr(te sqlparser.TableExpr, sc *scope) (sqlparser.TableExpr, error) {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		switch e := t.Expr.(type) {
		case sqlparser.TableName:
			if sc.writeTargets[t] {
				ref, err := r.target(t, sc)
				if err != nil {
					return nil, err
				}
				sc.tables = append(sc.tables, ref)
				sc.targets = append(sc.targets, ref)
				return t, nil
			}
			return r.tableRef(t, e, sc, policy.Select)
		case *sqlparser.DerivedTable:
			if err := r.tableStatement(e.Select, sc); err != nil {
				return nil, err
			}
			sc.tables = append(sc.tables, &tableRef{alias: t.As.String()})
			return t, nil
		}
		return nil, rewriter.Unsupported("table expression %T is not supported", t.Expr)
	case *sqlparser.JoinTableExpr:
		l, err := r.tableExpr(t.LeftExpr, sc)
		if err != nil {
			return nil, err
		}
		t.LeftExpr = l
		rt, err := r.tableExpr(t.RightExpr, sc)
		if err != nil {
			return nil, err
		}
		t.RightExpr = rt
		if t.Condition != nil {
			if t.Condition.On != nil {
				if err := r.exprs(t.Condition, sc, nil); err != nil {
					return nil, err
				}
			}
			for _, col := range t.Condition.Using {
				if err := r.checkColumn(&sqlparser.ColName{Name: col}, sc); err != nil {
					return nil, err
				}
			}
		}
		return t, nil
	case *sqlparser.ParenTableExpr:
		for i, inner := range t.Exprs {
			n, err := r.tableExpr(inner, sc)
			if err != nil {
				return nil, err
			}
			t.Exprs[i] = n
		}
		return t, nil
	case *sqlparser.JSONTableExpr:
		// Walked under a holder, so that the document expression itself
		// can be checked and replaced.
		holder := &sqlparser.Where{Type: sqlparser.WhereClause, Expr: t.Expr}
		if err := r.exprs(holder, sc, nil); err != nil {
			return nil, err
		}
		t.Expr = holder.Expr
		return t, nil
	}
	return nil, rewriter.Unsupported("table expression %T is not supported", te)
}

// tableRef rewrites a reference to a named table: a CTE stays; a base
// table is qualified, and replaced by its policy's derived table when the
// policy changes what the caller reads.
func (r *rewrite) tableRef(ate *sqlparser.AliasedTableExpr, tn sqlparser.TableName, sc *scope, access policy.Access) (sqlparser.TableExpr, error) {
	if tn.Qualifier.IsEmpty() && tn.Name.String() == "dual" && ate.As.IsEmpty() {
		// The parser's stand-in FROM of a SELECT without one.
		r.Sanction(ate)
		return ate, nil
	}
	if tn.Qualifier.IsEmpty() && !sc.policy && sc.isCTE(tn.Name.String()) {
		r.Sanction(ate)
		alias := ate.As.String()
		if alias == "" {
			alias = tn.Name.String()
		}
		sc.tables = append(sc.tables, &tableRef{alias: alias})
		return ate, nil
	}
	t, err := r.resolveIn(tn, sc)
	if err != nil {
		return nil, err
	}
	plan, err := r.plan(t, access)
	if err != nil {
		return nil, err
	}
	alias := ate.As.String()
	if alias == "" {
		alias = t.Table
	}
	ref := &tableRef{alias: alias, table: t, plan: plan}
	sc.tables = append(sc.tables, ref)
	if !sc.policy {
		r.AddRead(t)
		if r.joinGuard != nil {
			r.joinGuard.aliases[strings.ToLower(alias)] = true
		}
	}
	ate.Expr = qualified(t)
	if plan.Passthrough() {
		r.Sanction(ate)
		return ate, nil
	}
	derived, err := r.derivedTable(plan, sc)
	if err != nil {
		return nil, err
	}
	if r.joinGuard != nil && !sc.policy {
		if err := r.joinGuard.table(r, alias, plan, derived); err != nil {
			return nil, err
		}
	}
	inner := derived.From[0].(*sqlparser.AliasedTableExpr)
	inner.Hints, ate.Hints = ate.Hints, nil
	inner.Partitions, ate.Partitions = ate.Partitions, nil
	ref.derived = true
	return &sqlparser.AliasedTableExpr{
		Expr: &sqlparser.DerivedTable{Select: derived},
		As:   sqlparser.NewIdentifierCS(alias),
	}, nil
}

// derivedTable builds the policy's read form of a table, with its policy
// expressions rewritten (context functions, tables they read).
func (r *rewrite) derivedTable(plan *rewriter.TablePlan, outer *scope) (*sqlparser.Select, error) {
	text, err := plan.DerivedSelect(r.syntax(), simpleFilter(plan))
	if err != nil {
		return nil, err
	}
	form, err := readFormOf(text)
	if err != nil {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(), Detail: "policy read form does not parse"}
	}
	sel, frozen := form.instance()
	if len(sel.From) != 1 {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(), Detail: "policy read form is not a select"}
	}
	inner, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(), Detail: "policy read form is not a select"}
	}
	r.Sanction(inner)
	// A frozen entry is the policy rewrite's result already: the walk
	// skips it.
	placed := map[*sqlparser.AliasedExpr]bool{}
	for i, fm := range frozen {
		if fm != nil {
			placed[sel.SelectExprs.Exprs[i].(*sqlparser.AliasedExpr)] = true
			r.frozenUse(fm)
		}
	}
	if err := r.policyExprs(plan, qualified(plan.Table), sel, func(n, parent sqlparser.SQLNode) bool {
		if ae, ok := n.(*sqlparser.AliasedExpr); ok && placed[ae] {
			return true
		}
		_, isFrom := n.(sqlparser.TableExpr)
		return isFrom && parent == sel
	}); err != nil {
		return nil, err
	}
	if frozen == nil {
		form.freeze(sel)
	}
	if form.static {
		if r.staticForms == nil {
			r.staticForms = map[*sqlparser.Select]*readForm{}
		}
		r.staticForms[sel] = form
	}
	if r.needsFence(plan, outer) {
		fence(sel)
	}
	return sel, nil
}

// needsFence asks the core whether the read form of a table, referenced
// in scope sc, must be fenced (rewriter.Statement.NeedsFence).
func (r *rewrite) needsFence(plan *rewriter.TablePlan, sc *scope) bool {
	return r.NeedsFence(plan, sc != nil && sc.policy, simpleFilter(plan))
}

// maxRows is the largest LIMIT the server accepts.
const maxRows = "18446744073709551615"

// fence makes the server compute a row-filtered derived table on its own
// (materialized) before anything of the statement around it sees a row.
// Merged into the outer query, or with the outer conditions pushed into it
// or into an index scan (index condition pushdown), the server evaluates
// the application's expressions on rows the filter rejects, and an
// expression that fails on one value (EXP(CASE WHEN name = 'x' THEN 1000
// END)) would tell which values the hidden rows hold. A derived table with
// a LIMIT is neither merged nor given pushed-down conditions.
func fence(sel *sqlparser.Select) {
	sel.Limit = &sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(maxRows)}
}

// policyExprs rewrites the expressions a table's policy contributes: in a
// scope of their own that sees the raw table and none of the statement's
// CTEs, guarded against a policy reaching its own table again. Unqualified
// columns at the top level are qualified with base.
func (r *rewrite) policyExprs(plan *rewriter.TablePlan, base sqlparser.TableName, node sqlparser.SQLNode, skip func(n, parent sqlparser.SQLNode) bool) error {
	if err := r.EnterPolicy(plan.Table); err != nil {
		return err
	}
	defer r.LeavePolicy()
	psc := &scope{policy: true, base: &base, policySchema: plan.Table.Schema, tables: []*tableRef{{alias: plan.Table.Table, table: plan.Table}}}
	return r.exprs(node, psc, skip)
}
