package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// rewriteMariaDB rewrites sql for a MariaDB connection.
func rewriteMariaDB(sql string, decisions map[string]*policy.Decision) (*rewriter.Result, error) {
	req := request(sql, decisions)
	sess := req.Session.(Session)
	sess.MariaDB = true
	req.Session = sess
	return Dialect{}.Rewrite(context.Background(), req)
}

func TestReturningReadsTheWrittenRowsAsTheCallerMay(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	cases := []struct {
		name, sql string
		kind      rewriter.Kind
		// names are the result's column names, in order.
		names []string
		// masked are the entries (by position) that must be mask
		// expressions, not the raw column.
		masked []int
	}{
		{"insert", "INSERT INTO customers (id, name, region) VALUES (?, ?, 'EU') RETURNING id, ssn",
			rewriter.KindInsert, []string{"id", "ssn"}, []int{1}},
		{"insert star", "INSERT INTO customers (id, name, region) VALUES (1, 'n', 'EU') RETURNING *",
			rewriter.KindInsert, []string{"id", "name", "region", "ssn", "email"}, []int{3, 4}},
		{"qualified star", "INSERT INTO customers (id) VALUES (1) RETURNING customers.*",
			rewriter.KindInsert, []string{"id", "name", "region", "ssn", "email"}, []int{3, 4}},
		{"expression", "INSERT INTO customers (id) VALUES (1) RETURNING UPPER(ssn), id + ?",
			rewriter.KindInsert, []string{"UPPER(ssn)", "id + ?"}, []int{0}},
		{"alias", "INSERT INTO customers (id) VALUES (1) RETURNING ssn AS s",
			rewriter.KindInsert, []string{"s"}, []int{0}},
		{"replace", "REPLACE INTO orders (id, customer_id, total) VALUES (1, 2, 3) RETURNING id, total",
			rewriter.KindInsert, []string{"id", "total"}, nil},
		{"insert select", "INSERT INTO orders (id, customer_id, total) SELECT id, id, 1 FROM customers RETURNING id",
			rewriter.KindInsert, []string{"id"}, nil},
		{"delete", "DELETE FROM customers WHERE name LIKE 'a%' RETURNING id, email",
			rewriter.KindDelete, []string{"id", "email"}, []int{1}},
		{"delete order limit", "DELETE FROM customers ORDER BY id LIMIT 2 RETURNING *",
			rewriter.KindDelete, []string{"id", "name", "region", "ssn", "email"}, []int{3, 4}},
		{"subquery", "DELETE FROM orders WHERE id = 1 RETURNING (SELECT ssn FROM customers c WHERE c.id = orders.customer_id)",
			rewriter.KindDelete, nil, nil},
		{"keyword in a literal", "INSERT INTO orders (id, customer_id, total) VALUES (1, 2, 3) RETURNING 'returning', JSON_VALUE('{\"a\": 1}', '$.a' RETURNING SIGNED)",
			rewriter.KindInsert, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := rewriteMariaDB(c.sql, dec)
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != c.kind {
				t.Errorf("kind %s, want %s", res.Kind, c.kind)
			}
			ret := readReturning(res.SQL)
			if ret == nil {
				t.Fatalf("the rewritten statement is not a write with RETURNING:\n%s", short(res.SQL))
			}
			if strings.Contains(strings.ToLower(res.SQL), "`salary`") {
				t.Errorf("restricted column in output:\n%s", short(res.SQL))
			}
			if c.names != nil {
				var names []string
				for _, se := range ret.list.Exprs {
					ae := se.(*sqlparser.AliasedExpr)
					name := ae.As.String()
					if name == "" {
						if col, ok := ae.Expr.(*sqlparser.ColName); ok {
							name = col.Name.String()
						} else {
							name = "?"
						}
					}
					names = append(names, name)
				}
				if strings.Join(names, ",") != strings.Join(c.names, ",") {
					t.Errorf("columns %v, want %v\n%s", names, c.names, short(res.SQL))
				}
			}
			for _, i := range c.masked {
				ae := ret.list.Exprs[i].(*sqlparser.AliasedExpr)
				if _, raw := ae.Expr.(*sqlparser.ColName); raw || !readsMask(ae.Expr) {
					t.Errorf("entry %d is not masked: %s", i, short(sqlparser.String(ae.Expr)))
				}
			}
			if d, ok := ret.write.(*sqlparser.Delete); ok && strings.Contains(sqlparser.String(d.TableExprs[0]), "customers") &&
				(d.Where == nil || !strings.Contains(sqlparser.String(d.Where), "'EU'")) {
				t.Errorf("DELETE … RETURNING lost the row filter:\n%s", short(res.SQL))
			}
			if c.name == "subquery" && !strings.Contains(sqlparser.String(ret.list), "'EU'") {
				t.Errorf("the subquery does not read customers through its row filter:\n%s", short(res.SQL))
			}
		})
	}
}

// readsMask reports whether e is (or holds) a mask expression of the
// test policy: MASK_SHOW_LAST_4 keeps the last four characters with
// RIGHT/SUBSTRING, MASK_NULL is NULL.
func readsMask(e sqlparser.Expr) bool {
	text := strings.ToLower(sqlparser.String(e))
	return strings.Contains(text, "null") || strings.Contains(text, "regexp") || strings.Contains(text, "substr")
}

func TestReturningKeepsPlaceholderOrder(t *testing.T) {
	res, err := rewriteMariaDB("INSERT INTO orders (id, customer_id, total) VALUES (?, ?, ?) RETURNING id + ?, total", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The alias (the column's name, as written) holds a ? too.
	text := strings.ReplaceAll(res.SQL, "`id + ?`", "`alias`")
	head, list, ok := strings.Cut(text, " returning ")
	if !ok || strings.Count(head, "?") != 3 || strings.Count(list, "?") != 1 {
		t.Fatalf("placeholders are not 3 in the write and 1 in the list: %s", res.SQL)
	}
}

func TestReturningRefusals(t *testing.T) {
	dec := map[string]*policy.Decision{"shop.customers": customersDecision()}
	cases := []struct {
		name, sql string
		want      error
	}{
		{"restricted", "INSERT INTO customers (id) VALUES (1) RETURNING salary", policy.ErrColumnDenied},
		{"restricted qualified", "DELETE FROM customers WHERE id = 1 RETURNING customers.salary", policy.ErrColumnDenied},
		{"restricted in expression", "DELETE FROM customers WHERE id = 1 RETURNING id + salary", policy.ErrColumnDenied},
		{"other star", "INSERT INTO customers (id) VALUES (1) RETURNING orders.*", rewriter.ErrUnsupported},
		{"unqualified masked in subquery", "DELETE FROM customers WHERE id = 1 RETURNING (SELECT MAX(ssn) FROM orders)", rewriter.ErrUnsupported},
		{"from", "INSERT INTO orders (id) VALUES (1) RETURNING id FROM customers", rewriter.ErrSyntax},
		{"into", "INSERT INTO orders (id) VALUES (1) RETURNING id INTO @x", rewriter.ErrSyntax},
		{"twice", "INSERT INTO orders (id) VALUES (1) RETURNING id RETURNING id", rewriter.ErrSyntax},
		{"empty", "INSERT INTO orders (id) VALUES (1) RETURNING", rewriter.ErrSyntax},
		{"distinct", "INSERT INTO orders (id) VALUES (1) RETURNING DISTINCT id", rewriter.ErrSyntax},
		{"trailing clause", "DELETE FROM orders RETURNING id LIMIT 1", rewriter.ErrSyntax},
		{"update", "UPDATE orders SET total = 1 RETURNING id", rewriter.ErrSyntax},
		{"multi-table delete", "DELETE o FROM orders o JOIN customers c ON c.id = o.customer_id RETURNING o.id", rewriter.ErrSyntax},
		{"select", "SELECT id FROM orders RETURNING id", rewriter.ErrSyntax},
		{"explain", "EXPLAIN INSERT INTO orders (id) VALUES (1) RETURNING id", rewriter.ErrSyntax},
		{"union", "INSERT INTO orders (id) VALUES (1) RETURNING id UNION SELECT ssn FROM customers", rewriter.ErrSyntax},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := rewriteMariaDB(c.sql, dec)
			if !errors.Is(err, c.want) {
				var text string
				if res != nil {
					text = res.SQL
				}
				t.Fatalf("got %v (%s), want %v", err, short(text), c.want)
			}
		})
	}
}

func TestReturningIsMariaDBs(t *testing.T) {
	// MySQL has no RETURNING: the statement stays one that does not parse.
	_, err := Dialect{}.Rewrite(context.Background(), request("INSERT INTO orders (id) VALUES (1) RETURNING id", nil))
	if !errors.Is(err, rewriter.ErrSyntax) {
		t.Fatalf("MySQL: %v, want a syntax error", err)
	}
}
