package rewriter

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// ErrUnsupported: sqe cannot parse the statement or cannot prove that it
// rewrote it completely; nothing was sent to the database.
var ErrUnsupported = errors.New("sqe: unsupported statement")

// ErrSyntax: the statement is not valid SQL of the connection's dialect
// (it does not parse); nothing was sent to the database. An Error of this
// kind also matches ErrUnsupported under errors.Is, so that code which
// treats ErrUnsupported as "sqe refused the statement" keeps doing so;
// test ErrSyntax first to tell the two apart.
var ErrSyntax = errors.New("sqe: syntax error")

// Error is a rejection that names what it is about. It wraps one of the
// sentinels (ErrUnsupported, policy.ErrAccessDenied, policy.ErrColumnDenied,
// policy.ErrPolicy) and never carries a protected value.
type Error struct {
	Kind   error  // the sentinel
	Table  string // schema.table, when the error is about a table
	Column string // when the error is about a column
	Policy string // the policy that decided, when one did
	Detail string // what happened, without data values
	// Position is, for a syntax error, the 1-based position (in characters
	// of the statement text) of the token the parser stopped at; 0 when
	// the parser did not tell.
	Position int
	// Near is, for a syntax error, that token as the message shows it: a
	// keyword, identifier or operator in quotes, "a literal" for a value
	// (a statement's values never appear in an error), or "end of input".
	Near string
	// Statement is the kind of the refused statement, when sqe parsed it
	// far enough to know ("" otherwise).
	Statement Kind
	// NotFound: the statement names a table the catalog does not have,
	// which the server would refuse too.
	NotFound bool
	// Unimplemented: the statement uses what the server does not
	// implement either (PostgreSQL's references to another database).
	Unimplemented bool
}

func (e *Error) Error() string {
	msg := e.Kind.Error()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Position > 0 {
		msg += " at position " + strconv.Itoa(e.Position)
	}
	if e.Near != "" {
		msg += " near " + e.Near
	}
	if e.Table != "" {
		if e.Column != "" {
			msg += fmt.Sprintf(" (column %s.%s", e.Table, e.Column)
		} else {
			msg += fmt.Sprintf(" (table %s", e.Table)
		}
		if e.Policy != "" {
			msg += fmt.Sprintf(", policy %q", e.Policy)
		}
		msg += ")"
	} else if e.Policy != "" {
		msg += fmt.Sprintf(" (policy %q)", e.Policy)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Kind }

// Is makes a syntax error match ErrUnsupported too (see ErrSyntax).
func (e *Error) Is(target error) bool {
	return target == ErrUnsupported && e.Kind == ErrSyntax
}

// Unsupported returns an ErrUnsupported error with the detail.
func Unsupported(format string, args ...any) error {
	return &Error{Kind: ErrUnsupported, Detail: fmt.Sprintf(format, args...)}
}

// Kind classifies a statement.
type Kind string

const (
	KindSelect  Kind = "select"
	KindInsert  Kind = "insert"
	KindUpdate  Kind = "update"
	KindDelete  Kind = "delete"
	KindDDL     Kind = "ddl"
	KindSession Kind = "session" // BEGIN, COMMIT, SET, SAVEPOINT, USE, …
	KindOther   Kind = "other"
)

// Column is one column of a table as the catalog reports it.
type Column struct {
	Name string
	// DataType is the base type name, lower-cased (varchar, int, date, …).
	DataType string
	// ColumnType is the full type as the server writes it (varchar(40),
	// char(10), int(11), numeric(10,2)), lower-cased.
	ColumnType string
	// Tags are the column's tags from the database (a column comment
	// "tags: PII, EMAIL"), upper-cased.
	Tags []string
	// Nondeterministic is set when the column's collation is
	// nondeterministic (PostgreSQL): LIKE fails on such a column.
	Nondeterministic bool
	// Collation is the column's collation as a quoted SQL name
	// (PostgreSQL: "pg_catalog"."C"), "" for its type's default; masks
	// hand their result back in it (udf.Target.Collation).
	Collation string
	// Generated is set for a column the server computes when a row is
	// written (a generated column, MySQL's ON UPDATE CURRENT_TIMESTAMP):
	// a write changes it without naming it.
	Generated bool
}

// Catalog supplies table metadata. Implementations cache; Invalidate drops
// what a DDL statement may have changed.
type Catalog interface {
	// Columns returns the table's columns in ordinal order. found is false
	// when the table does not exist.
	Columns(ctx context.Context, t policy.TableName) (cols []Column, found bool, err error)
	// Version changes whenever cached metadata is dropped, so that cached
	// rewrites built on older metadata are not reused.
	Version() uint64
}

// Request is one statement to rewrite for one caller.
type Request struct {
	// Dialect is the dialect's name (mysql, postgres); the planner uses it
	// to check that a tag's mask can be computed for a column.
	Dialect string
	SQL     string
	View    policy.View
	User    session.User
	Catalog Catalog
	// TagSources add tags to a table's columns, beyond the column
	// comments the Catalog reports and the Decision's ColumnTags.
	TagSources []policy.TagSource

	// Session is the connection's state that name resolution and quoting
	// depend on, as the dialect's ReadSession or FixedSession gave it (nil:
	// the dialect's default state).
	Session Session

	// AllowedFunctions are the application's own functions that its SQL
	// may call besides the dialect's built-ins ("fn" or "schema.fn"; see
	// FunctionAllowed). AllowedTypes are the types (PostgreSQL) it may
	// cast to besides the built-in ones.
	AllowedFunctions []string
	AllowedTypes     []string
}

// Effect is a change to the connection's state that the statement makes
// when it succeeds.
type Effect struct {
	// Session, when non-nil, is the connection's session state after the
	// statement, as the dialect tells it without asking the server (MySQL's
	// USE db).
	Session Session
	// RefreshSession asks the driver to re-read the connection's name
	// resolution and quoting state (search_path, sql_mode,
	// standard_conforming_strings) after the statement.
	RefreshSession bool
	// InvalidateCatalog asks the driver to drop cached metadata (DDL).
	InvalidateCatalog bool
	// BeginsTransaction and EndsTransaction: the statement begins a
	// transaction by SQL text (BEGIN, START TRANSACTION) or ends one
	// (COMMIT, ROLLBACK). A connection in a transaction begun by SQL text
	// is never handed to another caller: the driver discards it when
	// database/sql gives it out again.
	BeginsTransaction, EndsTransaction bool
	// Holds names the other connection state the statement opens by SQL
	// text and leaves behind it, which no transaction's end undoes: a
	// session setting, the current database, a temporary table, a cursor
	// held past its transaction ("" when none). The driver discards a
	// connection that holds any the same way.
	Holds string
	// TransactionControl: every statement of the string is transaction
	// control (BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT,
	// RELEASE, ROLLBACK TO), which leaves the server's prepared
	// statements as they were.
	TransactionControl bool
}

// MergeHolds combines the connection state of two statements run one after
// the other (a multi-statement string): a transaction the second ends is
// no longer open, one it begins is, and state either opens is held.
func MergeHolds(a, b Effect) Effect {
	a.TransactionControl = a.TransactionControl && b.TransactionControl
	if b.EndsTransaction {
		a.EndsTransaction = true
		a.BeginsTransaction = false
	}
	if b.BeginsTransaction {
		a.BeginsTransaction = true
	}
	if a.Holds == "" {
		a.Holds = b.Holds
	}
	return a
}

// Descriptions of the state Effect.Holds names, and of a transaction.
const (
	HoldsTransaction    = "a transaction begun by SQL text"
	HoldsSessionSetting = "a session setting changed by SQL text"
	HoldsDatabase       = "a current database changed by USE"
	HoldsTemporaryTable = "a temporary table"
	HoldsCursor         = "a cursor held past its transaction"
)

// Result is a rewritten statement.
type Result struct {
	SQL    string
	Kind   Kind
	Tables []policy.TableName // every base table the statement references
	Effect Effect
	// Cacheable is false when the rewrite depends on more than the cache
	// key (dialect, SQL, view fingerprint, catalog version, Session).
	Cacheable bool
	// Protected is true when a policy changed what the statement reads
	// (a mask, a row filter or a restricted column applied): errors the
	// database returns for it are redacted.
	Protected bool
	// WriteChecks are the row filters' checks of the rows the statement
	// writes; the driver runs them (VerifyAll) with the statement's
	// arguments before it sends the statement.
	WriteChecks []*WriteCheck
}

// Dialect rewrites statements of one SQL dialect and reads what its
// rewrites need from the server (Server).
type Dialect interface {
	Name() string
	Rewrite(ctx context.Context, req *Request) (*Result, error)
	Server
	Tokenizer
}

var (
	dialectsMu sync.RWMutex
	dialects   = map[string]Dialect{}
)

// Register makes a dialect available by name. Dialect packages call it from
// init, so that a program links only the dialects it imports.
func Register(d Dialect) {
	dialectsMu.Lock()
	defer dialectsMu.Unlock()
	dialects[d.Name()] = d
}

// Lookup returns the registered dialect with the name.
func Lookup(name string) (Dialect, bool) {
	dialectsMu.RLock()
	defer dialectsMu.RUnlock()
	d, ok := dialects[name]
	return d, ok
}

// Registered lists the registered dialect names, sorted.
func Registered() []string {
	dialectsMu.RLock()
	defer dialectsMu.RUnlock()
	names := make([]string, 0, len(dialects))
	for n := range dialects {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// shipped are the dialects that come with sqe: the package that registers
// each, and the database/sql drivers it serves (by their package paths).
// It is kept here, not in the dialect packages, because a dialect that is
// not linked cannot name itself: a program that opens a PostgreSQL driver
// without importing the PostgreSQL dialect is told what to import.
var shipped = []struct {
	name, pkg string
	drivers   []string
}{
	{"mysql", "github.com/sqe-project/sqe/rewriter/mysql", []string{"go-sql-driver/mysql", "go-mysql-server"}},
	{"postgres", "github.com/sqe-project/sqe/rewriter/postgres", []string{"jackc/pgx", "lib/pq"}},
}

// Find returns the registered dialect with the name; the error names the
// package to import when the dialect is one of sqe's and is not linked.
func Find(name string) (Dialect, error) {
	if d, ok := Lookup(name); ok {
		return d, nil
	}
	for _, s := range shipped {
		if s.name == name {
			return nil, fmt.Errorf("sqe: the %s dialect is not linked: import _ %q", name, s.pkg)
		}
	}
	return nil, fmt.Errorf("sqe: unknown dialect %q (registered: %s)", name, strings.Join(Registered(), ", "))
}

// ForDriver names the dialect that serves a database/sql driver, told by
// the package path of the driver's type (false when none of sqe's does).
func ForDriver(pkgPath string) (name string, ok bool) {
	for _, s := range shipped {
		for _, d := range s.drivers {
			if strings.Contains(pkgPath, d) {
				return s.name, true
			}
		}
	}
	return "", false
}

// StaticCatalog is a fixed Catalog: for tests over sqlmock, for `sqe
// explain --schema`, and for services whose schema is known up front.
// Table keys are policy.TableName.Key() values ("schema.table", lower case).
type StaticCatalog struct {
	Tables map[string][]Column
	// Schema is the current database (MySQL) for unqualified names.
	Schema string
	// Path is the search path (PostgreSQL) for unqualified names.
	Path []string
}

// Columns implements Catalog.
func (c *StaticCatalog) Columns(_ context.Context, t policy.TableName) ([]Column, bool, error) {
	cols, ok := c.Tables[t.Key()]
	return cols, ok, nil
}

// Version implements Catalog; a StaticCatalog never changes.
func (c *StaticCatalog) Version() uint64 { return 0 }

// DefaultSchema is the current database unqualified names resolve in.
func (c *StaticCatalog) DefaultSchema() string { return c.Schema }

// SearchPath is the search path unqualified names resolve in.
func (c *StaticCatalog) SearchPath() []string { return c.Path }

// DDLCataloger is implemented by dialects that can build a catalog from a
// script of CREATE TABLE statements (for `sqe explain --schema`).
type DDLCataloger interface {
	CatalogFromDDL(ddl string) (*StaticCatalog, error)
}
