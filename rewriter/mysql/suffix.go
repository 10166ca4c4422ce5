package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB clauses that end a SELECT and that the parser does not read,
// read around it as a suffix: the statement without the clause must parse
// as a plain SELECT (no set operation, no INTO), it is checked and
// rewritten as that SELECT, and it is printed as that SELECT is printed
// with the clause after it, printed from what was read. Neither clause
// changes which rows the SELECT reads:
//
//   - a locking read with a timeout, … FOR UPDATE WAIT n and … LOCK IN
//     SHARE MODE WAIT n (the parser reads NOWAIT and SKIP LOCKED): WAIT n
//     is how long the server waits for the rows' locks, and follows the
//     lock, which the printer writes last;
//   - the standard row limit, … [OFFSET n ROW[S]] [FETCH FIRST|NEXT [n]
//     ROW[S] ONLY|WITH TIES] (MariaDB 10.6 and later), with whole numbers:
//     it cuts the SELECT's own result, after its ORDER BY, as LIMIT does,
//     and is read on a SELECT with no LIMIT, locking or INTO of its own,
//     so that it follows the ORDER BY, which the printer then writes last.
//
// The rewritten SELECT must still end where the clause follows (the same
// lock, no LIMIT added), or the statement is refused.

// readLockWait reads sql, which did not parse, as a locking read with
// WAIT n. It returns nil when sql is not one.
func readLockWait(sql string) (*sqlparser.Select, *modifier) {
	l, ok := readTokens(sql)
	n := len(l.toks)
	if !ok || n < 5 || l.word(n-2) != "wait" || l.toks[n-1].typ != sqlparser.INTEGRAL || !l.plain(n-1) {
		return nil, nil
	}
	lock := sqlparser.ForUpdateLock
	switch {
	case l.word(n-4) == "for" && l.word(n-3) == "update":
	case n >= 7 && l.word(n-6) == "lock" && l.word(n-5) == "in" && l.word(n-4) == "share" && l.word(n-3) == "mode":
		lock = sqlparser.ShareModeLock
	default:
		return nil, nil
	}
	seconds := l.text(n - 1)
	if len(seconds) > 9 {
		return nil, nil
	}
	stmt, err := parse(sql[:l.toks[n-2].start])
	if err != nil {
		return nil, nil
	}
	sel, isSelect := stmt.(*sqlparser.Select)
	if !isSelect || sel.Lock != lock || sel.Into != nil {
		return nil, nil
	}
	return sel, &modifier{keyword: "select", words: "wait " + seconds, suffix: true, lock: lock}
}

// readFetch reads sql, which did not parse, as a SELECT with OFFSET …
// ROWS and/or FETCH … ROWS ONLY|WITH TIES. It returns nil when sql is not
// one.
func readFetch(sql string) (*sqlparser.Select, *modifier) {
	l, ok := readTokens(sql)
	if !ok {
		return nil, nil
	}
	depth, at := 0, -1
	for i, t := range l.toks {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth == 0 && at < 0 && (l.word(i) == "offset" || l.word(i) == "fetch"):
			at = i
		}
	}
	if at < 0 {
		return nil, nil
	}
	var words []string
	i := at
	number := func(i int) bool {
		return i < len(l.toks) && l.toks[i].typ == sqlparser.INTEGRAL && l.plain(i) && len(l.text(i)) <= 18
	}
	rows := func(i int) bool { return l.word(i) == "row" || l.word(i) == "rows" }
	if l.word(i) == "offset" {
		if !number(i+1) || !rows(i+2) {
			return nil, nil
		}
		words = append(words, "offset "+l.text(i+1)+" rows")
		i += 3
	}
	ties := false
	if l.word(i) == "fetch" {
		first := l.word(i + 1)
		if first != "first" && first != "next" {
			return nil, nil
		}
		i += 2
		count := ""
		if number(i) {
			count = " " + l.text(i)
			i++
		}
		if !rows(i) {
			return nil, nil
		}
		i++
		switch {
		case l.word(i) == "only":
			words = append(words, "fetch "+first+count+" rows only")
			i++
		case l.word(i) == "with" && l.word(i+1) == "ties":
			words = append(words, "fetch "+first+count+" rows with ties")
			ties = true
			i += 2
		default:
			return nil, nil
		}
	}
	if i != len(l.toks) || len(words) == 0 {
		return nil, nil
	}
	stmt, err := parse(sql[:l.toks[at].start])
	if err != nil {
		return nil, nil
	}
	sel, isSelect := stmt.(*sqlparser.Select)
	if !isSelect || sel.Limit != nil || sel.Lock != sqlparser.NoLock || sel.Into != nil || ties && len(sel.OrderBy) == 0 {
		return nil, nil
	}
	return sel, &modifier{keyword: "select", words: strings.Join(words, " "), suffix: true}
}

// checkSuffix checks that the rewritten SELECT still ends where the
// clause follows: the lock it was read with, and no LIMIT or INTO where
// the clause is a row limit.
func (m *modifier) checkSuffix(stmt sqlparser.Statement) error {
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Into != nil || sel.Lock != m.lock || m.lock == sqlparser.NoLock && sel.Limit != nil {
		return rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return nil
}

// printSuffix puts the clause back after the printed SELECT: after the
// lock it ends with, or after its ORDER BY.
func (m *modifier) printSuffix(text string) (string, error) {
	if m.lock != sqlparser.NoLock && !strings.HasSuffix(text, sqlparser.ForUpdateStr) && !strings.HasSuffix(text, sqlparser.ShareModeStr) {
		return "", rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return text + " " + m.words, nil
}
