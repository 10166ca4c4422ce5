package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's CREATE OR REPLACE TABLE and ALTER ONLINE|IGNORE TABLE. The
// parser reads CREATE TABLE and ALTER TABLE but not these words between
// the first two keywords; a statement that does not parse whole and opens
// with them is read without them (their place found by the parser's
// tokenizer) and must then parse as the plain statement. The statement is
// checked as that statement plus what the words add, and printed as it is
// printed with the words put back after its first keyword, which the
// printer always writes first.
//
//   - OR REPLACE drops the table first if it exists: drop access as well
//     as create.
//   - ONLINE asks the server not to lock the table: nothing to add.
//   - IGNORE deletes the rows that would break a new unique key, rows a
//     filter hides among them: the caller must read the table under no
//     policy and have update access.

// modifier is the words read around the parser in a schema change.
type modifier struct {
	keyword string // the statement's first keyword, as printed: "create", "alter"
	words   string // what follows it, as printed: "or replace", "online", "ignore"
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
	case toks[0].typ == sqlparser.ALTER && toks[2].typ == sqlparser.TABLE && (toks[1].val == "online" || toks[1].typ == sqlparser.IGNORE):
		m, cut = &modifier{keyword: "alter", words: toks[1].val}, [2]int{toks[1].start, toks[1].end}
	default:
		return nil, nil
	}
	stmt, err := parse(sql[:cut[0]] + sql[cut[1]:])
	if err != nil {
		return nil, nil
	}
	switch stmt.(type) {
	case *sqlparser.CreateTable:
		if m.keyword != "create" {
			return nil, nil
		}
	case *sqlparser.AlterTable:
		if m.keyword != "alter" {
			return nil, nil
		}
	default:
		return nil, nil
	}
	return stmt, m
}

// check adds what the words ask of the caller to the checks of the plain
// statement, which the rewrite of stmt has made.
func (m *modifier) check(r *rewrite, stmt sqlparser.Statement) error {
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

// print puts the words back into the printed plain statement.
func (m *modifier) print(text string) (string, error) {
	if !strings.HasPrefix(text, m.keyword+" ") {
		return "", rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return m.keyword + " " + m.words + text[len(m.keyword):], nil
}
