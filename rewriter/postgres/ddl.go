package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// ddlStatement checks a schema change against the access it needs on each
// table it names, qualifies those names, and rewrites the queries it
// embeds (CREATE TABLE AS, CREATE VIEW) as reads.
func (r *rewrite) ddlStatement(n *pg.Node, root *scope) error {
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		if err := createForm(s.CreateStmt); err != nil {
			return err
		}
		return r.createTable(s.CreateStmt)
	case *pg.Node_CreateTableAsStmt:
		c := s.CreateTableAsStmt
		if c.Objtype != pg.ObjectType_OBJECT_TABLE && c.Objtype != pg.ObjectType_OBJECT_MATVIEW {
			return rewriter.Unsupported("this CREATE … AS is not supported through sqe")
		}
		if c.Into == nil {
			return rewriter.Unsupported("CREATE TABLE AS without a table")
		}
		if err := r.created(c.Into.Rel, policy.Create); err != nil {
			return err
		}
		if err := r.ddlExprs(c.Into, "rel"); err != nil {
			return err
		}
		return r.query(c.Query, root)
	case *pg.Node_ViewStmt:
		v := s.ViewStmt
		if err := r.created(v.View, policy.Create); err != nil {
			return err
		}
		if v.Replace {
			t, _ := r.creationName(v.View)
			if _, err := r.plan(t, policy.Alter); err != nil {
				return err
			}
		}
		return r.query(v.Query, root)
	case *pg.Node_IndexStmt:
		ix := s.IndexStmt
		if err := indexForm(ix); err != nil {
			return err
		}
		if err := r.existing(ix.Relation, policy.Index, false, true); err != nil {
			return err
		}
		return r.ddlExprs(ix, "relation")
	case *pg.Node_AlterTableStmt:
		a := s.AlterTableStmt
		switch a.Objtype {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
		default:
			return rewriter.Unsupported("this ALTER statement is not supported through sqe")
		}
		if err := alterForm(a); err != nil {
			return err
		}
		if err := r.existing(a.Relation, policy.Alter, a.MissingOk, true); err != nil {
			return err
		}
		return r.ddlExprs(a, "relation")
	case *pg.Node_DropStmt:
		return r.drop(s.DropStmt)
	case *pg.Node_TruncateStmt:
		for _, rn := range s.TruncateStmt.Relations {
			if err := r.existing(rn.GetRangeVar(), policy.Drop, false, false); err != nil {
				return err
			}
		}
		return nil
	case *pg.Node_RenameStmt:
		return r.rename(s.RenameStmt)
	}
	return rewriter.Unsupported("%s is not supported through sqe", nodeName(n))
}

// comment checks COMMENT ON TABLE and COMMENT ON COLUMN: a comment can
// carry a column's tags, and tags select masks, so it needs alter on the
// table and a caller who reads the table without any policy (tag masks
// included): a caller under a tag mask must not be able to drop the tag.
// The table name is qualified; the catalog is refreshed afterwards, so the
// new tags apply from the next statement. Comments on other objects are
// refused.
func (r *rewrite) comment(c *pg.CommentStmt) error {
	var names []*pg.Node
	switch c.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_COLUMN:
		names = c.Object.GetList().GetItems()
	default:
		return rewriter.Unsupported("COMMENT ON is supported through sqe for tables, views and columns only")
	}
	parts := make([]string, len(names))
	for i, n := range names {
		s := n.GetString_()
		if s == nil {
			return rewriter.Unsupported("COMMENT ON with an unexpected name")
		}
		parts[i] = s.Sval
	}
	rel := parts
	if c.Objtype == pg.ObjectType_OBJECT_COLUMN {
		if len(parts) < 2 {
			return rewriter.Unsupported("COMMENT ON COLUMN needs table.column")
		}
		rel = parts[:len(parts)-1]
	}
	rv := &pg.RangeVar{Inh: true, Relpersistence: "p"}
	switch len(rel) {
	case 1:
		rv.Relname = rel[0]
	case 2:
		rv.Schemaname, rv.Relname = rel[0], rel[1]
	case 3:
		rv.Catalogname, rv.Schemaname, rv.Relname = rel[0], rel[1], rel[2]
	default:
		return rewriter.Unsupported("names of more than three parts are not supported")
	}
	if err := r.existing(rv, policy.Alter, false, true); err != nil {
		return err
	}
	qualified := []*pg.Node{pg.MakeStrNode(rv.Schemaname), pg.MakeStrNode(rv.Relname)}
	if c.Objtype == pg.ObjectType_OBJECT_COLUMN {
		qualified = append(qualified, pg.MakeStrNode(parts[len(parts)-1]))
	}
	c.Object = &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: qualified}}}
	return nil
}

// created checks and qualifies the name of a relation a statement creates.
func (r *rewrite) created(rv *pg.RangeVar, access policy.Access) error {
	if rv == nil {
		return rewriter.Unsupported("schema change without a table name")
	}
	t, err := r.creationName(rv)
	if err != nil {
		return err
	}
	if systemSchema(t.Schema) {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "system catalogs are not changed through sqe"}
	}
	if _, err := r.plan(t, access); err != nil {
		return err
	}
	if rv.Relpersistence != "t" {
		rv.Schemaname = t.Schema
	}
	r.Sanction(rv)
	return nil
}

// existing checks and qualifies the name of an existing relation a schema
// change names. readFree requires that the caller reads the table without
// any policy: a change that validates or copies data (a constraint, an
// index, a column rewrite, a rename) could otherwise reveal values the
// policy hides or move them out from under it.
func (r *rewrite) existing(rv *pg.RangeVar, access policy.Access, missingOK, readFree bool) error {
	if rv == nil {
		return rewriter.Unsupported("schema change without a table name")
	}
	t, err := r.resolve(rv, missingOK)
	if err != nil {
		return err
	}
	if systemSchema(t.Schema) {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "system catalogs are not changed through sqe"}
	}
	if _, err := r.plan(t, access); err != nil {
		return err
	}
	if readFree {
		if err := r.readFree(t); err != nil {
			return err
		}
	}
	rv.Schemaname = t.Schema
	r.Sanction(rv)
	return nil
}

func (r *rewrite) readFree(t policy.TableName) error {
	return r.RefuseReadPolicies([]policy.TableName{t},
		"this schema change on a table under a read policy (filter, mask or restricted column) is not supported: it could reveal or move values the policy hides")
}

// referenced checks a table a schema change reads the structure or keys of
// (LIKE, REFERENCES): the caller must read it without any policy, since a
// foreign key probes the referenced values.
func (r *rewrite) referenced(rv *pg.RangeVar) error {
	if rv == nil {
		return rewriter.Unsupported("reference without a table name")
	}
	t, err := r.resolve(rv, false)
	if err != nil {
		return err
	}
	if _, err := r.plan(t, policy.Select); err != nil {
		return err
	}
	if err := r.readFree(t); err != nil {
		return err
	}
	rv.Schemaname = t.Schema
	r.Sanction(rv)
	return nil
}

func (r *rewrite) createTable(c *pg.CreateStmt) error {
	if err := r.created(c.Relation, policy.Create); err != nil {
		return err
	}
	// INHERITS and PARTITION OF change the parent.
	for _, n := range c.InhRelations {
		if err := r.existing(n.GetRangeVar(), policy.Alter, false, false); err != nil {
			return err
		}
	}
	// A foreign key to the table itself names the table being created,
	// where the server's search finds it.
	t, err := r.creationName(c.Relation)
	if err != nil {
		return err
	}
	r.creating = &t
	defer func() { r.creating = nil }()
	return r.ddlExprs(c, "relation", "inh_relations")
}

// ddlExprs walks the expressions and clauses of a schema change: the
// tables they name (foreign keys, LIKE, partitions, inheritance) are
// checked, forbidden functions refused, and context functions refused
// (the server evaluates a default or a check later, as its own user).
func (r *rewrite) ddlExprs(m protoMessage, skip ...string) error {
	r.ddl = true
	defer func() { r.ddl = false }()
	return walkFields(m, r.ddlVisitor(), skip...)
}

func (r *rewrite) ddlVisitor() visitor {
	var v visitor
	exprs := r.visitor(&scope{})
	v = func(m protoMessage, w *pg.Node) (bool, error) {
		switch e := m.(type) {
		case *pg.Constraint:
			if e.Pktable != nil {
				if err := r.referenced(e.Pktable); err != nil {
					return false, err
				}
			}
			return false, walkFields(e, v, "pktable")
		case *pg.TableLikeClause:
			return false, r.referenced(e.Relation)
		case *pg.PartitionCmd:
			if err := r.existing(e.Name, policy.Alter, false, false); err != nil {
				return false, err
			}
			return false, walkFields(e, v, "name")
		case *pg.AlterTableCmd:
			if rv := e.Def.GetRangeVar(); rv != nil {
				// INHERIT / NO INHERIT parent
				if err := r.existing(rv, policy.Alter, false, false); err != nil {
					return false, err
				}
				return false, walkFields(e, v, "def")
			}
			return true, nil
		case *pg.ColumnDef:
			if e.IdentitySequence != nil {
				return false, rewriter.Unsupported("an identity sequence name is not supported through sqe")
			}
			return true, nil
		}
		return exprs(m, w)
	}
	return v
}

func (r *rewrite) drop(d *pg.DropStmt) error {
	switch d.RemoveType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
	case pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_SEQUENCE:
		return r.dropRelations(d)
	default:
		return rewriter.Unsupported("this DROP statement is not supported through sqe")
	}
	for _, o := range d.Objects {
		l := o.GetList()
		if l == nil {
			return rewriter.Unsupported("unexpected DROP object")
		}
		var names []string
		for _, it := range l.Items {
			s := it.GetString_()
			if s == nil {
				return rewriter.Unsupported("unexpected DROP object")
			}
			names = append(names, s.Sval)
		}
		rv := &pg.RangeVar{}
		switch len(names) {
		case 1:
			rv.Relname = names[0]
		case 2:
			rv.Schemaname, rv.Relname = names[0], names[1]
		case 3:
			rv.Catalogname, rv.Schemaname, rv.Relname = names[0], names[1], names[2]
		default:
			return rewriter.Unsupported("names of more than three parts are not supported")
		}
		t, err := r.resolve(rv, d.MissingOk)
		if err != nil {
			return err
		}
		if systemSchema(t.Schema) {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(), Detail: "system catalogs are not changed through sqe"}
		}
		if _, err := r.plan(t, policy.Drop); err != nil {
			return err
		}
		l.Items = []*pg.Node{pg.MakeStrNode(t.Schema), pg.MakeStrNode(t.Table)}
	}
	return nil
}

func (r *rewrite) rename(s *pg.RenameStmt) error {
	switch s.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
		// Renaming moves the table out from under its policies (which
		// name it) and onto the new name's.
		if err := r.existing(s.Relation, policy.Alter, s.MissingOk, true); err != nil {
			return err
		}
		if s.Newname == "" {
			return rewriter.Unsupported("rename without a new name")
		}
		if _, err := r.plan(policy.TableName{Schema: s.Relation.Schemaname, Table: s.Newname}, policy.Create); err != nil {
			return err
		}
		return nil
	case pg.ObjectType_OBJECT_INDEX:
		// An index's name is no policy's: renaming it needs index access
		// on its table, as creating and dropping it do.
		if s.Newname == "" {
			return rewriter.Unsupported("rename without a new name")
		}
		table, err := r.index(s.Relation, s.MissingOk)
		if err != nil || table == (policy.TableName{}) {
			return err
		}
		_, err = r.plan(table, policy.Index)
		return err
	case pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT:
		switch s.RelationType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
		default:
			return rewriter.Unsupported("this rename is not supported through sqe")
		}
		return r.existing(s.Relation, policy.Alter, s.MissingOk, true)
	}
	return rewriter.Unsupported("this rename is not supported through sqe")
}
