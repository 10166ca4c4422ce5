package mysql

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
)

// fuzzDecisions put every table under a read policy behind a row filter,
// so that the rewrite always takes the derived-table form, which the
// structural check below recognises: customers is filtered, masked and
// restricted, region_map (a mapping table) is filtered, audit is denied,
// orders is open.
func fuzzDecisions() map[string]*policy.Decision {
	return map[string]*policy.Decision{
		"shop.customers": dialecttest.CustomersDecision(),
		"shop.region_map": {Table: policy.TableName{Schema: "shop", Table: "region_map"}, Allowed: dialecttest.AllAccess(),
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
	dialecttest.FuzzRewrite(f, []string{
		"SELECT * FROM customers",
		"SELECT c.ssn FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.email LIKE ?",
		"SELECT id, name, ssn FROM customers WHERE id = ?",
		"SELECT c.ssn, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 1 ORDER BY 2",
		"SELECT r.role, c.email FROM region_map r JOIN customers c USING (region) WHERE r.role = ? ORDER BY c.id",
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
		"SELECT ssn FROM customers INTERSECT SELECT email FROM customers c JOIN orders o ON o.customer_id = c.id EXCEPT ALL (SELECT name FROM customers ORDER BY ssn LIMIT 1)",
		"SET @a := (SELECT ssn FROM customers LIMIT 1), @b := ?",
		"CREATE OR REPLACE TABLE t2 AS SELECT ssn, email FROM customers WHERE id > ?",
		"ALTER IGNORE TABLE orders ADD UNIQUE (total)",
		"CHECK TABLE customers, orders QUICK; CHECKSUM TABLE orders, shop.region_map EXTENDED",
		"ALTER TABLE customers ADD COLUMN IF NOT EXISTS s2 INT DEFAULT 1 AFTER ssn, DROP INDEX IF EXISTS k, CHANGE IF EXISTS email e2 TEXT",
		"DELETE LOW_PRIORITY QUICK IGNORE FROM customers WHERE ssn LIKE ? ORDER BY id LIMIT 1",
		"INSERT DELAYED INTO orders SELECT id, id, LENGTH(ssn) FROM customers; DELETE QUICK FROM region_map",
		"UPDATE LOW_PRIORITY IGNORE customers c JOIN orders o ON o.customer_id = c.id SET c.name = c.email",
		"DELETE FROM customers WHERE ssn LIKE ? ORDER BY id LIMIT 2 RETURNING *, UPPER(email), (SELECT MAX(total) FROM orders o WHERE o.customer_id = customers.id)",
		"INSERT INTO orders (id, customer_id, total) SELECT id, id, LENGTH(ssn) FROM customers RETURNING id, total",
		"SELECT JSON_OBJECT('s', ssn), GROUP_CONCAT(email ORDER BY id) FROM customers GROUP BY region HAVING MAX(ssn) > ''",
		"CREATE OR REPLACE SEQUENCE IF NOT EXISTS shop.s INCREMENT BY -2 MINVALUE = -9 NOMAXVALUE START 5 CACHE 10 NOCYCLE",
		"ALTER SEQUENCE IF EXISTS s RESTART WITH 10; DROP SEQUENCE s, audit",
		"SET STATEMENT max_statement_time = 1.5, lock_wait_timeout = 2 FOR SELECT name, ssn FROM customers c WHERE ssn LIKE ? ORDER BY 1 LIMIT 3",
		"SET STATEMENT innodb_lock_wait_timeout = 1 FOR DELETE FROM customers WHERE email = ? RETURNING id, ssn",
		"SELECT c.name, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.ssn LIKE ? ORDER BY 1 LIMIT 5 FOR UPDATE WAIT 3",
		"SELECT ssn FROM customers WHERE id IN (SELECT customer_id FROM orders) LOCK IN SHARE MODE WAIT 0",
		"SELECT c.name, c.ssn FROM customers c WHERE c.email LIKE ? ORDER BY c.ssn OFFSET 2 ROWS FETCH NEXT 3 ROWS WITH TIES",
		"SELECT name, ssn FROM customers WHERE id > ? INTERSECT SELECT name, ssn FROM customers WHERE email = ? ORDER BY 2 DESC, name LIMIT ?, 3",
		"SELECT c.ssn FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.id NOT IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16) AND c.name IN ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p')",
	}, fuzzDecisions, func(sql string, dec map[string]*policy.Decision) (*rewriter.Result, error) {
		req := request(sql, dec)
		req.Session = Session{Database: "shop", MariaDB: true} // MariaDB reads the most forms
		return rewriteAll(context.Background(), req)
	}, func(t *testing.T, sql string, res *rewriter.Result, dec map[string]*policy.Decision) {
		pieces, err := parser.SplitStatementToPieces(res.SQL)
		if err != nil {
			t.Fatalf("output does not split: %v\n%s\n%s", err, sql, res.SQL)
		}
		for _, piece := range pieces {
			if strings.TrimSpace(piece) == "" {
				continue
			}
			if set, found, err := readStatementSet(piece); found {
				// SET STATEMENT … FOR: the statement after FOR.
				if err != nil {
					t.Fatalf("output's SET STATEMENT is not read: %v\n%s\n%s", err, sql, res.SQL)
				}
				piece = piece[set.body:]
			}
			var stmts []sqlparser.Statement
			if stmt, err := parser.Parse(piece); err == nil {
				stmts = []sqlparser.Statement{stmt}
				if _, _, found := writeModifierAsName(piece, stmt); found {
					// DELETE QUICK …, INSERT DELAYED …: the server reads
					// the modifier, not a table of that name.
					plain, m := readModified(piece)
					if m == nil {
						t.Fatalf("output reads a modifier as a name:\n%s\n%s", sql, res.SQL)
					}
					stmts = []sqlparser.Statement{plain}
				}
			} else if so := readSetOperation(piece); so != nil {
				// INTERSECT / EXCEPT: each operand is a query of its own.
				for _, op := range so.operands {
					stmts = append(stmts, op)
				}
			} else if ret := readReturning(piece); ret != nil {
				// A write and the select list it returns, over its target.
				stmts = append(stmts, ret.write, &sqlparser.Select{SelectExprs: ret.list})
			} else if plain, m := readModified(piece); m != nil {
				// CREATE OR REPLACE / ALTER ONLINE|IGNORE TABLE.
				stmts = append(stmts, plain)
			} else if sel, m := readLockWait(piece); m != nil {
				// FOR UPDATE / LOCK IN SHARE MODE WAIT n.
				stmts = append(stmts, sel)
			} else if sel, m := readFetch(piece); m != nil {
				// OFFSET … ROWS / FETCH … ROWS.
				stmts = append(stmts, sel)
			} else if tc := readTableCheck(piece); tc != nil {
				// CHECK / CHECKSUM TABLE: names no table it reads rows of.
				continue
			} else if seq := readSequence(piece); seq != nil && seq.unread == "" {
				// CREATE / ALTER / DROP SEQUENCE: names no table it reads.
				continue
			} else {
				t.Fatalf("output does not parse: %v\n%s\n%s", err, sql, res.SQL)
			}
			for _, stmt := range stmts {
				if err := checkTables(stmt, dec); err != nil {
					t.Fatalf("%v\n%s\n%s", err, sql, res.SQL)
				}
				if !strings.Contains(strings.ToLower(sql), "salary") && readsColumn(stmt, "salary") {
					t.Fatalf("restricted column in output:\n%s\n%s", sql, res.SQL)
				}
			}
		}
	})
}

// checkTables accepts a printed statement when every table reference in it
// is dual, a CTE of the statement, a table the policy leaves as it is
// (schema-qualified), the only FROM entry of a derived table that filters
// it (WHERE) and is fenced (LIMIT), a filtered table read unfenced where
// mergedReads allows it, the target of a write, the object of a schema
// change, or the information_schema.COLUMNS of a column listing.
func checkTables(stmt sqlparser.Statement, dec map[string]*policy.Decision) error {
	allowed := mergedReads(stmt, dec)
	ctes := map[string]bool{}
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch e := n.(type) {
		case *sqlparser.DerivedTable:
			if sel, ok := e.Select.(*sqlparser.Select); ok && len(sel.From) == 1 && sel.Where != nil && sel.Limit != nil {
				if ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr); ok && isReadForm(sel, ate, dec) {
					allowed[ate] = true
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

// isReadForm reports whether a derived table's query over one table is the
// policy's read form of it: no masked column selected raw, no restricted
// column read at all.
func isReadForm(sel *sqlparser.Select, ate *sqlparser.AliasedTableExpr, dec map[string]*policy.Decision) bool {
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return false
	}
	d := dec[policy.TableName{Schema: tn.Qualifier.String(), Table: tn.Name.String()}.Key()]
	if d == nil {
		return true
	}
	for _, se := range sel.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return false // a star selects every column raw
		}
		if c, raw := ae.Expr.(*sqlparser.ColName); raw {
			if m, masked := d.Masks[c.Name.Lowered()]; masked && m.Type != udf.TypeNone {
				return false
			}
		}
		restricted := false
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if c, ok := n.(*sqlparser.ColName); ok {
				_, restricted = d.Restricted[c.Name.Lowered()]
			}
			return !restricted, nil
		}, ae.Expr)
		if restricted {
			return false
		}
	}
	return true
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
		"select * from (select * from `shop`.`customers` where x = 1 limit 5) as c":            false, // every column raw
		"select * from (select * from `shop`.`customers`) as c":                                false,
		"select * from `shop`.`orders` where id in (select id from `shop`.`customers`)":        false,
		"update `shop`.`customers` set id = 1":                                                 true,
		"update `shop`.`orders` as o join `shop`.`customers` as c on c.id = o.id set o.id = 1": false,
		"update `shop`.`orders` as o join `shop`.`customers` as c on c.id = o.id set c.id = 1": true,
		// Flattened: the filter first, no failing condition, no masked column in a condition.
		"select id, concat(ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' and id = ?":               true,
		"select c.id from `shop`.`customers` as c where c.region = 'EU' and c.id in (1, 2) order by c.id":                       true,
		"select id from `shop`.`customers` where id = 1":                                                                        false,
		"select id from `shop`.`customers` where `shop`.`customers`.region = 'EU' and ssn = '1'":                                false,
		"select id from `shop`.`customers` where `shop`.`customers`.region = 'EU' and concat(ssn) = '1'":                        false,
		"select id from `shop`.`customers` where `shop`.`customers`.region = 'EU' and exp(id) > 0":                              false,
		"select id from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by email":                               false,
		"select id, concat(ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by 2":               false,
		"select id, concat(ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by ssn":             false,
		"select id, concat(ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by 1":               true,
		"select id, (select 1) from `shop`.`customers` where `shop`.`customers`.region = 'EU'":                                  false,
		"select id from `shop`.`orders` where id in (select id from `shop`.`customers` where `shop`.`customers`.region = 'EU')": false,
		// Merged derived tables: no condition reads a column they compute.
		"select c.id, c.ssn from (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c where c.id = 1":                     true,
		"select c.id from (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c where c.ssn = '1'":                         false,
		"select c.id from (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c where exp(c.id) > 0":                       false,
		"select c.ssn from (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c order by 1":                               false,
		"select c.id from `shop`.`orders` as o join (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c on c.ssn = o.id": false,
		"select c.id from `shop`.`orders` as o join (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c on c.id = o.id":  true,
		"select c.id from `shop`.`orders` as o natural join (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c":         false,
		"select (select 1) from (select id as id from `shop`.`customers` where region = 'EU') as c":                                                         false,
		// A guarded mask that reports its column's nullability.
		"select id, IFNULL(case when `shop`.`customers`.region = 'EU' then concat(ssn) end, ssn = ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by 2": true,
		"select id, IFNULL(case when `shop`.`customers`.region = 'EU' then concat(ssn) end, ssn) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by 2":       false,
		"select id, IFNULL(case when `shop`.`customers`.region = 'EU' then concat(ssn) end, ssn = id) as ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' order by 2":  false,
		// Known bad outputs: a masked column selected raw by the read form
		// or by a flattened read, a restricted column read, a masked table
		// merged under an outer join.
		"select * from (select id, ssn from `shop`.`customers` where region = 'EU' limit 5) as c":                                                                       false,
		"select * from (select id, salary from `shop`.`customers` where region = 'EU' limit 5) as c":                                                                    false,
		"select id, ssn from `shop`.`customers` where `shop`.`customers`.region = 'EU' and id = ?":                                                                      false,
		"select c.id from `shop`.`orders` as o left join (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU') as c on c.id = o.id":         false,
		"select c.id from `shop`.`orders` as o left join (select id as id, concat(ssn) as ssn from `shop`.`customers` where region = 'EU' limit 5) as c on c.id = o.id": true,
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

// mergedReads returns the reads of filtered tables that a printed SELECT
// may hold unfenced: a single-table read flattened (the table's filter,
// over its own columns, first in the WHERE) and derived tables of the
// policy's read form without a LIMIT, among the FROM entries of the
// statement's top level. Both only when the statement holds no other
// query, no HAVING, window or INTO, every node of its conditions outside
// the select list is of a kind that cannot fail on a value (see
// fallible), and no condition reads a masked value: a column a derived
// table computes, a raw masked column (a flattened read), also through a
// select-list entry named by position or alias. A value computed only
// where the table's filter holds (CASE WHEN filter THEN … END, the guard)
// is not a masked value: it reads nothing of a hidden row. A statement
// with an outer join reads no table with unguarded masks unfenced.
func mergedReads(stmt sqlparser.Statement, dec map[string]*policy.Decision) map[*sqlparser.AliasedTableExpr]bool {
	allowed := map[*sqlparser.AliasedTableExpr]bool{}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.With != nil || sel.Having != nil || len(sel.Windows) > 0 || sel.Into != nil {
		return allowed
	}
	if holdsQuery(sel.SelectExprs) {
		return allowed
	}
	var conds []sqlparser.SQLNode // conditions outside the select list
	var keys []sqlparser.Expr     // GROUP BY and ORDER BY entries
	if sel.GroupBy != nil {
		keys = append(keys, sel.GroupBy.Exprs...)
	}
	for _, o := range sel.OrderBy {
		keys = append(keys, o.Expr)
	}
	if sel.Limit != nil {
		conds = append(conds, sel.Limit)
	}
	names := map[string]bool{} // columns the conditions read, by name
	opaque := false            // the conditions may read any column
	outer := false             // an outer join
	var derived []*sqlparser.AliasedTableExpr
	var computed []map[string]bool         // per derived table: its computed columns
	filters := map[string]sqlparser.Expr{} // unfenced derived tables' filters, by alias
	var walkFrom func(te sqlparser.TableExpr) bool
	walkFrom = func(te sqlparser.TableExpr) bool {
		switch t := te.(type) {
		case *sqlparser.AliasedTableExpr:
			switch e := t.Expr.(type) {
			case sqlparser.TableName:
				return true
			case *sqlparser.DerivedTable:
				inner, ok := e.Select.(*sqlparser.Select)
				if !ok || len(inner.From) != 1 || inner.Where == nil || holdsQuery(inner.Where) {
					return false
				}
				if inner.Limit != nil {
					return true // fenced
				}
				ate, ok := inner.From[0].(*sqlparser.AliasedTableExpr)
				if !ok {
					return false
				}
				cols := map[string]bool{}
				for _, se := range inner.SelectExprs.Exprs {
					ae, ok := se.(*sqlparser.AliasedExpr)
					if !ok {
						return false
					}
					if c, plain := ae.Expr.(*sqlparser.ColName); plain && (ae.As.IsEmpty() || ae.As.EqualString(c.Name.String())) {
						continue
					}
					if holdsQuery(ae.Expr) {
						return false
					}
					if guardedBy(ae.Expr, inner.Where.Expr) {
						continue // NULL on a row the filter rejects
					}
					cols[strings.ToLower(ae.As.String())] = true
				}
				if !isReadForm(inner, ate, dec) {
					return false
				}
				filters[strings.ToLower(t.As.String())] = inner.Where.Expr
				derived = append(derived, ate)
				computed = append(computed, cols)
				return true
			}
			return false
		case *sqlparser.JoinTableExpr:
			switch t.Join {
			case sqlparser.NaturalJoinType, sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType:
				opaque = true
			}
			switch t.Join {
			case sqlparser.LeftJoinType, sqlparser.RightJoinType, sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType:
				outer = true
			}
			if t.Condition != nil {
				if t.Condition.On != nil {
					conds = append(conds, t.Condition.On)
				}
				for _, c := range t.Condition.Using {
					names[c.Lowered()] = true
				}
			}
			return walkFrom(t.LeftExpr) && walkFrom(t.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, e := range t.Exprs {
				if !walkFrom(e) {
					return false
				}
			}
			return true
		}
		return false
	}
	for _, te := range sel.From {
		if !walkFrom(te) {
			return allowed
		}
	}
	// The flattened form: its single FROM entry, the filter first.
	var flat *sqlparser.AliasedTableExpr
	var flatDecision *policy.Decision
	where := sqlparser.Expr(nil)
	if sel.Where != nil {
		where = sel.Where.Expr
	}
	if len(sel.From) == 1 && where != nil {
		if ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok {
				t := policy.TableName{Schema: tn.Qualifier.String(), Table: tn.Name.String()}
				q := tn
				if !ate.As.IsEmpty() {
					q = sqlparser.TableName{Name: ate.As}
				}
				if d, ok := dec[t.Key()]; ok && len(d.RowFilters) > 0 {
					filter, rest := where, sqlparser.Expr(nil)
					if and, ok := where.(*sqlparser.AndExpr); ok {
						filter, rest = and.Left, and.Right
					}
					if readsOnly(filter, q) {
						flat, flatDecision, where = ate, d, rest
					}
				}
			}
		}
	}
	if where != nil && flat == nil {
		// A WHERE conjunct guarded by the filters of the unfenced tables
		// it may read, or reading none of them, is evaluated on no hidden
		// row of theirs.
		for _, c := range splitAnd(where, nil) {
			if !joinConjunctGuarded(c, filters) && readsFilteredTable(c, filters) {
				conds = append(conds, c)
			}
		}
	} else if where != nil {
		conds = append(conds, where)
	}
	for _, k := range keys {
		conds = append(conds, k)
	}
	var flatFilter sqlparser.Expr
	if flat != nil {
		// A mask the flattened read computes only where its filter holds
		// reads nothing of a hidden row.
		flatFilter = sel.Where.Expr
		if and, ok := flatFilter.(*sqlparser.AndExpr); ok {
			flatFilter = and.Left
		}
		for i, c := range conds {
			conds[i] = withoutGuarded(c, flatFilter)
		}
	}
	for _, c := range conds {
		if fallible(c) {
			return allowed
		}
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			if c, ok := node.(*sqlparser.ColName); ok {
				names[c.Name.Lowered()] = true
			}
			return true, nil
		}, c)
	}
	// A key naming a select-list entry (a position, an output name) reads
	// that entry.
	for _, k := range keys {
		entry, named, known := keyEntry(sel, k)
		if !named {
			continue
		}
		if !known {
			if flat != nil && !holdsStar(sel) {
				continue // a position out of range: the server refuses it before it reads a row
			}
			opaque = true
			continue
		}
		if flat != nil {
			entry = withoutGuarded(entry, flatFilter).(sqlparser.Expr)
		}
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			if c, ok := node.(*sqlparser.ColName); ok {
				names[c.Name.Lowered()] = true
			}
			return true, nil
		}, entry)
	}
	if flat != nil {
		for _, se := range sel.SelectExprs.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return allowed // a star selects every column raw
			}
			if c, raw := ae.Expr.(*sqlparser.ColName); raw {
				if m, masked := flatDecision.Masks[c.Name.Lowered()]; masked && m.Type != udf.TypeNone {
					return allowed
				}
			}
		}
		masked := false
		for name, m := range flatDecision.Masks {
			if m.Type != udf.TypeNone {
				masked = true
				if names[strings.ToLower(name)] {
					return allowed
				}
			}
		}
		if !masked || !opaque {
			allowed[flat] = true
		}
		return allowed
	}
	for i, ate := range derived {
		ok := !((opaque || outer) && len(computed[i]) > 0)
		for name := range computed[i] {
			if names[name] {
				ok = false
			}
		}
		if ok {
			allowed[ate] = true
		}
	}
	return allowed
}

// joinConjunctGuarded reports whether c is CASE WHEN g THEN v ELSE FALSE
// END where g holds, ANDed, the filter of every unfenced derived table
// that v may read, each with its columns qualified by that table's
// alias. v reads a table through alias.column; any other column (no
// qualifier, a database, an unknown qualifier) may read every table, as
// does a v that names no column.
func joinConjunctGuarded(c sqlparser.Expr, filters map[string]sqlparser.Expr) bool {
	ce, ok := c.(*sqlparser.CaseExpr)
	if !ok || ce.Expr != nil || len(ce.Whens) != 1 {
		return false
	}
	if b, ok := ce.Else.(sqlparser.BoolVal); !ok || bool(b) {
		return false
	}
	terms := map[string]bool{}
	for _, t := range splitAnd(ce.Whens[0].Cond, nil) {
		if alias, text, ok := qualifiedTerm(t); ok {
			terms[alias+"\x00"+text] = true
		}
	}
	for alias, f := range filters {
		if !readsAlias(ce.Whens[0].Val, alias, filters) {
			continue
		}
		for _, t := range splitAnd(f, nil) {
			if !terms[alias+"\x00"+unqualified(t)] {
				return false
			}
		}
	}
	return true
}

// readsFilteredTable reports whether c may read a row of an unfenced
// filtered derived table (see joinConjunctGuarded).
func readsFilteredTable(c sqlparser.Expr, filters map[string]sqlparser.Expr) bool {
	for alias := range filters {
		if readsAlias(c, alias, filters) {
			return true
		}
	}
	return false
}

// readsAlias reports whether e may read the table under alias.
func readsAlias(e sqlparser.Expr, alias string, filters map[string]sqlparser.Expr) bool {
	reads, named := false, false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if col, ok := n.(*sqlparser.ColName); ok {
			named = true
			q := strings.ToLower(col.Qualifier.Name.String())
			if q == alias || q == "" || !col.Qualifier.Qualifier.IsEmpty() {
				reads = true
			}
		}
		return true, nil
	}, e)
	return reads || !named
}

// qualifiedTerm is a guard's conjunct whose columns are all qualified by
// one alias: the alias and the conjunct's text without qualifiers.
func qualifiedTerm(e sqlparser.Expr) (alias, text string, ok bool) {
	ok = true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if col, isCol := n.(*sqlparser.ColName); isCol {
			q := strings.ToLower(col.Qualifier.Name.String())
			if q == "" || !col.Qualifier.Qualifier.IsEmpty() || alias != "" && q != alias {
				ok = false
			}
			alias = q
		}
		return true, nil
	}, e)
	if !ok || alias == "" {
		return "", "", false
	}
	return alias, unqualified(e), true
}

// unqualified prints e with every column reduced to its name.
func unqualified(e sqlparser.Expr) string {
	c := sqlparser.CloneExpr(e)
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if col, ok := n.(*sqlparser.ColName); ok {
			col.Qualifier = sqlparser.TableName{}
		}
		return true, nil
	}, c)
	return sqlparser.String(c)
}

// guardedBy reports whether e is CASE WHEN filter THEN … END, with no
// ELSE or ELSE FALSE: a value computed only on the rows filter admits.
func guardedBy(e, filter sqlparser.Expr) bool {
	// IFNULL(guarded, c = c): on a hidden row, a column compared with
	// itself, 1 or NULL, which cannot fail and holds nothing of the value.
	if f, ok := e.(*sqlparser.FuncExpr); ok && f.Name.EqualString("ifnull") && len(f.Exprs) == 2 {
		cmp, isCmp := f.Exprs[1].(*sqlparser.ComparisonExpr)
		if !isCmp || cmp.Operator != sqlparser.EqualOp {
			return false
		}
		l, lok := cmp.Left.(*sqlparser.ColName)
		r, rok := cmp.Right.(*sqlparser.ColName)
		if !lok || !rok || sqlparser.String(l) != sqlparser.String(r) {
			return false
		}
		e = f.Exprs[0]
	}
	c, ok := e.(*sqlparser.CaseExpr)
	if !ok || c.Expr != nil || len(c.Whens) != 1 || sqlparser.String(c.Whens[0].Cond) != sqlparser.String(filter) {
		return false
	}
	if c.Else == nil {
		return true
	}
	b, isBool := c.Else.(sqlparser.BoolVal)
	return isBool && !bool(b)
}

// withoutGuarded is a copy of n with every expression guardedBy filter
// replaced by NULL.
func withoutGuarded(n sqlparser.SQLNode, filter sqlparser.Expr) sqlparser.SQLNode {
	return sqlparser.Rewrite(sqlparser.CloneSQLNode(n), func(c *sqlparser.Cursor) bool {
		if e, ok := c.Node().(sqlparser.Expr); ok && guardedBy(e, filter) {
			c.Replace(&sqlparser.NullVal{})
			return false
		}
		return true
	}, nil)
}

// keyEntry returns the select-list expression a GROUP BY or ORDER BY key
// names: named is set when the key is a position (an integer) or an
// unqualified name that is an output alias, known when the entry is an
// expression the oracle can see (in range, no star at or before it).
func keyEntry(sel *sqlparser.Select, key sqlparser.Expr) (entry sqlparser.Expr, named, known bool) {
	exprs := sel.SelectExprs.Exprs
	pos := -1
	switch k := key.(type) {
	case *sqlparser.Literal:
		if k.Type != sqlparser.IntVal {
			return nil, false, false
		}
		n, err := strconv.Atoi(k.Val)
		if err != nil || n < 1 || n > len(exprs) {
			return nil, true, false
		}
		pos = n - 1
	case *sqlparser.ColName:
		if !k.Qualifier.IsEmpty() {
			return nil, false, false
		}
		for i, se := range exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && ae.As.EqualString(k.Name.String()) {
				pos = i
				break
			}
		}
		if pos < 0 {
			return nil, false, false
		}
	default:
		return nil, false, false
	}
	for _, se := range exprs[:pos+1] {
		if _, ok := se.(*sqlparser.AliasedExpr); !ok {
			return nil, true, false // a star at or before it
		}
	}
	return exprs[pos].(*sqlparser.AliasedExpr).Expr, true, true
}

// fallible reports whether a condition holds any expression node of a
// kind that could fail on a value: anything but columns, literals,
// placeholders, NULL, booleans, lists, the boolean connectives, NULL and
// truth tests, BETWEEN, and the comparisons (=, <>, <, <=, >, >=, <=>,
// IN, NOT IN, LIKE, NOT LIKE).
func fallible(n sqlparser.SQLNode) bool {
	bad := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if _, isExpr := node.(sqlparser.Expr); !isExpr {
			return true, nil // a clause, an identifier, an ORDER BY entry
		}
		switch x := node.(type) {
		case *sqlparser.ColName, *sqlparser.Literal, *sqlparser.Argument, *sqlparser.NullVal, sqlparser.BoolVal,
			sqlparser.ValTuple, *sqlparser.AndExpr, *sqlparser.OrExpr, *sqlparser.NotExpr, *sqlparser.IsExpr,
			*sqlparser.BetweenExpr:
		case *sqlparser.ComparisonExpr:
			switch x.Operator {
			case sqlparser.EqualOp, sqlparser.NotEqualOp, sqlparser.LessThanOp, sqlparser.LessEqualOp, sqlparser.GreaterThanOp,
				sqlparser.GreaterEqualOp, sqlparser.NullSafeEqualOp, sqlparser.InOp, sqlparser.NotInOp, sqlparser.LikeOp,
				sqlparser.NotLikeOp:
			default:
				bad = true
			}
		default:
			bad = true
		}
		return !bad, nil
	}, n)
	return bad
}

// holdsStar reports whether the select list holds a star.
func holdsStar(sel *sqlparser.Select) bool {
	for _, se := range sel.SelectExprs.Exprs {
		if _, ok := se.(*sqlparser.StarExpr); ok {
			return true
		}
	}
	return false
}

// holdsQuery reports whether n holds another query.
func holdsQuery(n sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch node.(type) {
		case *sqlparser.Subquery, *sqlparser.DerivedTable, *sqlparser.Select, *sqlparser.Union:
			found = true
		}
		return !found, nil
	}, n)
	return found
}

// readsOnly reports whether e reads at least one column and only columns
// qualified with q (an alias, or the table's schema and name): the filter
// the rewrite puts first in a flattened read's WHERE.
func readsOnly(e sqlparser.Expr, q sqlparser.TableName) bool {
	cols := 0
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, isCol := n.(*sqlparser.ColName); isCol {
			cols++
			if !strings.EqualFold(c.Qualifier.Name.String(), q.Name.String()) || !strings.EqualFold(c.Qualifier.Qualifier.String(), q.Qualifier.String()) {
				ok = false
			}
		}
		return true, nil
	}, e)
	return ok && cols > 0
}
