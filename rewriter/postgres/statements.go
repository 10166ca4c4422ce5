package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// refusedStatements explains the statement types sqe refuses outright.
// Any other type that statement does not handle is refused too.
var refusedStatements = map[string]string{
	"PrepareStmt":                "SQL-level PREPARE is not supported through sqe (use the driver's prepared statements)",
	"ExecuteStmt":                "SQL-level EXECUTE is not supported through sqe (use the driver's prepared statements)",
	"DeallocateStmt":             "SQL-level DEALLOCATE is not supported through sqe",
	"DoStmt":                     "DO runs code sqe cannot check",
	"CallStmt":                   "CALL runs code sqe cannot check",
	"CopyStmt":                   "COPY is not supported through sqe",
	"LockStmt":                   "LOCK is not supported through sqe",
	"GrantStmt":                  "GRANT/REVOKE is not supported through sqe",
	"GrantRoleStmt":              "GRANT/REVOKE of roles is not supported through sqe",
	"AlterDefaultPrivilegesStmt": "ALTER DEFAULT PRIVILEGES is not supported through sqe",
	"CreateRoleStmt":             "CREATE ROLE/USER is not supported through sqe",
	"AlterRoleStmt":              "ALTER ROLE/USER is not supported through sqe",
	"AlterRoleSetStmt":           "ALTER ROLE/USER is not supported through sqe",
	"DropRoleStmt":               "DROP ROLE/USER is not supported through sqe",
	"ReassignOwnedStmt":          "REASSIGN OWNED is not supported through sqe",
	"DropOwnedStmt":              "DROP OWNED is not supported through sqe",
	"CreateFunctionStmt":         "CREATE FUNCTION/PROCEDURE defines code sqe cannot check",
	"AlterFunctionStmt":          "ALTER FUNCTION/PROCEDURE is not supported through sqe",
	"RuleStmt":                   "CREATE RULE defines rewrites sqe cannot check",
	"CreateTrigStmt":             "CREATE TRIGGER defines code sqe cannot check",
	"CreateEventTrigStmt":        "CREATE EVENT TRIGGER defines code sqe cannot check",
	"CreatePLangStmt":            "CREATE LANGUAGE is not supported through sqe",
	"AlterSystemStmt":            "ALTER SYSTEM is not supported through sqe",
	"CreatePolicyStmt":           "CREATE POLICY is not supported through sqe",
	"AlterPolicyStmt":            "ALTER POLICY is not supported through sqe",
	"LoadStmt":                   "LOAD is not supported through sqe",
	"CreateExtensionStmt":        "CREATE EXTENSION is not supported through sqe",
	"ListenStmt":                 "LISTEN is not supported through sqe: notifications carry payloads no policy filters",
	"CreateForeignTableStmt":     "CREATE FOREIGN TABLE is not supported through sqe",
	"ImportForeignSchemaStmt":    "IMPORT FOREIGN SCHEMA is not supported through sqe",
	"CreateSchemaStmt":           "CREATE SCHEMA is not supported through sqe",
	"RefreshMatViewStmt":         "REFRESH MATERIALIZED VIEW is not supported through sqe",
	"AlterObjectSchemaStmt":      "ALTER … SET SCHEMA is not supported through sqe",
	"AlterOwnerStmt":             "ALTER … OWNER TO is not supported through sqe",
	"SecLabelStmt":               "SECURITY LABEL is not supported through sqe",
	"ClusterStmt":                "CLUSTER is not supported through sqe",
	"CheckPointStmt":             "CHECKPOINT is not supported through sqe",
	"CreatedbStmt":               "CREATE DATABASE is not supported through sqe",
	"DropdbStmt":                 "DROP DATABASE is not supported through sqe",
	"CreateSubscriptionStmt":     "subscriptions are not supported through sqe",
	"CreatePublicationStmt":      "publications are not supported through sqe",
	"AlterTableMoveAllStmt":      "ALTER TABLE ALL IN TABLESPACE is not supported through sqe",
	"CreateTableSpaceStmt":       "tablespaces are not managed through sqe",
	"CreateForeignServerStmt":    "foreign servers are not supported through sqe",
	"CreateUserMappingStmt":      "user mappings are not supported through sqe",
	"AlterDatabaseSetStmt":       "ALTER DATABASE is not supported through sqe",
	"AlterDatabaseStmt":          "ALTER DATABASE is not supported through sqe",
	"ConstraintsSetStmt":         "SET CONSTRAINTS is not supported through sqe",
}

// statement rewrites a top-level statement in place.
func (r *rewrite) statement(n *pg.Node) (*rewriter.Result, error) {
	root := &scope{}
	switch s := n.Node.(type) {
	case *pg.Node_SelectStmt:
		return &rewriter.Result{Kind: rewriter.KindSelect}, r.selectStmt(s.SelectStmt, root)
	case *pg.Node_InsertStmt:
		return &rewriter.Result{Kind: rewriter.KindInsert}, r.insert(s.InsertStmt, root)
	case *pg.Node_UpdateStmt:
		return &rewriter.Result{Kind: rewriter.KindUpdate}, r.update(s.UpdateStmt, root)
	case *pg.Node_DeleteStmt:
		return &rewriter.Result{Kind: rewriter.KindDelete}, r.delete(s.DeleteStmt, root)
	case *pg.Node_MergeStmt:
		return &rewriter.Result{Kind: rewriter.KindUpdate}, r.merge(s.MergeStmt, root)
	case *pg.Node_ExplainStmt:
		return r.explain(s.ExplainStmt)
	case *pg.Node_DeclareCursorStmt:
		if err := r.cursorName(&s.DeclareCursorStmt.Portalname); err != nil {
			return nil, err
		}
		res := &rewriter.Result{Kind: rewriter.KindSelect}
		if s.DeclareCursorStmt.Options&cursorOptHold != 0 {
			res.Effect.Holds = rewriter.HoldsCursor
		}
		return res, r.query(s.DeclareCursorStmt.Query, root)
	case *pg.Node_FetchStmt:
		if err := r.cursorName(&s.FetchStmt.Portalname); err != nil {
			return nil, err
		}
		if s.FetchStmt.Ismove {
			return &rewriter.Result{Kind: rewriter.KindSession}, nil
		}
		return &rewriter.Result{Kind: rewriter.KindSelect}, nil
	case *pg.Node_ClosePortalStmt:
		if s.ClosePortalStmt.Portalname != "" { // "" is CLOSE ALL
			if err := r.cursorName(&s.ClosePortalStmt.Portalname); err != nil {
				return nil, err
			}
		}
		return &rewriter.Result{Kind: rewriter.KindSession}, nil
	case *pg.Node_NotifyStmt, *pg.Node_UnlistenStmt, *pg.Node_VariableShowStmt:
		return &rewriter.Result{Kind: rewriter.KindSession}, nil
	case *pg.Node_TransactionStmt:
		return transaction(s.TransactionStmt)
	case *pg.Node_VacuumStmt:
		return r.vacuum(s.VacuumStmt)
	case *pg.Node_ReindexStmt:
		return r.reindex(s.ReindexStmt)
	case *pg.Node_CreateSeqStmt:
		return r.createSequence(s.CreateSeqStmt)
	case *pg.Node_AlterSeqStmt:
		return r.alterSequence(s.AlterSeqStmt)
	case *pg.Node_VariableSetStmt:
		return set(s.VariableSetStmt)
	case *pg.Node_DiscardStmt:
		if s.DiscardStmt.Target == pg.DiscardMode_DISCARD_ALL {
			return nil, rewriter.Unsupported("DISCARD ALL is not supported through sqe: it drops the driver's prepared statements (close the connection instead)")
		}
		return &rewriter.Result{Kind: rewriter.KindSession}, nil
	case *pg.Node_CreateStmt, *pg.Node_CreateTableAsStmt, *pg.Node_ViewStmt, *pg.Node_IndexStmt,
		*pg.Node_AlterTableStmt, *pg.Node_DropStmt, *pg.Node_TruncateStmt, *pg.Node_RenameStmt:
		if err := r.ddlStatement(n, root); err != nil {
			return nil, err
		}
		res := &rewriter.Result{Kind: rewriter.KindDDL, Effect: rewriter.Effect{InvalidateCatalog: true}}
		if createsTemporary(n) {
			res.Effect.Holds = rewriter.HoldsTemporaryTable
		}
		return res, nil
	}
	if c, ok := n.Node.(*pg.Node_CommentStmt); ok {
		if err := r.comment(c.CommentStmt); err != nil {
			return nil, err
		}
		return &rewriter.Result{Kind: rewriter.KindDDL, Effect: rewriter.Effect{InvalidateCatalog: true}}, nil
	}
	name := nodeName(n)
	if why, ok := refusedStatements[name]; ok {
		return nil, rewriter.Unsupported("%s", why)
	}
	return nil, rewriter.Unsupported("%s is not supported through sqe", strings.TrimSuffix(name, "Stmt"))
}

// explain rewrites the explained statement. EXPLAIN ANALYZE is refused:
// it runs the statement and reports row counts before the row filters
// ("Rows Removed by Filter"), which would count the rows the caller may
// not see.
func (r *rewrite) explain(e *pg.ExplainStmt) (*rewriter.Result, error) {
	for _, o := range e.Options {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "analyze") {
			return nil, rewriter.Unsupported("EXPLAIN ANALYZE is not supported through sqe: its row counts include rows the policy hides")
		}
	}
	if e.Query == nil {
		return nil, rewriter.Unsupported("EXPLAIN without a statement")
	}
	switch e.Query.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
	default:
		return nil, rewriter.Unsupported("EXPLAIN of %s is not supported through sqe", nodeName(e.Query))
	}
	if _, err := r.statement(e.Query); err != nil {
		return nil, err
	}
	// The plan's row estimates come from statistics over every row, the
	// ones a policy hides included.
	if err := r.RefuseReadPolicies(r.Tables(),
		"EXPLAIN of a statement reading a table under a read policy is not supported through sqe: its estimates count the rows the policy hides"); err != nil {
		return nil, err
	}
	return &rewriter.Result{Kind: rewriter.KindOther}, nil
}

// transaction passes transaction control. A transaction's end may undo a
// SET made inside it (ROLLBACK, or COMMIT of a failed transaction), so it
// asks the driver to read the session state again. Two-phase commit is
// refused.
func transaction(t *pg.TransactionStmt) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindSession, Effect: rewriter.Effect{TransactionControl: true}}
	switch t.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		res.Effect.BeginsTransaction = true
		return res, nil
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return res, nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		res.Effect.RefreshSession = true
		res.Effect.EndsTransaction = true
		return res, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		res.Effect.RefreshSession = true
		return res, nil
	}
	return nil, rewriter.Unsupported("two-phase commit (PREPARE TRANSACTION, COMMIT/ROLLBACK PREPARED) is not supported through sqe")
}

// sessionStateVariables change how sqe must resolve names or read string
// literals on the connection; setting one makes the driver read the state
// again.
var sessionStateVariables = map[string]bool{
	"search_path":                 true,
	"standard_conforming_strings": true,
}

// refusedVariables would let a statement act as another identity, or make
// the server read the statement's bytes differently from the parser; the
// reason is the error's.
var refusedVariables = map[string]string{
	"role":                     "SET ROLE is not supported through sqe: the identity is the session's",
	"session_authorization":    "SET SESSION AUTHORIZATION is not supported through sqe: the identity is the session's",
	"session_replication_role": "SET session_replication_role is not supported through sqe",
}

// settableVariables are the settings a statement may SET, SET LOCAL or
// RESET: an allow-list. Each changes how the session runs statements
// (time outs, transaction defaults, output formats, memory, the
// planner), not what a policy admits or how the server reads the
// statement, or is read again by sqe after the change
// (sessionStateVariables; search_path and client_encoding are checked).
// Everything else is refused, among them DateStyle (it changes how date
// literals in filters are read), transform_null_equals and array_nulls
// (how expressions and literals are read), backslash_quote, row_security
// and the identity; a setting a new server version adds is refused until
// someone decides.
var settableVariables = map[string]bool{
	"search_path": true, "standard_conforming_strings": true, "client_encoding": true,
	"application_name": true, "timezone": true, "statement_timeout": true, "lock_timeout": true,
	"idle_in_transaction_session_timeout": true, "idle_session_timeout": true, "transaction_timeout": true,
	"default_transaction_isolation": true, "default_transaction_read_only": true, "default_transaction_deferrable": true,
	"transaction_isolation": true, "transaction_read_only": true, "transaction_deferrable": true,
	"synchronous_commit": true, "client_min_messages": true, "escape_string_warning": true,
	"intervalstyle": true, "extra_float_digits": true, "bytea_output": true, "quote_all_identifiers": true,
	"lc_monetary": true, "lc_numeric": true, "lc_time": true, "default_text_search_config": true,
	"work_mem": true, "maintenance_work_mem": true, "temp_buffers": true, "hash_mem_multiplier": true,
	"random_page_cost": true, "seq_page_cost": true, "cpu_tuple_cost": true, "cpu_index_tuple_cost": true,
	"cpu_operator_cost": true, "effective_cache_size": true, "effective_io_concurrency": true,
	"max_parallel_workers_per_gather": true, "parallel_setup_cost": true, "parallel_tuple_cost": true,
	"plan_cache_mode": true, "jit": true, "from_collapse_limit": true, "join_collapse_limit": true,
	"geqo": true, "default_statistics_target": true, "check_function_bodies": true,
	"enable_bitmapscan": true, "enable_hashagg": true, "enable_hashjoin": true, "enable_indexscan": true,
	"enable_indexonlyscan": true, "enable_material": true, "enable_memoize": true, "enable_mergejoin": true,
	"enable_nestloop": true, "enable_parallel_append": true, "enable_parallel_hash": true,
	"enable_partition_pruning": true, "enable_partitionwise_join": true, "enable_partitionwise_aggregate": true,
	"enable_seqscan": true, "enable_sort": true, "enable_incremental_sort": true, "enable_tidscan": true,
	"enable_presorted_aggregate": true, "enable_gathermerge": true, "enable_async_append": true,
}

func set(s *pg.VariableSetStmt) (*rewriter.Result, error) {
	res := &rewriter.Result{Kind: rewriter.KindSession}
	name := strings.ToLower(s.Name)
	switch s.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		res.Effect.RefreshSession = true
		res.Effect.Holds = rewriter.HoldsSessionSetting
		return res, nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION …, SET SESSION CHARACTERISTICS AS TRANSACTION …
		res.Effect.Holds = rewriter.HoldsSessionSetting
		return res, nil
	case pg.VariableSetKind_VAR_SET_VALUE, pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET:
	default:
		return nil, rewriter.Unsupported("this form of SET is not supported through sqe")
	}
	if why, ok := refusedVariables[name]; ok {
		return nil, rewriter.Unsupported("%s", why)
	}
	if !settableVariables[name] {
		return nil, rewriter.Unsupported("SET %s is not supported through sqe: a statement may set only the settings sqe has decided cannot change what a policy admits", name)
	}
	if name == "client_encoding" && s.Kind == pg.VariableSetKind_VAR_SET_VALUE {
		// The parser reads UTF-8; another client encoding would make the
		// server read the statement's bytes differently.
		return nil, rewriter.Unsupported("SET client_encoding / SET NAMES is not supported through sqe")
	}
	if name == "search_path" && s.Kind == pg.VariableSetKind_VAR_SET_VALUE {
		for i, a := range s.Args {
			if c := a.GetAConst(); i > 0 && c != nil && c.GetSval() != nil && c.GetSval().Sval == "pg_catalog" {
				// Functions in schemas before pg_catalog would shadow the
				// built-in functions that masks and filters call.
				return nil, rewriter.Unsupported("a search_path that puts schemas before pg_catalog is not supported through sqe")
			}
		}
	}
	res.Effect.RefreshSession = sessionStateVariables[name]
	if !s.IsLocal {
		// SET LOCAL ends with its transaction; SET and RESET outlive the
		// statement.
		res.Effect.Holds = rewriter.HoldsSessionSetting
	}
	return res, nil
}

// cursorOptHold is PostgreSQL's CURSOR_OPT_HOLD (DECLARE … WITH HOLD).
const cursorOptHold = 0x0020

// createsTemporary reports whether a CREATE makes a temporary relation:
// CREATE TEMPORARY, or a name in a temporary schema (pg_temp.t is a
// temporary table without the keyword).
func createsTemporary(n *pg.Node) bool {
	var rv *pg.RangeVar
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		rv = s.CreateStmt.Relation
	case *pg.Node_CreateTableAsStmt:
		rv = s.CreateTableAsStmt.GetInto().GetRel()
	case *pg.Node_ViewStmt:
		rv = s.ViewStmt.View
	}
	return rv != nil && (rv.Relpersistence == "t" || isTempSchemaName(rv.Schemaname))
}

// isTempSchemaName reports a temporary schema's name: pg_temp, or the
// server's own pg_temp_N.
func isTempSchemaName(s string) bool {
	if s == "pg_temp" {
		return true
	}
	rest, ok := strings.CutPrefix(s, "pg_temp_")
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// maxCursorName is the server's identifier length.
const maxCursorName = 63

// cursorName renames a cursor after the caller's policy view. A cursor
// lives on the connection (WITH HOLD past the transaction), and
// database/sql hands a connection, and a transaction's statements, to one
// caller after another: a cursor declared for one caller is then
// invisible to the others, who would otherwise FETCH rows read under
// another policy.
func (r *rewrite) cursorName(name *string) error {
	if r.cursorPrefix == "" {
		sum := sha256.Sum256([]byte(r.Req.View.Fingerprint()))
		r.cursorPrefix = "sqe" + hex.EncodeToString(sum[:6]) + "_"
	}
	n := r.cursorPrefix + *name
	if len(n) > maxCursorName {
		return rewriter.Unsupported("cursor name too long")
	}
	*name = n
	return nil
}

// vacuumOptions are the VACUUM and ANALYZE options sqe passes: they change
// how the server maintains the table, not what the statement returns.
// VERBOSE (row and page counts of every table it processes) and the
// options that process other relations are refused.
var vacuumOptions = map[string]bool{
	"analyze": true, "full": true, "freeze": true, "skip_locked": true, "disable_page_skipping": true,
	"index_cleanup": true, "truncate": true, "process_toast": true, "process_main": true, "parallel": true,
}

// vacuum passes VACUUM and ANALYZE of named tables that the caller may
// alter and reads without any policy: they return nothing, and what they
// change (visibility maps, statistics) is read through catalogs that sqe
// refuses. Without a table list they process every table, and are
// refused; so is VERBOSE, which reports each table's row counts.
func (r *rewrite) vacuum(v *pg.VacuumStmt) (*rewriter.Result, error) {
	for _, o := range v.Options {
		d := o.GetDefElem()
		if d == nil || !vacuumOptions[strings.ToLower(d.Defname)] {
			name := "this option"
			if d != nil {
				name = strings.ToUpper(d.Defname)
			}
			return nil, rewriter.Unsupported("VACUUM/ANALYZE with %s is not supported through sqe", name)
		}
	}
	if len(v.Rels) == 0 {
		return nil, rewriter.Unsupported("VACUUM/ANALYZE without a table list processes every table; name the tables")
	}
	for _, n := range v.Rels {
		vr := n.GetVacuumRelation()
		if vr == nil || vr.Relation == nil {
			return nil, rewriter.Unsupported("unexpected VACUUM/ANALYZE relation")
		}
		if err := r.existing(vr.Relation, policy.Alter, false, true); err != nil {
			return nil, err
		}
	}
	return &rewriter.Result{Kind: rewriter.KindOther}, nil
}
