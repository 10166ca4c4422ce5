package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// REINDEX, DROP INDEX and the sequence statements name relations that are
// not tables: sqe resolves each name on the connection as the server does
// (rewriter.RelationFinder), checks the access the statement needs on the
// table the relation belongs to, and sends the name qualified with the
// schema the server found it in.

// reindex passes REINDEX TABLE and REINDEX INDEX of a table the caller
// may index and reads without any policy (as VACUUM): it returns nothing,
// and rebuilds what the server already holds. VERBOSE (page and timing
// reports of each index), TABLESPACE (moves storage) and the forms that
// process a whole schema, the system catalogs or the database are
// refused.
func (r *rewrite) reindex(s *pg.ReindexStmt) (*rewriter.Result, error) {
	for _, o := range s.Params {
		d := o.GetDefElem()
		if d == nil || !strings.EqualFold(d.Defname, "concurrently") {
			name := "this option"
			if d != nil {
				name = strings.ToUpper(d.Defname)
			}
			return nil, rewriter.Unsupported("REINDEX with %s is not supported through sqe", name)
		}
	}
	switch s.Kind {
	case pg.ReindexObjectType_REINDEX_OBJECT_TABLE:
		if err := r.existing(s.Relation, policy.Index, false, true); err != nil {
			return nil, err
		}
	case pg.ReindexObjectType_REINDEX_OBJECT_INDEX:
		table, err := r.index(s.Relation, false)
		if err != nil {
			return nil, err
		}
		if _, err := r.plan(table, policy.Index); err != nil {
			return nil, err
		}
		if err := r.readFree(table); err != nil {
			return nil, err
		}
	default:
		return nil, rewriter.Unsupported("REINDEX of a schema, the system catalogs or the database processes every table; name a table or an index")
	}
	return &rewriter.Result{Kind: rewriter.KindOther}, nil
}

// index resolves the index rv names and qualifies rv with its schema; it
// returns the table the index is on. missingOK passes an index that does
// not exist (DROP INDEX IF EXISTS), named in the first schema of the
// search path; its table is then zero.
func (r *rewrite) index(rv *pg.RangeVar, missingOK bool) (policy.TableName, error) {
	rel, found, err := r.relation(rv, rewriter.RelationIndex, "an index")
	if err != nil {
		return policy.TableName{}, err
	}
	if !found {
		if missingOK && rv.Schemaname == "" && len(r.path) > 0 {
			rv.Schemaname = r.path[0]
		}
		if !missingOK || rv.Schemaname == "" {
			return policy.TableName{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rv.Relname, Detail: "index not found"}
		}
		r.Sanction(rv)
		return policy.TableName{}, nil
	}
	if systemSchema(rel.Table.Schema) {
		return policy.TableName{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rel.Table.String(), Detail: "system catalogs are not changed through sqe"}
	}
	return rel.Table, nil
}

// relation resolves a relation of the given kind on the connection and
// qualifies rv with the schema the server found it in.
func (r *rewrite) relation(rv *pg.RangeVar, kind rewriter.RelationKind, what string) (rewriter.Relation, bool, error) {
	if rv == nil || rv.Relname == "" {
		return rewriter.Relation{}, false, rewriter.Unsupported("%s without a name", what)
	}
	if err := r.catalogName(rv); err != nil {
		return rewriter.Relation{}, false, err
	}
	name := []string{rv.Relname}
	if rv.Schemaname != "" {
		name = []string{rv.Schemaname, rv.Relname}
	}
	rel, found, err := r.FindRelation(name, what)
	if err != nil || !found {
		return rel, found, err
	}
	if rel.Kind != kind {
		return rewriter.Relation{}, false, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rel.Name.String(), Detail: "not " + what}
	}
	if systemSchema(rel.Name.Schema) {
		return rewriter.Relation{}, false, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rel.Name.String(), Detail: "system catalogs are not changed through sqe"}
	}
	rv.Schemaname = rel.Name.Schema
	r.Sanction(rv)
	return rel, true, nil
}

// dropRelations checks DROP INDEX and DROP SEQUENCE: CASCADE, which drops
// what depends on the relation (another table's constraints, a column's
// default), is refused. An index needs index access on its table; a
// sequence, which the policy names as a table of its schema, drop access
// on its own name.
func (r *rewrite) dropRelations(d *pg.DropStmt) error {
	if d.Behavior == pg.DropBehavior_DROP_CASCADE {
		return rewriter.Unsupported("DROP … CASCADE of an index or sequence is not supported through sqe: it drops what depends on it")
	}
	for _, o := range d.Objects {
		rv, err := dropName(o)
		if err != nil {
			return err
		}
		if d.RemoveType == pg.ObjectType_OBJECT_INDEX {
			table, err := r.index(rv, d.MissingOk)
			if err != nil {
				return err
			}
			if table != (policy.TableName{}) {
				if _, err := r.plan(table, policy.Index); err != nil {
					return err
				}
			}
		} else {
			seq, err := r.sequence(rv, d.MissingOk)
			if err != nil {
				return err
			}
			if _, err := r.plan(seq.Name, policy.Drop); err != nil {
				return err
			}
		}
		o.Node = &pg.Node_List{List: &pg.List{Items: []*pg.Node{pg.MakeStrNode(rv.Schemaname), pg.MakeStrNode(rv.Relname)}}}
	}
	return nil
}

// dropName reads one name of a DROP's object list.
func dropName(o *pg.Node) (*pg.RangeVar, error) {
	l := o.GetList()
	if l == nil {
		return nil, rewriter.Unsupported("unexpected DROP object")
	}
	var names []string
	for _, it := range l.Items {
		s := it.GetString_()
		if s == nil {
			return nil, rewriter.Unsupported("unexpected DROP object")
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
		return nil, rewriter.Unsupported("names of more than three parts are not supported")
	}
	return rv, nil
}

// sequence resolves the sequence rv names; missingOK passes one that does
// not exist, named in the first schema of the search path.
func (r *rewrite) sequence(rv *pg.RangeVar, missingOK bool) (rewriter.Relation, error) {
	rel, found, err := r.relation(rv, rewriter.RelationSequence, "a sequence")
	if err != nil {
		return rewriter.Relation{}, err
	}
	if !found {
		if missingOK && rv.Schemaname == "" && len(r.path) > 0 {
			rv.Schemaname = r.path[0]
		}
		if !missingOK || rv.Schemaname == "" {
			return rewriter.Relation{}, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: rv.Relname, Detail: "sequence not found"}
		}
		r.Sanction(rv)
		return rewriter.Relation{Name: policy.TableName{Schema: rv.Schemaname, Table: rv.Relname}}, nil
	}
	return rel, nil
}

// sequenceOptions are the CREATE/ALTER SEQUENCE options sqe passes: they
// set how the sequence counts. OWNED BY (ties it to a table's column) and
// the others are refused.
var sequenceOptions = map[string]bool{
	"as": true, "increment": true, "minvalue": true, "maxvalue": true, "start": true,
	"restart": true, "cache": true, "cycle": true,
}

func checkSequenceOptions(opts []*pg.Node) error {
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil || !sequenceOptions[strings.ToLower(d.Defname)] {
			name := "this option"
			if d != nil {
				name = strings.ToUpper(strings.ReplaceAll(d.Defname, "_", " "))
			}
			return rewriter.Unsupported("a sequence with %s is not supported through sqe", name)
		}
	}
	return nil
}

// createSequence passes CREATE SEQUENCE with create access on its name
// (the policy names a sequence as a table of its schema). A sequence
// starts unused: it counts nothing of any table.
func (r *rewrite) createSequence(s *pg.CreateSeqStmt) (*rewriter.Result, error) {
	if s.ForIdentity || s.OwnerId != 0 {
		return nil, rewriter.Unsupported("this CREATE SEQUENCE is not supported through sqe")
	}
	if err := checkSequenceOptions(s.Options); err != nil {
		return nil, err
	}
	if err := r.created(s.Sequence, policy.Create); err != nil {
		return nil, err
	}
	res := &rewriter.Result{Kind: rewriter.KindDDL}
	if s.Sequence.Relpersistence == "t" || isTempSchemaName(s.Sequence.Schemaname) {
		res.Effect.Holds = rewriter.HoldsTemporaryTable
	}
	return res, nil
}

// alterSequence passes ALTER SEQUENCE with alter access on its name and,
// for a sequence a table owns (a serial or identity column), on that
// table: restarting it changes the keys the table's next rows get.
func (r *rewrite) alterSequence(s *pg.AlterSeqStmt) (*rewriter.Result, error) {
	if s.ForIdentity {
		return nil, rewriter.Unsupported("this ALTER SEQUENCE is not supported through sqe")
	}
	if err := checkSequenceOptions(s.Options); err != nil {
		return nil, err
	}
	seq, err := r.sequence(s.Sequence, s.MissingOk)
	if err != nil {
		return nil, err
	}
	if _, err := r.plan(seq.Name, policy.Alter); err != nil {
		return nil, err
	}
	if seq.Table != (policy.TableName{}) {
		if _, err := r.plan(seq.Table, policy.Alter); err != nil {
			return nil, err
		}
	}
	return &rewriter.Result{Kind: rewriter.KindDDL}, nil
}
