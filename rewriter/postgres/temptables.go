package postgres

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// stringTables are the temporary tables that the earlier statements of a
// multi-statement string create, drop, rename or alter, by name in
// pg_temp. The server runs the statements one after the other, so a later
// statement names these tables as they will be when it runs, not as the
// catalog lists them while the string is rewritten. A table here is
// planned like any other table of pg_temp: the policy decides on
// pg_temp.name, as it does for a temporary table created by an earlier
// call.
type stringTables struct {
	byName map[string]*stringTable
	// discarded: DISCARD TEMP dropped every temporary table, those of
	// earlier calls included.
	discarded bool
}

// lookup returns what the string leaves of a temporary table's name.
func (s *stringTables) lookup(name string) (*stringTable, bool) {
	if st, ok := s.byName[name]; ok {
		return st, true
	}
	if s.discarded {
		return &stringTable{dropped: true}, true
	}
	return nil, false
}

func (s *stringTables) set(name string, st *stringTable) {
	if s.byName == nil {
		s.byName = map[string]*stringTable{}
	}
	s.byName[name] = st
}

// stringTable is one temporary table as an earlier statement of the
// string leaves it.
type stringTable struct {
	// dropped: the table no longer exists in pg_temp, and an unqualified
	// name resolves further along the search path.
	dropped bool
	// cols are its columns, in order; nil when they are not known with
	// certainty (unknown says why), and then a plan that needs them is
	// refused.
	cols    []rewriter.Column
	unknown string
}

// tempSchema is the name sqe gives the connection's temporary schema.
const tempSchema = "pg_temp"

// stringCatalog answers for the tables of stringTables and asks the
// statement's catalog about every other table.
type stringCatalog struct {
	rewriter.Catalog
	tables *stringTables
}

func (c *stringCatalog) Columns(ctx context.Context, t policy.TableName) ([]rewriter.Column, bool, error) {
	if st, ok := c.tables.of(t); ok {
		switch {
		case st.dropped:
			return nil, false, nil
		case st.cols == nil:
			return nil, false, fmt.Errorf("the columns of temporary table %s are not known before the string runs: %s", t.Table, st.unknown)
		}
		return st.cols, true, nil
	}
	return c.Catalog.Columns(ctx, t)
}

// stringFinder adds the catalog's RelationFinder to a stringCatalog. An
// index or sequence name that could be in pg_temp is refused: the
// server's answer now is not the one it will give when the statement
// runs.
type stringFinder struct {
	finder rewriter.RelationFinder
}

func (f stringFinder) FindRelation(ctx context.Context, name []string) (rewriter.Relation, bool, error) {
	if len(name) == 1 || isTempSchemaName(name[0]) {
		return rewriter.Relation{}, false, rewriter.Unsupported(
			"an index or sequence name after a temporary table is created, dropped or changed in the same string is not resolved by sqe (run the statements separately)")
	}
	return f.finder.FindRelation(ctx, name)
}

// of returns the entry of a table in pg_temp.
func (s *stringTables) of(t policy.TableName) (*stringTable, bool) {
	if t.Schema != tempSchema {
		return nil, false
	}
	return s.lookup(t.Table)
}

// request returns req with its catalog answering for the string's
// temporary tables; req itself when there are none.
func (s *stringTables) request(req *rewriter.Request) *rewriter.Request {
	if (len(s.byName) == 0 && !s.discarded) || req.Catalog == nil {
		return req
	}
	cp := *req
	c := &stringCatalog{Catalog: req.Catalog, tables: s}
	f, finds := req.Catalog.(rewriter.RelationFinder)
	l, lists := req.Catalog.(rewriter.TableLister)
	switch {
	case finds && lists:
		cp.Catalog = struct {
			*stringCatalog
			stringFinder
			rewriter.TableLister
		}{c, stringFinder{f}, l}
	case finds:
		cp.Catalog = struct {
			*stringCatalog
			stringFinder
		}{c, stringFinder{f}}
	case lists:
		cp.Catalog = struct {
			*stringCatalog
			rewriter.TableLister
		}{c, l}
	default:
		cp.Catalog = c
	}
	return &cp
}

// resolveString resolves an unqualified name in schema s of the search
// path against the string's temporary tables: known reports that the
// string decides (found or not), found that the table exists there.
func (r *rewrite) resolveString(s, name string) (known, found bool, err error) {
	st, ok := r.temps.lookup(name)
	if !ok {
		return false, false, nil
	}
	if s != tempSchema && isTempSchemaName(s) {
		return true, false, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: name,
			Detail: "a search path naming a temporary schema by number, after a temporary table of this name is created or dropped in the same string"}
	}
	if s != tempSchema {
		return false, false, nil
	}
	return true, !st.dropped, nil
}

// createsInTemp reports whether a relation being created goes into the
// connection's temporary schema: CREATE TEMPORARY, or a name qualified
// with pg_temp.
func createsInTemp(rv *pg.RangeVar) bool {
	if rv == nil {
		return false
	}
	return (rv.Relpersistence == "t" && rv.Schemaname == "") || rv.Schemaname == tempSchema
}

// record updates the string's temporary tables after stmt, rewritten,
// has been accepted: what the later statements of the string will find
// in pg_temp when they run.
func (r *rewrite) record(stmt *pg.Node) error {
	switch s := stmt.Node.(type) {
	case *pg.Node_CreateStmt:
		c := s.CreateStmt
		if !createsInTemp(c.Relation) {
			return nil
		}
		if c.IfNotExists {
			// The server keeps a table that exists, with its own columns.
			exists, err := r.existsInTemp(c.Relation.Relname)
			if err != nil || exists {
				return err
			}
		}
		cols, why := r.declaredColumns(c)
		r.temps.set(c.Relation.Relname, &stringTable{cols: cols, unknown: why})
	case *pg.Node_CreateTableAsStmt:
		rv := s.CreateTableAsStmt.GetInto().GetRel()
		if !createsInTemp(rv) {
			return nil
		}
		if s.CreateTableAsStmt.IfNotExists {
			exists, err := r.existsInTemp(rv.Relname)
			if err != nil || exists {
				return err
			}
		}
		r.temps.set(rv.Relname, &stringTable{unknown: "CREATE TEMPORARY TABLE … AS takes its columns from a query"})
	case *pg.Node_ViewStmt:
		if createsInTemp(s.ViewStmt.View) {
			r.temps.set(s.ViewStmt.View.Relname, &stringTable{unknown: "a temporary view takes its columns from a query"})
		}
	case *pg.Node_DropStmt:
		switch s.DropStmt.RemoveType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW:
		default:
			return nil
		}
		// drop qualified every name it resolved.
		for _, o := range s.DropStmt.Objects {
			if items := o.GetList().GetItems(); len(items) == 2 && items[0].GetString_().GetSval() == tempSchema {
				r.temps.set(items[1].GetString_().GetSval(), &stringTable{dropped: true})
			}
		}
	case *pg.Node_RenameStmt:
		rn := s.RenameStmt
		if rn.Relation == nil || rn.Relation.Schemaname != tempSchema {
			return nil
		}
		switch rn.RenameType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW:
			moved := &stringTable{unknown: "renamed earlier in the same string"}
			cols, found, err := r.Req.Catalog.Columns(r.Ctx, policy.TableName{Schema: tempSchema, Table: rn.Relation.Relname})
			if err == nil && found {
				moved.cols = cols
			}
			r.temps.set(rn.Relation.Relname, &stringTable{dropped: true})
			r.temps.set(rn.Newname, moved)
		default:
			r.changed(rn.Relation.Relname)
		}
	case *pg.Node_AlterTableStmt:
		if rv := s.AlterTableStmt.Relation; rv != nil && rv.Schemaname == tempSchema {
			r.changed(rv.Relname)
		}
	case *pg.Node_DiscardStmt:
		if s.DiscardStmt.Target == pg.DiscardMode_DISCARD_TEMP {
			r.temps.byName, r.temps.discarded = nil, true
		}
	case *pg.Node_CommentStmt:
		// comment qualified the name: schema, table (, column).
		if items := s.CommentStmt.Object.GetList().GetItems(); len(items) >= 2 && items[0].GetString_().GetSval() == tempSchema {
			r.changed(items[1].GetString_().GetSval())
		}
	}
	return nil
}

// changed marks a temporary table whose columns or their tags an earlier
// statement of the string changes: they are no longer known.
func (r *rewrite) changed(name string) {
	r.temps.set(name, &stringTable{unknown: "changed earlier in the same string"})
}

// existsInTemp reports whether pg_temp has the table when the statement
// runs: as the string leaves it, else as the catalog lists it now.
func (r *rewrite) existsInTemp(name string) (bool, error) {
	if st, ok := r.temps.lookup(name); ok {
		return !st.dropped, nil
	}
	return r.lookupTable(policy.TableName{Schema: tempSchema, Table: name})
}

// declaredColumns derives the columns a CREATE TEMPORARY TABLE gives its
// table, as information_schema will list them (Dialect.Columns): only
// from plain column definitions whose types are built-in types known
// with certainty. Anything else (LIKE, INHERITS, PARTITION OF, OF type, a
// COLLATE clause, an array, another type) leaves them unknown, and why
// says so.
func (r *rewrite) declaredColumns(c *pg.CreateStmt) (cols []rewriter.Column, why string) {
	switch {
	case len(c.InhRelations) > 0 || c.Partbound != nil:
		return nil, "INHERITS and PARTITION OF take columns from another table"
	case c.OfTypename != nil:
		return nil, "OF takes the columns from a type"
	}
	for _, e := range c.TableElts {
		switch el := e.Node.(type) {
		case *pg.Node_Constraint:
			continue
		case *pg.Node_ColumnDef:
			col, why := r.declaredColumn(el.ColumnDef)
			if why != "" {
				return nil, why
			}
			cols = append(cols, col)
		default:
			return nil, "LIKE takes columns from another table"
		}
	}
	if len(cols) == 0 {
		return nil, "the table has no columns"
	}
	return cols, ""
}

// builtinType is how information_schema.columns lists a built-in type:
// its data_type, and whether its first type modifier is the
// character_maximum_length (varchar, char, bit) or the numeric precision.
type builtinType struct {
	dataType string
	length   bool
	numeric  bool
}

// listedTypes are the types a column definition may name for its
// columns to be known, by their name in pg_catalog; serialTypes are the
// serial pseudo-types, read before any type lookup.
var (
	listedTypes = map[string]builtinType{
		"int2": {dataType: "smallint"}, "int4": {dataType: "integer"}, "int8": {dataType: "bigint"},
		"float4": {dataType: "real"}, "float8": {dataType: "double precision"},
		"numeric": {dataType: "numeric", numeric: true}, "bool": {dataType: "boolean"},
		"varchar": {dataType: "character varying", length: true}, "bpchar": {dataType: "character", length: true},
		"bit": {dataType: "bit", length: true}, "varbit": {dataType: "bit varying", length: true},
		"text": {dataType: "text"}, "bytea": {dataType: "bytea"}, "json": {dataType: "json"}, "jsonb": {dataType: "jsonb"},
		"uuid": {dataType: "uuid"}, "date": {dataType: "date"},
		"timestamp": {dataType: "timestamp without time zone"}, "timestamptz": {dataType: "timestamp with time zone"},
		"time": {dataType: "time without time zone"}, "timetz": {dataType: "time with time zone"},
		"interval": {dataType: "interval"},
	}
	serialTypes = map[string]string{
		"serial": "integer", "serial4": "integer", "bigserial": "bigint", "serial8": "bigint",
		"smallserial": "smallint", "serial2": "smallint",
	}
)

// declaredColumn derives one column of a column definition, or says why
// it cannot.
func (r *rewrite) declaredColumn(d *pg.ColumnDef) (rewriter.Column, string) {
	tn := d.TypeName
	switch {
	case tn == nil || d.Colname == "":
		return rewriter.Column{}, "a column without a name or type"
	case d.CollClause != nil:
		return rewriter.Column{}, fmt.Sprintf("column %s has a COLLATE clause", d.Colname)
	case len(tn.ArrayBounds) > 0 || tn.Setof || tn.PctType:
		return rewriter.Column{}, fmt.Sprintf("the type of column %s is not a plain built-in type", d.Colname)
	}
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().GetSval())
	}
	col := rewriter.Column{Name: d.Colname}
	for _, c := range d.Constraints {
		if c.GetConstraint().GetContype() == pg.ConstrType_CONSTR_GENERATED {
			col.Generated = true
		}
	}
	var name string
	switch len(names) {
	case 1:
		if dt, ok := serialTypes[names[0]]; ok && len(tn.Typmods) == 0 {
			col.DataType, col.ColumnType = dt, dt
			return col, ""
		}
		// An unqualified type name resolves along the search path,
		// pg_temp first (a temporary table's row type), before pg_catalog.
		shadowed, err := r.typeShadowed(names[0])
		if err != nil || shadowed {
			return rewriter.Column{}, fmt.Sprintf("the type of column %s could resolve outside pg_catalog", d.Colname)
		}
		name = names[0]
	case 2:
		if names[0] != "pg_catalog" {
			return rewriter.Column{}, fmt.Sprintf("the type of column %s is not a built-in type", d.Colname)
		}
		name = names[1]
	default:
		return rewriter.Column{}, fmt.Sprintf("the type of column %s is not a built-in type", d.Colname)
	}
	bt, ok := listedTypes[name]
	if !ok {
		return rewriter.Column{}, fmt.Sprintf("the type of column %s is not one whose listing sqe knows", d.Colname)
	}
	mods, ok := typmods(tn)
	if !ok {
		return rewriter.Column{}, fmt.Sprintf("the type modifiers of column %s are not constants", d.Colname)
	}
	col.DataType, col.ColumnType = bt.dataType, bt.dataType
	switch {
	case bt.length && len(mods) == 1:
		col.ColumnType = fmt.Sprintf("%s(%d)", bt.dataType, mods[0])
	case bt.numeric && len(mods) == 1:
		col.ColumnType = fmt.Sprintf("numeric(%d,0)", mods[0])
	case bt.numeric && len(mods) == 2:
		col.ColumnType = fmt.Sprintf("numeric(%d,%d)", mods[0], mods[1])
	case (bt.length || bt.numeric) && len(mods) > 0:
		return rewriter.Column{}, fmt.Sprintf("the type modifiers of column %s are not known", d.Colname)
	}
	return col, ""
}

// typmods reads a type name's integer modifiers.
func typmods(tn *pg.TypeName) ([]int32, bool) {
	var out []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return nil, false
		}
		out = append(out, c.GetIval().Ival)
	}
	return out, true
}

// typeShadowed reports whether an unqualified type name could resolve to
// another type than pg_catalog's: a schema of the search path searched
// before pg_catalog other than pg_temp, or a relation of that name in
// pg_temp (its row type), created earlier in the string or listed by the
// catalog.
func (r *rewrite) typeShadowed(name string) (bool, error) {
	for _, s := range r.searchPath() {
		switch {
		case s == "pg_catalog":
			return false, nil
		case s != tempSchema:
			return true, nil
		}
		exists, err := r.existsInTemp(name)
		if err != nil || exists {
			return true, err
		}
	}
	return true, nil
}
