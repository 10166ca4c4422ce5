package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// GET [CURRENT|STACKED] DIAGNOSTICS target = item[, …] and GET …
// DIAGNOSTICS CONDITION n target = item[, …]. The parser reads neither;
// the statement is read by the parser's tokenizer (the targets user
// variables, the items the server's item names) so that it is refused
// for what it reads, not as a statement that does not parse. Every form
// is refused:
//
//   - the statement items, NUMBER and ROW_COUNT, report the previous
//     statement on the connection, which database/sql may have handed
//     to another caller: they are @@warning_count and ROW_COUNT(), which
//     sqe refuses for that reason;
//   - the condition items (MESSAGE_TEXT, MYSQL_ERRNO, …) report the
//     previous statement's errors and warnings, whose messages may hold a
//     value of a row the caller may not see (a duplicate key, a value
//     that did not convert).

// diagnosticsStmt is a GET DIAGNOSTICS.
type diagnosticsStmt struct {
	condition bool     // GET DIAGNOSTICS CONDITION n …
	items     []string // the item names, upper-cased
}

// Format prints the statement's form (it is never sent).
func (s *diagnosticsStmt) Format(buf *sqlparser.TrackedBuffer) {
	buf.WriteString("get diagnostics")
	if s.condition {
		buf.WriteString(" condition")
	}
}

// FormatFast prints the statement as Format does.
func (s *diagnosticsStmt) FormatFast(buf *sqlparser.TrackedBuffer) { s.Format(buf) }

// nodes are the parts of the statement that hold table references: none.
func (s *diagnosticsStmt) nodes() []sqlparser.SQLNode { return nil }

// diagnosticsItems are the item names of each form.
var diagnosticsItems = map[bool][]string{
	false: {"NUMBER", "ROW_COUNT"},
	true: {"CLASS_ORIGIN", "SUBCLASS_ORIGIN", "RETURNED_SQLSTATE", "MESSAGE_TEXT", "MYSQL_ERRNO",
		"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "CATALOG_NAME", "SCHEMA_NAME",
		"TABLE_NAME", "COLUMN_NAME", "CURSOR_NAME", "ROW_NUMBER"},
}

// readDiagnostics reads sql, which did not parse, as a GET DIAGNOSTICS.
// It returns nil when sql is not one.
func readDiagnostics(sql string) *diagnosticsStmt {
	l, ok := readTokens(sql)
	if !ok {
		return nil
	}
	toks, word := l.toks, l.word
	if word(0) != "get" {
		return nil
	}
	i := 1
	if word(i) == "current" || word(i) == "stacked" {
		i++
	}
	if word(i) != "diagnostics" {
		return nil
	}
	i++
	s := &diagnosticsStmt{}
	if word(i) == "condition" {
		// The condition number: an integer or a user variable.
		if i+1 >= len(toks) || toks[i+1].typ != sqlparser.INTEGRAL && !strings.HasPrefix(word(i+1), "@") {
			return nil
		}
		s.condition, i = true, i+2
	}
	for {
		// target = item, the target a user variable.
		if !strings.HasPrefix(word(i), "@") || strings.HasPrefix(word(i), "@@") || word(i+1) != "=" {
			return nil
		}
		item := strings.ToUpper(word(i + 2))
		found := false
		for _, known := range diagnosticsItems[s.condition] {
			found = found || item == known
		}
		if !found {
			return nil
		}
		s.items = append(s.items, item)
		i += 3
		if i == len(toks) {
			return s
		}
		if word(i) != "," {
			return nil
		}
		i++
	}
}

// diagnostics refuses a GET DIAGNOSTICS (see diagnosticsStmt).
func (r *rewrite) diagnostics(s *diagnosticsStmt) (*rewriter.Result, error) {
	if s.condition {
		return nil, rewriter.Unsupported("GET DIAGNOSTICS CONDITION is not supported through sqe: a condition's message may hold a value of a row the caller may not see")
	}
	return nil, rewriter.Unsupported("GET DIAGNOSTICS %s is not supported through sqe: it reports the previous statement on the connection, which may be another caller's (as @@warning_count and ROW_COUNT() do)", strings.Join(s.items, ", "))
}
