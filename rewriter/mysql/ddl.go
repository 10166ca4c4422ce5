package mysql

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// The DDL boundary. A schema change is checked in two parts: the tables it
// creates, alters or drops need the matching access (ddl, in session.go),
// and every other table it names is a table whose rows or values the
// change could expose or move. Those are:
//
//   - CREATE TABLE … LIKE t: the copy has t's structure, restricted columns
//     and tags included, and can then trade partitions with t;
//   - FOREIGN KEY … REFERENCES t (c): every insert into the new table tests
//     whether a value exists in t.c, hidden rows and restricted columns
//     included;
//   - ENGINE = MRG_MyISAM UNION = (t, …): reads t's rows raw and, with
//     INSERT_METHOD, writes into t;
//   - ALTER TABLE … EXCHANGE PARTITION p WITH TABLE t: swaps t's rows into
//     the caller's table.
//
// Each such table must be one the caller reads with no row filter, mask or
// restricted column (its decision is a passthrough) and may update; LIKE,
// which copies no rows, needs select only. Table options are an allow-list
// (storage engines that keep their rows in the server's own files, the
// character set, comments and sizing), and so are partition options; the
// rest (DATA/INDEX DIRECTORY, CONNECTION, engines that reach other servers
// or files) is refused.

// safeTableOptions are the table options a schema change may set. UNION
// and INSERT_METHOD are checked with the tables they name.
var safeTableOptions = map[string]bool{
	"engine": true, "charset": true, "character set": true, "default charset": true,
	"default character set": true, "collate": true, "default collate": true, "comment": true,
	"auto_increment": true, "avg_row_length": true, "checksum": true, "delay_key_write": true,
	"key_block_size": true, "max_rows": true, "min_rows": true, "pack_keys": true,
	"row_format": true, "stats_auto_recalc": true, "stats_persistent": true,
	"stats_sample_pages": true, "union": true, "insert_method": true,
}

// safeEngines keep a table's rows in the server's own storage. FEDERATED,
// CONNECT, SPIDER and the like reach other servers or files; MRG_MyISAM
// reads the tables its UNION names (checked as tables the change names).
var safeEngines = map[string]bool{
	"innodb": true, "myisam": true, "aria": true, "memory": true, "heap": true,
	"mrg_myisam": true, "merge": true,
}

// ddlNamedTables checks the tables a schema change names besides its
// targets, and its table and partition options.
func (r *rewrite) ddlNamedTables(d sqlparser.DDLStatement) error {
	var err error
	fail := func(e error) bool {
		if err == nil {
			err = e
		}
		return false
	}
	walkErr := sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if err != nil {
			return false, nil
		}
		switch x := node.(type) {
		case sqlparser.TableStatement:
			// CREATE TABLE … SELECT and view bodies are rewritten as reads.
			return false, nil
		case *sqlparser.OptLike:
			return fail(r.namedTable(x.LikeTable, "CREATE TABLE … LIKE", policy.Select)), nil
		case *sqlparser.ReferenceDefinition:
			return fail(r.namedTable(x.ReferencedTable, "a foreign key", policy.Select, policy.Update)), nil
		case *sqlparser.ColumnDefinition:
			// A column's own REFERENCES clause is not a node of its own.
			if x.Type != nil && x.Type.Options != nil && x.Type.Options.Reference != nil {
				return fail(r.namedTable(x.Type.Options.Reference.ReferencedTable, "a foreign key", policy.Select, policy.Update)), nil
			}
		case *sqlparser.RenameTableName:
			// ALTER TABLE … RENAME TO: the new name is a table the caller
			// creates (a table under a read policy cannot be renamed: see
			// alterUnderPolicy).
			t, e := r.resolve(x.Table)
			if e == nil {
				_, e = r.plan(t, policy.Create)
			}
			return fail(e), nil
		case *sqlparser.PartitionSpec:
			if x.Action == sqlparser.ExchangeAction {
				return fail(r.namedTable(x.TableName, "EXCHANGE PARTITION", policy.Select, policy.Update)), nil
			}
		case sqlparser.TableOptions:
			for _, o := range x {
				if e := r.tableOption(o); e != nil {
					return fail(e), nil
				}
			}
		case *sqlparser.PartitionDefinitionOptions:
			if x.DataDirectory != nil || x.IndexDirectory != nil {
				return fail(rewriter.Unsupported("DATA DIRECTORY and INDEX DIRECTORY are not supported through sqe: they place files on the server")), nil
			}
			if x.Engine != nil && !safeEngines[strings.ToLower(x.Engine.Name)] {
				return fail(rewriter.Unsupported("storage engine %s is not supported through sqe", x.Engine.Name)), nil
			}
		case *sqlparser.SubPartitionDefinitionOptions:
			if x.DataDirectory != nil || x.IndexDirectory != nil {
				return fail(rewriter.Unsupported("DATA DIRECTORY and INDEX DIRECTORY are not supported through sqe: they place files on the server")), nil
			}
			if x.Engine != nil && !safeEngines[strings.ToLower(x.Engine.Name)] {
				return fail(rewriter.Unsupported("storage engine %s is not supported through sqe", x.Engine.Name)), nil
			}
		}
		return true, nil
	}, d)
	if walkErr != nil {
		return walkErr
	}
	return err
}

// tableOption checks one table option against the allow-list.
func (r *rewrite) tableOption(o *sqlparser.TableOption) error {
	name := strings.ToLower(o.Name)
	if !safeTableOptions[name] {
		return rewriter.Unsupported("table option %s is not supported through sqe", strings.ToUpper(o.Name))
	}
	switch name {
	case "engine":
		if !safeEngines[strings.ToLower(o.String)] {
			return rewriter.Unsupported("storage engine %s is not supported through sqe: only engines that keep their rows in the server's own storage are", o.String)
		}
	case "union":
		for _, t := range o.Tables {
			if err := r.namedTable(t, "a MERGE table's UNION", policy.Select, policy.Update); err != nil {
				return err
			}
		}
	}
	return nil
}

// namedTable requires the caller to have access on a table a schema change
// names (not one it creates, alters or drops), and to read it with no
// policy that changes what a read sees.
func (r *rewrite) namedTable(tn sqlparser.TableName, what string, access ...policy.Access) error {
	t, err := r.resolve(tn)
	if err != nil {
		return err
	}
	for _, a := range access {
		p, err := r.plan(t, a)
		if err != nil {
			return err
		}
		if !p.Decision.Passthrough() {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
				Detail: what + " naming a table under a read policy (row filter, mask or restricted column) is not supported through sqe: it could reveal or move what the policy hides"}
		}
	}
	return nil
}

// partiallyParsed refuses a schema change the parser read only in part:
// sqe would send the part it read, which is not the statement the
// application wrote.
func partiallyParsed(d sqlparser.DDLStatement) error {
	if d.IsFullyParsed() {
		return nil
	}
	return rewriter.Unsupported("this form of schema change is not supported through sqe: its parser reads only part of the statement, and sqe sends nothing but what it has read")
}
