package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// FuzzRewrite: the rewrite never panics, every error is a typed rejection,
// every output parses, and every relation in the output is one the policy
// sanctions — checked on the printed output, independently of the
// rewriter's own bookkeeping.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM customers",
		"SELECT c.ssn FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.email LIKE $1",
		"WITH RECURSIVE r AS (SELECT 1 AS id UNION ALL SELECT id + 1 FROM r) SELECT * FROM r, customers",
		"UPDATE customers SET name = ssn WHERE id = $1 RETURNING *",
		"INSERT INTO orders SELECT id, id, 0 FROM customers ON CONFLICT DO NOTHING",
		"DELETE FROM customers c USING orders o WHERE o.customer_id = c.id RETURNING c.ssn",
		"SELECT current_user, (SELECT count(*) FROM region_map)",
		"MERGE INTO customers c USING orders o ON o.customer_id = c.id WHEN MATCHED AND c.ssn = 'x' THEN UPDATE SET name = c.ssn WHEN NOT MATCHED THEN INSERT (id, name) VALUES (o.id, 'n')",
		"DECLARE cur CURSOR WITH HOLD FOR SELECT ssn FROM customers; FETCH ALL FROM cur",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'customers'",
		"SELECT a.attname, c.reltuples FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid",
		"SELECT * FROM customers c FULL JOIN LATERAL (SELECT * FROM orders o WHERE o.customer_id = c.id) l ON true FOR UPDATE OF c",
		"SELECT id FROM customers INTERSECT SELECT id FROM orders EXCEPT (SELECT id FROM items UNION SELECT 1)",
		"EXPLAIN SELECT 1; SET search_path = shop; SELECT 1",
		"TABLE customers",
		"SELECT DISTINCT ON (ssn) ssn, row_to_json(c) FROM customers c WHERE 1 / (CASE WHEN name = 'x' THEN 0 ELSE 1 END) = 1",
	} {
		f.Add(s)
	}
	dec := simpleDecisions()
	f.Fuzz(func(t *testing.T, sql string) {
		res, err := rewriteAll(context.Background(), request(sql, dec))
		if err != nil {
			var re *rewriter.Error
			if !errors.As(err, &re) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		tree, err := pg.Parse(res.SQL)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s\n%s", err, sql, res.SQL)
		}
		if strings.IndexByte(res.SQL, 0) >= 0 {
			t.Fatalf("output holds a NUL byte")
		}
		if !strings.Contains(strings.ToLower(sql), "salary") && strings.Contains(strings.ToLower(res.SQL), "salary") {
			t.Fatalf("restricted column in output:\n%s\n%s", sql, res.SQL)
		}
		for _, raw := range tree.Stmts {
			if err := checkRelations(raw.Stmt, dec); err != nil {
				t.Fatalf("%v\n%s\n%s", err, sql, res.SQL)
			}
		}
	})
}

// checkRelations accepts a printed statement when every relation in it is
// a CTE reference, a FOR UPDATE name, a table the policy leaves as it is
// (schema-qualified), the only FROM entry of a derived table, the target
// of a write, or the object of a schema change.
func checkRelations(stmt *pg.Node, dec map[string]*policy.Decision) error {
	allowed := map[*pg.RangeVar]bool{}
	unqualifiedOK := map[*pg.RangeVar]bool{}
	ctes := map[string]bool{}
	ddl := false
	switch stmt.Node.(type) {
	case *pg.Node_CreateStmt, *pg.Node_IndexStmt, *pg.Node_AlterTableStmt, *pg.Node_TruncateStmt,
		*pg.Node_RenameStmt, *pg.Node_ViewStmt, *pg.Node_CreateTableAsStmt:
		ddl = true
	}
	_ = walk(stmt, func(m protoMessage, _ *pg.Node) (bool, error) {
		switch e := m.(type) {
		case *pg.RangeSubselect:
			if sel := e.Subquery.GetSelectStmt(); sel != nil && len(sel.FromClause) == 1 {
				if rv := sel.FromClause[0].GetRangeVar(); rv != nil {
					allowed[rv] = true
				}
			}
		case *pg.InsertStmt:
			allowed[e.Relation] = true
		case *pg.UpdateStmt:
			allowed[e.Relation] = true
		case *pg.DeleteStmt:
			allowed[e.Relation] = true
		case *pg.MergeStmt:
			allowed[e.Relation] = true
		case *pg.CommonTableExpr:
			ctes[e.Ctename] = true
		case *pg.LockingClause:
			for _, n := range e.LockedRels {
				if rv := n.GetRangeVar(); rv != nil {
					unqualifiedOK[rv] = true
				}
			}
		case *pg.ViewStmt:
			allowed[e.View] = true
		case *pg.IntoClause:
			allowed[e.Rel] = true
		}
		return true, nil
	})
	for _, rv := range rangeVars(stmt) {
		if rv.Catalogname != "" {
			return errors.New("database-qualified relation in output")
		}
		if rv.Schemaname == "" {
			if unqualifiedOK[rv] || ctes[rv.Relname] || (ddl && rv.Relpersistence == "t") {
				continue
			}
			return errors.New("unqualified relation " + rv.Relname + " is no CTE")
		}
		if allowed[rv] || ddl {
			continue
		}
		d, ok := dec[policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}.Key()]
		if ok && !d.Passthrough() {
			return errors.New("table " + rv.Schemaname + "." + rv.Relname + " under policy is read directly")
		}
	}
	return nil
}

func TestCheckRelationsCatchesDirectReads(t *testing.T) {
	dec := simpleDecisions()
	for sql, ok := range map[string]bool{
		"SELECT * FROM shop.customers":                                          false,
		"SELECT * FROM customers":                                               false,
		"WITH customers AS (SELECT 1) SELECT * FROM customers":                  true,
		"SELECT * FROM (SELECT * FROM shop.customers) c":                        true,
		"SELECT * FROM shop.orders WHERE id IN (SELECT id FROM shop.customers)": false,
		"UPDATE shop.customers SET id = 1":                                      true,
	} {
		tree := mustParse(t, sql)
		err := checkRelations(tree.Stmts[0].Stmt, dec)
		if (err == nil) != ok {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}
