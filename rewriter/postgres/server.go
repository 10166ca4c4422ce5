package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// Session is the state of a PostgreSQL connection that sqe's rewrites
// depend on (see rewriter.Session). Build one with NewSession.
type Session struct {
	// path is the search path, its schemas separated by NUL bytes (which
	// no name holds), so that Sessions compare with ==.
	path string
	// NonStandardStrings: standard_conforming_strings is off (a backslash
	// in '…' is an escape).
	NonStandardStrings bool
	// Database is the database the connection is connected to
	// (current_database()): a three-part name db.schema.table naming it
	// resolves as schema.table, as on the server; "" when unknown, and
	// then every three-part name is refused.
	Database string
	// NamedClasses: the server's regular expressions, under its ICU root
	// collation, classify characters as Go's tables do (udf.ClassProbe),
	// so masks name the classes instead of listing them
	// (udf.Target.NamedClasses).
	NamedClasses bool
	// ServerMasks: the server has sqe's mask functions installed, checked
	// by UseServerMasks (udf.Target.ServerMasks).
	ServerMasks bool
}

// NewSession is the session state of a connection whose effective search
// path (current_schemas(false)) is searchPath.
func NewSession(searchPath []string, nonStandardStrings bool) Session {
	return Session{path: strings.Join(searchPath, "\x00"), NonStandardStrings: nonStandardStrings}
}

// SearchPath is the effective search path, in order.
func (s Session) SearchPath() []string {
	if s.path == "" {
		return nil
	}
	return strings.Split(s.path, "\x00")
}

// ReadSession reads the connection's effective search path and
// standard_conforming_strings and current database, and refuses a
// client_encoding other than UTF8: the parser reads UTF-8, and the server
// must read the statement's bytes the same way.
func (Dialect) ReadSession(ctx context.Context, q rewriter.Query) (rewriter.Session, error) {
	rows, err := q(ctx, "SELECT s.name::text FROM unnest(current_schemas(false)) WITH ORDINALITY AS s(name, n) ORDER BY s.n")
	if err != nil {
		return nil, err
	}
	path := make([]string, 0, len(rows))
	for _, r := range rows {
		path = append(path, rewriter.Text(r[0]))
	}
	settings, err := rewriter.OneRow(ctx, q, settingsQuery, 4)
	if err != nil {
		return nil, err
	}
	if enc := rewriter.Text(settings[1]); !strings.EqualFold(enc, "UTF8") {
		return nil, rewriter.Unsupported("the connection's client_encoding is %s: sqe supports UTF8", enc)
	}
	s := NewSession(path, !strings.EqualFold(rewriter.Text(settings[0]), "on"))
	s.Database = rewriter.Text(settings[2])
	s.NamedClasses = rewriter.NamedClasses(ctx, q, udf.Postgres, rewriter.Text(settings[3]))
	return s, nil
}

// settingsQuery reads the settings a Session holds, and the identity of
// the running server instance for rewriter.NamedClasses: its address,
// start time, version and the version of the ICU library behind its root
// collation ("" without one), any of which changes the classification.
const settingsQuery = "SELECT current_setting('standard_conforming_strings'), current_setting('client_encoding'), current_database()::text, " +
	"concat_ws(' | ', 'postgres', inet_server_addr()::text, inet_server_port()::text, extract(epoch FROM pg_postmaster_start_time())::text, version(), " +
	"(SELECT pg_collation_actual_version(c.oid) FROM pg_catalog.pg_collation c " +
	"WHERE c.collname = 'und-x-icu' AND c.collnamespace = 'pg_catalog'::regnamespace))"

// UseServerMasks checks that the connection's database has sqe's mask
// functions (udf.ServerMaskCheck) and returns s with ServerMasks set.
func (Dialect) UseServerMasks(ctx context.Context, q rewriter.Query, s rewriter.Session) (rewriter.Session, error) {
	sess, ok := s.(Session)
	if !ok {
		return nil, fmt.Errorf("postgres: server masks: a session of another dialect (%T)", s)
	}
	if err := udf.ServerMaskCheck(udf.Postgres, rewriter.TextQuery(ctx, q)); err != nil {
		return nil, err
	}
	sess.ServerMasks = true
	return sess, nil
}

// FixedSession is a connection whose search path is searchPath.
func (Dialect) FixedSession(_ string, searchPath []string) rewriter.Session {
	return NewSession(searchPath, false)
}

// Columns reads a table's columns from information_schema (pg_temp names
// the connection's own temporary schema), with the tags of their
// comments, nondeterministic collations and generated columns marked.
func (Dialect) Columns(ctx context.Context, q rewriter.Query, t policy.TableName) ([]rewriter.Column, error) {
	rows, err := q(ctx,
		"SELECT column_name::text, data_type::text, COALESCE(character_maximum_length, -1)::int8, "+
			"COALESCE(numeric_precision, -1)::int8, COALESCE(numeric_scale, -1)::int8, "+
			"COALESCE(col_description(format('%I.%I', table_schema, table_name)::regclass, ordinal_position::int), ''), "+
			"COALESCE((SELECT NOT co.collisdeterministic FROM pg_collation co JOIN pg_namespace ns ON ns.oid = co.collnamespace "+
			"WHERE co.collname = collation_name AND ns.nspname = collation_schema), false), "+
			"is_generated = 'ALWAYS', "+
			"COALESCE(quote_ident(collation_schema) || '.' || quote_ident(collation_name), '') "+
			"FROM information_schema.columns WHERE table_schema = CASE WHEN $1 = 'pg_temp' THEN pg_my_temp_schema()::regnamespace::text ELSE $1 END "+
			"AND table_name = $2 ORDER BY ordinal_position",
		t.Schema, t.Table)
	if err != nil {
		return nil, err
	}
	var cols []rewriter.Column
	for _, r := range rows {
		dt := strings.ToLower(rewriter.Text(r[1]))
		full := dt
		if n := rewriter.Int(r[2]); n >= 0 {
			full = fmt.Sprintf("%s(%d)", dt, n)
		} else if dt == "numeric" && rewriter.Int(r[3]) >= 0 {
			full = fmt.Sprintf("numeric(%d,%d)", rewriter.Int(r[3]), rewriter.Int(r[4]))
		}
		cols = append(cols, rewriter.Column{Name: rewriter.Text(r[0]), DataType: dt, ColumnType: full,
			Tags: rewriter.ParseTagComment(rewriter.Text(r[5])), Nondeterministic: isTrue(r[6]), Generated: isTrue(r[7]),
			Collation: rewriter.Text(r[8])})
	}
	return cols, nil
}

func isTrue(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// SessionTable reports whether t is in pg_temp, the connection's own
// temporary schema.
func (Dialect) SessionTable(t policy.TableName) bool { return t.Schema == "pg_temp" }

// Tables lists the tables, views, materialized views, partitioned and
// foreign tables outside pg_catalog, information_schema and the TOAST
// schemas.
func (Dialect) Tables(ctx context.Context, q rewriter.Query) ([]policy.TableName, error) {
	return rewriter.TableNames(ctx, q, "SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "+
		"WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'")
}

// ConfirmingCodes: the dialect parses with PostgreSQL's own parser, so the
// server's syntax_error (42601) confirms a statement that does not parse,
// its undefined_table (42P01) a table the catalog does not have, and its
// feature_not_supported (0A000) what the server does not implement either
// (a reference to another database).
func (Dialect) ConfirmingCodes(refusal *rewriter.Error) []string {
	switch {
	case refusal.Kind == rewriter.ErrSyntax:
		return []string{"42601"}
	case refusal.Kind == rewriter.ErrUnsupported && refusal.NotFound:
		return []string{"42P01"}
	case refusal.Kind == rewriter.ErrUnsupported && refusal.Unimplemented:
		return []string{"0A000"}
	}
	return nil
}

// relationQuery resolves a relation name as the server does (to_regclass
// searches the connection's search path and temporary schema) and reads
// its kind and the table it belongs to: an index's table, a sequence's
// owner (OWNED BY or an identity column).
const relationQuery = "SELECT CASE WHEN c.relnamespace = pg_catalog.pg_my_temp_schema() THEN 'pg_temp' ELSE n.nspname::text END, " +
	"c.relname::text, c.relkind::text, " +
	"COALESCE(CASE WHEN t.relnamespace = pg_catalog.pg_my_temp_schema() THEN 'pg_temp' ELSE tn.nspname::text END, ''), COALESCE(t.relname::text, '') " +
	"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
	"LEFT JOIN pg_catalog.pg_class t ON t.oid = COALESCE(" +
	"(SELECT i.indrelid FROM pg_catalog.pg_index i WHERE i.indexrelid = c.oid), " +
	"(SELECT d.refobjid FROM pg_catalog.pg_depend d WHERE c.relkind = 'S' AND d.classid = 'pg_catalog.pg_class'::regclass " +
	"AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i') LIMIT 1)) " +
	"LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace " +
	"WHERE c.oid = pg_catalog.to_regclass($1)"

// ReadRelation resolves an index or sequence name on the connection (see
// rewriter.RelationReader).
func (Dialect) ReadRelation(ctx context.Context, q rewriter.Query, name []string) (rewriter.Relation, bool, error) {
	if len(name) < 1 || len(name) > 2 {
		return rewriter.Relation{}, false, rewriter.Unsupported("a relation name has one or two parts here")
	}
	quoted := make([]string, len(name))
	for i, n := range name {
		quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	rows, err := q(ctx, relationQuery, strings.Join(quoted, "."))
	if err != nil || len(rows) == 0 {
		return rewriter.Relation{}, false, err
	}
	r := rows[0]
	if len(r) != 5 {
		return rewriter.Relation{}, false, errors.New("unexpected result")
	}
	rel := rewriter.Relation{Name: policy.TableName{Schema: rewriter.Text(r[0]), Table: rewriter.Text(r[1])}, Kind: rewriter.RelationOther}
	switch rewriter.Text(r[2]) {
	case "i", "I":
		rel.Kind = rewriter.RelationIndex
	case "S":
		rel.Kind = rewriter.RelationSequence
	case "r", "p", "v", "m", "f":
		rel.Kind = rewriter.RelationTable
	}
	if t := rewriter.Text(r[4]); t != "" {
		rel.Table = policy.TableName{Schema: rewriter.Text(r[3]), Table: t}
	}
	return rel, true, nil
}
