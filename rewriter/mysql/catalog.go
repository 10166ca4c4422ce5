package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// CatalogFromDDL builds a catalog from CREATE TABLE and CREATE DATABASE /
// USE statements; unqualified tables belong to the last database named by
// USE (or CREATE DATABASE), which also becomes the catalog's current database.
func (Dialect) CatalogFromDDL(ddl string) (*rewriter.StaticCatalog, error) {
	pieces, err := splitStatements(ddl)
	if err != nil {
		return nil, rewriter.Unsupported("schema script does not parse")
	}
	cat := &rewriter.StaticCatalog{Tables: map[string][]rewriter.Column{}}
	for _, piece := range pieces {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		stmt, err := parse(piece)
		if err != nil {
			return nil, rewriter.Unsupported("schema statement does not parse: %.60s", strings.TrimSpace(piece))
		}
		switch s := stmt.(type) {
		case *sqlparser.Use:
			cat.Schema = s.DBName.String()
		case *sqlparser.CreateDatabase:
			cat.Schema = s.DBName.String()
		case *sqlparser.CreateTable:
			if s.TableSpec == nil {
				continue
			}
			schema := s.Table.Qualifier.String()
			if schema == "" {
				schema = cat.Schema
			}
			if schema == "" {
				return nil, rewriter.Unsupported("CREATE TABLE %s: no database (add USE db)", s.Table.Name.String())
			}
			var cols []rewriter.Column
			for _, c := range s.TableSpec.Columns {
				full := strings.ToLower(sqlparser.String(c.Type))
				base := strings.ToLower(c.Type.Type)
				if i := strings.IndexAny(full, " "); i > 0 && strings.Contains(full[i:], "unsigned") {
					full = full[:i] + " unsigned"
				} else if i > 0 {
					full = full[:i]
				}
				cols = append(cols, rewriter.Column{Name: c.Name.String(), DataType: base, ColumnType: full})
			}
			cat.Tables[policy.TableName{Schema: schema, Table: s.Table.Name.String()}.Key()] = cols
		}
	}
	return cat, nil
}
