package sqe

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// schemaCache holds table metadata read from the database, shared by the
// connections of one connector. DDL that goes through sqe invalidates it;
// its version is part of the rewrite-cache key.
type schemaCache struct {
	dialect string
	version atomic.Uint64
	mu      sync.RWMutex
	tables  map[string][]rewriter.Column
}

// maxCachedTables bounds the metadata cache; past it the cache starts over.
const maxCachedTables = 100000

func newSchemaCache(dialect string) *schemaCache {
	return &schemaCache{dialect: dialect, tables: map[string][]rewriter.Column{}}
}

func (c *schemaCache) get(key string) ([]rewriter.Column, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cols, ok := c.tables[key]
	return cols, ok
}

func (c *schemaCache) put(key string, cols []rewriter.Column) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tables) >= maxCachedTables {
		c.tables = map[string][]rewriter.Column{}
	}
	c.tables[key] = cols
}

func (c *schemaCache) invalidate() {
	c.mu.Lock()
	c.tables = map[string][]rewriter.Column{}
	c.mu.Unlock()
	c.version.Add(1)
}

// connCatalog reads metadata through one underlying connection, so that it
// sees what the statement will see (the connection's transaction, its
// temporary tables), and caches it in the shared schemaCache.
type connCatalog struct {
	cache *schemaCache
	conn  driver.Conn
}

func (c *connCatalog) Version() uint64 { return c.cache.version.Load() }

func (c *connCatalog) Columns(ctx context.Context, t policy.TableName) ([]rewriter.Column, bool, error) {
	key := t.Schema + "\x00" + t.Table
	// A temporary table belongs to one session: its metadata is read on
	// the connection each time and never shared with other connections.
	temporary := c.cache.dialect == "postgres" && t.Schema == "pg_temp"
	if cols, ok := c.cache.get(key); ok && !temporary {
		return cols, true, nil
	}
	var cols []rewriter.Column
	var err error
	switch c.cache.dialect {
	case "mysql":
		cols, err = mysqlColumns(ctx, c.conn, t)
	case "postgres":
		cols, err = postgresColumns(ctx, c.conn, t)
	default:
		err = fmt.Errorf("no metadata query for dialect %q", c.cache.dialect)
	}
	if err != nil || len(cols) == 0 {
		return nil, false, err
	}
	if !temporary {
		c.cache.put(key, cols)
	}
	return cols, true, nil
}

func mysqlColumns(ctx context.Context, conn driver.Conn, t policy.TableName) ([]rewriter.Column, error) {
	rows, err := queryInner(ctx, conn,
		"SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COLUMN_COMMENT, EXTRA FROM information_schema.COLUMNS "+
			"WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", t.Schema, t.Table)
	if err != nil {
		return nil, err
	}
	// information_schema compares names case-insensitively; when tables
	// differing only in case exist, keep the exact one.
	names := map[string]bool{}
	for _, r := range rows {
		names[asString(r[0])] = true
	}
	exact := len(names) > 1
	var cols []rewriter.Column
	for _, r := range rows {
		if exact && asString(r[0]) != t.Table {
			continue
		}
		cols = append(cols, rewriter.Column{
			Name:       asString(r[1]),
			DataType:   strings.ToLower(asString(r[2])),
			ColumnType: strings.ToLower(asString(r[3])),
			Tags:       rewriter.ParseTagComment(asString(r[4])),
			// VIRTUAL/STORED GENERATED (PERSISTENT on old MariaDB), and
			// ON UPDATE CURRENT_TIMESTAMP, which an UPDATE also changes
			// unnamed; not MySQL's DEFAULT_GENERATED, a default.
			Generated: generatedExtra(asString(r[5])),
		})
	}
	return cols, nil
}

func postgresColumns(ctx context.Context, conn driver.Conn, t policy.TableName) ([]rewriter.Column, error) {
	rows, err := queryInner(ctx, conn,
		"SELECT column_name::text, data_type::text, COALESCE(character_maximum_length, -1)::int8, "+
			"COALESCE(numeric_precision, -1)::int8, COALESCE(numeric_scale, -1)::int8, "+
			"COALESCE(col_description(format('%I.%I', table_schema, table_name)::regclass, ordinal_position::int), ''), "+
			"COALESCE((SELECT NOT co.collisdeterministic FROM pg_collation co JOIN pg_namespace ns ON ns.oid = co.collnamespace "+
			"WHERE co.collname = collation_name AND ns.nspname = collation_schema), false), "+
			"is_generated = 'ALWAYS' "+
			"FROM information_schema.columns WHERE table_schema = CASE WHEN $1 = 'pg_temp' THEN pg_my_temp_schema()::regnamespace::text ELSE $1 END "+
			"AND table_name = $2 ORDER BY ordinal_position",
		t.Schema, t.Table)
	if err != nil {
		return nil, err
	}
	var cols []rewriter.Column
	for _, r := range rows {
		dt := strings.ToLower(asString(r[1]))
		full := dt
		if n := asInt(r[2]); n >= 0 {
			full = fmt.Sprintf("%s(%d)", dt, n)
		} else if dt == "numeric" && asInt(r[3]) >= 0 {
			full = fmt.Sprintf("numeric(%d,%d)", asInt(r[3]), asInt(r[4]))
		}
		cols = append(cols, rewriter.Column{Name: asString(r[0]), DataType: dt, ColumnType: full, Tags: rewriter.ParseTagComment(asString(r[5])),
			Nondeterministic: asBool(r[6]), Generated: asBool(r[7])})
	}
	return cols, nil
}

// queryInner runs a metadata query on an underlying connection, through
// QueryerContext when it has one and through a prepared statement otherwise.
func queryInner(ctx context.Context, conn driver.Conn, query string, args ...any) ([][]driver.Value, error) {
	named := make([]driver.NamedValue, len(args))
	values := make([]driver.Value, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		values[i] = a
	}
	if q, ok := conn.(driver.QueryerContext); ok {
		rows, err := q.QueryContext(ctx, query, named)
		if err == nil {
			return readAll(rows)
		}
		if !errors.Is(err, driver.ErrSkip) {
			return nil, err
		}
	}
	var stmt driver.Stmt
	var err error
	if p, ok := conn.(driver.ConnPrepareContext); ok {
		stmt, err = p.PrepareContext(ctx, query)
	} else {
		stmt, err = conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var rows driver.Rows
	if sq, ok := stmt.(driver.StmtQueryContext); ok {
		rows, err = sq.QueryContext(ctx, named)
	} else {
		rows, err = stmt.Query(values) //lint:ignore SA1019 drivers without StmtQueryContext
	}
	if err != nil {
		return nil, err
	}
	return readAll(rows)
}

func readAll(rows driver.Rows) ([][]driver.Value, error) {
	defer rows.Close()
	n := len(rows.Columns())
	var out [][]driver.Value
	for {
		dest := make([]driver.Value, n)
		err := rows.Next(dest)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		// A driver may hand out []byte values that alias its read buffer
		// and reuses it on the next call to Next (go-sql-driver/mysql
		// does): keep copies.
		for i, v := range dest {
			if b, ok := v.([]byte); ok {
				dest[i] = bytes.Clone(b)
			}
		}
		out = append(out, dest)
	}
}

func asString(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func asBool(v driver.Value) bool {
	b, ok := v.(bool)
	return ok && b
}

func asInt(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return -1
}

// generatedExtra reports whether MySQL's information_schema EXTRA marks a
// column the server computes when a row is written.
func generatedExtra(extra string) bool {
	e := strings.ToUpper(extra)
	return strings.Contains(e, " GENERATED") || strings.Contains(e, "ON UPDATE")
}
