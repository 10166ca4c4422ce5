package mysql

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// forbiddenFunctions read files or otherwise reach outside the data sqe
// governs: refused even when the application allows them by name (every
// other function off the list in functions.go can be allowed).
var forbiddenFunctions = map[string]string{
	"load_file": "LOAD_FILE reads files on the server",
	"sys_exec":  "sys_exec runs programs on the server",
	"sys_eval":  "sys_eval runs programs on the server",
	// The connection's state from the previous statement, which may have
	// been another caller's: row counts of what that statement read.
	"found_rows": "FOUND_ROWS() reports the previous statement's rows, which may be another caller's",
	"row_count":  "ROW_COUNT() reports the previous statement's rows, which may be another caller's",
}

// exprs rewrites the expressions under node in place: subqueries are
// rewritten as statements of their own (in a child scope), context
// functions become literals, columns are checked against restrictions and,
// in a write, a masked column of the target is read masked. skip names
// children of node that the caller handles itself.
func (r *rewrite) exprs(node sqlparser.SQLNode, sc *scope, skip func(n, parent sqlparser.SQLNode) bool) error {
	if e, isExpr := node.(sqlparser.Expr); isExpr {
		// The walk below does not look at its root: an expression given
		// alone (a JOIN's ON, JSON_TABLE's document) is walked as the
		// child of a holder, so that a function, a column or a context
		// function at its top is checked like any other. The caller
		// holds the expression itself, so it cannot be replaced.
		holder := &sqlparser.Where{Type: sqlparser.WhereClause, Expr: e}
		if err := r.exprs(holder, sc, skip); err != nil {
			return err
		}
		if holder.Expr != e {
			return rewriter.Unsupported("an expression sqe must rewrite sits where the statement form allows no replacement")
		}
		return nil
	}
	var err error
	sqlparser.Rewrite(node, func(c *sqlparser.Cursor) bool {
		if err != nil {
			return false
		}
		n := c.Node()
		if _, root := c.Parent().(*sqlparser.RootNode); root {
			return true
		}
		if skip != nil && skip(n, c.Parent()) {
			return false
		}
		switch e := n.(type) {
		case *sqlparser.Select, *sqlparser.Union:
			err = r.tableStatement(e.(sqlparser.TableStatement), sc)
			return false
		case *sqlparser.Limit:
			err = checkLimit(e)
			return err == nil
		case *sqlparser.DerivedTable:
			err = r.tableStatement(e.Select, sc)
			return false
		case *sqlparser.Subquery:
			err = r.tableStatement(e.Select, sc)
			return false
		case sqlparser.TableExpr:
			err = rewriter.Unsupported("table expression in an unexpected place")
			return false
		case *sqlparser.FuncExpr:
			name := e.Name.Lowered()
			if why, bad := forbiddenFunctions[name]; bad && e.Qualifier.IsEmpty() {
				err = rewriter.Unsupported("%s", why)
				return false
			}
			if canonical, ok := rewriter.ContextFunctions[name]; ok && e.Qualifier.IsEmpty() && len(e.Exprs) == 0 {
				err = replace(c, r.contextValue(canonical))
				return false
			}
			if (name == "is_role_in_session" || name == "is_group_in_session" || name == "session_attribute") && e.Qualifier.IsEmpty() {
				repl, rerr := r.inSession(name, e, sc)
				if rerr != nil {
					err = rerr
				} else {
					err = replace(c, repl)
				}
				return false
			}
			if !sc.policy {
				if err = r.checkFunc(e); err != nil {
					return false
				}
			}
		case *sqlparser.ColName:
			if _, isValues := c.Parent().(*sqlparser.ValuesFuncExpr); isValues {
				// VALUES(col) of ON DUPLICATE KEY UPDATE is the value the
				// statement itself inserts: checked, never masked.
				err = r.checkColumn(e, &scope{parent: sc.parent, ctes: sc.ctes, tables: sc.tables, policy: sc.policy})
				return false
			}
			_, entry := c.Parent().(*sqlparser.AliasedExpr)
			if repl, rerr := r.column(e, sc, entry); rerr != nil {
				err = rerr
			} else if repl != nil {
				if _, isMatch := c.Parent().(*sqlparser.MatchExpr); isMatch {
					err = rewriter.Unsupported("MATCH … AGAINST over a masked column is not supported")
				} else {
					err = replace(c, repl)
				}
			}
			return false
		case sqlparser.ListArg:
			// ::name is Vitess's list argument, which MySQL and MariaDB do
			// not read.
			err = rewriter.Unsupported("::name list arguments are not MySQL syntax: pass each value as a ? placeholder")
			return false
		case *sqlparser.Nextval:
			// The parser reads MariaDB's NEXT VALUE FOR s as Vitess's own
			// SELECT NEXT n VALUES FROM s, which no MySQL or MariaDB runs.
			err = rewriter.Unsupported("NEXT VALUE FOR (sequences) is not supported through sqe")
			return false
		case *sqlparser.StarExpr:
			r.stripSchema(&e.TableName, sc)
		case *sqlparser.Variable:
			err = r.variable(e, sc)
			return false
		case sqlparser.Expr:
			if !sc.policy {
				if err = r.checkExpr(e); err != nil {
					return false
				}
			}
		}
		return true
	}, nil)
	return err
}

// replace puts repl where the cursor is, refusing (instead of panicking)
// when the parent's field cannot hold it.
func replace(c *sqlparser.Cursor, repl sqlparser.SQLNode) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = rewriter.Unsupported("an expression sqe must rewrite sits where the statement form allows no expression")
		}
	}()
	c.Replace(repl)
	return nil
}

// variable handles a variable reference. User variables (@v) survive the
// statement on the connection, and database/sql hands a connection to
// one caller after another: each caller gets variables of its own, named
// after its policy view, so that no caller reads a value another one
// stored (a raw value read under another policy). A policy expression
// reads no user variable: the application sets them.
func (r *rewrite) variable(v *sqlparser.Variable, sc *scope) error {
	if v.Scope != sqlparser.VariableScope {
		switch v.Name.Lowered() {
		case "warning_count", "error_count":
			// The previous statement's warnings count values it converted,
			// of rows a policy hid from it or of another caller's statement.
			return rewriter.Unsupported("@@%s is not supported through sqe: it counts the previous statement's warnings", v.Name.Lowered())
		case "last_insert_id", "identity", "insert_id":
			// LAST_INSERT_ID() by another name (refused as a function).
			return rewriter.Unsupported("@@%s is not supported through sqe: it reports the connection's last insert, which may be another caller's (the driver's result has the caller's own: sql.Result.LastInsertId)", v.Name.Lowered())
		}
		if name := v.Name.Lowered(); !settableVariables[name] && !readableVariables[name] {
			return rewriter.Unsupported("@@%s is not supported through sqe: a statement may read only the system variables sqe has decided are the same for every caller", name)
		}
		return nil
	}
	if sc.policy {
		return rewriter.Unsupported("a policy expression reads a user variable, which the application sets")
	}
	return r.renameVariable(v)
}

// maxVariableName is MySQL's limit on a user variable's name.
const maxVariableName = 64

func (r *rewrite) renameVariable(v *sqlparser.Variable) error {
	if r.renamed == nil {
		r.renamed = map[*sqlparser.Variable]bool{}
	}
	if r.renamed[v] {
		return nil
	}
	name := r.variablePrefix() + v.Name.Lowered()
	if len(name) > maxVariableName {
		return rewriter.Unsupported("user variable name too long")
	}
	v.Name = sqlparser.NewIdentifierCI(name)
	r.renamed[v] = true
	return nil
}

// variablePrefix names the caller's user variables: a digest of the
// caller's policy view fingerprint.
func (r *rewrite) variablePrefix() string {
	if r.varPrefix == "" {
		sum := sha256.Sum256([]byte(r.Req.View.Fingerprint()))
		r.varPrefix = "sqe" + hex.EncodeToString(sum[:6]) + "_"
	}
	return r.varPrefix
}

// contextValue is the session's value of a context function.
func (r *rewrite) contextValue(canonical string) sqlparser.Expr {
	v, null := rewriter.ContextValue(r.Req, canonical)
	if null {
		return &sqlparser.NullVal{}
	}
	return sqlparser.NewStrLiteral(v)
}

// inSession resolves is_role_in_session(x) and is_group_in_session(x): a
// constant argument becomes TRUE or FALSE; any other becomes x IN (<the
// session's roles or groups>). session_attribute('k') becomes the
// attribute's value as a literal, or NULL.
func (r *rewrite) inSession(name string, e *sqlparser.FuncExpr, sc *scope) (sqlparser.Expr, error) {
	if len(e.Exprs) != 1 {
		return nil, rewriter.Unsupported("%s takes one argument", name)
	}
	arg := e.Exprs[0]
	if name == "session_attribute" {
		lit, ok := arg.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal {
			return nil, rewriter.Unsupported("session_attribute takes a constant attribute name")
		}
		v, null := rewriter.SessionAttribute(r.Req, lit.Val)
		if null {
			return &sqlparser.NullVal{}, nil
		}
		return sqlparser.NewStrLiteral(v), nil
	}
	roles, _ := rewriter.InSessionValues(r.Req, name)
	if lit, ok := arg.(*sqlparser.Literal); ok && lit.Type == sqlparser.StrVal {
		for _, role := range roles {
			if role == lit.Val {
				return sqlparser.BoolVal(true), nil
			}
		}
		return sqlparser.BoolVal(false), nil
	}
	// The argument is an expression of its own: rewrite it first.
	wrapper := &sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: arg}
	if err := r.exprs(wrapper, sc, nil); err != nil {
		return nil, err
	}
	if len(roles) == 0 {
		return sqlparser.BoolVal(false), nil
	}
	tuple := make(sqlparser.ValTuple, len(roles))
	for i, role := range roles {
		tuple[i] = sqlparser.NewStrLiteral(role)
	}
	wrapper.Right = tuple
	return wrapper, nil
}

// lookup finds the FROM entry a qualifier names, innermost scope first.
func lookup(sc *scope, q sqlparser.TableName) *tableRef {
	name := q.Name.String()
	schema := q.Qualifier.String()
	for s := sc; s != nil; s = s.parent {
		for _, t := range s.tables {
			if !strings.EqualFold(t.alias, name) {
				continue
			}
			if schema != "" && (t.plan == nil || !strings.EqualFold(t.table.Schema, schema)) {
				continue
			}
			return t
		}
	}
	return nil
}

// stripSchema rewrites schema.table.column into table.column when the
// table was replaced by a derived table (which has no schema).
func (r *rewrite) stripSchema(q *sqlparser.TableName, sc *scope) {
	if q.Qualifier.IsEmpty() || sc.policy {
		return
	}
	if t := lookup(sc, *q); t != nil && t.derived {
		q.Qualifier = sqlparser.NewIdentifierCS("")
	}
}

// checkColumn refuses a restricted column named by the application.
func (r *rewrite) checkColumn(c *sqlparser.ColName, sc *scope) error {
	_, err := r.column(c, sc, false)
	return err
}

// column checks one column reference and returns its replacement, if any;
// entry says that the reference is a whole select-list entry.
func (r *rewrite) column(c *sqlparser.ColName, sc *scope, entry bool) (sqlparser.Expr, error) {
	if sc.policy {
		if sc.base != nil && c.Qualifier.IsEmpty() {
			c.Qualifier = *sc.base
		}
		return nil, nil
	}
	name := c.Name.String()
	var owner *tableRef
	if !c.Qualifier.IsEmpty() {
		owner = lookup(sc, c.Qualifier)
		if owner != nil && owner.plan != nil {
			if pol, restricted := owner.plan.RestrictedBy(name); restricted {
				return nil, &rewriter.Error{Kind: policy.ErrColumnDenied, Table: owner.table.String(), Column: name, Policy: pol}
			}
		}
		r.stripSchema(&c.Qualifier, sc)
	} else {
		for s := sc; s != nil; s = s.parent {
			for _, t := range s.tables {
				if t.plan == nil {
					continue
				}
				if pol, restricted := t.plan.RestrictedBy(name); restricted {
					return nil, &rewriter.Error{Kind: policy.ErrColumnDenied, Table: t.table.String(), Column: name, Policy: pol}
				}
			}
		}
	}
	return r.maskedTargetColumn(c, owner, sc, entry)
}

// maskedTargetColumn returns the mask expression that replaces a reference
// to a masked column of a write's target, so that a write reads the value
// the caller may see. entry says that the reference is a whole
// select-list entry (where a guarded frozen mask is placed whole).
func (r *rewrite) maskedTargetColumn(c *sqlparser.ColName, owner *tableRef, sc *scope, entry bool) (sqlparser.Expr, error) {
	var targets []*tableRef
	depth := 0
	for s := sc; s != nil; s = s.parent {
		if len(s.targets) > 0 {
			targets = s.targets
			break
		}
		depth++
	}
	if len(targets) == 0 {
		return nil, nil
	}
	name := c.Name.String()
	var target *tableRef
	if owner != nil {
		for _, t := range targets {
			if t == owner {
				target = t
			}
		}
		if target == nil {
			return nil, nil
		}
		if _, masked := target.plan.Mask(name); !masked {
			return nil, nil
		}
	} else {
		var candidates []*tableRef
		for _, t := range targets {
			if t.plan == nil {
				continue
			}
			if _, masked := t.plan.Mask(name); masked {
				if _, ok := t.plan.Column(name); ok {
					candidates = append(candidates, t)
				}
			}
		}
		if len(candidates) == 0 {
			return nil, nil
		}
		target = candidates[0]
		if depth > 0 {
			// An unqualified name inside a subquery of the write may belong to
			// a table of the subquery or to the target; sqe cannot tell.
			return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(), Column: name,
				Detail: "qualify a masked column of the written table inside a subquery"}
		}
		if len(candidates) > 1 {
			return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(), Column: name,
				Detail: "an unqualified masked column of several written tables: qualify it"}
		}
	}
	if target.plan == nil {
		return nil, nil
	}
	col, ok := target.plan.Column(name)
	if !ok {
		return nil, nil
	}
	text, _, err := target.plan.MaskExpr(r.syntax(), col, sqlparser.String(target.qualifier)+"."+Syntax.QuoteIdent(col.Name))
	if err != nil {
		return nil, err
	}
	key := frozenKey{qualifier: target.qualifier, text: text}
	if fm := frozenMaskOf(key); fm != nil {
		// What policyExprs checks of any mask: that it is not one of a
		// policy reaching its own table again.
		if err := r.EnterPolicy(target.plan.Table); err != nil {
			return nil, err
		}
		r.LeavePolicy()
		if target.guard != nil {
			if entry {
				if g := guardedFrozenMask(target, fm); g != nil {
					r.frozenUse(g)
					return g.expr, nil
				}
			}
			r.frozenUse(fm)
			return guardMask(target.guard, fm.expr), nil
		}
		r.frozenUse(fm)
		return fm.expr, nil
	}
	e, err := parseExpr(text)
	if err != nil {
		m, _ := target.plan.Mask(name)
		return nil, &rewriter.Error{Kind: policy.ErrPolicy, Table: target.table.String(), Column: name, Policy: m.Policy,
			Detail: "mask expression is not a single SQL expression"}
	}
	frozenable := frozenableMask(e)
	if err := r.policyExprs(target.plan, target.qualifier, e, nil); err != nil {
		return nil, err
	}
	if frozenable {
		freezeMask(key, e)
	}
	if target.guard != nil {
		e = guardMask(target.guard, e)
	}
	return e, nil
}
