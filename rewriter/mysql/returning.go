package mysql

import (
	"errors"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's INSERT … RETURNING, REPLACE … RETURNING and DELETE …
// RETURNING (10.5 and later; GORM writes them). The parser reads neither
// clause, so such a statement is read as the two parts it does read: the
// write, and its RETURNING list read as a select list. The split is made
// at the one RETURNING keyword outside parentheses, found by the parser's
// own tokenizer (so never inside a literal, a quoted name or a comment),
// and only for a statement that does not parse whole. The write is
// rewritten as any write is; the list is read over the written table as
// a write's SET and WHERE read it: a masked column is returned masked
// (under its own name), a restricted one is ErrColumnDenied, and * is
// expanded to the visible columns. The printed statement is the printed
// write, RETURNING, and the printed list; it is read back the same way
// and checked like any other.

// returningStmt is a write with a RETURNING list.
type returningStmt struct {
	write sqlparser.Statement // *sqlparser.Insert or a single-table *sqlparser.Delete
	list  *sqlparser.SelectExprs
	// listText is the list as the application wrote it, for the names of
	// the result's columns.
	listText string
}

// Format prints the statement; TrackedBuffer hands each part to the
// buffer's node formatter (see format).
func (s *returningStmt) Format(buf *sqlparser.TrackedBuffer) {
	buf.Myprintf("%v returning %v", s.write, s.list)
}

// FormatFast prints the statement as Format does.
func (s *returningStmt) FormatFast(buf *sqlparser.TrackedBuffer) { s.Format(buf) }

// nodes are the parts of the statement that hold table references.
func (s *returningStmt) nodes() []sqlparser.SQLNode {
	return []sqlparser.SQLNode{s.write, s.list}
}

// readReturning reads sql, which did not parse, as a write with a
// RETURNING list. It returns nil when sql is not of that form: then the
// parser's own error stands.
func readReturning(sql string) *returningStmt {
	at := returningKeyword(sql)
	if at < 0 {
		return nil
	}
	head, listText := sql[:at], sql[at+len("returning"):]
	write, err := parse(head)
	if err != nil {
		return nil
	}
	switch w := write.(type) {
	case *sqlparser.Insert:
	case *sqlparser.Delete:
		if _, single := singleTarget(w.TableExprs); !single || len(w.Targets) > 0 {
			return nil // MariaDB returns from single-table deletes only
		}
	default:
		return nil
	}
	list := readSelectList(listText)
	if list == nil {
		return nil
	}
	// The list's placeholders follow the write's: number them on.
	n, ok := numberArgs(write, 0)
	if !ok {
		return nil // a named argument: not something the application wrote
	}
	if _, ok := numberArgs(list, n); !ok {
		return nil
	}
	return &returningStmt{write: write, list: list, listText: listText}
}

// returningKeyword returns the byte offset of the one RETURNING keyword
// outside parentheses in sql, or -1 when there is none or more than one,
// or the tokenizer cannot read sql to its end.
func returningKeyword(sql string) int {
	depth, found, ok := 0, -1, true
	read := tokens(sql, func(t sqlToken) bool {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case t.typ == sqlparser.RETURNING && depth == 0:
			if found >= 0 || !strings.EqualFold(sql[t.start:t.end], "returning") {
				ok = false
				return false
			}
			found = t.start
		}
		return true
	})
	if !read || !ok || depth != 0 {
		return -1
	}
	return found
}

// readSelectList parses text as a select list and nothing more: no FROM,
// INTO, WHERE, … and no SELECT option (the parser would read those as
// the rest of a SELECT), no trailing semicolon. It returns nil otherwise.
func readSelectList(text string) *sqlparser.SelectExprs {
	depth, first, ok := 0, true, true
	read := tokens(text, func(t sqlToken) bool {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth == 0 && (selectListEnds[t.typ] || t.typ == sqlparser.SELECT || t.typ == sqlparser.RETURNING),
			first && t.typ != sqlparser.ID && selectOptions[strings.ToUpper(t.val)]:
			ok = false
			return false
		}
		first = false
		return true
	})
	if !read || !ok || first || depth != 0 {
		return nil
	}
	stmt, err := parse("select " + text)
	if err != nil {
		return nil
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) == 0 || sel.With != nil || sel.Distinct ||
		sel.Into != nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || len(sel.Windows) > 0 ||
		len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Lock != sqlparser.NoLock {
		return nil
	}
	return sel.SelectExprs
}

// returningOf rewrites the pending RETURNING list of the write to ref (sc
// is the write's scope): it returns what the caller may read of the
// written rows. It does nothing for a statement without one.
func (r *rewrite) returningOf(ref *tableRef, sc *scope) error {
	list := r.returning
	if list == nil {
		return nil
	}
	r.returning = nil
	rsc := sc.child()
	rsc.tables = []*tableRef{ref}
	rsc.targets = []*tableRef{ref}
	out := make([]sqlparser.SelectExpr, 0, len(list.Exprs))
	for _, se := range list.Exprs {
		switch e := se.(type) {
		case *sqlparser.StarExpr:
			if q := e.TableName; !q.IsEmpty() && !strings.EqualFold(q.Name.String(), ref.alias) {
				return rewriter.Unsupported("%s.* names no table of the statement", q.Name.String())
			}
			if ref.plan.Passthrough() {
				out = append(out, e)
				continue
			}
			for _, c := range ref.plan.Columns {
				ae := &sqlparser.AliasedExpr{Expr: &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(c.Name)}}
				if _, masked := ref.plan.Mask(c.Name); masked {
					ae.As = sqlparser.NewIdentifierCI(c.Name)
				}
				out = append(out, ae)
			}
		case *sqlparser.AliasedExpr:
			// A masked column keeps its own name, not the mask's text.
			if c, ok := e.Expr.(*sqlparser.ColName); ok && e.As.IsEmpty() && !ref.plan.Passthrough() {
				if _, masked := ref.plan.Mask(c.Name.String()); masked {
					e.As = c.Name
				}
			}
			out = append(out, e)
		default:
			return rewriter.Unsupported("unexpected RETURNING entry")
		}
	}
	list.Exprs = out
	return r.exprs(list, rsc, nil)
}

// errStopWalk ends a walk early.
var errStopWalk = errors.New("stop")

// numberArgs numbers the placeholders of node, which was parsed alone, on
// from the n placeholders before it in the statement (v1 becomes v<n+1>),
// and returns how many it holds. ok is false, and the walk stops, at a
// named argument, which is nothing the application wrote.
func numberArgs(node sqlparser.SQLNode, n int) (count int, ok bool) {
	ok = true
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if a, isArg := node.(*sqlparser.Argument); isArg {
			count++
			i := argIndex(a)
			if i <= 0 {
				ok = false
				return false, errStopWalk
			}
			a.Name = "v" + strconv.Itoa(i+n)
		}
		return true, nil
	}, node)
	return count, ok
}
