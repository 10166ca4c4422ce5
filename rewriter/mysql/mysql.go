package mysql

import (
	"context"
	"errors"
	"strings"
	"sync"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// Name is the dialect's registered name.
const Name = "mysql"

// serverVersion is the MySQL version the parser assumes: versioned comments
// (/*!NNNNN … */) up to it are parsed as SQL, later ones are dropped, and
// comments never reach the server.
const serverVersion = "8.0.40"

func init() { rewriter.Register(Dialect{}) }

// Dialect rewrites MySQL and MariaDB statements.
type Dialect struct{}

// Name returns "mysql".
func (Dialect) Name() string { return Name }

var parser = mustParser()

func mustParser() *sqlparser.Parser {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: serverVersion})
	if err != nil {
		panic(err)
	}
	return p
}

// Syntax returns the dialect's Syntax (its expression parser, for checking
// policy expressions when a policy loads).
func (Dialect) Syntax() rewriter.Syntax { return Syntax }

// Syntax is the MySQL syntax for the dialect-neutral planner, for a
// server whose character classes are not known (masks list them).
var Syntax rewriter.Syntax = syntax{}

// syntax is the MySQL syntax, for a connection (rewriter.SyntaxBase).
type syntax struct{ rewriter.SyntaxBase }

func (syntax) UDF() udf.Dialect { return udf.MySQL }

// QuoteIdent quotes an identifier with backticks, valid under every sql_mode.
func (syntax) QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// CanonicalExpr parses text as one expression and formats it back.
func (syntax) CanonicalExpr(text string) (string, error) { return canonicalExprs.Of(text) }

// canonicalExprs is CanonicalExpr's form, remembered by text.
var canonicalExprs = rewriter.NewExprForm(maxCachedExprs, parseExpr, func(e sqlparser.Expr) (string, error) {
	return sqlparser.String(e), nil
})

// exprCache keeps the expressions parseExpr read, by text: the policy's
// filters, masks and conditions are parsed again on every rewrite that is
// not cached, and a clone of the tree costs a fraction of the parse.
var exprCache struct {
	sync.RWMutex
	m map[string]sqlparser.Expr
}

// maxCachedExprs bounds exprCache; when it is full it starts over (a
// policy set has far fewer; texts of policies replaced since are dropped).
const maxCachedExprs = 4096

// parseExpr parses exactly one expression: the text is placed in a SELECT
// list and the result must be that select with one expression and nothing
// else, so that nothing in the text reaches outside it. The caller owns
// the tree it gets (a copy of the cached one).
func parseExpr(text string) (sqlparser.Expr, error) {
	exprCache.RLock()
	e, ok := exprCache.m[text]
	exprCache.RUnlock()
	if ok {
		return deepClone(e), nil
	}
	e, err := parseExprUncached(text)
	if err != nil {
		return nil, err
	}
	exprCache.Lock()
	if exprCache.m == nil {
		exprCache.m = map[string]sqlparser.Expr{}
	}
	if len(exprCache.m) >= maxCachedExprs {
		clear(exprCache.m)
	}
	exprCache.m[text] = deepClone(e)
	exprCache.Unlock()
	return e, nil
}

// deepClone copies e entirely: vitess's CloneExpr shares column
// references (*ColName) between the copies, and the rewrite qualifies
// those in place.
func deepClone(e sqlparser.Expr) sqlparser.Expr {
	c := sqlparser.CloneExpr(e)
	return sqlparser.Rewrite(c, func(cur *sqlparser.Cursor) bool {
		if col, ok := cur.Node().(*sqlparser.ColName); ok {
			cp := *col
			cur.Replace(&cp)
		}
		return true
	}, nil).(sqlparser.Expr)
}

func parseExprUncached(text string) (sqlparser.Expr, error) {
	if strings.TrimSpace(text) == "" {
		return nil, rewriter.Unsupported("empty expression")
	}
	stmt, err := parse("select " + text)
	if err != nil {
		return nil, rewriter.Unsupported("expression does not parse")
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.With != nil || len(sel.From) != 1 || sel.Where != nil || sel.GroupBy != nil ||
		sel.Having != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Into != nil || sel.Lock != sqlparser.NoLock ||
		len(sel.Windows) != 0 || sel.Distinct || sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != 1 {
		return nil, rewriter.Unsupported("not a single expression")
	}
	if ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr); !ok || !isDual(ate) {
		return nil, rewriter.Unsupported("not a single expression")
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok || !ae.As.IsEmpty() {
		return nil, rewriter.Unsupported("not a single expression")
	}
	return ae.Expr, nil
}

func isDual(ate *sqlparser.AliasedTableExpr) bool {
	tn, ok := ate.Expr.(sqlparser.TableName)
	return ok && tn.Qualifier.IsEmpty() && tn.Name.String() == "dual" && ate.As.IsEmpty()
}

// Rewrite rewrites one statement string (several statements separated by
// semicolons are each rewritten; all must succeed). A panic inside the
// rewrite is a refusal, never a crash of the caller.
func (d Dialect) Rewrite(ctx context.Context, req *rewriter.Request) (*rewriter.Result, error) {
	return rewriter.Guarded(func() (*rewriter.Result, error) { return rewriteAll(ctx, req) })
}

// rewriteAll is Rewrite without the panic guard (the fuzz target calls it,
// so that a panic is a finding).
func rewriteAll(ctx context.Context, req *rewriter.Request) (*rewriter.Result, error) {
	// A nil session state is the default; another dialect's is refused.
	sess, err := rewriter.SessionOf[Session](req, "MySQL")
	if err != nil {
		return nil, err
	}
	if sess.NoBackslashEscapes && strings.Contains(req.SQL, `\`) {
		return nil, rewriter.Unsupported("a backslash in SQL under sql_mode NO_BACKSLASH_ESCAPES (pass values as arguments)")
	}
	if sess.ANSIQuotes && strings.Contains(req.SQL, `"`) {
		return nil, rewriter.Unsupported(`a double quote in SQL under sql_mode ANSI_QUOTES (use backticks for names)`)
	}
	if err := checkComments(req.SQL); err != nil {
		return nil, err
	}
	pieces, err := splitStatements(req.SQL)
	if err != nil {
		if _, perr := parse(req.SQL); perr != nil {
			return nil, parseError(req.SQL, 0, req.SQL, perr)
		}
		return nil, rewriter.SyntaxError(req.SQL, -1, -1, '`', "")
	}
	// The pieces are substrings of the text, in order; each statement
	// numbers its placeholders from one.
	at := 0
	return rewriter.RewriteEach(len(pieces), strings.Contains(req.SQL, "?"), func(i int) (*rewriter.Result, error) {
		piece := pieces[i]
		if j := strings.Index(req.SQL[at:], piece); j >= 0 {
			at += j
		}
		pieceAt := at
		at += len(piece)
		if strings.TrimSpace(piece) == "" {
			return nil, nil
		}
		return rewriteOne(ctx, req, piece, pieceAt)
	})
}

// splitStatements splits a string into statements; the splitter's panics
// on malformed input (an unterminated quote after a semicolon) are errors.
func splitStatements(sql string) (pieces []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			pieces, err = nil, rewriter.Unsupported("statement does not parse")
		}
	}()
	return parser.SplitStatementToPieces(sql)
}

// parse parses one statement; a panic of the parser is an error. A schema
// change is parsed strictly: the parser's lenient mode would return the
// part of it that it read (and log the statement, literals and all), and
// sqe sends nothing but what it has read.
func parse(sql string) (stmt sqlparser.Statement, err error) {
	defer func() {
		if p := recover(); p != nil {
			stmt, err = nil, rewriter.Unsupported("statement does not parse")
		}
	}()
	if err := checkNesting(sql); err != nil {
		return nil, err
	}
	stmt, err = parser.ParseStrictDDL(sql)
	if err != nil && sqlparser.Preview(sql) == sqlparser.StmtDDL {
		return nil, rewriter.Unsupported("this form of schema change is not supported through sqe: its parser does not read all of it, and sqe sends nothing but what it has read")
	}
	return stmt, err
}

// parseError is the error for a statement (piece, at byte offset at of
// sql) that did not parse: a syntax error, unless the parser failed
// otherwise.
func parseError(sql string, at int, piece string, err error) error {
	var re *rewriter.Error
	if errors.As(err, &re) {
		return err // the parser panicked
	}
	return syntaxError(sql, at, piece, err)
}

// rewriteOne rewrites the statement sql, found at byte offset at of the
// request's text.
func rewriteOne(ctx context.Context, req *rewriter.Request, sql string, at int) (*rewriter.Result, error) {
	// What the parser does not read whole: a MariaDB write with RETURNING,
	// or a query with INTERSECT or EXCEPT.
	sess, _ := req.Session.(Session) // sessionOf refused another dialect's
	if sess.MariaDB && opensWithSet(sql) {
		if set, found, err := readStatementSet(sql); found {
			if err != nil {
				return nil, err
			}
			return rewriteWithSettings(ctx, req, sql, at, set)
		}
	}
	rd, err := read(sql, sess.MariaDB)
	var reserved reservedName
	if errors.As(err, &reserved) {
		return nil, rewriter.SyntaxError(req.SQL, reserved.start+at, reserved.end+at, '`', "")
	}
	if err != nil {
		return nil, parseError(req.SQL, at, sql, err)
	}
	stmt := rd.stmt
	r := newRewrite(ctx, req)
	var nameColumns func()
	var res *rewriter.Result
	switch n := rd.node.(type) {
	case *setOpStmt:
		nameColumns = columnNames(n.operands[0], n.firstText)
		res, err = r.setOperation(n)
	case *sequenceStmt:
		nameColumns = func() {}
		res, err = r.sequence(n)
	case *tableCheckStmt:
		nameColumns = func() {}
		res, err = r.tableCheck(n)
	case *diagnosticsStmt:
		res, err = r.diagnostics(n)
	default:
		nameColumns = columnNames(stmt, sql)
		if ret, ok := n.(*returningStmt); ok {
			r.returning = ret.list
			nameColumns = columnNames(&sqlparser.Select{SelectExprs: ret.list}, "select "+ret.listText)
		}
		if sel, ok := stmt.(*sqlparser.Select); ok && !canFailOnARow(stmt) {
			r.SetConditions(true, collectConditionColumns(sel))
		} else if ok {
			// Mergeable once the conjuncts that can fail are guarded by
			// the filters of the tables they read (or a table is fenced
			// where no guard can be built).
			if r.joinGuard = newJoinGuard(sel); r.joinGuard != nil {
				r.SetConditions(true, collectConditionColumns(sel))
			}
		}
		res, err = r.statement(stmt)
		if err == nil && r.joinGuard != nil {
			r.joinGuard.guardWhere()
		}
	}
	if err != nil {
		if res != nil {
			rewriter.SetStatementKind(err, res.Kind)
		}
		return nil, err
	}
	if r.returning != nil {
		return nil, rewriter.Unsupported("RETURNING of %s is not supported", statementName(stmt))
	}
	if rd.mod != nil {
		if err := rd.mod.check(r, stmt); err != nil {
			return nil, err
		}
	}
	if r.replacement != nil {
		rd = reading{stmt: r.replacement, node: r.replacement}
	} else {
		nameColumns()
	}
	want, err := r.verify(rd)
	if err != nil {
		return nil, err
	}
	text, err := printVerified(rd, want, req.SQL, r.session.NoBackslashEscapes, sess.MariaDB, placed{frozen: r.frozen, forms: r.staticForms})
	if spliceCrossCheck && err == nil && frozenChanged(r.frozenPlaced) {
		err = rewriter.Unsupported("a frozen mask was changed")
	}
	if err != nil {
		return nil, err
	}
	r.Finish(res, text)
	return res, nil
}
