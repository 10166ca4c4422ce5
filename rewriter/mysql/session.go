package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// sessionStateVariables change how sqe must parse, quote or resolve names
// on the connection; setting one makes the driver read the state again.
var sessionStateVariables = map[string]bool{
	"sql_mode": true, "names": true, "charset": true, "character set": true,
	"character_set_client": true, "character_set_connection": true, "character_set_results": true,
	"collation_connection": true,
}

// refusedVariables would let a statement act as another identity.
var refusedVariables = map[string]bool{
	"role": true, "default_role": true, "password": true, "pseudo_slave_mode": true, "sql_log_bin": true,
	"session_track_system_variables": false,
}

func (r *rewrite) set(s *sqlparser.Set, root *scope) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindSession}
	for _, se := range s.Exprs {
		name := strings.ToLower(se.Var.Name.String())
		if refusedVariables[name] {
			return nil, rewriter.Unsupported("SET %s is not supported through sqe", name)
		}
		if sessionStateVariables[name] {
			res.Effect.RefreshSession = true
		}
		if err := r.exprs(se, root, func(n, parent sqlparser.SQLNode) bool { return n == se.Var }); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// show lets through the SHOW statements that reveal no table data or
// column metadata; the others are refused until sqe can filter them.
func (r *rewrite) show(s *sqlparser.Show) (*rewriter.Result, error) {
	basic, ok := s.Internal.(*sqlparser.ShowBasic)
	if ok {
		switch basic.Command {
		case sqlparser.VariableSession, sqlparser.VariableGlobal, sqlparser.Warnings, sqlparser.Errors,
			sqlparser.StatusSession, sqlparser.Charset, sqlparser.Collation, sqlparser.Engines, sqlparser.Database:
			return &rewriter.Result{Kind: rewriter.KindSession}, nil
		}
	}
	return nil, rewriter.Unsupported("this SHOW statement is not supported through sqe (query information_schema under policy instead)")
}

// ddl checks a schema change against the table's access and rewrites the
// queries it embeds as reads.
func (r *rewrite) ddl(d sqlparser.DDLStatement, root *scope) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindDDL, Effect: rewriter.Effect{InvalidateCatalog: true}}
	need := func(tn sqlparser.TableName, a policy.Access) error {
		t, err := r.resolve(tn)
		if err != nil {
			return err
		}
		if _, err := r.plan(t, a); err != nil {
			return err
		}
		return nil
	}
	var err error
	switch s := d.(type) {
	case *sqlparser.CreateTable:
		if err = need(s.Table, policy.Create); err != nil {
			return nil, err
		}
		if s.OptLike != nil {
			if err = need(s.OptLike.LikeTable, policy.Select); err != nil {
				return nil, err
			}
		}
		if s.Select != nil {
			err = r.tableStatement(s.Select, root)
		}
	case *sqlparser.CreateView:
		if err = need(s.ViewName, policy.Create); err == nil {
			err = r.tableStatement(s.Select, root)
		}
	case *sqlparser.AlterView:
		if err = need(s.ViewName, policy.Alter); err == nil {
			err = r.tableStatement(s.Select, root)
		}
	case *sqlparser.AlterTable:
		err = need(s.Table, policy.Alter)
	case *sqlparser.DropTable:
		for _, t := range s.FromTables {
			if err = need(t, policy.Drop); err != nil {
				break
			}
		}
	case *sqlparser.DropView:
		for _, t := range s.FromTables {
			if err = need(t, policy.Drop); err != nil {
				break
			}
		}
	case *sqlparser.TruncateTable:
		err = need(s.Table, policy.Drop)
	case *sqlparser.RenameTable:
		for _, p := range s.TablePairs {
			if err = need(p.FromTable, policy.Alter); err != nil {
				break
			}
			if err = need(p.ToTable, policy.Create); err != nil {
				break
			}
		}
	default:
		return nil, rewriter.Unsupported("this DDL statement is not supported through sqe")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}
