package mysql

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// MariaDB's IF [NOT] EXISTS inside ALTER TABLE: ADD [COLUMN] IF NOT
// EXISTS, DROP [COLUMN] IF EXISTS, ADD {INDEX|KEY|UNIQUE …} IF NOT EXISTS,
// DROP {INDEX|KEY} IF EXISTS, DROP FOREIGN KEY IF EXISTS, DROP CONSTRAINT
// IF EXISTS, MODIFY [COLUMN] IF EXISTS and CHANGE [COLUMN] IF EXISTS. The
// parser reads none of these words. An ALTER TABLE that does not parse
// and has them, outside parentheses and right after the words that open
// one of those clauses (found by the parser's tokenizer), is read without
// them and must then parse as the plain ALTER TABLE, with one alter
// option per clause. It needs the access of the plain statement: the
// words only make the server skip a clause whose object exists (or does
// not). It is printed as the plain statement with the words put back
// into each clause, after the words the printer writes to open it; the
// printed clause must open with them, or the statement is refused.

// alterIf is the IF [NOT] EXISTS of one clause of an ALTER TABLE.
type alterIf struct {
	option int    // the clause's index in AlterOptions
	words  string // "if exists", "if not exists"
	// after is how the printed clause opens: the words go after it.
	after string
}

// alterIfLeads are the words that open a clause that may carry IF [NOT]
// EXISTS, as written (lower-cased, space-separated), with how the
// printer opens the clause the parser reads from them.
var alterIfLeads = map[string]string{
	"add":                "add column ",
	"add column":         "add column ",
	"add index":          "add key ",
	"add key":            "add key ",
	"add unique":         "add unique key ",
	"add unique index":   "add unique key ",
	"add unique key":     "add unique key ",
	"add fulltext":       "add fulltext key ",
	"add fulltext index": "add fulltext key ",
	"add fulltext key":   "add fulltext key ",
	"add spatial":        "add spatial key ",
	"add spatial index":  "add spatial key ",
	"add spatial key":    "add spatial key ",
	"drop":               "drop column ",
	"drop column":        "drop column ",
	"drop index":         "drop key ",
	"drop key":           "drop key ",
	"drop foreign key":   "drop foreign key ",
	"drop constraint":    "drop constraint ",
	"modify":             "modify column ",
	"modify column":      "modify column ",
	"change":             "change column ",
	"change column":      "change column ",
}

// readAlterIfs reads sql, an ALTER TABLE that did not parse, as one with
// IF [NOT] EXISTS clauses. It returns nil when sql is not one.
func readAlterIfs(sql string) (*sqlparser.AlterTable, *modifier) {
	var toks []sqlToken
	if !tokens(sql, func(t sqlToken) bool {
		toks = append(toks, t)
		return true
	}) {
		return nil, nil
	}
	word := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return strings.ToLower(sql[toks[i].start:toks[i].end])
	}
	if word(0) != "alter" || word(1) != "table" || len(toks) < 4 {
		return nil, nil
	}
	// The clauses start after the table name (one token, or two joined by
	// a dot) and after every comma outside parentheses.
	first := 3
	if word(3) == "." {
		first = 5
	}
	var ifs []alterIf
	var cuts [][2]int
	option, optStart, depth := 0, first, 0
	for i := first; i < len(toks); i++ {
		w := word(i)
		switch {
		case w == "(":
			depth++
		case w == ")":
			depth--
		case depth != 0:
		case w == ",":
			option, optStart = option+1, i+1
		case w == "if" && (word(i+1) == "exists" || word(i+1) == "not" && word(i+2) == "exists"):
			var lead []string
			for j := optStart; j < i; j++ {
				lead = append(lead, word(j))
			}
			after, ok := alterIfLeads[strings.Join(lead, " ")]
			if !ok {
				return nil, nil
			}
			// ADD takes IF NOT EXISTS, the others IF EXISTS.
			add := strings.HasPrefix(after, "add ")
			words := "if exists"
			if add {
				words = "if not exists"
			}
			n := len(strings.Fields(words))
			if add != (word(i+1) == "not") {
				return nil, nil
			}
			ifs = append(ifs, alterIf{option: option, words: words, after: after})
			cuts = append(cuts, [2]int{toks[i].start, toks[i+n-1].end})
			i += n - 1
		}
	}
	if len(ifs) == 0 || depth != 0 {
		return nil, nil
	}
	var plain strings.Builder
	last := 0
	for _, c := range cuts {
		plain.WriteString(sql[last:c[0]])
		last = c[1]
	}
	plain.WriteString(sql[last:])
	stmt, err := parse(plain.String())
	if err != nil {
		return nil, nil
	}
	alter, ok := stmt.(*sqlparser.AlterTable)
	if !ok || alter.PartitionSpec != nil || alter.PartitionOption != nil || len(alter.AlterOptions) != option+1 {
		return nil, nil
	}
	for _, f := range ifs {
		text, err := format(alter.AlterOptions[f.option], false)
		if err != nil || !strings.HasPrefix(text, f.after) || strings.HasPrefix(text, "add column (") {
			return nil, nil
		}
	}
	m := &modifier{keyword: "alter", alter: alter, ifs: ifs}
	var desc []string
	for _, f := range ifs {
		desc = append(desc, strconv.Itoa(f.option)+": "+f.after+f.words)
	}
	m.words = "table with " + strings.Join(desc, ", ")
	return alter, m
}

// printIfs puts the IF [NOT] EXISTS words back into the printed plain
// ALTER TABLE: text must be the statement as the printer writes it, its
// clauses joined by commas.
func (m *modifier) printIfs(text string, noBackslashEscapes bool) (string, error) {
	unfaithful := rewriter.Unsupported("the rewritten statement does not print faithfully")
	table, err := format(m.alter.Table, noBackslashEscapes)
	if err != nil {
		return "", err
	}
	opts := make([]string, len(m.alter.AlterOptions))
	for i, o := range m.alter.AlterOptions {
		if opts[i], err = format(o, noBackslashEscapes); err != nil {
			return "", err
		}
	}
	if text != "alter table "+table+" "+strings.Join(opts, ", ") {
		return "", unfaithful
	}
	for _, f := range m.ifs {
		if !strings.HasPrefix(opts[f.option], f.after) {
			return "", unfaithful
		}
		opts[f.option] = f.after + f.words + " " + opts[f.option][len(f.after):]
	}
	return "alter table " + table + " " + strings.Join(opts, ", "), nil
}
