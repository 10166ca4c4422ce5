package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// forbiddenFunctions read files or otherwise reach outside the data sqe governs.
var forbiddenFunctions = map[string]string{
	"load_file": "LOAD_FILE reads files on the server",
	"sys_exec":  "sys_exec runs programs on the server",
	"sys_eval":  "sys_eval runs programs on the server",
}

// exprs rewrites the expressions under node in place: subqueries are
// rewritten as statements of their own (in a child scope), context
// functions become literals, columns are checked against restrictions and,
// in a write, a masked column of the target is read masked. skip names
// children of node that the caller handles itself.
func (r *rewrite) exprs(node sqlparser.SQLNode, sc *scope, skip func(n, parent sqlparser.SQLNode) bool) error {
	var err error
	sqlparser.Rewrite(node, func(c *sqlparser.Cursor) bool {
		if err != nil {
			return false
		}
		n := c.Node()
		if n == node {
			return true
		}
		if skip != nil && skip(n, c.Parent()) {
			return false
		}
		switch e := n.(type) {
		case *sqlparser.Select, *sqlparser.Union:
			err = r.tableStatement(e.(sqlparser.TableStatement), sc)
			return false
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
				c.Replace(r.contextValue(canonical))
				return false
			}
			if name == "is_role_in_session" && e.Qualifier.IsEmpty() {
				repl, rerr := r.roleInSession(e, sc)
				if rerr != nil {
					err = rerr
				} else {
					c.Replace(repl)
				}
				return false
			}
		case *sqlparser.ColName:
			if repl, rerr := r.column(e, sc); rerr != nil {
				err = rerr
			} else if repl != nil {
				c.Replace(repl)
			}
			return false
		case *sqlparser.StarExpr:
			r.stripSchema(&e.TableName, sc)
		}
		return true
	}, nil)
	return err
}

// contextValue is the session's value of a context function.
func (r *rewrite) contextValue(canonical string) sqlparser.Expr {
	v, null := rewriter.ContextValue(r.req, canonical)
	if null {
		return &sqlparser.NullVal{}
	}
	return sqlparser.NewStrLiteral(v)
}

// roleInSession resolves is_role_in_session(x): a constant argument
// becomes TRUE or FALSE; any other becomes x IN (<the session's roles>).
func (r *rewrite) roleInSession(e *sqlparser.FuncExpr, sc *scope) (sqlparser.Expr, error) {
	if len(e.Exprs) != 1 {
		return nil, rewriter.Unsupported("is_role_in_session takes one argument")
	}
	roles := rewriter.RolesInSession(r.req)
	arg := e.Exprs[0]
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
	_, err := r.column(c, sc)
	return err
}

// column checks one column reference and returns its replacement, if any.
func (r *rewrite) column(c *sqlparser.ColName, sc *scope) (sqlparser.Expr, error) {
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
	return r.maskedTargetColumn(c, owner, sc)
}

// maskedTargetColumn returns the mask expression that replaces a reference
// to a masked column of a write's target, so that a write reads the value
// the caller may see.
func (r *rewrite) maskedTargetColumn(c *sqlparser.ColName, owner *tableRef, sc *scope) (sqlparser.Expr, error) {
	var target *tableRef
	depth := 0
	for s := sc; s != nil; s = s.parent {
		if s.target != nil {
			target = s.target
			break
		}
		depth++
	}
	if target == nil || target.plan == nil {
		return nil, nil
	}
	name := c.Name.String()
	if _, masked := target.plan.Mask(name); !masked {
		return nil, nil
	}
	if owner != nil && owner != target {
		return nil, nil
	}
	if owner == nil && depth > 0 {
		// An unqualified name inside a subquery of the write may belong to
		// a table of the subquery or to the target; sqe cannot tell.
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(), Column: name,
			Detail: "qualify a masked column of the written table inside a subquery"}
	}
	col, ok := target.plan.Column(name)
	if !ok {
		return nil, nil
	}
	text, _, err := target.plan.MaskExpr(Syntax, col, sqlparser.String(target.qualifier)+"."+Syntax.QuoteIdent(col.Name))
	if err != nil {
		return nil, err
	}
	e, err := parseExpr(text)
	if err != nil {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: target.table.String(), Column: name, Detail: "mask expression is not a single SQL expression"}
	}
	if err := r.policyExprs(target.plan, target.qualifier, e, nil); err != nil {
		return nil, err
	}
	return e, nil
}
