package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's locking reads with a timeout, SELECT … FOR UPDATE WAIT n and
// SELECT … LOCK IN SHARE MODE WAIT n (n seconds), which the parser does
// not read (it reads NOWAIT and SKIP LOCKED). A statement that ends with
// FOR UPDATE or LOCK IN SHARE MODE and then WAIT and a whole number is
// read as the locking read without WAIT n, found by the parser's
// tokenizer, and must then parse as a SELECT that takes that lock and
// ends with it (no INTO, no set operation). WAIT n changes how long the
// server waits for the rows' locks, not which rows it reads: the read is
// checked as the plain locking read, and printed as it is printed with
// WAIT n after the lock, which the printer writes last.

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
	return sel, &modifier{keyword: "select", words: "wait " + seconds, suffix: true}
}

// printSuffix puts WAIT n back after the lock the printed statement ends
// with.
func (m *modifier) printSuffix(text string) (string, error) {
	if !strings.HasSuffix(text, sqlparser.ForUpdateStr) && !strings.HasSuffix(text, sqlparser.ShareModeStr) {
		return "", rewriter.Unsupported("the rewritten statement does not print faithfully")
	}
	return text + " " + m.words, nil
}
