package mysql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's CREATE, ALTER and DROP SEQUENCE (10.3 and later). The parser
// reads none of them, so a MariaDB statement that does not parse and
// opens with them is read by the parser's tokenizer: the words of the
// statement, each sequence name (which must parse alone as a table name),
// and the sequence options, each a fixed phrase with an integer. As the
// PostgreSQL dialect decided, a sequence is named in the policy as a table
// of its database: CREATE SEQUENCE needs create on it (and drop with OR
// REPLACE, which drops it first), ALTER SEQUENCE alter, DROP SEQUENCE drop.
// Any other option (a table option such as ENGINE or COMMENT, MariaDB
// 11.5's AS type, DROP's RESTRICT / CASCADE) is refused. The sequence
// functions (NEXT VALUE FOR, NEXTVAL, LASTVAL, SETVAL) stay refused: a
// sequence counts rows a filter hides, and NEXTVAL writes.
//
// The statement is printed in one canonical spelling of each option and
// read back by the same reading for the printed-statement check.

// sequenceStmt is a CREATE, ALTER or DROP SEQUENCE.
type sequenceStmt struct {
	verb      string // "create", "alter", "drop"
	orReplace bool   // CREATE OR REPLACE
	temporary bool   // CREATE TEMPORARY
	ifExists  bool   // IF EXISTS (ALTER, DROP) or IF NOT EXISTS (CREATE)
	names     []sqlparser.TableName
	options   []sequenceOption
	// unread is the first word of an option sqe does not read (refused
	// by the rewrite, naming the sequence), empty when every option is read.
	unread string
}

// sequenceOption is one option in its printed spelling: phrase and, for
// options that take one, the integer.
type sequenceOption struct {
	phrase string // "increment by", "minvalue", "no maxvalue", "restart with", …
	value  int64
	valued bool
}

// Format prints the statement; TrackedBuffer hands each name to the
// buffer's node formatter (see format).
func (s *sequenceStmt) Format(buf *sqlparser.TrackedBuffer) {
	buf.WriteString(s.verb)
	if s.orReplace {
		buf.WriteString(" or replace")
	}
	if s.temporary {
		buf.WriteString(" temporary")
	}
	buf.WriteString(" sequence ")
	if s.ifExists {
		if s.verb == "create" {
			buf.WriteString("if not exists ")
		} else {
			buf.WriteString("if exists ")
		}
	}
	for i, n := range s.names {
		if i > 0 {
			buf.WriteString(", ")
		}
		buf.Myprintf("%v", n)
	}
	for _, o := range s.options {
		buf.WriteString(" " + o.phrase)
		if o.valued {
			buf.WriteString(" " + strconv.FormatInt(o.value, 10))
		}
	}
}

// FormatFast prints the statement as Format does.
func (s *sequenceStmt) FormatFast(buf *sqlparser.TrackedBuffer) { s.Format(buf) }

// nodes are the parts of the statement that hold table references: none
// (a sequence name is a schema change's target, as DROP TABLE's names).
func (s *sequenceStmt) nodes() []sqlparser.SQLNode { return nil }

// kind is the statement's kind for the printed-statement check: its words
// and options, without the names.
func (s *sequenceStmt) kind() string {
	c := *s
	c.names = nil
	return strings.ToUpper(sqlparser.String(&c))
}

// readSequence reads sql, which did not parse, as a CREATE, ALTER or DROP
// SEQUENCE. It returns nil when sql is not one: then the parser's own
// error stands.
func readSequence(sql string) *sequenceStmt {
	l, ok := readTokens(sql)
	if !ok {
		return nil
	}
	toks, word := l.toks, l.word
	s := &sequenceStmt{verb: word(0)}
	i := 1
	switch s.verb {
	case "create":
		if word(i) == "or" && word(i+1) == "replace" {
			s.orReplace, i = true, i+2
		}
		if word(i) == "temporary" {
			s.temporary, i = true, i+1
		}
	case "alter", "drop":
	default:
		return nil
	}
	if word(i) != "sequence" {
		return nil
	}
	i++
	if s.verb == "create" && word(i) == "if" && word(i+1) == "not" && word(i+2) == "exists" {
		s.ifExists, i = true, i+3
	} else if s.verb != "create" && word(i) == "if" && word(i+1) == "exists" {
		s.ifExists, i = true, i+2
	}
	if s.names, i, ok = l.tableNames(i, s.verb == "drop"); !ok {
		return nil
	}
	// The options, each a phrase and, where it takes one, an integer.
	integer := func() bool {
		neg := false
		if word(i) == "-" || word(i) == "+" {
			neg, i = word(i) == "-", i+1
		}
		if i >= len(toks) || toks[i].typ != sqlparser.INTEGRAL {
			return false
		}
		v, err := strconv.ParseInt(toks[i].val, 10, 64)
		if err != nil {
			return false
		}
		if neg {
			v = -v
		}
		s.options[len(s.options)-1].value, s.options[len(s.options)-1].valued = v, true
		i++
		return true
	}
	for i < len(toks) {
		w := word(i)
		i++
		optional := func(words ...string) {
			for _, x := range words {
				if word(i) == x {
					i++
					return
				}
			}
		}
		var read bool
		switch {
		case s.verb == "drop":
		case w == "increment":
			s.options = append(s.options, sequenceOption{phrase: "increment by"})
			optional("by", "=")
			read = integer()
		case w == "start":
			s.options = append(s.options, sequenceOption{phrase: "start with"})
			optional("with", "=")
			read = integer()
		case w == "minvalue", w == "maxvalue", w == "cache":
			s.options = append(s.options, sequenceOption{phrase: w})
			optional("=")
			read = integer()
		case w == "nominvalue", w == "nomaxvalue":
			s.options = append(s.options, sequenceOption{phrase: "no " + w[2:]})
			read = true
		case w == "no" && (word(i) == "minvalue" || word(i) == "maxvalue"):
			// NO CYCLE is not MariaDB's: NOCYCLE is.
			s.options = append(s.options, sequenceOption{phrase: "no " + word(i)})
			i, read = i+1, true
		case w == "cycle", w == "nocycle", w == "nocache":
			s.options = append(s.options, sequenceOption{phrase: w})
			read = true
		case w == "restart" && s.verb == "alter":
			s.options = append(s.options, sequenceOption{phrase: "restart"})
			if word(i) == "with" || word(i) == "=" {
				i++
				s.options[len(s.options)-1].phrase = "restart with"
				read = integer()
			} else if word(i) == "-" || word(i) == "+" || i < len(toks) && toks[i].typ == sqlparser.INTEGRAL {
				s.options[len(s.options)-1].phrase = "restart with"
				read = integer()
			} else {
				read = true
			}
		}
		if !read {
			// Named only when it is a word: a literal could hold a value.
			s.unread = "an option sqe does not read"
			if isWord(w) {
				s.unread = strings.ToUpper(w)
			}
			return s
		}
	}
	return s
}

// isWord reports whether w is letters and underscores only.
func isWord(w string) bool {
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return w != ""
}

// sequenceName parses text as one table name, as the parser reads it in
// DROP TABLE.
func sequenceName(text string) (sqlparser.TableName, bool) {
	stmt, err := parse("drop table " + text)
	if err != nil {
		return sqlparser.TableName{}, false
	}
	d, ok := stmt.(*sqlparser.DropTable)
	if !ok || len(d.FromTables) != 1 || d.IfExists || d.Temp {
		return sqlparser.TableName{}, false
	}
	return d.FromTables[0], true
}

// tableNames reads the table names from token i on: one, or with list
// a comma-separated list. Each name is one token or two joined by a dot,
// and must parse alone as a table name. It returns the token after the
// names; ok is false when there is no name there.
func (l tokenList) tableNames(i int, list bool) (names []sqlparser.TableName, next int, ok bool) {
	for {
		end := i + 1
		if l.word(i+1) == "." {
			end = i + 3
		}
		if end > len(l.toks) {
			return nil, i, false
		}
		name, ok := sequenceName(l.sql[l.toks[i].start:l.toks[end-1].end])
		if !ok {
			return nil, i, false
		}
		names = append(names, name)
		i = end
		if !list || l.word(i) != "," {
			return names, i, true
		}
		i++
	}
}

// sequence checks a CREATE, ALTER or DROP SEQUENCE: each sequence is a
// table of its database to the policy.
func (r *rewrite) sequence(s *sequenceStmt) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindDDL, Effect: rewriter.Effect{InvalidateCatalog: true}}
	var access []policy.Access
	switch s.verb {
	case "create":
		access = []policy.Access{policy.Create}
		if s.orReplace {
			access = append(access, policy.Drop)
		}
		if s.temporary {
			res.Effect.Holds = rewriter.HoldsTemporaryTable
		}
	case "alter":
		access = []policy.Access{policy.Alter}
	default:
		access = []policy.Access{policy.Drop}
	}
	for _, n := range s.names {
		t, err := r.resolve(n)
		if err != nil {
			return nil, err
		}
		for _, a := range access {
			if _, err := r.plan(t, a); err != nil {
				return nil, err
			}
		}
		if s.unread != "" {
			return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
				Detail: strings.ToUpper(s.verb) + " SEQUENCE with " + s.unread + " is not supported through sqe: only the numeric sequence options are"}
		}
	}
	return res, nil
}
