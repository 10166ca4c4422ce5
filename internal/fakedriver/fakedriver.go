// Package fakedriver is a configurable in-memory database/sql driver for
// testing driver wrappers.
//
// A DB is one fake database. Its Flags choose, independently, which optional
// database/sql/driver interfaces its driver, connections, statements and
// rows implement, so a test can present a wrapper with any shape of
// underlying driver. The DB records every call it receives (SQL text,
// arguments, connection and statement ids) and answers queries with canned
// rows: by default one row whose single column "sql" holds the SQL text the
// fake received, so a test can also observe a rewrite end to end.
//
// Argument checking is observable too: the connection's and the statement's
// NamedValueChecker and the statement's ColumnConverter each accept a
// Custom value (which the default converter rejects) and turn it into a
// string naming the checker that ran ("conn:", "stmt:", "cc:").
package fakedriver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
)

//go:generate go run ./gen -o shapes_gen.go

// Flags selects the optional interfaces. The zero value implements none of
// them: a driver.Driver with Open only, connections with Prepare, Close and
// Begin, statements with Exec and Query, rows with Columns, Next and Close.
//
// Every combination of the driver, statement and rows flags is available.
// For connections, the six flags that decide how a statement reaches the
// driver (ExecerContext, QueryerContext, Execer, Queryer,
// ConnPrepareContext, ConnNamedValueChecker) combine freely as long as the
// four lifecycle flags (ConnBeginTx, Pinger, SessionResetter, Validator)
// are all set or all unset; the lifecycle flags combine freely when the six
// are all set. New panics on any other combination.
type Flags struct {
	// Driver
	DriverContext bool
	// Connector: the connector returned by DB.Connector and by
	// OpenConnector implements io.Closer.
	ConnectorCloser bool

	// Conn
	ExecerContext         bool
	QueryerContext        bool
	Execer                bool
	Queryer               bool
	ConnPrepareContext    bool
	ConnBeginTx           bool
	Pinger                bool
	SessionResetter       bool
	Validator             bool
	ConnNamedValueChecker bool

	// Stmt
	StmtExecContext       bool
	StmtQueryContext      bool
	StmtNamedValueChecker bool
	ColumnConverter       bool

	// Rows
	RowsNextResultSet              bool
	RowsColumnTypeScanType         bool
	RowsColumnTypeDatabaseTypeName bool
	RowsColumnTypeLength           bool
	RowsColumnTypeNullable         bool
	RowsColumnTypePrecisionScale   bool
}

// AllFlags implements every optional interface, like a modern driver.
func AllFlags() Flags {
	return Flags{
		DriverContext: true, ConnectorCloser: true,
		ExecerContext: true, QueryerContext: true, Execer: true, Queryer: true,
		ConnPrepareContext: true, ConnBeginTx: true, Pinger: true,
		SessionResetter: true, Validator: true, ConnNamedValueChecker: true,
		StmtExecContext: true, StmtQueryContext: true, StmtNamedValueChecker: true,
		ColumnConverter:   true,
		RowsNextResultSet: true, RowsColumnTypeScanType: true,
		RowsColumnTypeDatabaseTypeName: true, RowsColumnTypeLength: true,
		RowsColumnTypeNullable: true, RowsColumnTypePrecisionScale: true,
	}
}

// Op names a recorded call.
type Op string

// The calls a DB records.
const (
	OpOpen           Op = "Driver.Open"
	OpOpenConnector  Op = "Driver.OpenConnector"
	OpConnect        Op = "Connector.Connect"
	OpConnectorClose Op = "Connector.Close"

	OpPrepare          Op = "Conn.Prepare"
	OpPrepareContext   Op = "Conn.PrepareContext"
	OpExec             Op = "Conn.Exec"
	OpExecContext      Op = "Conn.ExecContext"
	OpQuery            Op = "Conn.Query"
	OpQueryContext     Op = "Conn.QueryContext"
	OpBegin            Op = "Conn.Begin"
	OpBeginTx          Op = "Conn.BeginTx"
	OpPing             Op = "Conn.Ping"
	OpResetSession     Op = "Conn.ResetSession"
	OpIsValid          Op = "Conn.IsValid"
	OpConnCheck        Op = "Conn.CheckNamedValue"
	OpConnClose        Op = "Conn.Close"
	OpStmtExec         Op = "Stmt.Exec"
	OpStmtExecContext  Op = "Stmt.ExecContext"
	OpStmtQuery        Op = "Stmt.Query"
	OpStmtQueryContext Op = "Stmt.QueryContext"
	OpStmtCheck        Op = "Stmt.CheckNamedValue"
	OpColumnConverter  Op = "Stmt.ColumnConverter"
	OpStmtClose        Op = "Stmt.Close"
	OpCommit           Op = "Tx.Commit"
	OpRollback         Op = "Tx.Rollback"
	OpRowsClose        Op = "Rows.Close"
)

// Call is one recorded call.
type Call struct {
	Op   Op
	Conn int    // connection id (from 1), 0 for driver and connector calls
	Stmt int    // statement id (from 1), for statement calls and prepares
	SQL  string // the SQL text (for statement calls, the prepared text)
	Name string // the DSN, for Open, OpenConnector and Connect
	Args []driver.NamedValue
	Tx   driver.TxOptions // for BeginTx
}

// Custom is an argument only the fake's checkers accept: the connection's
// NamedValueChecker turns Custom{"x"} into "conn:x", the statement's into
// "stmt:x" and the ColumnConverter into "cc:x". The default converter of
// database/sql rejects it.
type Custom struct{ V string }

// Result is a canned result set.
type Result struct {
	Columns []string
	Rows    [][]driver.Value
}

type failure struct {
	op    Op
	sql   string
	err   error
	times int // remaining; <= 0 means always
}

// DB is one fake database. It is safe for concurrent use.
type DB struct {
	flags Flags

	mu        sync.Mutex
	calls     []Call
	results   map[string]Result
	fails     []*failure
	nextConn  int
	nextStmt  int
	openConns int
	skipArgs  bool
	numInput  func(query string) int
	pingErr   error
	resetErr  error
	invalid   bool
}

// New returns a fake database whose driver, connections, statements and
// rows implement the optional interfaces f selects.
// It panics if f is a connection combination that is not generated (see
// Flags).
func New(f Flags) *DB {
	if connShapes[f.connShape()] == nil {
		panic(fmt.Sprintf("fakedriver: connection flags %#03x are not a generated combination (see Flags)", f.connShape()))
	}
	return &DB{flags: f, results: map[string]Result{}}
}

// Flags returns the flags the DB was created with.
func (db *DB) Flags() Flags { return db.flags }

// Driver returns the DB's driver; it implements driver.DriverContext when
// Flags.DriverContext is set.
func (db *DB) Driver() driver.Driver {
	d := &drv{db: db}
	if db.flags.DriverContext {
		return drvContext{d}
	}
	return d
}

// Register registers the DB's driver with database/sql under name (which
// must be unused).
func (db *DB) Register(name string) { sql.Register(name, db.Driver()) }

// Connector returns a connector to the DB. It implements io.Closer when
// Flags.ConnectorCloser is set.
func (db *DB) Connector(dsn string) driver.Connector {
	c := &connector{db: db, dsn: dsn, drv: db.Driver()}
	if db.flags.ConnectorCloser {
		return closingConnector{c}
	}
	return c
}

// SetResult makes queries whose SQL text is exactly query return res.
func (db *DB) SetResult(query string, res Result) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.results[query] = res
}

// Fail makes calls of op return err, when their SQL text is sqlText (any
// text when sqlText is ""). times > 0 limits how often it fails; times <= 0
// fails every time.
func (db *DB) Fail(op Op, sqlText string, err error, times int) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.fails = append(db.fails, &failure{op: op, sql: sqlText, err: err, times: times})
}

// SkipDirectWithArgs makes the connection's Exec, ExecContext, Query and
// QueryContext return driver.ErrSkip when they have arguments, as
// go-sql-driver/mysql does without interpolateParams.
func (db *DB) SkipDirectWithArgs(on bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.skipArgs = on
}

// SetNumInput sets the function statements' NumInput uses (nil: -1).
func (db *DB) SetNumInput(f func(query string) int) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.numInput = f
}

// SetPingError sets the error Ping returns.
func (db *DB) SetPingError(err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pingErr = err
}

// SetResetError sets the error ResetSession returns.
func (db *DB) SetResetError(err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.resetErr = err
}

// SetValid sets what IsValid returns (initially true).
func (db *DB) SetValid(valid bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.invalid = !valid
}

// Calls returns a copy of the recorded calls, in order.
func (db *DB) Calls() []Call {
	db.mu.Lock()
	defer db.mu.Unlock()
	out := make([]Call, len(db.calls))
	for i, c := range db.calls {
		c.Args = slices.Clone(c.Args)
		out[i] = c
	}
	return out
}

// CallsOf returns the recorded calls of the given ops, in order.
func (db *DB) CallsOf(ops ...Op) []Call {
	var out []Call
	for _, c := range db.Calls() {
		if slices.Contains(ops, c.Op) {
			out = append(out, c)
		}
	}
	return out
}

// SQL returns the SQL texts of the calls that carry SQL to the database:
// Prepare, PrepareContext, Exec, ExecContext, Query and QueryContext on
// connections, in order.
func (db *DB) SQL() []string {
	var out []string
	for _, c := range db.CallsOf(OpPrepare, OpPrepareContext, OpExec, OpExecContext, OpQuery, OpQueryContext) {
		out = append(out, c.SQL)
	}
	return out
}

// Reset forgets the recorded calls.
func (db *DB) Reset() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.calls = nil
}

// OpenConns is the number of connections opened and not yet closed.
func (db *DB) OpenConns() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.openConns
}

// record logs a call and returns the failure configured for it, if any.
func (db *DB) record(c Call) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	c.Args = slices.Clone(c.Args)
	db.calls = append(db.calls, c)
	for i, f := range db.fails {
		if f.op != c.Op || (f.sql != "" && f.sql != c.SQL) {
			continue
		}
		if f.times > 0 {
			f.times--
			if f.times == 0 {
				db.fails = slices.Delete(db.fails, i, i+1)
			}
		}
		return f.err
	}
	return nil
}

func (db *DB) open() *conn {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.nextConn++
	db.openConns++
	return &conn{db: db, id: db.nextConn}
}

func (db *DB) result(query string) Result {
	db.mu.Lock()
	defer db.mu.Unlock()
	if r, ok := db.results[query]; ok {
		return r
	}
	return Result{Columns: []string{"sql"}, Rows: [][]driver.Value{{query}}}
}

// Driver and connector.

type drv struct{ db *DB }

func (d *drv) Open(name string) (driver.Conn, error) {
	if err := d.db.record(Call{Op: OpOpen, Name: name}); err != nil {
		return nil, err
	}
	return d.db.open().shaped(), nil
}

type drvContext struct{ *drv }

func (d drvContext) OpenConnector(name string) (driver.Connector, error) {
	if err := d.db.record(Call{Op: OpOpenConnector, Name: name}); err != nil {
		return nil, err
	}
	return d.db.Connector(name), nil
}

type connector struct {
	db  *DB
	dsn string
	drv driver.Driver
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.db.record(Call{Op: OpConnect, Name: c.dsn}); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.db.open().shaped(), nil
}

func (c *connector) Driver() driver.Driver { return c.drv }

type closingConnector struct{ *connector }

func (c closingConnector) Close() error { return c.db.record(Call{Op: OpConnectorClose}) }

// Connections.

type conn struct {
	db     *DB
	id     int
	closed bool
}

func (c *conn) shaped() driver.Conn { return connShapes[c.db.flags.connShape()](c) }

func (c *conn) call(op Op, query string, args []driver.NamedValue) error {
	return c.db.record(Call{Op: op, Conn: c.id, SQL: query, Args: args})
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.prepare(OpPrepare, query)
}

func (c *conn) prepare(op Op, query string) (driver.Stmt, error) {
	c.db.mu.Lock()
	c.db.nextStmt++
	s := &stmt{c: c, id: c.db.nextStmt, text: query}
	c.db.mu.Unlock()
	if err := c.db.record(Call{Op: op, Conn: c.id, Stmt: s.id, SQL: query}); err != nil {
		return nil, err
	}
	return stmtShapes[c.db.flags.stmtShape()](s), nil
}

func (c *conn) Close() error {
	err := c.call(OpConnClose, "", nil)
	if !c.closed {
		c.closed = true
		c.db.mu.Lock()
		c.db.openConns--
		c.db.mu.Unlock()
	}
	return err
}

func (c *conn) Begin() (driver.Tx, error) {
	if err := c.call(OpBegin, "", nil); err != nil {
		return nil, err
	}
	return &tx{c: c}, nil
}

func (c *conn) skip(args []driver.NamedValue) bool {
	c.db.mu.Lock()
	defer c.db.mu.Unlock()
	return c.db.skipArgs && len(args) > 0
}

func (c *conn) exec(ctx context.Context, op Op, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.call(op, query, args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.skip(args) {
		return nil, driver.ErrSkip
	}
	return driver.RowsAffected(1), nil
}

func (c *conn) query(ctx context.Context, op Op, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.call(op, query, args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.skip(args) {
		return nil, driver.ErrSkip
	}
	return c.rows(query), nil
}

func (c *conn) rows(query string) driver.Rows {
	res := c.db.result(query)
	r := &rows{c: c, cols: res.Columns, data: res.Rows}
	return rowsShapes[c.db.flags.rowsShape()](r)
}

func (c *conn) checkNamedValue(nv *driver.NamedValue) error {
	if err := c.db.record(Call{Op: OpConnCheck, Conn: c.id, Args: []driver.NamedValue{*nv}}); err != nil {
		return err
	}
	if v, ok := nv.Value.(Custom); ok {
		nv.Value = "conn:" + v.V
		return nil
	}
	return driver.ErrSkip
}

// The optional connection interfaces; the generated shapes embed them.

type cExecerContext struct{ c *conn }

func (h cExecerContext) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return h.c.exec(ctx, OpExecContext, query, args)
}

type cQueryerContext struct{ c *conn }

func (h cQueryerContext) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return h.c.query(ctx, OpQueryContext, query, args)
}

type cExecer struct{ c *conn }

func (h cExecer) Exec(query string, args []driver.Value) (driver.Result, error) {
	return h.c.exec(context.Background(), OpExec, query, named(args))
}

type cQueryer struct{ c *conn }

func (h cQueryer) Query(query string, args []driver.Value) (driver.Rows, error) {
	return h.c.query(context.Background(), OpQuery, query, named(args))
}

type cPrepareContext struct{ c *conn }

func (h cPrepareContext) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := ctx.Err(); err != nil {
		_ = h.c.call(OpPrepareContext, query, nil)
		return nil, err
	}
	return h.c.prepare(OpPrepareContext, query)
}

type cBeginTx struct{ c *conn }

func (h cBeginTx) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := h.c.db.record(Call{Op: OpBeginTx, Conn: h.c.id, Tx: opts}); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &tx{c: h.c}, nil
}

type cPinger struct{ c *conn }

func (h cPinger) Ping(ctx context.Context) error {
	if err := h.c.call(OpPing, "", nil); err != nil {
		return err
	}
	h.c.db.mu.Lock()
	defer h.c.db.mu.Unlock()
	return h.c.db.pingErr
}

type cSessionResetter struct{ c *conn }

func (h cSessionResetter) ResetSession(ctx context.Context) error {
	if err := h.c.call(OpResetSession, "", nil); err != nil {
		return err
	}
	h.c.db.mu.Lock()
	defer h.c.db.mu.Unlock()
	return h.c.db.resetErr
}

type cValidator struct{ c *conn }

func (h cValidator) IsValid() bool {
	_ = h.c.call(OpIsValid, "", nil)
	h.c.db.mu.Lock()
	defer h.c.db.mu.Unlock()
	return !h.c.db.invalid
}

type cNamedValueChecker struct{ c *conn }

func (h cNamedValueChecker) CheckNamedValue(nv *driver.NamedValue) error {
	return h.c.checkNamedValue(nv)
}

// Transactions.

type tx struct{ c *conn }

func (t *tx) Commit() error   { return t.c.call(OpCommit, "", nil) }
func (t *tx) Rollback() error { return t.c.call(OpRollback, "", nil) }

// Statements.

type stmt struct {
	c    *conn
	id   int
	text string
}

func (s *stmt) call(op Op, args []driver.NamedValue) error {
	return s.c.db.record(Call{Op: op, Conn: s.c.id, Stmt: s.id, SQL: s.text, Args: args})
}

func (s *stmt) Close() error { return s.call(OpStmtClose, nil) }

func (s *stmt) NumInput() int {
	s.c.db.mu.Lock()
	f := s.c.db.numInput
	s.c.db.mu.Unlock()
	if f == nil {
		return -1
	}
	return f(s.text)
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.exec(context.Background(), OpStmtExec, named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.query(context.Background(), OpStmtQuery, named(args))
}

func (s *stmt) exec(ctx context.Context, op Op, args []driver.NamedValue) (driver.Result, error) {
	if err := s.call(op, args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return driver.RowsAffected(1), nil
}

func (s *stmt) query(ctx context.Context, op Op, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.call(op, args); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.c.rows(s.text), nil
}

type sExecContext struct{ s *stmt }

func (h sExecContext) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return h.s.exec(ctx, OpStmtExecContext, args)
}

type sQueryContext struct{ s *stmt }

func (h sQueryContext) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return h.s.query(ctx, OpStmtQueryContext, args)
}

type sNamedValueChecker struct{ s *stmt }

func (h sNamedValueChecker) CheckNamedValue(nv *driver.NamedValue) error {
	if err := h.s.call(OpStmtCheck, []driver.NamedValue{*nv}); err != nil {
		return err
	}
	if v, ok := nv.Value.(Custom); ok {
		nv.Value = "stmt:" + v.V
		return nil
	}
	return driver.ErrSkip
}

type sColumnConverter struct{ s *stmt }

func (h sColumnConverter) ColumnConverter(idx int) driver.ValueConverter {
	_ = h.s.call(OpColumnConverter, []driver.NamedValue{{Ordinal: idx + 1}})
	return customConverter{}
}

type customConverter struct{}

func (customConverter) ConvertValue(v any) (driver.Value, error) {
	if c, ok := v.(Custom); ok {
		return "cc:" + c.V, nil
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}

// Rows.

type rows struct {
	c    *conn
	cols []string
	data [][]driver.Value
	pos  int
}

func (r *rows) Columns() []string { return slices.Clone(r.cols) }

func (r *rows) Close() error { return r.c.call(OpRowsClose, "", nil) }

func (r *rows) Next(dest []driver.Value) error {
	if r.pos >= len(r.data) {
		return io.EOF
	}
	row := r.data[r.pos]
	r.pos++
	if len(row) != len(dest) {
		return fmt.Errorf("fakedriver: row has %d values, want %d", len(row), len(dest))
	}
	copy(dest, row)
	return nil
}

type rNextResultSet struct{ r *rows }

func (rNextResultSet) HasNextResultSet() bool { return false }
func (rNextResultSet) NextResultSet() error   { return io.EOF }

type rScanType struct{ r *rows }

func (rScanType) ColumnTypeScanType(int) reflect.Type { return reflect.TypeFor[string]() }

type rDatabaseTypeName struct{ r *rows }

func (rDatabaseTypeName) ColumnTypeDatabaseTypeName(int) string { return "TEXT" }

type rLength struct{ r *rows }

func (rLength) ColumnTypeLength(int) (int64, bool) { return 64, true }

type rNullable struct{ r *rows }

func (rNullable) ColumnTypeNullable(int) (nullable, ok bool) { return true, true }

type rPrecisionScale struct{ r *rows }

func (rPrecisionScale) ColumnTypePrecisionScale(int) (precision, scale int64, ok bool) {
	return 10, 2, true
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// ErrFake is a ready-made error for Fail.
var ErrFake = errors.New("fakedriver: injected failure")
