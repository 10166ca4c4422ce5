package postgres

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// CatalogFromDDL builds a catalog from a schema script: CREATE TABLE
// statements, and SET search_path (default public), which also becomes the
// catalog's search path; unqualified tables belong to its first schema.
// Other statements are ignored.
func (Dialect) CatalogFromDDL(ddl string) (*rewriter.StaticCatalog, error) {
	tree, err := parse(ddl)
	if err != nil {
		return nil, rewriter.Unsupported("schema script does not parse")
	}
	cat := &rewriter.StaticCatalog{Tables: map[string][]rewriter.Column{}, Path: []string{"public"}}
	for _, raw := range tree.Stmts {
		switch s := raw.GetStmt().GetNode().(type) {
		case *pg.Node_VariableSetStmt:
			v := s.VariableSetStmt
			if strings.ToLower(v.Name) != "search_path" || v.Kind != pg.VariableSetKind_VAR_SET_VALUE {
				continue
			}
			var path []string
			for _, a := range v.Args {
				if c := a.GetAConst(); c != nil && c.GetSval() != nil && c.GetSval().Sval != "$user" {
					path = append(path, c.GetSval().Sval)
				}
			}
			cat.Path = path
		case *pg.Node_CreateStmt:
			c := s.CreateStmt
			if c.Relation == nil {
				continue
			}
			schema := c.Relation.Schemaname
			if schema == "" {
				if len(cat.Path) == 0 {
					return nil, rewriter.Unsupported("CREATE TABLE %s: no schema (set search_path)", c.Relation.Relname)
				}
				schema = cat.Path[0]
			}
			var cols []rewriter.Column
			for _, e := range c.TableElts {
				cd := e.GetColumnDef()
				if cd == nil || cd.TypeName == nil {
					continue
				}
				base, full := typeNames(cd.TypeName)
				cols = append(cols, rewriter.Column{Name: cd.Colname, DataType: base, ColumnType: full})
			}
			cat.Tables[policy.TableName{Schema: schema, Table: c.Relation.Relname}.Key()] = cols
		}
	}
	return cat, nil
}

// infoSchemaTypes maps the parser's type names to the data_type that
// information_schema.columns reports.
var infoSchemaTypes = map[string]string{
	"int2": "smallint", "smallserial": "smallint", "serial2": "smallint",
	"int4": "integer", "int": "integer", "integer": "integer", "serial": "integer", "serial4": "integer",
	"int8": "bigint", "bigserial": "bigint", "serial8": "bigint",
	"varchar": "character varying", "bpchar": "character", "char": "character",
	"float4": "real", "float8": "double precision", "bool": "boolean", "decimal": "numeric",
	"timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
	"time": "time without time zone", "timetz": "time with time zone", "varbit": "bit varying",
}

// typeNames returns a column type's information_schema data_type and its
// full type (with length or precision).
func typeNames(tn *pg.TypeName) (base, full string) {
	name := ""
	if n := len(tn.Names); n > 0 {
		if s := tn.Names[n-1].GetString_(); s != nil {
			name = strings.ToLower(s.Sval)
		}
	}
	base = name
	if m, ok := infoSchemaTypes[name]; ok {
		base = m
	}
	var mods []string
	for _, m := range tn.Typmods {
		if c := m.GetAConst(); c != nil && c.GetIval() != nil {
			mods = append(mods, strconv.Itoa(int(c.GetIval().Ival)))
		}
	}
	full = base
	if len(mods) > 0 {
		full += "(" + strings.Join(mods, ",") + ")"
	} else if base == "character" {
		full += "(1)"
	}
	if len(tn.ArrayBounds) > 0 {
		return "ARRAY", full + "[]"
	}
	return base, full
}
