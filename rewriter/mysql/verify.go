package mysql

import (
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// verify hands the core every table reference of the rewritten statement,
// whatever node type it hides in, for the proof that none escaped the
// rewrite (rewriter.Statement.Verify). It returns what the printed
// statement must keep of the tree (printed), read in the same walk: the
// tree is not changed again before it is printed.
func (r *rewrite) verify(rd reading) (rewriter.Printed, error) {
	refs := tableRefsOutside(rd.node, r.frozen)
	if err := r.Verify(slices.Values(refs), func(ate *sqlparser.AliasedTableExpr) string { return sqlparser.String(ate.Expr) }); err != nil {
		return rewriter.Printed{}, err
	}
	return rd.printed(refs), nil
}

// tableRefs lists the table references (FROM entries naming a table) of
// stmt, whatever node type they hide in.
func tableRefs(stmt sqlparser.SQLNode) []*sqlparser.AliasedTableExpr {
	return tableRefsOutside(stmt, nil)
}

// tableRefsOutside is tableRefs without walking into the frozen masks
// placed as entries or WHEN results: a frozen mask reads no table
// (frozenableMask admits no subquery), and it is the larger part of a
// masked statement's nodes.
func tableRefsOutside(stmt sqlparser.SQLNode, frozen map[sqlparser.Expr]frozenPrint) []*sqlparser.AliasedTableExpr {
	var refs []*sqlparser.AliasedTableExpr
	var visit func(node sqlparser.SQLNode) (bool, error)
	visit = func(node sqlparser.SQLNode) (bool, error) {
		switch x := node.(type) {
		case *sqlparser.ColName:
			return false, nil // its qualifier names a table; it is no table reference
		case *sqlparser.AliasedTableExpr:
			if _, isName := x.Expr.(sqlparser.TableName); isName {
				refs = append(refs, x)
			}
		case *sqlparser.AliasedExpr:
			if _, ok := frozenPrintOf(frozen, x.Expr); ok {
				return false, nil
			}
		case *sqlparser.When:
			if _, ok := frozenPrintOf(frozen, x.Val); ok {
				return false, sqlparser.Walk(visit, x.Cond)
			}
		}
		return true, nil
	}
	for _, part := range parts(stmt) {
		_ = sqlparser.Walk(visit, part)
	}
	return refs
}

// verifyPrinted reads the printed statement again, as any statement is
// read (read), for the core's check that it is the rewritten tree
// (rewriter.VerifyPrinted); want is what the tree's reading keeps.
func verifyPrinted(want rewriter.Printed, text string, mariaDB bool) error {
	again, err := read(text, mariaDB)
	if err != nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return rewriter.VerifyPrinted(want, again.printed(tableRefs(again.node)))
}

// compound is a statement sqe reads around the parser, as parts the
// parser reads (returningStmt, setOpStmt, sequenceStmt, tableCheckStmt).
type compound interface {
	sqlparser.SQLNode
	nodes() []sqlparser.SQLNode
}

// parts are the trees a statement is made of: the statement itself, or
// the parts of a compound one.
func parts(stmt sqlparser.SQLNode) []sqlparser.SQLNode {
	if c, ok := stmt.(compound); ok {
		return c.nodes()
	}
	return []sqlparser.SQLNode{stmt}
}

// printedOf is what the printed statement must keep of a tree, whose
// table references are refs: its kind and the table names it references.
func printedOf(stmt sqlparser.SQLNode, refs []*sqlparser.AliasedTableExpr) rewriter.Printed {
	var p rewriter.Printed
	switch s := stmt.(type) {
	case *returningStmt:
		p.Kind = statementName(s.write) + " RETURNING"
	case *setOpStmt:
		p.Kind = "query of " + strings.Join(s.ops, ", ")
	case *sequenceStmt:
		p.Kind = s.kind()
		p.Tables = tableNames(s.names)
	case *tableCheckStmt:
		p.Kind = s.kind()
		p.Tables = tableNames(s.names)
	case *diagnosticsStmt:
		p.Kind = sqlparser.String(s)
	case sqlparser.Statement:
		p.Kind = statementName(s)
	}
	for _, ate := range refs {
		tn := ate.Expr.(sqlparser.TableName)
		p.Tables = append(p.Tables, tn.Qualifier.String()+"\x00"+tn.Name.String())
	}
	return p
}

// tableNames are names as printedOf keeps them.
func tableNames(names []sqlparser.TableName) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n.Qualifier.String() + "\x00" + n.Name.String()
	}
	return out
}
