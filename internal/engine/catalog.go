package engine

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// schemaCache holds table metadata read from the database, shared by the
// connections of one connector: an LRU of at most maxCachedTables tables.
// DDL that goes through sqe invalidates it; its version is part of the
// rewrite-cache key.
type schemaCache struct {
	version atomic.Uint64
	tables  *lru.Cache[string, []rewriter.Column]
}

// maxCachedTables bounds the metadata cache; past it the least recently
// used tables are dropped.
const maxCachedTables = 100000

func newSchemaCache() *schemaCache {
	tables, _ := lru.New[string, []rewriter.Column](maxCachedTables) // fails only for a size below one
	return &schemaCache{tables: tables}
}

func (c *schemaCache) get(key string) ([]rewriter.Column, bool) { return c.tables.Get(key) }

func (c *schemaCache) put(key string, cols []rewriter.Column) { c.tables.Add(key, cols) }

func (c *schemaCache) invalidate() {
	c.tables.Purge()
	c.version.Add(1)
}

// connCatalog reads metadata with the dialect's queries through one
// underlying connection, so that it sees what the statement will see (the
// connection's transaction, its temporary tables), and caches it in the
// shared schemaCache.
type connCatalog struct {
	cache   *schemaCache
	dialect rewriter.Dialect
	query   rewriter.Query // on the connection
}

func (c *connCatalog) Version() uint64 { return c.cache.version.Load() }

func (c *connCatalog) Columns(ctx context.Context, t policy.TableName) ([]rewriter.Column, bool, error) {
	key := t.Schema + "\x00" + t.Table
	// A table of the connection's own session: its metadata is read on
	// the connection each time and never shared with other connections.
	private := c.dialect.SessionTable(t)
	if cols, ok := c.cache.get(key); ok && !private {
		return cols, true, nil
	}
	cols, err := c.dialect.Columns(ctx, c.query, t)
	if err != nil || len(cols) == 0 {
		return nil, false, err
	}
	if !private {
		c.cache.put(key, cols)
	}
	return cols, true, nil
}

// queryInner runs a metadata query on an underlying connection, through
// QueryerContext when it has one and through a prepared statement otherwise.
func queryInner(ctx context.Context, conn driver.Conn, query string, args ...any) ([][]any, error) {
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

func readAll(rows driver.Rows) ([][]any, error) {
	defer rows.Close()
	n := len(rows.Columns())
	dest := make([]driver.Value, n)
	var out [][]any
	for {
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
		row := make([]any, n)
		for i, v := range dest {
			if b, ok := v.([]byte); ok {
				v = bytes.Clone(b)
			}
			row[i] = v
		}
		out = append(out, row)
	}
}
