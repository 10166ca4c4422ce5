package mysql

import (
	"context"
	"regexp"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's SET STATEMENT var = value [, var = value] … FOR statement
// sets session variables for the one statement that follows. The parser
// does not read it. sqe reads the prefix itself with the parser's
// tokenizer and the statement after FOR as any statement, which must be a
// query or a write; the rewritten statement is printed after the prefix,
// which is printed from what was read.
//
// The variables are an allow-list of those that bound how long the
// statement may run or wait for locks, with a number as value: none of
// them changes how the statement is read, which rows it reads or what it
// returns. Any other variable (sql_mode, which changes how the server
// reads the statement, among them) is refused, naming it, until someone
// decides it is safe.
var statementSettings = map[string]bool{
	"max_statement_time":       true,
	"lock_wait_timeout":        true,
	"innodb_lock_wait_timeout": true,
}

// settingValue is a number as the prefix may give it: digits, and a
// fraction for max_statement_time (seconds).
var settingValue = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,6})?$`)

// statementSet is the prefix of a SET STATEMENT … FOR, as read.
type statementSet struct {
	prefix string // printed: "SET STATEMENT max_statement_time = 1 FOR "
	body   int    // byte offset of the statement after FOR
}

// readStatementSet reads sql as SET STATEMENT … FOR …. found is false when
// sql does not open with SET STATEMENT; err is set when it does and the
// prefix is not one sqe reads (the error names the variable refused).
func readStatementSet(sql string) (set statementSet, found bool, err error) {
	l, ok := readTokens(sql)
	if !ok || len(l.toks) < 2 || l.toks[0].typ != sqlparser.SET || l.word(1) != "statement" {
		return statementSet{}, false, nil
	}
	notRead := rewriter.Unsupported("this form of SET STATEMENT … FOR is not read by sqe: it takes a list of variable = number, then FOR and one statement")
	var b strings.Builder
	b.WriteString("SET STATEMENT ")
	i := 2
	for {
		if i+3 > len(l.toks) || !l.plain(i) || !isWordToken(l.text(i)) || l.toks[i+1].typ != '=' || !l.plain(i+1) {
			return statementSet{}, true, notRead
		}
		name := strings.ToLower(l.text(i))
		if !statementSettings[name] {
			return statementSet{}, true, rewriter.Unsupported("SET STATEMENT of the variable %s is not supported through sqe: only %s are read", name, "max_statement_time, lock_wait_timeout and innodb_lock_wait_timeout")
		}
		value := l.text(i + 2)
		if !l.plain(i+2) || !settingValue.MatchString(value) {
			return statementSet{}, true, rewriter.Unsupported("SET STATEMENT %s takes a plain number through sqe", name)
		}
		b.WriteString(name + " = " + value)
		i += 3
		if i < len(l.toks) && l.toks[i].typ == ',' {
			b.WriteString(", ")
			i++
			continue
		}
		break
	}
	if i+1 >= len(l.toks) || l.toks[i].typ != sqlparser.FOR || !l.plain(i) {
		return statementSet{}, true, notRead
	}
	b.WriteString(" FOR ")
	return statementSet{prefix: b.String(), body: l.toks[i].end}, true, nil
}

// text is token i's source text.
func (l tokenList) text(i int) string { return l.sql[l.toks[i].start:l.toks[i].end] }

// plain reports whether token i is exactly its own text with only blanks
// before it: a word, number or mark, not a quoted name or string, with no
// comment the tokenizer skipped.
func (l tokenList) plain(i int) bool {
	t := l.toks[i]
	src := l.sql[t.start:t.end]
	if t.typ == sqlparser.COMMENT || src == "" || src[0] == '`' || src[0] == '\'' || src[0] == '"' {
		return false
	}
	if t.typ > 0 && t.typ < 256 {
		return len(src) == 1
	}
	return strings.EqualFold(src, t.val)
}

// opensWithSet reports whether sql's first word is SET, before it is read
// with the tokenizer.
func opensWithSet(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n")
	return len(s) > 3 && strings.EqualFold(s[:3], "set") && isBlank(s[3])
}

// rewriteWithSettings rewrites the statement after FOR of a SET STATEMENT
// (sql, at byte offset at of the request's text) and puts the prefix
// back before it. That statement must be a query or a write, and no
// SET STATEMENT again (the server refuses those).
func rewriteWithSettings(ctx context.Context, req *rewriter.Request, sql string, at int, set statementSet) (*rewriter.Result, error) {
	body := sql[set.body:]
	if opensWithSet(body) {
		return nil, rewriter.Unsupported("SET STATEMENT … FOR is read through sqe with a query or a write after FOR")
	}
	res, err := rewriteOne(ctx, req, body, at+set.body)
	if err != nil {
		return nil, err
	}
	switch res.Kind {
	case rewriter.KindSelect, rewriter.KindInsert, rewriter.KindUpdate, rewriter.KindDelete:
	default:
		return nil, rewriter.Unsupported("SET STATEMENT … FOR is read through sqe with a query or a write after FOR")
	}
	res.SQL = set.prefix + res.SQL
	return res, nil
}
