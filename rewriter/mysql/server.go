package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// Session is the state of a MySQL or MariaDB connection that sqe's
// rewrites depend on (see rewriter.Session).
type Session struct {
	// Database is the current database, where unqualified table names
	// resolve ("" when none).
	Database string
	// NoBackslashEscapes: sql_mode NO_BACKSLASH_ESCAPES (a backslash in a
	// string literal is an ordinary character).
	NoBackslashEscapes bool
	// ANSIQuotes: sql_mode ANSI_QUOTES or ANSI ("x" is an identifier).
	ANSIQuotes bool
	// NamedClasses: the server is a MariaDB whose regular expressions
	// classify characters as Go's tables do (udf.ClassProbe), so masks name
	// the classes instead of listing them (udf.Target.NamedClasses).
	NamedClasses bool
	// ServerMasks: the server has sqe's mask functions installed, checked
	// by UseServerMasks (udf.Target.ServerMasks).
	ServerMasks bool
	// MariaDB: the server is a MariaDB (whose listings have columns
	// MySQL's lack, such as SHOW TABLE STATUS's Max_index_length and
	// Temporary).
	MariaDB bool
}

// ReadSession reads the connection's current database and sql_mode, and
// refuses a connection whose character set sqe does not write literals
// for, or on MariaDB whose default_regex_flags change how masks compute.
func (Dialect) ReadSession(ctx context.Context, q rewriter.Query) (rewriter.Session, error) {
	row, err := rewriter.OneRow(ctx, q, "SELECT DATABASE(), @@SESSION.sql_mode, @@version, @@SESSION.character_set_client, @@SESSION.character_set_connection", 5)
	if err != nil {
		return nil, err
	}
	// sqe writes string literals for character sets in which a backslash
	// byte is always a backslash; in gbk, sjis, big5 and the like a
	// multibyte character can swallow the backslash that escapes a quote.
	for i, name := range []string{"character_set_client", "character_set_connection"} {
		if set := strings.ToLower(rewriter.Text(row[3+i])); !safeCharsets[set] {
			return nil, rewriter.Unsupported("the connection's %s is %s: sqe supports utf8mb4, utf8mb3, utf8, ascii and latin1", name, set)
		}
	}
	named := false
	if strings.Contains(strings.ToLower(rewriter.Text(row[2])), "mariadb") {
		flags, err := q(ctx, "SELECT @@SESSION.default_regex_flags")
		if err != nil {
			return nil, err
		}
		if len(flags) == 1 && len(flags[0]) == 1 {
			f := "," + strings.ToUpper(rewriter.Text(flags[0][0])) + ","
			if strings.Contains(f, ",UNGREEDY,") || strings.Contains(f, ",NO_AUTO_CAPTURE,") {
				return nil, rewriter.Unsupported("default_regex_flags UNGREEDY or NO_AUTO_CAPTURE would change how masks are computed; clear them on the connection")
			}
		}
		named = namedClasses(ctx, q, rewriter.Text(row[2]))
	}
	mode := "," + strings.ToUpper(rewriter.Text(row[1])) + ","
	return Session{
		Database:           rewriter.Text(row[0]),
		NoBackslashEscapes: strings.Contains(mode, ",NO_BACKSLASH_ESCAPES,"),
		ANSIQuotes:         strings.Contains(mode, ",ANSI_QUOTES,") || strings.Contains(mode, ",ANSI,"),
		NamedClasses:       named,
		MariaDB:            strings.Contains(strings.ToLower(rewriter.Text(row[2])), "mariadb"),
	}, nil
}

// UseServerMasks checks that the connection's server has sqe's mask
// functions (udf.ServerMaskCheck) and returns s with ServerMasks set.
func (Dialect) UseServerMasks(ctx context.Context, q rewriter.Query, s rewriter.Session) (rewriter.Session, error) {
	sess, ok := s.(Session)
	if !ok {
		return nil, fmt.Errorf("mysql: server masks: a session of another dialect (%T)", s)
	}
	if err := udf.ServerMaskCheck(udf.MySQL, rewriter.TextQuery(ctx, q)); err != nil {
		return nil, err
	}
	sess.ServerMasks = true
	return sess, nil
}

// FixedSession is a connection whose current database is defaultSchema.
func (Dialect) FixedSession(defaultSchema string, _ []string) rewriter.Session {
	return Session{Database: defaultSchema}
}

// Columns reads a table's columns from information_schema, with the tags
// of their comments; a column the server computes when a row is written
// (generated, or ON UPDATE CURRENT_TIMESTAMP) is marked Generated.
//
// A MariaDB from 11.2 on lists the connection's temporary tables in
// information_schema (TABLE_TYPE TEMPORARY), and its COLUMNS then mixes a
// temporary table's columns with those of the base table it shadows;
// the columns sqe reads are shared by every connection, which have not
// got that table. Such a table is refused: its columns would reach the
// other connections' rewrites. (MariaDB 10.x and MySQL list no
// temporary table there: a temporary table that shadows a base table
// gets the base table's columns and policy, and a statement over columns
// the two do not share fails on the server.)
func (Dialect) Columns(ctx context.Context, q rewriter.Query, t policy.TableName) ([]rewriter.Column, error) {
	temp, err := q(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'TEMPORARY'",
		t.Schema, t.Table)
	if err != nil {
		return nil, err
	}
	if len(temp) == 1 && len(temp[0]) == 1 && rewriter.Int(temp[0][0]) > 0 {
		return nil, &rewriter.Error{Kind: rewriter.ErrUnsupported, Table: t.String(),
			Detail: "a temporary table of this connection has this name, and the server lists its columns with those of any base table it shadows: not supported through sqe"}
	}
	rows, err := q(ctx,
		"SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COLUMN_COMMENT, EXTRA FROM information_schema.COLUMNS "+
			"WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", t.Schema, t.Table)
	if err != nil {
		return nil, err
	}
	// information_schema compares names case-insensitively; when tables
	// differing only in case exist, keep the exact one.
	names := map[string]bool{}
	for _, r := range rows {
		names[rewriter.Text(r[0])] = true
	}
	exact := len(names) > 1
	var cols []rewriter.Column
	for _, r := range rows {
		if exact && rewriter.Text(r[0]) != t.Table {
			continue
		}
		cols = append(cols, rewriter.Column{
			Name:       rewriter.Text(r[1]),
			DataType:   strings.ToLower(rewriter.Text(r[2])),
			ColumnType: strings.ToLower(rewriter.Text(r[3])),
			Tags:       rewriter.ParseTagComment(rewriter.Text(r[4])),
			Generated:  generatedExtra(rewriter.Text(r[5])),
		})
	}
	return cols, nil
}

// generatedExtra reports whether information_schema's EXTRA marks a column
// the server computes when a row is written: VIRTUAL or STORED GENERATED
// (PERSISTENT on old MariaDB), and ON UPDATE CURRENT_TIMESTAMP, which an
// UPDATE also changes unnamed; not MySQL's DEFAULT_GENERATED, a default.
func generatedExtra(extra string) bool {
	e := strings.ToUpper(extra)
	return strings.Contains(e, " GENERATED") || strings.Contains(e, "ON UPDATE")
}

// SessionTable is false: sqe does not tell a MySQL temporary table from
// the base table it shadows by name.
func (Dialect) SessionTable(policy.TableName) bool { return false }

// Tables lists the tables and views outside the server's own schemas.
func (Dialect) Tables(ctx context.Context, q rewriter.Query) ([]policy.TableName, error) {
	return rewriter.TableNames(ctx, q, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "+
		"WHERE TABLE_SCHEMA NOT IN ('information_schema', 'mysql', 'performance_schema', 'sys')")
}

// ConfirmingCodes is nil: the parser's grammar is MySQL's, not MariaDB's
// (MariaDB reads statements it does not, INSERT … RETURNING among them),
// and a statement sqe could not read never reaches the server, not even
// to be prepared.
func (Dialect) ConfirmingCodes(*rewriter.Error) []string { return nil }

// use is the session after USE database.
func (s Session) use(database string) Session {
	s.Database = database
	return s
}
