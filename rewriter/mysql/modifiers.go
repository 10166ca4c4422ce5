package mysql

import (
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's CREATE OR REPLACE TABLE and ALTER ONLINE|IGNORE TABLE, and
// the priority words of writes: INSERT LOW_PRIORITY|DELAYED|HIGH_PRIORITY,
// REPLACE LOW_PRIORITY|DELAYED, UPDATE LOW_PRIORITY and DELETE
// [LOW_PRIORITY] [QUICK]. The parser reads the statements but not these
// words right after the first keyword; a statement that opens with them
// is read without them (their place found by the parser's tokenizer) and
// must then parse as the plain statement. The statement is checked as
// that statement plus what the words add, and printed as it is printed
// with the words put back after its first keyword, which the printer
// always writes first.
//
//   - OR REPLACE drops the table first if it exists: drop access as well
//     as create.
//   - ONLINE asks the server not to lock the table: nothing to add.
//   - ALTER IGNORE deletes the rows that would break a new unique key,
//     rows a filter hides among them: the caller must read the table
//     under no policy and have update access.
//   - LOW_PRIORITY, DELAYED, HIGH_PRIORITY and QUICK change when the
//     server writes, or how it frees index space, not which rows: nothing
//     to add. (A write's IGNORE, which the parser reads, turns errors into
//     warnings; sqe refuses a row its write checks reject before the
//     statement is sent, and a row filter keeps hidden rows out of the
//     WHERE, so no guard relies on the server raising an error.)
//
// The parser reads DELETE QUICK FROM t as a multi-table delete of a table
// named QUICK, and INSERT DELAYED … as an insert into a table named
// DELAYED, where the server reads the words as the modifiers: such a
// statement is read as the modified one, whether it parses or not (see
// writeModifierAsName).

// modifier is the words read around the parser in a schema change.
type modifier struct {
	keyword string // the statement's first keyword, as printed: "create", "alter", "delete", …
	words   string // what follows it, as printed: "or replace", "online", "ignore", "low_priority quick", …
	// alter and ifs are an ALTER TABLE's IF [NOT] EXISTS clauses, which
	// are put back inside the statement (see readAlterIfs); words then
	// only describes them.
	alter *sqlparser.AlterTable
	ifs   []alterIf
	// suffix: the words follow the statement instead (a SELECT's WAIT n
	// or row limit, see suffix.go), whose lock is lock.
	suffix bool
	lock   sqlparser.Lock
}

// readModified reads sql, which did not parse, as a CREATE OR REPLACE
// TABLE or ALTER ONLINE|IGNORE TABLE. It returns nil when sql is not one.
func readModified(sql string) (sqlparser.Statement, *modifier) {
	var toks []sqlToken
	tokens(sql, func(t sqlToken) bool {
		t.val = strings.ToLower(t.val)
		toks = append(toks, t)
		return len(toks) < 4
	})
	if len(toks) < 4 {
		return nil, nil
	}
	var m *modifier
	var cut [2]int
	switch {
	case toks[0].typ == sqlparser.CREATE && toks[1].typ == sqlparser.OR && toks[2].typ == sqlparser.REPLACE &&
		(toks[3].typ == sqlparser.TABLE || toks[3].typ == sqlparser.TEMPORARY):
		m, cut = &modifier{keyword: "create", words: "or replace"}, [2]int{toks[1].start, toks[2].end}
	case toks[0].typ == sqlparser.ALTER && toks[1].typ == sqlparser.TABLE:
		if alter, m := readAlterIfs(sql); m != nil {
			return alter, m
		}
		return nil, nil
	case toks[0].typ == sqlparser.ALTER && toks[2].typ == sqlparser.TABLE && (toks[1].val == "online" || toks[1].typ == sqlparser.IGNORE):
		m, cut = &modifier{keyword: "alter", words: toks[1].val}, [2]int{toks[1].start, toks[1].end}
	default:
		words := writeModifiers(sql, toks)
		if len(words) == 0 {
			return nil, nil
		}
		m = &modifier{keyword: toks[0].val, words: strings.Join(words, " ")}
		cut = [2]int{toks[1].start, toks[len(words)].end}
	}
	stmt, err := parse(sql[:cut[0]] + sql[cut[1]:])
	if err != nil {
		return nil, nil
	}
	switch st := stmt.(type) {
	case *sqlparser.CreateTable:
		if m.keyword != "create" {
			return nil, nil
		}
	case *sqlparser.AlterTable:
		if m.keyword != "alter" {
			return nil, nil
		}
	case *sqlparser.Insert:
		if m.keyword != "insert" && m.keyword != "replace" || (st.Action == sqlparser.ReplaceAct) != (m.keyword == "replace") {
			return nil, nil
		}
	case *sqlparser.Update:
		if m.keyword != "update" || st.With != nil {
			return nil, nil
		}
	case *sqlparser.Delete:
		if m.keyword != "delete" || st.With != nil {
			return nil, nil
		}
	default:
		return nil, nil
	}
	return stmt, m
}

// writeModifierWords are the priority words of a write that follow its first
// keyword (toks[0], lower-cased), in the order the server reads them;
// each written as a plain word (a quoted name is none).
var writeModifierWords = map[string][]string{
	"insert":  {"low_priority|delayed|high_priority"},
	"replace": {"low_priority|delayed"},
	"update":  {"low_priority"},
	"delete":  {"low_priority", "quick"},
}

// writeModifiers returns the priority words that follow the first
// keyword of the write toks opens (lower-cased), none for another
// statement.
func writeModifiers(sql string, toks []sqlToken) []string {
	switch toks[0].typ {
	case sqlparser.INSERT, sqlparser.REPLACE, sqlparser.UPDATE, sqlparser.DELETE:
	default:
		return nil
	}
	slots := writeModifierWords[toks[0].val]
	var words []string
	i := 1
	for _, slot := range slots {
		if i >= len(toks) {
			break
		}
		w := strings.ToLower(sql[toks[i].start:toks[i].end])
		if slices.Contains(strings.Split(slot, "|"), w) {
			words = append(words, w)
			i++
		}
	}
	return words
}

// writeModifierAsName reports whether sql, which the parser read as stmt,
// opens with a write's priority word the parser read as a name (DELETE
// QUICK FROM t, INSERT DELAYED …): the server reads the word as the
// modifier, so the parser's reading is not the server's.
func writeModifierAsName(sql string, stmt sqlparser.Statement) (start, end int, found bool) {
	switch stmt.(type) {
	case *sqlparser.Insert, *sqlparser.Delete:
	default:
		return 0, 0, false
	}
	var toks []sqlToken
	tokens(sql, func(t sqlToken) bool {
		if t.typ == sqlparser.COMMENT {
			return true // INSERT /* … */ DELAYED is still the modifier
		}
		t.val = strings.ToLower(t.val)
		toks = append(toks, t)
		return len(toks) < 3
	})
	if len(toks) < 2 || len(writeModifiers(sql, toks)) == 0 {
		return 0, 0, false
	}
	return toks[1].start, toks[1].end, true
}

// check adds what the words ask of the caller to the checks of the plain
// statement, which the rewrite of stmt has made.
func (m *modifier) check(r *rewrite, stmt sqlparser.Statement) error {
	if m.suffix {
		return m.checkSuffix(stmt)
	}
	switch s := stmt.(type) {
	case *sqlparser.CreateTable:
		t, err := r.resolve(s.Table)
		if err != nil {
			return err
		}
		_, err = r.plan(t, policy.Drop)
		return err
	case *sqlparser.AlterTable:
		if m.words != "ignore" {
			return nil
		}
		t, err := r.resolve(s.Table)
		if err != nil {
			return err
		}
		plan, err := r.plan(t, policy.Update)
		if err != nil {
			return err
		}
		if !plan.Decision.Passthrough() {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
				Detail: "ALTER IGNORE TABLE on a table under a read policy could delete rows the policy hides"}
		}
	}
	return nil
}

// print puts the words back into the printed plain statement, printed
// for a connection whose sql_mode has NO_BACKSLASH_ESCAPES or not.
func (m *modifier) print(text string, noBackslashEscapes bool) (string, error) {
	if m.ifs != nil {
		return m.printIfs(text, noBackslashEscapes)
	}
	if m.suffix {
		return m.printSuffix(text)
	}
	if !strings.HasPrefix(text, m.keyword+" ") {
		return "", rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return m.keyword + " " + m.words + text[len(m.keyword):], nil
}
