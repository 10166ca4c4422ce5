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

// fuzzDecisions put every table under a read policy behind a row filter,
// so that the rewrite always takes the derived-table form, which the
// structural check below recognises: customers is filtered, masked and
// restricted, region_map (a mapping table) is filtered, audit is denied,
// orders is open.
func fuzzDecisions() map[string]*policy.Decision {
	return map[string]*policy.Decision{
		"shop.customers": customersDecision(),
		"shop.region_map": {Table: policy.TableName{Schema: "shop", Table: "region_map"}, Allowed: allAccess(),
			RowFilters: []policy.RowFilter{{Expr: "role = current_role()", Policy: "own-role"}}},
		"shop.audit": {Table: policy.TableName{Schema: "shop", Table: "audit"},
			Allowed: map[policy.Access]bool{policy.Create: true}, DeniedBy: map[policy.Access]string{policy.Select: "no-audit"}},
	}
}

// FuzzRewrite: the rewrite never panics (it is called without the panic
// guard Rewrite has), every error is a typed rejection, every output
// parses again, no restricted column appears that the input did not name,
// and every base-table reference in the output sits under its policy —
// checked on the parsed output, independently of the rewriter's own
// bookkeeping.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM customers",
		"SELECT c.ssn FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.email LIKE ?",
		"WITH RECURSIVE r AS (SELECT 1 AS id UNION ALL SELECT id + 1 FROM r) SELECT * FROM r, customers",
		"UPDATE customers SET name = ssn WHERE id = ? ORDER BY ssn LIMIT 1",
		"INSERT INTO orders SELECT id, id, 0 FROM customers ON DUPLICATE KEY UPDATE total = VALUES(total)",
		"UPDATE orders o JOIN customers c ON c.id = o.customer_id SET o.total = LENGTH(c.ssn), c.name = c.email WHERE c.ssn LIKE 'x%'",
		"DELETE o, c FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.region = 'US'",
		"SELECT current_user(), (SELECT COUNT(*) FROM region_map) FROM dual",
		"SELECT @v := ssn FROM customers; SELECT @v",
		"DESCRIBE customers",
		"SHOW FULL COLUMNS FROM customers WHERE `Field` LIKE 's%'",
		"SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'customers'",
		"SELECT * FROM customers FOR UPDATE",
		"SELECT id FROM customers WHERE MATCH(ssn) AGAINST ('x')",
		"SELECT 1 /*! , ssn FROM customers */",
		"SET NAMES gbk",
		"VALUES ROW(1, (SELECT ssn FROM customers LIMIT 1))",
		"SELECT * FROM (SELECT * FROM customers UNION SELECT * FROM customers) d WHERE EXP(CASE WHEN name = 'x' THEN 1000 ELSE 1 END) > 0",
		"SELECT JSON_OBJECT('s', ssn), GROUP_CONCAT(email ORDER BY id) FROM customers GROUP BY region HAVING MAX(ssn) > ''",
	} {
		f.Add(s)
	}
	dec := fuzzDecisions()
	f.Fuzz(func(t *testing.T, sql string) {
		res, err := rewriteAll(context.Background(), request(sql, dec))
		if err != nil {
			var re *rewriter.Error
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		pieces, err := parser.SplitStatementToPieces(res.SQL)
		if err != nil {
			t.Fatalf("output does not split: %v\n%s\n%s", err, sql, res.SQL)
		}
		for _, piece := range pieces {
			if strings.TrimSpace(piece) == "" {
				continue
			}
			stmt, err := parser.Parse(piece)
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s\n%s", err, sql, res.SQL)
			}
			if err := checkTables(stmt, dec); err != nil {
				t.Fatalf("%v\n%s\n%s", err, sql, res.SQL)
			}
			if !strings.Contains(strings.ToLower(sql), "salary") && readsColumn(stmt, "salary") {
				t.Fatalf("restricted column in output:\n%s\n%s", sql, res.SQL)
			}
		}
	})
}

// checkTables accepts a printed statement when every table reference in it
// is dual, a CTE of the statement, a table the policy leaves as it is
// (schema-qualified), the only FROM entry of a derived table that filters
// it (WHERE) and is fenced (LIMIT), the target of a write, the object of a
// schema change, or the information_schema.COLUMNS of a column listing.
func checkTables(stmt sqlparser.Statement, dec map[string]*policy.Decision) error {
	allowed := map[*sqlparser.AliasedTableExpr]bool{}
	ctes := map[string]bool{}
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch e := n.(type) {
		case *sqlparser.DerivedTable:
			if sel, ok := e.Select.(*sqlparser.Select); ok && len(sel.From) == 1 && sel.Where != nil && sel.Limit != nil {
				if ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr); ok {
					allowed[ate] = true
				}
			}
		case *sqlparser.Select:
			// A flattened read of a filtered table without masks: its only
			// FROM entry, with the filter (over the table's own columns) as
			// the first conjunct of the WHERE.
			if len(e.From) == 1 && e.Where != nil {
				if ate, ok := e.From[0].(*sqlparser.AliasedTableExpr); ok {
					if tn, ok := ate.Expr.(sqlparser.TableName); ok {
						t := policy.TableName{Schema: tn.Qualifier.String(), Table: tn.Name.String()}
						if d, ok := dec[t.Key()]; ok && len(d.Masks) == 0 && len(d.RowFilters) > 0 && filterFirst(e.Where.Expr, tn) {
							allowed[ate] = true
						}
					}
				}
			}
		case *sqlparser.CommonTableExpr:
			ctes[strings.ToLower(e.ID.String())] = true
		case *sqlparser.Update:
			// Multi-table targets are the tables the SET assigns to.
			for _, ue := range e.Exprs {
				markTarget(e.TableExprs, ue.Name.Qualifier, allowed)
			}
		case *sqlparser.Delete:
			for _, tn := range e.Targets {
				markTarget(e.TableExprs, tn, allowed)
			}
			if len(e.Targets) == 0 && len(e.TableExprs) == 1 {
				if ate, ok := e.TableExprs[0].(*sqlparser.AliasedTableExpr); ok {
					allowed[ate] = true
				}
			}
		case *sqlparser.Insert:
			allowed[e.Table] = true
		}
		return true, nil
	}, stmt)
	if u, ok := stmt.(*sqlparser.Update); ok && len(u.TableExprs) == 1 {
		if ate, ok := u.TableExprs[0].(*sqlparser.AliasedTableExpr); ok {
			allowed[ate] = true
		}
	}
	_, isDDL := stmt.(sqlparser.DDLStatement)
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok || allowed[ate] || isDDL {
			return true, nil
		}
		if tn.Qualifier.IsEmpty() {
			if name := strings.ToLower(tn.Name.String()); name == "dual" || ctes[name] {
				return true, nil
			}
			bad = errors.New("unqualified table " + tn.Name.String() + " is no CTE")
			return false, nil
		}
		t := policy.TableName{Schema: tn.Qualifier.String(), Table: tn.Name.String()}
		if strings.EqualFold(t.Key(), "information_schema.columns") {
			return true, nil // a column listing's own read (SHOW COLUMNS, DESCRIBE)
		}
		if d, ok := dec[t.Key()]; ok && !d.Passthrough() {
			bad = errors.New("table " + t.String() + " under policy is read directly")
			return false, nil
		}
		return true, nil
	}, stmt)
	return bad
}

// markTarget allows the FROM entry of a multi-table write that q names.
func markTarget(tes []sqlparser.TableExpr, q sqlparser.TableName, allowed map[*sqlparser.AliasedTableExpr]bool) {
	if q.IsEmpty() {
		return
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.DerivedTable, *sqlparser.Subquery:
			return false, nil
		}
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok {
			return true, nil
		}
		name := ate.As.String()
		if name == "" {
			name = tn.Name.String()
		}
		if strings.EqualFold(name, q.Name.String()) {
			allowed[ate] = true
		}
		return true, nil
	}, sqlparser.TableExprs(tes))
}

func TestCheckTablesCatchesDirectReads(t *testing.T) {
	dec := fuzzDecisions()
	for sql, ok := range map[string]bool{
		"select * from `shop`.`customers`":                                                     false,
		"select * from customers":                                                              false,
		"with customers as (select 1) select * from customers":                                 true,
		"select * from (select * from `shop`.`customers` where x = 1 limit 5) as c":            true,
		"select * from (select * from `shop`.`customers`) as c":                                false,
		"select * from `shop`.`orders` where id in (select id from `shop`.`customers`)":        false,
		"update `shop`.`customers` set id = 1":                                                 true,
		"update `shop`.`orders` as o join `shop`.`customers` as c on c.id = o.id set o.id = 1": false,
		"update `shop`.`orders` as o join `shop`.`customers` as c on c.id = o.id set c.id = 1": true,
	} {
		stmt, err := parser.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkTables(stmt, dec); (err == nil) != ok {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// readsColumn reports whether the statement names the column (by any
// qualifier); a string literal with its name is no reference.
func readsColumn(stmt sqlparser.Statement, name string) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok && c.Name.EqualString(name) {
			found = true
		}
		return !found, nil
	}, stmt)
	return found
}

// filterFirst reports whether the first conjunct of a WHERE reads only
// columns qualified with the table's schema and name (the filter the
// rewrite puts in front).
func filterFirst(e sqlparser.Expr, tn sqlparser.TableName) bool {
	for {
		and, ok := e.(*sqlparser.AndExpr)
		if !ok {
			break
		}
		e = and.Left
	}
	cols := 0
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, isCol := n.(*sqlparser.ColName); isCol {
			cols++
			if !strings.EqualFold(c.Qualifier.Name.String(), tn.Name.String()) || !strings.EqualFold(c.Qualifier.Qualifier.String(), tn.Qualifier.String()) {
				ok = false
			}
		}
		return true, nil
	}, e)
	return ok && cols > 0
}
