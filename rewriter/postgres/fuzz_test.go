package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
)

// FuzzRewrite: the rewrite never panics, every error is a typed rejection,
// every output parses, and every relation in the output is one the policy
// sanctions — checked on the printed output, independently of the
// rewriter's own bookkeeping.
func FuzzRewrite(f *testing.F) {
	dialecttest.FuzzRewrite(f, []string{
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
	}, simpleDecisions, func(sql string, dec map[string]*policy.Decision) (*rewriter.Result, error) {
		return rewriteAll(context.Background(), request(sql, dec))
	}, func(t *testing.T, sql string, res *rewriter.Result, dec map[string]*policy.Decision) {
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
		if in, err := pg.Parse(sql); err == nil && len(in.Stmts) == len(tree.Stmts) {
			for i, raw := range tree.Stmts {
				if err := checkFences(in.Stmts[i].Stmt, raw.Stmt, dec); err != nil {
					t.Fatalf("%v\n%s\n%s", err, sql, res.SQL)
				}
			}
		}
	})
}

// guardedBy reports whether e is CASE WHEN filter THEN … END, with no
// ELSE or a NULL of a type: a value computed only on the rows filter
// admits, NULL on the others.
func guardedBy(e, filter *pg.Node) bool {
	c := e.GetCaseExpr()
	if c == nil || c.Arg != nil || c.Defresult != nil && !isTypedNull(c.Defresult) || len(c.Args) != 1 {
		return false
	}
	w := c.Args[0].GetCaseWhen()
	if w == nil {
		return false
	}
	got, err1 := deparseExpr(w.Expr)
	want, err2 := deparseExpr(filter)
	return err1 == nil && err2 == nil && got == want
}

// outSelect is the printed statement's SELECT (or an empty one).
func outSelect(out *pg.Node) *pg.SelectStmt {
	if sel := out.GetSelectStmt(); sel != nil {
		return sel
	}
	return &pg.SelectStmt{}
}

// conjunctGuarded reports whether a conjunct of the printed WHERE is CASE
// WHEN g THEN c ELSE false END where g holds, ANDed, the filter of every
// unfenced derived table that c may read, each with its columns
// qualified by that table's alias: c is evaluated only on rows those
// filters admit. c may read a table by alias.column; any other column
// reference (unqualified, schema.table.column) may read every table.
func conjunctGuarded(c *pg.Node, filters map[string]*pg.Node) bool {
	ce := c.GetCaseExpr()
	if ce == nil || ce.Arg != nil || len(ce.Args) != 1 || ce.Defresult == nil {
		return false
	}
	if b := ce.Defresult.GetAConst().GetBoolval(); b == nil || b.Boolval {
		return false
	}
	when := ce.Args[0].GetCaseWhen()
	terms := map[string]bool{} // the guard's conjuncts, each with its qualifiers
	for _, t := range splitAnd(when.GetExpr(), nil) {
		terms[qualifiedText(t)] = true
	}
	covers := func(alias string, f *pg.Node) bool {
		for _, t := range splitAnd(f, nil) {
			if !terms[alias+"\x00"+unqualifiedText(t)] {
				return false
			}
		}
		return true
	}
	reads := map[string]bool{}
	all := false
	_ = walk(when.GetResult(), func(m protoMessage, _ *pg.Node) (bool, error) {
		if cr, ok := m.(*pg.ColumnRef); ok {
			if len(cr.Fields) == 2 && cr.Fields[0].GetString_() != nil {
				reads[cr.Fields[0].GetString_().GetSval()] = true
			} else {
				all = true
			}
		}
		return true, nil
	})
	for alias, f := range filters {
		if (all || reads[alias]) && !covers(alias, f) {
			return false
		}
	}
	return true
}

// readsFiltered reports whether a conjunct may read a row of an unfenced
// filtered table: it names a column of one by its alias, names a column
// otherwise (unqualified, schema.table.column), or names none (a
// conjunct of constants counts as reading every table).
func readsFiltered(c *pg.Node, filters map[string]*pg.Node) bool {
	reads, named := false, false
	_ = walk(c, func(m protoMessage, _ *pg.Node) (bool, error) {
		if cr, ok := m.(*pg.ColumnRef); ok {
			named = true
			q := cr.Fields[0].GetString_()
			if len(cr.Fields) != 2 || q == nil || filters[q.GetSval()] != nil {
				reads = true
			}
		}
		return true, nil
	})
	return reads || !named
}

// qualifiedText is a guard's conjunct as alias NUL text, when every
// column of it is qualified by the same alias (else "").
func qualifiedText(n *pg.Node) string {
	alias, ok := "", true
	_ = walk(n, func(m protoMessage, _ *pg.Node) (bool, error) {
		if cr, isRef := m.(*pg.ColumnRef); isRef {
			if len(cr.Fields) != 2 || alias != "" && cr.Fields[0].GetString_().GetSval() != alias {
				ok = false
			}
			alias = cr.Fields[0].GetString_().GetSval()
		}
		return true, nil
	})
	if !ok || alias == "" {
		return ""
	}
	return alias + "\x00" + unqualifiedText(n)
}

// unqualifiedText prints an expression with every column reference
// reduced to its column name.
func unqualifiedText(n *pg.Node) string {
	c := proto.Clone(n).(*pg.Node)
	_ = walk(c, func(m protoMessage, _ *pg.Node) (bool, error) {
		if cr, ok := m.(*pg.ColumnRef); ok && len(cr.Fields) > 1 {
			cr.Fields = cr.Fields[len(cr.Fields)-1:]
		}
		return true, nil
	})
	text, err := deparseExpr(c)
	if err != nil {
		return "\x00" + err.Error()
	}
	return text
}

// checkFences accepts a printed statement when every row-filtered derived
// table in it is fenced (OFFSET 0), unless the statement as written is a
// plain SELECT whose conditions (everything but the select list) hold
// only columns, constants, placeholders, comparisons and boolean
// connectives, and read no masked column (or whole row) of an unfenced
// table, and that holds no outer join when an unfenced table is masked.
// A masked column the derived table computes only where its filter holds
// (guardedBy) counts as unmasked: it reads nothing of a hidden row.
func checkFences(in, out *pg.Node, dec map[string]*policy.Decision) error {
	masked := map[string]bool{}      // the masked columns of unfenced tables
	filters := map[string]*pg.Node{} // the filters of unfenced tables, by alias
	unfenced, anyMasked := false, false
	_ = walk(out, func(m protoMessage, _ *pg.Node) (bool, error) {
		rs, ok := m.(*pg.RangeSubselect)
		if !ok {
			return true, nil
		}
		sel := rs.Subquery.GetSelectStmt()
		if sel == nil || sel.WhereClause == nil || sel.LimitOffset != nil || len(sel.FromClause) != 1 {
			return true, nil
		}
		rv := sel.FromClause[0].GetRangeVar()
		if rv == nil {
			return true, nil
		}
		d := dec[policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}.Key()]
		if d == nil || len(d.RowFilters) == 0 {
			return true, nil
		}
		unfenced = true
		if rs.Alias != nil {
			filters[rs.Alias.Aliasname] = sel.WhereClause
		}
		guarded := map[string]bool{}
		for _, t := range sel.TargetList {
			// A NULL of a type reads nothing of the row: as good as
			// guarded.
			if rt := t.GetResTarget(); rt != nil && (guardedBy(rt.Val, sel.WhereClause) || isTypedNull(rt.Val)) {
				guarded[rt.Name] = true
			}
		}
		for name, mask := range d.Masks {
			if mask.Type != udf.TypeNone && !guarded[name] {
				masked[name] = true
				anyMasked = true
			}
		}
		return true, nil
	})
	if !unfenced {
		return nil
	}
	sel := in.GetSelectStmt()
	if sel == nil || sel.WithClause != nil || sel.Op != pg.SetOperation_SETOP_NONE || sel.HavingClause != nil {
		return errors.New("a filtered table is unfenced in a statement that is not a plain SELECT")
	}
	entries := map[string]bool{}
	for _, f := range sel.FromClause {
		_ = walk(f, func(m protoMessage, _ *pg.Node) (bool, error) {
			switch e := m.(type) {
			case *pg.RangeVar:
				entries[e.Relname] = true
				if e.Alias != nil {
					entries[e.Alias.Aliasname] = true
				}
			case *pg.JoinExpr:
				if e.Alias != nil {
					entries[e.Alias.Aliasname] = true
				}
				if e.JoinUsingAlias != nil {
					entries[e.JoinUsingAlias.Aliasname] = true
				}
			}
			return true, nil
		})
	}
	// readsMask: a select-list entry named by a key reads a masked
	// column, or a whole row (a bare entry name or a star) of a
	// statement where some unfenced table has a mask its filter does not
	// guard (select-list expressions are computed only on the rows the
	// conditions admit, so only what they read counts; a whole row of
	// guarded masks reads nothing of a hidden row).
	readsMask := func(n protoMessage) error {
		var err error
		_ = walk(n, func(m protoMessage, _ *pg.Node) (bool, error) {
			if cr, ok := m.(*pg.ColumnRef); ok {
				last := cr.Fields[len(cr.Fields)-1]
				switch v := last.GetString_().GetSval(); {
				case isStar(cr) && anyMasked:
					err = errors.New("a filtered table with unguarded masks is unfenced under a key naming a star")
				case masked[v], len(cr.Fields) == 1 && entries[v] && anyMasked:
					err = errors.New("a filtered table is unfenced under a key naming an entry that reads a mask")
				}
			}
			return true, nil
		})
		return err
	}
	var bad error
	check := func(n protoMessage) {
		_ = walk(n, func(m protoMessage, _ *pg.Node) (bool, error) {
			switch e := m.(type) {
			case *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect, *pg.RangeFunction, *pg.FuncCall, *pg.TypeCast,
				*pg.CaseExpr, *pg.CoalesceExpr, *pg.MinMaxExpr, *pg.A_Indirection, *pg.A_ArrayExpr, *pg.RowExpr,
				*pg.CollateClause, *pg.SQLValueFunction, *pg.XmlExpr, *pg.GroupingSet:
				bad = errors.New("a filtered table is unfenced under a condition that can fail")
			case *pg.A_Expr:
				switch e.Kind {
				case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
					pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM,
					pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
					return true, nil
				}
				if len(e.Name) == 1 {
					switch e.Name[0].GetString_().GetSval() {
					case "=", "<>", "<", "<=", ">", ">=", "~~", "!~~", "~~*", "!~~*":
						return true, nil
					}
				}
				bad = errors.New("a filtered table is unfenced under an operator that can fail")
			case *pg.ColumnRef:
				for i, f := range e.Fields {
					switch v := f.GetString_().GetSval(); {
					case i == len(e.Fields)-1 && masked[v],
						len(e.Fields) == 1 && entries[v]:
						bad = errors.New("a filtered table is unfenced under a condition reading a mask")
					}
					if f.GetAStar() != nil {
						bad = errors.New("a filtered table is unfenced under a condition reading a star")
					}
				}
			case *pg.JoinExpr:
				if e.Jointype != pg.JoinType_JOIN_INNER && anyMasked {
					bad = errors.New("a filtered table with masks is unfenced in an outer join")
				}
				if e.IsNatural || len(e.UsingClause) > 0 {
					for _, u := range e.UsingClause {
						if v := u.GetString_().GetSval(); !masked[v] {
							continue
						}
						bad = errors.New("a filtered table is unfenced under USING a mask")
					}
					if e.IsNatural && anyMasked {
						bad = errors.New("a filtered table with unguarded masks is unfenced under a NATURAL join")
					}
				}
			}
			return true, nil
		})
	}
	for _, f := range sel.FromClause {
		check(f)
	}
	if sel.WhereClause != nil {
		out := outSelect(out)
		for _, c := range splitAnd(out.WhereClause, nil) {
			if !conjunctGuarded(c, filters) && readsFiltered(c, filters) {
				check(c)
			}
		}
	}
	for _, n := range []*pg.Node{sel.LimitCount, sel.LimitOffset} {
		if n != nil {
			check(n)
		}
	}
	for _, l := range [][]*pg.Node{sel.GroupClause, sel.SortClause, sel.DistinctClause, sel.WindowClause} {
		for _, n := range l {
			check(n)
			key := n
			if sb := n.GetSortBy(); sb != nil {
				key = sb.Node
			}
			if c := key.GetAConst(); c != nil && c.GetIval() != nil {
				// A position names a select-list entry: only a column that
				// is no mask.
				pos := int(c.GetIval().Ival)
				if pos < 1 || pos > len(sel.TargetList) {
					if !anyMasked {
						continue // the server refuses the position before it reads a row
					}
					return errors.New("a filtered table with unguarded masks is unfenced under an unknown position")
				}
				afterStar := false
				for _, t := range sel.TargetList[:pos] {
					if cr := t.GetResTarget().GetVal().GetColumnRef(); cr != nil && isStar(cr) {
						afterStar = true
					}
				}
				if afterStar {
					// The position names some column of the star's
					// expansion, or an entry after it: harmless where every
					// mask is guarded (as above).
					if !anyMasked {
						continue
					}
					return errors.New("a filtered table with unguarded masks is unfenced under a position after a star")
				}
				if err := readsMask(sel.TargetList[pos-1]); err != nil {
					return err
				}
			}
			if cr := key.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
				for _, t := range sel.TargetList {
					if rt := t.GetResTarget(); rt != nil && rt.Name != "" && rt.Name == cr.Fields[0].GetString_().GetSval() {
						if err := readsMask(rt.Val); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	for _, t := range sel.TargetList {
		_ = walk(t, func(m protoMessage, _ *pg.Node) (bool, error) {
			switch e := m.(type) {
			case *pg.SubLink, *pg.SelectStmt:
				bad = errors.New("a filtered table is unfenced under a subquery in the select list")
			case *pg.FuncCall:
				if e.Over != nil {
					bad = errors.New("a filtered table is unfenced under a window")
				}
			}
			return true, nil
		})
	}
	return bad
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
				if rv := sel.FromClause[0].GetRangeVar(); rv != nil && isReadForm(sel, rv, dec) {
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

// isReadForm reports whether a derived table's query over one relation is
// the policy's read form of it: filtered when the policy filters, no
// masked column selected raw, no restricted column read at all, no star.
func isReadForm(sel *pg.SelectStmt, rv *pg.RangeVar, dec map[string]*policy.Decision) bool {
	d := dec[policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}.Key()]
	if d == nil {
		return true
	}
	if len(d.RowFilters) > 0 && sel.WhereClause == nil {
		return false
	}
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			return false
		}
		bad := false
		_ = walk(rt.Val, func(m protoMessage, _ *pg.Node) (bool, error) {
			if c, ok := m.(*pg.ColumnRef); ok {
				for _, f := range c.Fields {
					if f.GetAStar() != nil {
						bad = true
					}
					if _, restricted := d.Restricted[f.GetString_().GetSval()]; restricted {
						bad = true
					}
				}
			}
			return !bad, nil
		})
		if c := rt.Val.GetColumnRef(); c != nil && len(c.Fields) > 0 {
			if m, ok := d.Masks[c.Fields[len(c.Fields)-1].GetString_().GetSval()]; ok && m.Type != udf.TypeNone {
				bad = true
			}
		}
		if bad {
			return false
		}
	}
	return true
}

func TestCheckRelationsCatchesDirectReads(t *testing.T) {
	dec := simpleDecisions()
	for sql, ok := range map[string]bool{
		"SELECT * FROM shop.customers":                         false,
		"SELECT * FROM customers":                              false,
		"WITH customers AS (SELECT 1) SELECT * FROM customers": true,
		"SELECT * FROM (SELECT id, right(ssn, 4) AS ssn FROM shop.customers WHERE region = 'EU') c": true,
		// Known bad outputs: the read form without its filter, with a
		// masked column raw, with a restricted column, with a star.
		"SELECT * FROM (SELECT id, right(ssn, 4) AS ssn FROM shop.customers) c":                false,
		"SELECT * FROM (SELECT id, ssn FROM shop.customers WHERE region = 'EU') c":             false,
		"SELECT * FROM (SELECT id, salary + 0 AS s FROM shop.customers WHERE region = 'EU') c": false,
		"SELECT * FROM (SELECT * FROM shop.customers WHERE region = 'EU') c":                   false,
		"SELECT * FROM shop.orders WHERE id IN (SELECT id FROM shop.customers)":                false,
		"UPDATE shop.customers SET id = 1":                                                     true,
	} {
		tree := mustParse(t, sql)
		err := checkRelations(tree.Stmts[0].Stmt, dec)
		if (err == nil) != ok {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

func TestCheckFencesCatchesUnfencedReads(t *testing.T) {
	dec := simpleDecisions()
	// merged is the read form with its masks unguarded (as for a filter
	// that is not simple); guarded is the form sqe prints for a simple
	// filter.
	fenced, merged, guarded := derivedCFenced, derivedCUnguarded, derivedC
	mergedM := derivedM
	for _, c := range []struct {
		in, out string
		ok      bool
	}{
		{"SELECT id FROM customers WHERE id = 1", "SELECT id FROM " + merged + " customers WHERE id = 1", true},
		{"SELECT id FROM customers WHERE id = 1", "SELECT id FROM " + fenced + " customers WHERE id = 1", true},
		{"SELECT ssn FROM customers WHERE id = $1", "SELECT ssn FROM " + merged + " customers WHERE id = $1", true},
		// Known bad outputs: unfenced under a condition that can fail, one
		// reading a mask (by name, position or whole row), an outer join,
		// a CTE, a subquery.
		{"SELECT id FROM customers WHERE 1 / id = 1", "SELECT id FROM " + merged + " customers WHERE 1 / id = 1", false},
		{"SELECT id FROM customers WHERE ssn = '1'", "SELECT id FROM " + merged + " customers WHERE ssn = '1'", false},
		{"SELECT ssn FROM customers ORDER BY 1", "SELECT ssn FROM " + merged + " customers ORDER BY 1", false},
		{"SELECT id FROM customers c WHERE c IS NOT NULL", "SELECT id FROM " + merged + " c WHERE c IS NOT NULL", false},
		{"SELECT o.id FROM orders o LEFT JOIN customers c ON c.id = o.id", "SELECT o.id FROM shop.orders o LEFT JOIN " + merged + " c ON c.id = o.id", false},
		{"SELECT o.id FROM orders o LEFT JOIN region_map m ON m.role = o.id", "SELECT o.id FROM shop.orders o LEFT JOIN " + mergedM + " m ON m.role = o.id", true},
		{"WITH x AS (SELECT 1) SELECT id FROM customers", "WITH x AS (SELECT 1) SELECT id FROM " + merged + " customers", false},
		{"SELECT (SELECT 1) FROM customers", "SELECT (SELECT 1) FROM " + merged + " customers", false},
		{"SELECT ssn FROM customers ORDER BY upper(name)", "SELECT ssn FROM " + merged + " customers ORDER BY upper(name)", false},
		{"SELECT upper(ssn) FROM customers ORDER BY 1", "SELECT upper(ssn) FROM " + merged + " customers ORDER BY 1", false},
		{"SELECT * FROM customers ORDER BY 1", "SELECT * FROM " + merged + " customers ORDER BY 1", false},
		// Guarded masks: a hidden row's masked columns are NULL.
		{"SELECT id FROM customers WHERE ssn = '1'", "SELECT id FROM " + guarded + " customers WHERE ssn = '1'", true},
		{"SELECT upper(ssn) FROM customers ORDER BY 1", "SELECT upper(ssn) FROM " + guarded + " customers ORDER BY 1", true},
		{"SELECT o.id FROM orders o LEFT JOIN customers c ON c.ssn = o.id", "SELECT o.id FROM shop.orders o LEFT JOIN " + guarded + " c ON c.ssn = o.id", true},
		{"SELECT id FROM customers WHERE 1 / id = 1", "SELECT id FROM " + guarded + " customers WHERE 1 / id = 1", false},
		{"SELECT id FROM customers c WHERE c IS NOT NULL", "SELECT id FROM " + guarded + " c WHERE c IS NOT NULL", false},
	} {
		in, out := mustParse(t, c.in), mustParse(t, c.out)
		if err := checkFences(in.Stmts[0].Stmt, out.Stmts[0].Stmt, dec); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.out, err)
		}
	}
}
