package mysql

import (
	"slices"
	"sort"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// CHECK TABLE t[, …] [QUICK|FAST|MEDIUM|EXTENDED|CHANGED] and CHECKSUM
// TABLE t[, …] [QUICK|EXTENDED]. The parser reads neither, so such a
// statement is read by the parser's tokenizer: the keywords, each table
// name (which must parse alone as a table name) and at most one option
// word from the list. Both need select on each table, and a table the
// caller reads under no row filter, mask or restricted column; otherwise
// they are refused, naming the policy. CHECKSUM TABLE is a function of
// every row, the hidden ones and the raw values of masked or restricted
// columns included; CHECK TABLE reports the table's health, whose
// messages on a damaged table count rows and keys over all rows, the
// hidden ones included. The statement is printed as the keywords, the names and the
// option, and read back the same way for the printed-statement check.

// tableCheckStmt is a CHECK TABLE or CHECKSUM TABLE.
type tableCheckStmt struct {
	verb   string // "check", "checksum"
	names  []sqlparser.TableName
	option string // "", "quick", "extended", …
}

// tableCheckOptions are the option words each statement takes.
var tableCheckOptions = map[string][]string{
	"check":    {"quick", "fast", "medium", "extended", "changed"},
	"checksum": {"quick", "extended"},
}

// Format prints the statement; TrackedBuffer hands each name to the
// buffer's node formatter (see format).
func (s *tableCheckStmt) Format(buf *sqlparser.TrackedBuffer) {
	buf.WriteString(s.verb + " table ")
	for i, n := range s.names {
		if i > 0 {
			buf.WriteString(", ")
		}
		buf.Myprintf("%v", n)
	}
	if s.option != "" {
		buf.WriteString(" " + s.option)
	}
}

// FormatFast prints the statement as Format does.
func (s *tableCheckStmt) FormatFast(buf *sqlparser.TrackedBuffer) { s.Format(buf) }

// nodes are the parts of the statement that hold table references: none
// (its names are checked here, as DROP TABLE's are).
func (s *tableCheckStmt) nodes() []sqlparser.SQLNode { return nil }

// kind is the statement's kind for the printed-statement check.
func (s *tableCheckStmt) kind() string {
	return strings.ToUpper(strings.TrimSpace(s.verb + " TABLE " + s.option))
}

// readTableCheck reads sql, which did not parse, as a CHECK TABLE or
// CHECKSUM TABLE. It returns nil when sql is not one.
func readTableCheck(sql string) *tableCheckStmt {
	l, ok := readTokens(sql)
	if !ok {
		return nil
	}
	toks, word := l.toks, l.word
	s := &tableCheckStmt{verb: word(0)}
	options, ok := tableCheckOptions[s.verb]
	if !ok || word(1) != "table" {
		return nil
	}
	var i int
	if s.names, i, ok = l.tableNames(2, true); !ok {
		return nil
	}
	if i < len(toks) {
		if !slices.Contains(options, word(i)) {
			return nil
		}
		s.option, i = word(i), i+1
	}
	if i != len(toks) {
		return nil
	}
	return s
}

// tableCheck checks a CHECK TABLE or CHECKSUM TABLE.
func (r *rewrite) tableCheck(s *tableCheckStmt) (*rewriter.Result, error) {
	for _, n := range s.names {
		t, err := r.resolve(n)
		if err != nil {
			return nil, err
		}
		plan, err := r.plan(t, policy.Select)
		if err != nil {
			return nil, err
		}
		if !plan.Decision.Passthrough() {
			what := "the checksum is computed over every row and raw value, the hidden ones included"
			if s.verb == "check" {
				what = "its messages count rows and keys over every row, the hidden ones included"
			}
			return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Policy: readPolicyOf(plan.Decision),
				Detail: strings.ToUpper(s.verb) + " TABLE of a table under a read policy (row filter, mask or restricted column) is not supported through sqe: " + what}
		}
	}
	return &rewriter.Result{Kind: rewriter.KindOther}, nil
}

// readPolicyOf names a policy that changes what the caller reads of a
// table: a row filter's, else a mask's or a restriction's (the first by
// column name).
func readPolicyOf(d *policy.Decision) string {
	for _, f := range d.RowFilters {
		if f.Policy != "" {
			return f.Policy
		}
	}
	var cols []string
	for c := range d.Masks {
		cols = append(cols, c)
	}
	for c := range d.Restricted {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		if m, ok := d.Masks[c]; ok && m.Policy != "" {
			return m.Policy
		}
		if p := d.Restricted[c]; p != "" {
			return p
		}
	}
	var tags []string
	for tag := range d.TagMasks {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		if p := d.TagMasks[tag].Policy; p != "" {
			return p
		}
	}
	return ""
}
