package mysql

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestSetOperationsReadEachOperandThroughItsPolicy(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	for _, c := range []struct {
		sql string
		ops []string
	}{
		{"SELECT ssn FROM customers INTERSECT SELECT '123'", []string{"intersect"}},
		{"SELECT name FROM customers EXCEPT ALL SELECT role FROM region_map", []string{"except all"}},
		{"SELECT id FROM orders UNION SELECT id FROM customers INTERSECT DISTINCT SELECT customer_id FROM orders", []string{"union", "intersect distinct"}},
		{"(SELECT ssn FROM customers ORDER BY id LIMIT 2) EXCEPT (SELECT ssn FROM customers WHERE id = 1 UNION SELECT 'x')", []string{"except"}},
		{"SELECT c.email FROM customers c JOIN orders o ON o.customer_id = c.id intersect SELECT email FROM customers", []string{"intersect"}},
	} {
		res, err := rewriteMariaDB(c.sql, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.Kind != rewriter.KindSelect {
			t.Errorf("%s: kind %s", c.sql, res.Kind)
		}
		so := readSetOperation(res.SQL)
		if so == nil {
			t.Fatalf("%s: the output is not read back as a set operation:\n%s", c.sql, short(res.SQL))
		}
		if strings.Join(so.ops, ",") != strings.Join(c.ops, ",") {
			t.Errorf("%s: operators %v, want %v", c.sql, so.ops, c.ops)
		}
		for _, op := range so.operands {
			printed := sqlparser.String(op)
			if strings.Contains(printed, "`salary`") {
				t.Errorf("%s: restricted column in output", c.sql)
			}
			// Every operand reading customers reads it filtered.
			if strings.Contains(printed, "`customers`") && !strings.Contains(printed, "'EU'") {
				t.Errorf("%s: an operand reads customers without its filter:\n%s", c.sql, short(printed))
			}
		}
	}
}

func TestSetOperationRefusals(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"SELECT id FROM orders INTERSECT SELECT salary FROM customers", policy.ErrColumnDenied},
		{"SELECT id FROM orders EXCEPT SELECT id FROM customers WHERE salary > 1", policy.ErrColumnDenied},
		// Clauses that would bind to the whole operation are read only
		// as an ORDER BY of result columns and a LIMIT of numbers.
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers ORDER BY id + 0", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers ORDER BY customers.id", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers ORDER BY (SELECT MAX(salary) FROM customers)", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers ORDER BY 'x'", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers LIMIT 1 + 1", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers LIMIT :n", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers ORDER BY 1 FOR UPDATE", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers LIMIT 1 INTO @x", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers FOR UPDATE", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT SELECT id FROM customers WHERE id = :n", rewriter.ErrSyntax},
		{"SELECT id INTO @x FROM orders INTERSECT SELECT id FROM customers", rewriter.ErrSyntax},
		{"WITH x AS (SELECT id FROM customers) SELECT id FROM x INTERSECT SELECT id FROM x", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT INTERSECT SELECT id FROM customers", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT", rewriter.ErrSyntax},
		{"INTERSECT SELECT id FROM orders", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT DELETE FROM customers", rewriter.ErrSyntax},
		{"SELECT id FROM orders INTERSECT (SELECT id FROM customers", rewriter.ErrSyntax},
		// Reserved words the parser would read as names.
		{"SELECT id FROM customers except", rewriter.ErrSyntax},
		{"SELECT id intersect FROM customers", rewriter.ErrSyntax},
	} {
		res, err := rewriteMariaDB(c.sql, dec)
		if !errors.Is(err, c.want) {
			var text string
			if res != nil {
				text = res.SQL
			}
			t.Errorf("%s: %v (%s), want %v", c.sql, err, short(text), c.want)
		}
	}
}

func TestQuotedIntersectIsAName(t *testing.T) {
	res, err := rewriteMariaDB("SELECT id AS `intersect`, total AS `Except` FROM orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.SQL, "`intersect`") {
		t.Fatalf("alias lost: %s", res.SQL)
	}
}

func TestSimpleFilters(t *testing.T) {
	for _, c := range []struct {
		filter string
		simple bool
	}{
		{"region = 'EU'", true}, {"region IN ('EU', 'UK')", true}, {"region NOT IN ('US') AND id > 3", true},
		{"region IN (SELECT region FROM region_map)", false}, {"region IN ('EU', LOWER(name))", false},
		{"region = 'EU' OR id = 1", false}, {"LOWER(region) IN ('eu')", false},
	} {
		d := customersDecision()
		d.RowFilters = []policy.RowFilter{{Expr: c.filter, Policy: "f"}}
		plan := &rewriter.TablePlan{Table: d.Table, Decision: d}
		if got := simpleFilter(plan); got != c.simple {
			t.Errorf("%s: simple %v, want %v", c.filter, got, c.simple)
		}
	}
}

// TestSetOperationOrderLimitAndPlaceholders: an ORDER BY of result
// columns and a LIMIT after the last operand are the operation's, printed
// after it; each operand's placeholders (and the LIMIT's) keep their
// order in the statement.
func TestSetOperationOrderLimitAndPlaceholders(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	for _, c := range []struct{ sql, tail string }{
		{"SELECT id FROM customers WHERE id > ? INTERSECT SELECT customer_id FROM orders WHERE total > ?", ""},
		{"SELECT name, ssn FROM customers WHERE id > ? EXCEPT SELECT name, ssn FROM customers WHERE id = ? ORDER BY 2 DESC, name LIMIT ?, ?",
			" order by 2 desc, `name` asc limit ?, ?"},
		{"SELECT ssn FROM customers INTERSECT (SELECT ssn FROM customers ORDER BY id LIMIT 3) ORDER BY ssn LIMIT ? OFFSET ?",
			" order by `ssn` asc limit ? offset ?"},
		{"SELECT id FROM orders EXCEPT SELECT id FROM customers LIMIT 5", " limit 5"},
	} {
		res, err := rewriteMariaDB(c.sql, dec)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if !strings.HasSuffix(res.SQL, ")"+c.tail) {
			t.Errorf("%s: output does not end with the operation's clauses %q:\n%s", c.sql, c.tail, short(res.SQL))
		}
		so := readSetOperation(res.SQL)
		if so == nil {
			t.Fatalf("%s: output not read back:\n%s", c.sql, short(res.SQL))
		}
		var names []string
		for _, node := range append(so.nodes(), so.limit) {
			_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
				if a, ok := n.(*sqlparser.Argument); ok {
					names = append(names, a.Name)
				}
				return true, nil
			}, node)
		}
		// (format refuses placeholders printed out of order; here each
		// is numbered once, in the statement's count.)
		slices.SortFunc(names, func(a, b string) int { return cmp.Compare(len(a), len(b))*2 + cmp.Compare(a, b) })
		if len(names) != strings.Count(c.sql, "?") {
			t.Errorf("%s: placeholders read back as %v", c.sql, names)
		}
		for i, name := range names {
			if name != "v"+strconv.Itoa(i+1) {
				t.Errorf("%s: placeholders read back as %v", c.sql, names)
				break
			}
		}
	}
}

// TestContainsFold compares containsFold with a plain loop over every
// position, on texts built from the words' letters in both cases and
// some bytes of multi-byte characters.
func TestContainsFold(t *testing.T) {
	reference := func(s, w string) bool {
		for i := 0; i+len(w) <= len(s); i++ {
			if strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
		return false
	}
	pieces := []string{"e", "E", "x", "X", "c", "C", "p", "P", "t", "T", "i", "I", "n", "N", "r", "R", "s", "S", "é", "ſ", " ", "except", "INTERSECT"}
	rng := rand.New(rand.NewPCG(1, 2))
	found := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(14); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for _, w := range []string{"except", "intersect"} {
			want := reference(s, w)
			if got := containsFold(s, w); got != want {
				t.Fatalf("containsFold(%q, %q) = %v, want %v", s, w, got, want)
			}
			if want {
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("no text contained a word: the comparison tested only misses")
	}
}
