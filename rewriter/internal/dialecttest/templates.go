package dialecttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// TemplateCase is a statement with %s verbs and literal values for them.
// The first values build the template; each other set is a statement of
// the same shape.
type TemplateCase struct {
	Format string
	Values [][]any
	// Reused: the other statements are the template filled with their
	// literals; otherwise the template (if any) must refuse them, since a
	// literal that changes is one the rewrite reads.
	Reused bool
}

// TemplateCases are the shapes both dialects check templates on.
func TemplateCases() []TemplateCase {
	return []TemplateCase{
		{Format: "SELECT id, name, ssn, email FROM customers WHERE id = %s",
			Values: [][]any{{"5"}, {"7"}, {"2147483647"}, {"0"}}, Reused: true},
		{Format: "SELECT id, ssn FROM customers WHERE name = %s AND id > %s",
			Values: [][]any{{"'Bob'", "3"}, {"'Ann Lee'", "9"}, {"'Zoë 😀'", "0"}, {"''", "12"}}, Reused: true},
		{Format: "SELECT id FROM customers WHERE id IN (%s, %s, %s) AND region <> %s",
			Values: [][]any{{"1", "2", "3", "'US'"}, {"4", "5", "6", "'EU'"}}, Reused: true},
		{Format: "SELECT c.name, c.ssn, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.total > %s AND c.id = %s",
			Values: [][]any{{"10.5", "1"}, {"99.25", "2"}}, Reused: true},
		{Format: "SELECT ssn FROM customers WHERE id BETWEEN %s AND %s",
			Values: [][]any{{"1", "10"}, {"20", "30"}}, Reused: true},
		{Format: "SELECT id FROM customers WHERE ssn = %s", // a condition that reads a mask
			Values: [][]any{{"'1234'"}, {"'5678'"}}, Reused: true},
		{Format: "SELECT id FROM customers WHERE %s = id AND (SELECT count(*) FROM orders o WHERE o.customer_id = customers.id AND o.total >= %s) > 0",
			Values: [][]any{{"1", "5"}, {"2", "6"}}, Reused: true},
		// Literals the rewrite reads, or that name something: never reused.
		{Format: "SELECT id, ssn FROM customers ORDER BY %s", Values: [][]any{{"1"}, {"2"}}},
		{Format: "SELECT id, ssn FROM customers GROUP BY %s, id, ssn", Values: [][]any{{"1"}, {"2"}}},
		{Format: "SELECT id FROM customers WHERE name LIKE %s", Values: [][]any{{"'a%'"}, {"'b%'"}}},
		{Format: "SELECT id FROM customers WHERE id = 5 LIMIT %s", Values: [][]any{{"1"}, {"2"}}},
		{Format: "SELECT id FROM customers WHERE name = concat(%s, 'x')", Values: [][]any{{"'a'"}, {"'b'"}}},
		{Format: "SELECT %s, id FROM customers WHERE id = 1", Values: [][]any{{"'a'"}, {"'b'"}}},
		{Format: "SELECT id FROM customers WHERE id = -%s", Values: [][]any{{"1"}, {"2"}}},
		{Format: "SELECT id FROM customers WHERE %s = %s", Values: [][]any{{"1", "1"}, {"1", "2"}}},
	}
}

// Templates checks literal templates on the cases: a statement that
// reuses a template gets exactly the text its own rewrite gives, and a
// literal the rewrite reads is never filled in.
func Templates(t *testing.T, d Dialect, decisions map[string]*policy.Decision) {
	lt, ok := d.Rewriter.(rewriter.LiteralTemplates)
	if !ok {
		t.Fatalf("%s does not build literal templates", d.Rewriter.Name())
	}
	literals := func(sql string) []rewriter.TemplateLiteral {
		toks, ok := d.Rewriter.Tokens(sql)
		if !ok {
			t.Fatalf("tokens of %s", sql)
		}
		return rewriter.TemplateLiterals(sql, toks)
	}
	rewrite := func(req *rewriter.Request) (*rewriter.Result, error) {
		return d.Rewriter.Rewrite(context.Background(), req)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range TemplateCases() {
		if c.Reused {
			c.Values = append(c.Values, randomValues(rng, c.Values[0], 40)...)
		}
		first := fmt.Sprintf(c.Format, c.Values[0]...)
		req := d.Request(first, decisions)
		res, err := d.Rewrite(t, req)
		if err != nil {
			t.Fatalf("%s: %v", first, err)
		}
		lits := literals(first)
		tmpl, built := rewriter.BuildTemplate(rewrite, req, lt, res, lits)
		if c.Reused && !built {
			t.Errorf("%s: no template", first)
			continue
		}
		for _, vals := range c.Values[1:] {
			next := fmt.Sprintf(c.Format, vals...)
			nl := literals(next)
			if rewriter.ShapeKey(next, nl) != rewriter.ShapeKey(first, lits) {
				t.Errorf("%s and %s: shapes differ", first, next)
				continue
			}
			if !built {
				continue
			}
			out, applied := tmpl.Apply(next, nl)
			if !c.Reused {
				if applied {
					t.Errorf("%s: the template of %s was filled in: %s", next, first, Short(out))
				}
				continue
			}
			want, err := d.Rewrite(t, d.Request(next, decisions))
			if err != nil {
				t.Fatalf("%s: %v", next, err)
			}
			if !applied || out != want.SQL {
				t.Errorf("%s:\ntemplate %v: %s\nrewrite:  %s", next, applied, Short(out), Short(want.SQL))
			}
		}
	}
}

// randomValues are n sets of values like like's: integers of the same
// range, decimals, strings of plain characters from several scripts and
// with the characters SQL patterns and operators use.
func randomValues(rng *rand.Rand, like []any, n int) [][]any {
	pieces := []string{"a", "Z", "0", "9", " ", "-", "%", "_", "@", ".", "é", "ß", "Ж", "中", "😀", "(", ")", "=", ";", "--", "/*", "*/", "#", ","}
	var out [][]any
	for range n {
		set := make([]any, len(like))
		for i, v := range like {
			s := v.(string)
			switch {
			case strings.HasPrefix(s, "'"):
				var b strings.Builder
				for range rng.IntN(12) {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
				set[i] = "'" + b.String() + "'"
			case strings.Contains(s, "."):
				set[i] = strconv.Itoa(rng.IntN(100000)) + "." + strconv.Itoa(1+rng.IntN(999))
			default:
				set[i] = strconv.Itoa(rng.IntN(2147483647))
			}
		}
		out = append(out, set)
	}
	return out
}

// TemplatesOverCorpus builds the template of every statement of the
// package's, the shared and the driver's corpora that has one, under the
// decisions, and changes its literals one at a time to random values of
// their class: wherever the template is filled in, it must give exactly
// the statement's own rewrite (and the statement must not be one the
// rewrite refuses). At least minTemplated statements must have a
// template and minFilled fills be compared, or the corpus no longer
// exercises templates.
func TemplatesOverCorpus(t *testing.T, d Dialect, decisions map[string]*policy.Decision, minTemplated, minFilled int) {
	corpus := Corpus(t, "*_test.go", "../internal/dialecttest/*.go", "../../adversarial*_test.go", "../../*corpus*_test.go")
	rng := rand.New(rand.NewPCG(3, 4))
	templated, filled := 0, 0
	for _, sql := range corpus {
		tmpl, lits, ok := d.templateOf(sql, decisions)
		if !ok {
			continue
		}
		templated++
		for _, l := range lits[:min(len(lits), 6)] {
			for range 2 {
				v := randomValues(rng, []any{classExample(l.Class)}, 1)[0][0].(string)
				if next, out, applied := d.fill(tmpl, sql, lits, l, v); applied {
					filled++
					d.checkFill(t, next, out, decisions)
				}
			}
		}
	}
	t.Logf("%d statements, %d with a template, %d fills compared", len(corpus), templated, filled)
	if templated < minTemplated || filled < minFilled {
		t.Fatalf("only %d templates and %d fills: the corpus no longer exercises templates", templated, filled)
	}
}

// templateOf builds the template of sql under the decisions, as the
// engine does on the second statement of its shape; ok is false when it
// has none.
func (d Dialect) templateOf(sql string, decisions map[string]*policy.Decision) (*rewriter.Template, []rewriter.TemplateLiteral, bool) {
	toks, ok := d.Rewriter.Tokens(sql)
	if !ok {
		return nil, nil, false
	}
	lits := rewriter.TemplateLiterals(sql, toks)
	if len(lits) == 0 {
		return nil, nil, false
	}
	req := d.Request(sql, decisions)
	res, err := d.Rewriter.Rewrite(context.Background(), req)
	if err != nil {
		return nil, nil, false
	}
	rewrite := func(req *rewriter.Request) (*rewriter.Result, error) {
		return d.Rewriter.Rewrite(context.Background(), req)
	}
	tmpl, ok := rewriter.BuildTemplate(rewrite, req, d.Rewriter.(rewriter.LiteralTemplates), res, lits)
	return tmpl, lits, ok
}

// fill is sql with literal l's text replaced by text (next), and the
// template filled with next's literals (out); applied is false when next
// has another shape or the template keeps that literal as written.
func (d Dialect) fill(tmpl *rewriter.Template, sql string, lits []rewriter.TemplateLiteral, l rewriter.TemplateLiteral, text string) (next, out string, applied bool) {
	next = sql[:l.Start] + text + sql[l.End:]
	toks, ok := d.Rewriter.Tokens(next)
	if !ok {
		return next, "", false
	}
	nl := rewriter.TemplateLiterals(next, toks)
	if rewriter.ShapeKey(next, nl) != rewriter.ShapeKey(sql, lits) {
		return next, "", false
	}
	out, applied = tmpl.Apply(next, nl)
	return next, out, applied
}

// checkFill fails the test unless out, a template filled in for next, is
// next's own rewrite.
func (d Dialect) checkFill(t *testing.T, next, out string, decisions map[string]*policy.Decision) {
	t.Helper()
	want, err := d.Rewriter.Rewrite(context.Background(), d.Request(next, decisions))
	if err != nil {
		t.Errorf("%s\nfilled in: %s\nbut the statement is refused: %v", next, Short(out), err)
		return
	}
	if out != want.SQL {
		t.Errorf("%s\ntemplate: %s\nrewrite:  %s", next, Short(out), Short(want.SQL))
	}
}

// classExample is a literal of the class, for randomValues.
func classExample(c rewriter.LiteralClass) string {
	switch c {
	case rewriter.ClassString:
		return "'a'"
	case rewriter.ClassDecimal:
		return "1.5"
	}
	return "1"
}

// FuzzLiteralTemplates fuzzes templates: for a statement that gets one,
// the text of one of its template literals is replaced by the fuzzer's;
// when the new statement has the same shape and the template fills it
// in, the result must be the new statement's own rewrite, and the new
// statement must not be one the rewrite refuses. Seeds are the shared
// template cases and the given statements.
func FuzzLiteralTemplates(f *testing.F, d Dialect, seeds []string, decisions func() map[string]*policy.Decision) {
	for _, c := range TemplateCases() {
		f.Add(fmt.Sprintf(c.Format, c.Values[0]...), uint8(0), "'x'")
		f.Add(fmt.Sprintf(c.Format, c.Values[0]...), uint8(1), "17")
	}
	for _, s := range seeds {
		f.Add(s, uint8(0), "'a b'")
	}
	dec := decisions()
	f.Fuzz(func(t *testing.T, sql string, which uint8, text string) {
		tmpl, lits, ok := d.templateOf(sql, dec)
		if !ok {
			return
		}
		if next, out, applied := d.fill(tmpl, sql, lits, lits[int(which)%len(lits)], text); applied {
			d.checkFill(t, next, out, dec)
		}
	})
}
