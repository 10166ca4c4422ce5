package postgres

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// The forms of a schema change sqe runs are an allow-list: the ALTER TABLE
// subcommands that change the table's own columns, constraints, indexes,
// storage parameters, partitions and inheritance (each checked with the
// tables it names, see ddlVisitor), and the storage parameters that tune
// the server's own storage. Ownership, row-level security, triggers and
// rules, tablespaces, access methods, typed tables (OF type) and foreign
// tables are refused: they hand a table to another role, switch the
// server's own policies, run code on other callers' statements or place
// data where sqe does not look.

// safeAlterTableCmds are the ALTER TABLE subcommands sqe runs.
var safeAlterTableCmds = map[pg.AlterTableType]bool{
	pg.AlterTableType_AT_AddColumn:          true,
	pg.AlterTableType_AT_AddColumnToView:    true,
	pg.AlterTableType_AT_ColumnDefault:      true,
	pg.AlterTableType_AT_DropNotNull:        true,
	pg.AlterTableType_AT_SetNotNull:         true,
	pg.AlterTableType_AT_SetStatistics:      true,
	pg.AlterTableType_AT_SetStorage:         true,
	pg.AlterTableType_AT_SetCompression:     true,
	pg.AlterTableType_AT_DropColumn:         true,
	pg.AlterTableType_AT_AddIndex:           true,
	pg.AlterTableType_AT_AddConstraint:      true,
	pg.AlterTableType_AT_AlterConstraint:    true,
	pg.AlterTableType_AT_ValidateConstraint: true,
	pg.AlterTableType_AT_DropConstraint:     true,
	pg.AlterTableType_AT_AlterColumnType:    true,
	pg.AlterTableType_AT_SetLogged:          true,
	pg.AlterTableType_AT_SetUnLogged:        true,
	pg.AlterTableType_AT_SetRelOptions:      true,
	pg.AlterTableType_AT_ResetRelOptions:    true,
	pg.AlterTableType_AT_AddInherit:         true,
	pg.AlterTableType_AT_DropInherit:        true,
	pg.AlterTableType_AT_AttachPartition:    true,
	pg.AlterTableType_AT_DetachPartition:    true,
	pg.AlterTableType_AT_AddIdentity:        true,
	pg.AlterTableType_AT_SetIdentity:        true,
	pg.AlterTableType_AT_DropIdentity:       true,
	pg.AlterTableType_AT_SetExpression:      true,
	pg.AlterTableType_AT_DropExpression:     true,
	pg.AlterTableType_AT_SetOptions:         true, // per-column n_distinct
	pg.AlterTableType_AT_ResetOptions:       true,
}

// safeStorageParameters are the storage parameters (WITH (…), SET (…)) of
// tables and indexes sqe passes: they tune how the server stores and
// vacuums the table's own rows.
var safeStorageParameters = map[string]bool{
	"fillfactor": true, "toast_tuple_target": true, "parallel_workers": true,
	"autovacuum_enabled": true, "vacuum_index_cleanup": true, "vacuum_truncate": true,
	"log_autovacuum_min_duration": true,
	// index parameters
	"deduplicate_items": true, "fastupdate": true, "gin_pending_list_limit": true,
	"buffering": true, "pages_per_range": true, "autosummarize": true,
	// per-column options
	"n_distinct": true, "n_distinct_inherited": true,
}

// safeStorageParameter accepts the listed parameters and the autovacuum
// settings, for the table and for its TOAST table.
func safeStorageParameter(d *pg.DefElem) bool {
	name := strings.ToLower(d.Defname)
	if ns := strings.ToLower(d.Defnamespace); ns != "" && ns != "toast" {
		return false
	}
	return safeStorageParameters[name] || strings.HasPrefix(name, "autovacuum_")
}

func storageParameters(list []*pg.Node) error {
	for _, n := range list {
		d := n.GetDefElem()
		if d == nil || !safeStorageParameter(d) {
			name := "?"
			if d != nil {
				name = d.Defname
			}
			return rewriter.Unsupported("storage parameter %s is not supported through sqe", name)
		}
	}
	return nil
}

// createForm checks the clauses of CREATE TABLE that are not table
// elements.
func createForm(c *pg.CreateStmt) error {
	switch {
	case c.Tablespacename != "":
		return rewriter.Unsupported("TABLESPACE is not supported through sqe")
	case c.AccessMethod != "" && c.AccessMethod != "heap":
		return rewriter.Unsupported("table access method %s is not supported through sqe", c.AccessMethod)
	case c.OfTypename != nil:
		return rewriter.Unsupported("typed tables (CREATE TABLE … OF type) are not supported through sqe")
	}
	if err := storageParameters(c.Options); err != nil {
		return err
	}
	for _, n := range append(append([]*pg.Node(nil), c.TableElts...), c.Constraints...) {
		if err := constraintForm(n); err != nil {
			return err
		}
	}
	return nil
}

// constraintForm refuses index tablespaces and index storage parameters
// that are not on the list, in a table's or a column's constraints.
func constraintForm(n *pg.Node) error {
	var cons []*pg.Node
	if cd := n.GetColumnDef(); cd != nil {
		cons = cd.Constraints
	} else {
		cons = []*pg.Node{n}
	}
	for _, cn := range cons {
		c := cn.GetConstraint()
		if c == nil {
			continue
		}
		if c.Indexspace != "" {
			return rewriter.Unsupported("USING INDEX TABLESPACE is not supported through sqe")
		}
		if err := storageParameters(c.Options); err != nil {
			return err
		}
	}
	return nil
}

// alterForm checks each subcommand of ALTER TABLE against the allow-list.
func alterForm(a *pg.AlterTableStmt) error {
	for _, n := range a.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			return rewriter.Unsupported("unexpected ALTER TABLE subcommand")
		}
		if !safeAlterTableCmds[cmd.Subtype] {
			return rewriter.Unsupported("ALTER TABLE … %s is not supported through sqe", alterName(cmd.Subtype))
		}
		switch cmd.Subtype {
		case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions,
			pg.AlterTableType_AT_SetOptions, pg.AlterTableType_AT_ResetOptions:
			if err := storageParameters(cmd.Def.GetList().GetItems()); err != nil {
				return err
			}
		case pg.AlterTableType_AT_AddConstraint:
			if err := constraintForm(cmd.Def); err != nil {
				return err
			}
		case pg.AlterTableType_AT_AddColumn:
			if err := constraintForm(cmd.Def); err != nil {
				return err
			}
		}
	}
	return nil
}

// indexForm checks CREATE INDEX's tablespace and storage parameters.
func indexForm(ix *pg.IndexStmt) error {
	if ix.TableSpace != "" {
		return rewriter.Unsupported("TABLESPACE is not supported through sqe")
	}
	return storageParameters(ix.Options)
}

// alterName names a subcommand for an error ("AT_ChangeOwner" → "ChangeOwner").
func alterName(t pg.AlterTableType) string {
	return strings.TrimPrefix(t.String(), "AT_")
}
