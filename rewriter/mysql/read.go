package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// reading is a statement as sqe reads it: what the parser read, or one
// of the forms sqe reads around the parser, as parts the parser reads
// (SET :=, CREATE OR REPLACE / ALTER ONLINE|IGNORE TABLE, the priority
// words of writes, INTERSECT /
// EXCEPT, CHECK / CHECKSUM TABLE, GET DIAGNOSTICS, MariaDB's RETURNING
// and sequence statements).
type reading struct {
	// stmt is the statement the rewrite works on: the parsed one, a
	// RETURNING's write, nil for the other compounds.
	stmt sqlparser.Statement
	// node is what is verified and printed: stmt, or a compound of parts
	// (returningStmt, setOpStmt, sequenceStmt, tableCheckStmt).
	node sqlparser.SQLNode
	// mod holds the words put back into the printed schema change.
	mod *modifier
}

// read reads one statement; an error is the parser's, for a statement
// of no form sqe reads. mariaDB admits MariaDB's own forms.
func read(sql string, mariaDB bool) (reading, error) {
	stmt, err := parse(sql)
	if err == nil {
		if start, end := reservedAsName(sql); start >= 0 {
			return reading{}, reservedName{start, end}
		}
		if start, end, found := writeModifierAsName(sql, stmt); found {
			if plain, m := readModified(sql); m != nil {
				return reading{stmt: plain, node: plain, mod: m}, nil
			}
			return reading{}, reservedName{start, end}
		}
		return reading{stmt: stmt, node: stmt}, nil
	}
	if set, ok := readSetAssignments(sql); ok {
		return reading{stmt: set, node: set}, nil
	}
	if plain, m := readModified(sql); m != nil {
		return reading{stmt: plain, node: plain, mod: m}, nil
	}
	if mariaDB {
		if sel, m := readLockWait(sql); m != nil {
			return reading{stmt: sel, node: sel, mod: m}, nil
		}
		if sel, m := readFetch(sql); m != nil {
			return reading{stmt: sel, node: sel, mod: m}, nil
		}
	}
	if so := readSetOperation(sql); so != nil {
		return reading{node: so}, nil
	}
	if tc := readTableCheck(sql); tc != nil {
		return reading{node: tc}, nil
	}
	if gd := readDiagnostics(sql); gd != nil {
		return reading{node: gd}, nil
	}
	if mariaDB {
		if ret := readReturning(sql); ret != nil {
			return reading{stmt: ret.write, node: ret}, nil
		}
		if seq := readSequence(sql); seq != nil {
			return reading{node: seq}, nil
		}
	}
	return reading{}, err
}

// reservedName is read's error for an unquoted INTERSECT or EXCEPT the
// parser read as a name (see reservedAsName), or a write's priority word
// it read as a name where the server reads the modifier (see
// writeModifierAsName): its byte offsets.
type reservedName struct{ start, end int }

func (e reservedName) Error() string { return "a reserved word read as a name" }

// printed is what the printed statement must keep of the reading (see
// printedOf), the schema change's words included.
func (rd reading) printed(refs []*sqlparser.AliasedTableExpr) rewriter.Printed {
	p := printedOf(rd.node, refs)
	if rd.mod != nil {
		p.Kind += " " + rd.mod.words
	}
	return p
}
