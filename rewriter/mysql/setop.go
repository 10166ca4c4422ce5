package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// INTERSECT and EXCEPT (MariaDB 10.3 and later, MySQL 8.0.31 and later).
// The parser reads UNION but neither of these, so a query that does not
// parse whole and has one of them outside parentheses is read as its
// operands, split at every set operator outside parentheses (found by the
// parser's tokenizer). Each operand is a query of its own: one plain
// SELECT, or a parenthesized query expression. A plain operand may carry
// no clause that would bind to the whole operation (WITH, ORDER BY,
// LIMIT, INTO, locking); such a query is left unread. Each operand is
// rewritten as a read, and the statement is printed as the operands, each
// in parentheses, joined by the operators as written: the server groups
// them by its own precedence exactly as it grouped the original, because
// each operand was a single query there too. Each operand's placeholders
// are numbered on from those before it.
//
// An ORDER BY or LIMIT after the last operand, outside parentheses,
// binds to the whole operation, as after a UNION; it is read as the
// operation's (and printed after it) when it orders by result columns
// only, by position or by bare name, and limits by numbers or
// placeholders: it then reads no table and sees only the operands' results,
// which are already read through their policies. Any other such clause
// leaves the query unread.

// setOpStmt is a query of operands joined by set operators.
type setOpStmt struct {
	operands []sqlparser.TableStatement
	// ops[i] joins operands[i] and operands[i+1]: "union", "intersect
	// all", "except distinct", …
	ops []string
	// firstText is the first operand as written, for the names of the
	// result's columns.
	firstText string
	// orderBy and limit bind to the whole operation (nil: none).
	orderBy sqlparser.OrderBy
	limit   *sqlparser.Limit
}

// Format prints the statement; TrackedBuffer hands each operand to the
// buffer's node formatter (see format).
func (s *setOpStmt) Format(buf *sqlparser.TrackedBuffer) {
	for i, op := range s.operands {
		if i > 0 {
			buf.WriteString(" " + s.ops[i-1] + " ")
		}
		buf.Myprintf("(%v)", op)
	}
	buf.Myprintf("%v%v", s.orderBy, s.limit)
}

// FormatFast prints the statement as Format does.
func (s *setOpStmt) FormatFast(buf *sqlparser.TrackedBuffer) { s.Format(buf) }

// nodes are the operands.
func (s *setOpStmt) nodes() []sqlparser.SQLNode {
	out := make([]sqlparser.SQLNode, len(s.operands))
	for i, op := range s.operands {
		out[i] = op
	}
	return out
}

// readSetOperation reads sql, which did not parse, as operands joined by
// set operators, at least one of them INTERSECT or EXCEPT. It returns nil
// when sql is not of that form: then the parser's own error stands.
func readSetOperation(sql string) *setOpStmt {
	depth := 0
	var texts, ops []string
	start := 0       // of the current operand
	op := ""         // the operator before the current operand
	afterOp := false // the last token was op's
	other := false   // an INTERSECT or EXCEPT was seen
	ok := true
	read := tokens(sql, func(t sqlToken) bool {
		word := ""
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth != 0:
		case t.typ == sqlparser.UNION:
			word = "union"
		case t.typ == sqlparser.EXCEPT || t.typ == sqlparser.ID && strings.EqualFold(t.val, "except"):
			word, other = "except", true
		case t.typ == sqlparser.ID && strings.EqualFold(t.val, "intersect"):
			word, other = "intersect", true
		case afterOp && (t.typ == sqlparser.ALL || t.typ == sqlparser.DISTINCT):
			op += " " + strings.ToLower(t.val)
			start, afterOp = t.end, false
			return true
		case t.typ == ';':
			ok = false
			return false
		}
		afterOp = false
		if word != "" {
			if op != "" && strings.TrimSpace(sql[start:t.start]) == "" {
				ok = false // two operators in a row
				return false
			}
			texts = append(texts, sql[start:t.start])
			if op != "" {
				ops = append(ops, op)
			}
			op, start, afterOp = word, t.end, true
		}
		return true
	})
	if !read || !ok {
		return nil
	}
	if !other || depth != 0 || op == "" {
		return nil
	}
	last, tail := splitTail(sql[start:])
	texts = append(texts, last)
	ops = append(ops, op)
	s := &setOpStmt{ops: ops, firstText: texts[0]}
	args := 0
	for _, text := range texts {
		operand := readOperand(text)
		if operand == nil {
			return nil
		}
		n, ok := numberArgs(operand, args)
		if !ok {
			return nil
		}
		args += n
		s.operands = append(s.operands, operand)
	}
	if tail != "" {
		if s.orderBy, s.limit = readTail(tail); s.orderBy == nil && s.limit == nil {
			return nil
		}
		if _, ok := numberArgs(s.limit, args); !ok {
			return nil
		}
	}
	return s
}

// splitTail splits the last operand's text at its first ORDER or LIMIT
// outside parentheses: what binds to the whole operation.
func splitTail(text string) (operand, tail string) {
	depth, at := 0, -1
	tokens(text, func(t sqlToken) bool {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth == 0 && (t.typ == sqlparser.ORDER || t.typ == sqlparser.LIMIT):
			at = t.start
			return false
		}
		return true
	})
	if at < 0 {
		return text, ""
	}
	return text[:at], text[at:]
}

// readTail reads the operation's ORDER BY and LIMIT: result columns by
// position or bare name, a count and an offset that are numbers or
// placeholders. Both are nil when tail is anything else.
func readTail(tail string) (sqlparser.OrderBy, *sqlparser.Limit) {
	stmt, err := parse("select 1 from dual " + tail)
	if err != nil {
		return nil, nil
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Into != nil || sel.Lock != sqlparser.NoLock || len(sel.From) != 1 || sel.Where != nil ||
		sel.GroupBy != nil || sel.Having != nil || len(sel.Windows) != 0 || len(sel.OrderBy) == 0 && sel.Limit == nil {
		return nil, nil
	}
	for _, o := range sel.OrderBy {
		switch e := o.Expr.(type) {
		case *sqlparser.Literal:
			if e.Type != sqlparser.IntVal {
				return nil, nil
			}
		case *sqlparser.ColName:
			if !e.Qualifier.IsEmpty() {
				return nil, nil
			}
		default:
			return nil, nil
		}
	}
	if checkLimit(sel.Limit) != nil {
		return nil, nil
	}
	return sel.OrderBy, sel.Limit
}

// readOperand parses one operand: a parenthesized query, or a plain
// SELECT with no clause that binds to the whole operation.
func readOperand(text string) sqlparser.TableStatement {
	trimmed := strings.TrimSpace(text)
	stmt, err := parse(trimmed)
	if err != nil {
		return nil
	}
	ts, ok := stmt.(sqlparser.TableStatement)
	if !ok {
		return nil
	}
	if enclosed(trimmed) {
		return ts
	}
	sel, ok := ts.(*sqlparser.Select)
	if !ok || sel.With != nil || len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Into != nil || sel.Lock != sqlparser.NoLock {
		return nil
	}
	return sel
}

// enclosed reports whether text is one parenthesized whole: its first
// parenthesis closes at its end.
func enclosed(text string) bool {
	if !strings.HasPrefix(text, "(") {
		return false
	}
	depth, closedAt := 0, -1
	read := tokens(text, func(t sqlToken) bool {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				closedAt = t.end
				return false
			}
		}
		return true
	})
	return read && closedAt >= 0 && strings.TrimSpace(text[closedAt:]) == ""
}

// setOperation rewrites each operand as a read.
func (r *rewrite) setOperation(s *setOpStmt) (*rewriter.Result, error) {
	root := &scope{}
	for _, op := range s.operands {
		if err := r.tableStatement(op, root); err != nil {
			return &rewriter.Result{Kind: rewriter.KindSelect}, err
		}
	}
	return &rewriter.Result{Kind: rewriter.KindSelect}, nil
}

// reservedAsName returns the byte offsets of an unquoted INTERSECT or
// EXCEPT that the parser would read as a name (SELECT id FROM t
// INTERSECT reads as an alias): both are reserved words to MySQL and
// MariaDB, which refuse such a statement, and sqe sends nothing the server
// would read otherwise. It returns -1, -1 when there is none.
func reservedAsName(sql string) (int, int) {
	if !containsFold(sql, "intersect") && !containsFold(sql, "except") {
		return -1, -1
	}
	start, end := -1, -1
	tokens(sql, func(t sqlToken) bool {
		if t.typ == sqlparser.ID && (strings.EqualFold(t.val, "intersect") || strings.EqualFold(t.val, "except")) &&
			strings.EqualFold(sql[t.start:t.end], t.val) {
			start, end = t.start, t.end
			return false
		}
		return true
	})
	return start, end
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case. It runs on every statement that parses, the printed ones
// with their masks' long literals included, so it finds the candidates,
// the word's first letter in either case, with strings.IndexByte and
// compares whole words only there.
func containsFold(s, w string) bool {
	lower, upper := w[0], w[0]&^0x20
	nextLower, nextUpper := indexFrom(s, lower, 0), indexFrom(s, upper, 0)
	for {
		at := nextLower
		if at < 0 || (nextUpper >= 0 && nextUpper < at) {
			at = nextUpper
		}
		if at < 0 || at+len(w) > len(s) {
			return false
		}
		if strings.EqualFold(s[at:at+len(w)], w) {
			return true
		}
		if at == nextLower {
			nextLower = indexFrom(s, lower, at+1)
		} else {
			nextUpper = indexFrom(s, upper, at+1)
		}
	}
}

// indexFrom is the index of the first c in s at or after from, or -1.
func indexFrom(s string, c byte, from int) int {
	i := strings.IndexByte(s[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}
