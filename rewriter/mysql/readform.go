package mysql

import (
	"sync"

	"vitess.io/vitess/go/vt/sqlparser"
)

// readForms keeps the read forms derivedTable parsed, by text: a table's
// read form (TablePlan.DerivedSelect) is the same text for every statement
// that misses the rewrite cache until its policy or its columns change,
// and a copy of the tree costs a fraction of the parse. Failures are not
// remembered.
var readForms struct {
	sync.RWMutex
	m map[string]sqlparser.Statement
}

// maxCachedReadForms bounds readForms; when it is full it starts over.
const maxCachedReadForms = 1024

// parseReadForm parses a table's read form. The caller owns the tree it
// gets (a copy of the cached one).
func parseReadForm(text string) (sqlparser.Statement, error) {
	readForms.RLock()
	stmt, ok := readForms.m[text]
	readForms.RUnlock()
	if ok {
		return deepCloneStatement(stmt), nil
	}
	stmt, err := parse(text)
	if err != nil {
		return nil, err
	}
	readForms.Lock()
	if readForms.m == nil {
		readForms.m = map[string]sqlparser.Statement{}
	}
	if len(readForms.m) >= maxCachedReadForms {
		clear(readForms.m)
	}
	readForms.m[text] = deepCloneStatement(stmt)
	readForms.Unlock()
	return stmt, nil
}

// deepCloneStatement copies stmt entirely, column references included
// (see deepClone).
func deepCloneStatement(stmt sqlparser.Statement) sqlparser.Statement {
	c := sqlparser.CloneStatement(stmt)
	return sqlparser.Rewrite(c, func(cur *sqlparser.Cursor) bool {
		if col, ok := cur.Node().(*sqlparser.ColName); ok {
			cp := *col
			cur.Replace(&cp)
		}
		return true
	}, nil).(sqlparser.Statement)
}
