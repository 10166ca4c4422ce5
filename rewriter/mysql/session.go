package mysql

import (
	"slices"
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

// charsetVariables decide how the server reads the bytes of a statement.
// In a multibyte character set such as gbk, sjis or big5 a byte of a
// character can be a backslash, which then no longer escapes what follows
// in a string literal sqe wrote: only character sets in which every
// backslash byte is a backslash are accepted.
var charsetVariables = map[string]bool{
	"names": true, "charset": true, "character set": true,
	"character_set_client": true, "character_set_connection": true, "character_set_results": true,
	"collation_connection": true,
}

// safeCharsets are the character sets sqe's string literals are written
// for (the driver also checks the connection's character_set_client).
var safeCharsets = map[string]bool{"utf8mb4": true, "utf8mb3": true, "utf8": true, "ascii": true, "latin1": true}

// settableVariables are the session variables a statement may SET: an
// allow-list. Each changes how the session runs statements (time outs,
// transaction defaults, limits, formats, the optimizer), not what a
// policy admits or how sqe reads statements, or is one of the variables
// that sqe reads again after the change (sessionStateVariables, checked
// with charsetVariables). Everything else is refused, among them
// timestamp (NOW() would lie to a filter), insert_id and last_insert_id,
// the rand seeds, completion_type (COMMIT would open a transaction sqe
// does not see), default_regex_flags (masks use regular expressions),
// the identity (role, default_role, password), replication, profiling,
// session tracking and debugging. A variable a new server version adds is
// refused until someone decides.
var settableVariables = map[string]bool{
	// Read again by sqe after the change.
	"sql_mode": true, "names": true, "charset": true, "character set": true,
	"character_set_client": true, "character_set_connection": true, "character_set_results": true,
	"collation_connection": true,
	// Transactions and locking.
	"autocommit": true, "transaction_isolation": true, "tx_isolation": true,
	"transaction_read_only": true, "tx_read_only": true,
	"innodb_lock_wait_timeout": true, "lock_wait_timeout": true,
	// Time outs and limits.
	"max_execution_time": true, "max_statement_time": true, "wait_timeout": true, "interactive_timeout": true,
	"net_read_timeout": true, "net_write_timeout": true, "group_concat_max_len": true,
	"sql_select_limit": true, "max_join_size": true, "sql_big_selects": true, "sql_safe_updates": true,
	"cte_max_recursion_depth": true, "max_recursive_iterations": true, "max_sort_length": true,
	// Formats and conversions of the session's own values.
	"time_zone": true, "lc_time_names": true, "lc_messages": true, "div_precision_increment": true,
	"default_week_format": true, "sql_notes": true, "sql_warnings": true, "sql_quote_show_create": true,
	"explicit_defaults_for_timestamp": true,
	// Checks of the session's own writes and schema changes.
	"foreign_key_checks": true, "unique_checks": true, "check_constraint_checks": true,
	"default_storage_engine": true, "storage_engine": true, "default_tmp_storage_engine": true,
	// Memory and the optimizer.
	"big_tables": true, "tmp_table_size": true, "max_heap_table_size": true, "tmp_memory_table_size": true,
	"sort_buffer_size": true, "join_buffer_size": true, "read_buffer_size": true, "read_rnd_buffer_size": true,
	"optimizer_search_depth": true, "optimizer_prune_level": true, "optimizer_switch": true,
	"in_predicate_conversion_threshold": true, "join_cache_level": true,
}

// readableVariables are the system variables a statement may read
// (@@name), besides the settable ones: the server's version and
// configuration, which are the same for every caller. Variables that
// report the previous statement or the connection's history
// (warning_count, error_count, last_insert_id, identity, insert_id) and
// the server's files, host and accounts are not listed.
var readableVariables = map[string]bool{
	"version": true, "version_comment": true, "version_compile_os": true, "version_compile_machine": true,
	"version_malloc_library": true, "version_ssl_library": true, "innodb_version": true, "protocol_version": true,
	"license": true, "max_allowed_packet": true, "lower_case_table_names": true, "lower_case_file_system": true,
	"system_time_zone": true, "timestamp": true, "read_only": true, "max_connections": true,
	"character_set_server": true, "character_set_database": true, "character_set_system": true,
	"collation_server": true, "collation_database": true,
	"auto_increment_increment": true, "auto_increment_offset": true, "in_transaction": true,
	"default_regex_flags": true, "completion_type": true, "performance_schema": true,
	"have_ssl": true, "have_openssl": true, "ssl_cipher": true, "session_track_system_variables": true,
	"sql_auto_is_null": true, "event_scheduler": true, "server_id": true,
}

func (r *rewrite) set(s *sqlparser.Set, root *scope) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindSession}
	for _, se := range s.Exprs {
		name := strings.ToLower(se.Var.Name.String())
		switch se.Var.Scope {
		case sqlparser.GlobalScope, sqlparser.PersistSysScope, sqlparser.PersistOnlySysScope:
			return nil, rewriter.Unsupported("SET GLOBAL/PERSIST %s is not supported through sqe: it changes the server for every session", name)
		case sqlparser.VariableScope:
			if err := r.renameVariable(se.Var); err != nil {
				return nil, err
			}
		default:
			if !settableVariables[name] {
				return nil, rewriter.Unsupported("SET %s is not supported through sqe: a statement may set only the session variables sqe has decided cannot change what a policy admits", name)
			}
			if charsetVariables[name] {
				if err := checkCharset(name, se.Expr); err != nil {
					return nil, err
				}
			}
			if sessionStateVariables[name] {
				res.Effect.RefreshSession = true
			}
			// A system variable outlives the statement (autocommit = 0
			// opens a transaction that outlives it too).
			res.Effect.Holds = rewriter.HoldsSessionSetting
		}
		if err := r.exprs(se, root, func(n, parent sqlparser.SQLNode) bool { return n == se.Var }); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// transactionCharacteristics prints a SET [SESSION] TRANSACTION statement
// in the form every server reads: the parser turns it into assignments to
// transaction_isolation and transaction_read_only, variables MariaDB
// before 11.1 does not have (it has tx_isolation and tx_read_only), and
// an assignment without SESSION would not keep the statement's
// next-transaction scope anyway. ok is false for any other statement.
func transactionCharacteristics(stmt sqlparser.Statement) (string, bool) {
	s, ok := stmt.(*sqlparser.Set)
	if !ok || len(s.Exprs) == 0 {
		return "", false
	}
	scope := s.Exprs[0].Var.Scope
	if scope != sqlparser.SessionScope && scope != sqlparser.NextTxScope {
		return "", false
	}
	var parts []string
	for _, se := range s.Exprs {
		lit, isLit := se.Expr.(*sqlparser.Literal)
		if se.Var.Scope != scope || !isLit || lit.Type != sqlparser.StrVal {
			return "", false
		}
		switch name := strings.ToLower(se.Var.Name.String()); {
		case name == sqlparser.TransactionIsolationStr && isolationLevels[lit.Val]:
			parts = append(parts, "ISOLATION LEVEL "+strings.ToUpper(strings.ReplaceAll(lit.Val, "-", " ")))
		case name == sqlparser.TransactionReadOnlyStr && lit.Val == "on":
			parts = append(parts, "READ ONLY")
		case name == sqlparser.TransactionReadOnlyStr && lit.Val == "off":
			parts = append(parts, "READ WRITE")
		default:
			return "", false
		}
	}
	text := "SET TRANSACTION " + strings.Join(parts, ", ")
	if scope == sqlparser.SessionScope {
		text = "SET SESSION TRANSACTION " + strings.Join(parts, ", ")
	}
	return text, true
}

var isolationLevels = map[string]bool{
	sqlparser.ReadUncommittedStr: true, sqlparser.ReadCommittedStr: true,
	sqlparser.RepeatableReadStr: true, sqlparser.SerializableStr: true,
}

// checkCharset accepts SET NAMES / CHARACTER SET / character_set_* /
// collation_connection only to a character set (or a collation of one)
// in safeCharsets, written as a name or a string, or DEFAULT (the driver
// checks the resulting character_set_client before the next statement).
func checkCharset(name string, e sqlparser.Expr) error {
	var v string
	switch x := e.(type) {
	case *sqlparser.Literal:
		if x.Type != sqlparser.StrVal {
			return unsafeCharset(name)
		}
		v = x.Val
	case *sqlparser.ColName:
		if !x.Qualifier.IsEmpty() {
			return unsafeCharset(name)
		}
		v = x.Name.String()
	case *sqlparser.Default:
		return nil
	default:
		return unsafeCharset(name)
	}
	v = strings.ToLower(strings.TrimSpace(v))
	if name == "collation_connection" {
		if i := strings.IndexByte(v, '_'); i > 0 {
			v = v[:i]
		}
	}
	if !safeCharsets[v] {
		return unsafeCharset(name)
	}
	return nil
}

func unsafeCharset(name string) error {
	return rewriter.Unsupported("SET %s is supported through sqe only to utf8mb4, utf8mb3, utf8, ascii or latin1: in other character sets a multibyte character can swallow the backslash that escapes a quote", name)
}

// show lets through the SHOW statements that reveal no table data or
// column metadata, turns SHOW COLUMNS into a column listing under policy,
// and refuses the others.
func (r *rewrite) show(s *sqlparser.Show) (*rewriter.Result, error) {
	switch in := s.Internal.(type) {
	case *sqlparser.ShowBasic:
		switch in.Command {
		case sqlparser.VariableSession, sqlparser.VariableGlobal, sqlparser.Charset,
			sqlparser.Collation, sqlparser.Engines, sqlparser.Database:
			return &rewriter.Result{Kind: rewriter.KindSession}, nil
		case sqlparser.StatusSession, sqlparser.StatusGlobal:
			return nil, rewriter.Unsupported("SHOW STATUS is not supported through sqe: its counters (Rows_read, Handler_read_*) count the rows a policy hides")
		case sqlparser.Table:
			// Table names only: SHOW [FULL] TABLES [FROM db] [LIKE | WHERE].
			return &rewriter.Result{Kind: rewriter.KindSession}, nil
		case sqlparser.Column:
			tn := in.Tbl
			if !in.DbName.IsEmpty() {
				tn.Qualifier = in.DbName
			}
			like := ""
			var where sqlparser.Expr
			if in.Filter != nil {
				like, where = in.Filter.Like, in.Filter.Filter
			}
			return r.showColumns(tn, in.Full, like, where)
		case sqlparser.Warnings, sqlparser.Errors:
			return nil, rewriter.Unsupported("SHOW WARNINGS/ERRORS is not supported through sqe: warnings echo values, also of rows a policy hides")
		case sqlparser.Index:
			return r.showIndex(in)
		case sqlparser.TableStatus:
			return r.showTableStatus(in)
		}
	case *sqlparser.ShowCreate:
		switch in.Command {
		case sqlparser.CreateTbl, sqlparser.CreateV:
			return r.showCreate(in)
		case sqlparser.CreateDb:
			// A database's character set and collation: nothing of a table.
			return &rewriter.Result{Kind: rewriter.KindSession}, nil
		}
	}
	return nil, rewriter.Unsupported("this SHOW statement is not supported through sqe (query information_schema under policy instead)")
}

// showIndex lets SHOW INDEX|KEYS FROM t through for a caller who reads t
// with no policy at all: its rows name every indexed column (restricted
// ones too) and its Cardinality estimates how many distinct raw values
// the rows hold (rows a filter hides, values a mask hides). A WHERE could
// read other tables: it is refused.
func (r *rewrite) showIndex(in *sqlparser.ShowBasic) (*rewriter.Result, error) {
	if in.Filter != nil {
		return nil, rewriter.Unsupported("SHOW INDEX with LIKE or WHERE is not supported through sqe (query information_schema.STATISTICS under policy instead)")
	}
	tn := in.Tbl
	if !in.DbName.IsEmpty() {
		tn.Qualifier = in.DbName
	}
	t, err := r.resolve(tn)
	if err != nil {
		return nil, err
	}
	plan, err := r.plan(t, policy.Select)
	if err != nil {
		return nil, err
	}
	if !plan.Decision.Passthrough() || len(plan.All) > 0 {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
			Detail: "SHOW INDEX of a table under a row filter, mask or column restriction is not supported through sqe: it shows every indexed column and the raw values' statistics"}
	}
	in.Tbl, in.DbName = qualified(t), sqlparser.NewIdentifierCS("")
	return &rewriter.Result{Kind: rewriter.KindSession}, nil
}

// ddl checks a schema change against the table's access and rewrites the
// queries it embeds as reads.
func (r *rewrite) ddl(d sqlparser.DDLStatement, root *scope) (*rewriter.Result, error) {
	if err := partiallyParsed(d); err != nil {
		return nil, err
	}
	res := &rewriter.Result{Kind: rewriter.KindDDL, Effect: rewriter.Effect{InvalidateCatalog: true}}
	var last *rewriter.TablePlan
	need := func(tn sqlparser.TableName, a policy.Access) error {
		t, err := r.resolve(tn)
		if err != nil {
			return err
		}
		last, err = r.plan(t, a)
		return err
	}
	var err error
	switch s := d.(type) {
	case *sqlparser.CreateTable:
		if s.Temp {
			res.Effect.Holds = rewriter.HoldsTemporaryTable
		}
		if err = need(s.Table, policy.Create); err != nil {
			return nil, err
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
		if err = need(s.Table, policy.Alter); err == nil && (!last.Decision.Passthrough() || len(last.All) > 0) {
			// len(All) > 0: the caller's policy has tag masks, which no
			// column of the table may carry yet.
			err = alterUnderPolicy(s, last)
		}
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
			if !last.Decision.Passthrough() {
				err = &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: last.Table.String(),
					Detail: "renaming a table under a read policy would leave its policies behind"}
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
	if err := r.ddlNamedTables(d); err != nil {
		return nil, err
	}
	return res, nil
}

// keepsTags refuses a column definition that drops a tag the column's
// comment carries today: tags select masks, for this caller or another.
// Adding tags is allowed.
func keepsTags(c *sqlparser.ColumnDefinition, plan *rewriter.TablePlan) error {
	if c == nil {
		return nil
	}
	var old []string
	for _, col := range plan.All {
		if strings.EqualFold(col.Name, c.Name.String()) {
			old = col.Tags
		}
	}
	var comment string
	if c.Type != nil && c.Type.Options != nil && c.Type.Options.Comment != nil {
		comment = c.Type.Options.Comment.Val
	}
	kept := rewriter.ParseTagComment(comment)
	for _, tag := range old {
		if !slices.Contains(kept, strings.ToUpper(tag)) {
			return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(), Column: c.Name.String(),
				Detail: "a column change that drops the column's tag " + tag + " (tags select masks) needs a caller who reads the table without any policy"}
		}
	}
	return nil
}

// alterUnderPolicy allows only the schema changes that cannot reveal or
// move a value the caller's policy hides from them: adding, modifying and
// dropping columns without expressions over other columns, literal
// defaults, and table options. Renaming a column (masks and restrictions
// are bound to names), generated columns (AS (ssn) would copy the raw
// value), CHECK constraints (an oracle on raw values) and the rest are
// refused.
func alterUnderPolicy(s *sqlparser.AlterTable, plan *rewriter.TablePlan) error {
	refuse := func(what string) error {
		return &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: plan.Table.String(),
			Detail: what + " on a table under a read policy could reveal or move values the policy hides"}
	}
	checkCol := func(c *sqlparser.ColumnDefinition) error {
		if c == nil || c.Type == nil || c.Type.Options == nil {
			return nil
		}
		o := c.Type.Options
		if o.As != nil {
			return refuse("a generated column")
		}
		if o.Default != nil {
			if _, lit := o.Default.(*sqlparser.Literal); !lit {
				if _, null := o.Default.(*sqlparser.NullVal); !null {
					return refuse("a computed default")
				}
			}
		}
		if o.OnUpdate != nil {
			return refuse("ON UPDATE")
		}
		return nil
	}
	if s.PartitionSpec != nil || s.PartitionOption != nil {
		return refuse("a partitioning change")
	}
	for _, opt := range s.AlterOptions {
		switch o := opt.(type) {
		case *sqlparser.AddColumns:
			for _, c := range o.Columns {
				if err := checkCol(c); err != nil {
					return err
				}
			}
		case *sqlparser.ModifyColumn:
			if err := checkCol(o.NewColDefinition); err != nil {
				return err
			}
			if err := keepsTags(o.NewColDefinition, plan); err != nil {
				return err
			}
		case *sqlparser.AlterColumn:
			if o.DefaultVal != nil {
				if _, lit := o.DefaultVal.(*sqlparser.Literal); !lit {
					return refuse("a computed default")
				}
			}
		case *sqlparser.DropColumn, sqlparser.TableOptions, sqlparser.AlgorithmValue, *sqlparser.LockOption:
		default:
			return refuse("this change")
		}
	}
	return nil
}
