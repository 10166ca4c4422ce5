package postgres

import (
	"context"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// Name is the dialect's registered name.
const Name = "postgres"

func init() { rewriter.Register(Dialect{}) }

// Dialect rewrites PostgreSQL statements.
type Dialect struct{}

// Name returns "postgres".
func (Dialect) Name() string { return Name }

// Syntax returns the dialect's Syntax (its expression parser, for checking
// policy expressions when a policy loads).
func (Dialect) Syntax() rewriter.Syntax { return Syntax }

// Syntax is the PostgreSQL syntax for the dialect-neutral planner, for a
// server whose character classes are not known (masks list them).
var Syntax rewriter.Syntax = syntax{}

// syntax is the PostgreSQL syntax, for a connection (rewriter.SyntaxBase).
type syntax struct{ rewriter.SyntaxBase }

func (syntax) UDF() udf.Dialect { return udf.Postgres }

// QuoteIdent always double-quotes, doubling any double quote in the name:
// the result is one identifier with exactly the name's case.
func (syntax) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// CanonicalExpr parses text as exactly one expression and returns it as
// the PostgreSQL deparser prints it.
func (syntax) CanonicalExpr(text string) (string, error) { return canonicalExprs.Of(text) }

// canonicalExprs is CanonicalExpr's form, remembered by text.
var canonicalExprs = rewriter.NewExprForm(maxCachedExprs, parseExpr, deparseExpr)

// parse runs the PostgreSQL parser. Text holding a NUL byte is refused: the
// parser reads C strings and would see only a prefix of it; so is text
// nested deeper than the parser can write out (checkNesting).
func parse(text string) (*pg.ParseResult, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, rewriter.Unsupported("a NUL byte in SQL text")
	}
	if err := checkNesting(text); err != nil {
		return nil, err
	}
	tree, err := pg.Parse(text)
	if err != nil {
		return nil, rewriter.Unsupported("statement does not parse")
	}
	return tree, nil
}

// parsedTexts remembers the trees a parse of text gave, by text, and
// hands out copies (a copy of a tree costs a fraction of the parse, which
// crosses into C and decodes protobuf). It holds at most max trees, and
// starts over when it is full (texts of policies replaced since are
// dropped). Failures are not remembered.
type parsedTexts[T proto.Message] struct {
	max int
	// copy is the typed deep copy of a tree (copyNode, …: tree_gen.go).
	copy func(T) T
	mu   sync.RWMutex
	m    map[string]T
}

// get returns a copy of parse(text)'s tree, which the caller owns.
func (c *parsedTexts[T]) get(text string, parse func(string) (T, error)) (T, error) {
	c.mu.RLock()
	t, ok := c.m[text]
	c.mu.RUnlock()
	if ok {
		return c.copy(t), nil
	}
	t, err := parse(text)
	if err != nil {
		return t, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]T{}
	}
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[text] = c.copy(t)
	c.mu.Unlock()
	return t, nil
}

// exprCache keeps the expressions parseExpr read: the policy's filters,
// masks and conditions are parsed again on every rewrite that is not
// cached.
var exprCache = parsedTexts[*pg.Node]{max: maxCachedExprs, copy: copyNode}

// maxCachedExprs bounds exprCache and canonicalExprs (a policy set has far
// fewer expressions).
const maxCachedExprs = 4096

// parseExpr parses exactly one expression: the text is placed in a SELECT
// list, and the result must be that SELECT with one unnamed target and no
// other clause, so that nothing in the text reaches outside it. The caller
// owns the tree it gets.
func parseExpr(text string) (*pg.Node, error) { return exprCache.get(text, parseExprUncached) }

func parseExprUncached(text string) (*pg.Node, error) {
	if strings.TrimSpace(text) == "" {
		return nil, rewriter.Unsupported("empty expression")
	}
	tree, err := parse("SELECT " + text)
	if err != nil {
		return nil, rewriter.Unsupported("expression does not parse")
	}
	notOne := rewriter.Unsupported("not a single expression")
	if len(tree.Stmts) != 1 {
		return nil, notOne
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || len(sel.DistinctClause) > 0 || sel.IntoClause != nil ||
		len(sel.FromClause) > 0 || sel.WhereClause != nil || len(sel.GroupClause) > 0 || sel.GroupDistinct ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || len(sel.ValuesLists) > 0 || len(sel.SortClause) > 0 ||
		sel.LimitOffset != nil || sel.LimitCount != nil || sel.LimitOption != pg.LimitOption_LIMIT_OPTION_DEFAULT ||
		len(sel.LockingClause) > 0 || sel.WithClause != nil || len(sel.TargetList) != 1 {
		return nil, notOne
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil || rt.Name != "" || len(rt.Indirection) > 0 || rt.Val == nil {
		return nil, notOne
	}
	if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
		return nil, notOne
	}
	return rt.Val, nil
}

// deparseExpr prints one expression.
func deparseExpr(e *pg.Node) (string, error) {
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: e}}}}}
	text, err := deparse(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return "", err
	}
	const prefix = "SELECT "
	if !strings.HasPrefix(text, prefix) {
		return "", rewriter.Unsupported("expression cannot be printed")
	}
	out := text[len(prefix):]
	if _, err := parseExpr(out); err != nil {
		return "", rewriter.Unsupported("expression does not print as a single expression")
	}
	return out, nil
}

// treeVersion is the parse-tree version of the linked parser, which the
// deparser requires.
var treeVersion = sync.OnceValue(func() int32 {
	tree, err := pg.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return tree.Version
})

// deparse prints one statement: pg.Deparse, with the tree encoded by the
// generated encoder (marshalParseResult, byte for byte proto.Marshal's
// encoding) rather than by protobuf's reflection.
func deparse(stmt *pg.Node) (string, error) {
	encoded, err := marshalParseResult(&pg.ParseResult{Version: treeVersion(), Stmts: []*pg.RawStmt{{Stmt: stmt}}})
	if err != nil {
		return "", rewriter.Unsupported("rewritten statement cannot be printed")
	}
	text, err := parser.DeparseFromProtobuf(encoded)
	if err != nil {
		return "", rewriter.Unsupported("rewritten statement cannot be printed")
	}
	return text, nil
}

// Rewrite rewrites one statement string. Several statements separated by
// semicolons are each rewritten (all must succeed) and joined again. A
// panic inside the rewrite is a refusal, never a crash of the caller.
func (Dialect) Rewrite(ctx context.Context, req *rewriter.Request) (*rewriter.Result, error) {
	return rewriter.Guarded(func() (*rewriter.Result, error) { return rewriteAll(ctx, req) })
}

// rewriteAll is Rewrite without the panic guard (the fuzz target calls it,
// so that a panic is a finding).
func rewriteAll(ctx context.Context, req *rewriter.Request) (*rewriter.Result, error) {
	// A nil session state is the default; another dialect's is refused.
	sess, err := rewriter.SessionOf[Session](req, "PostgreSQL")
	if err != nil {
		return nil, err
	}
	if sess.NonStandardStrings && strings.Contains(req.SQL, `\`) {
		return nil, rewriter.Unsupported(`a backslash in SQL while standard_conforming_strings is off (pass values as arguments)`)
	}
	tree, err := parseStatement(req.SQL)
	if err != nil {
		return nil, err
	}
	for _, raw := range tree.Stmts {
		if raw.GetStmt() == nil {
			return nil, rewriter.Unsupported("empty statement")
		}
	}
	// Placeholders ($n) are numbered over the whole string. A temporary
	// table an earlier statement creates or drops is known to the later
	// ones as they will find it.
	temps := &stringTables{}
	return rewriter.RewriteEach(len(tree.Stmts), false, func(i int) (*rewriter.Result, error) {
		return rewriteOne(ctx, req, tree.Stmts[i].Stmt, temps)
	})
}

// rewriteOne rewrites one parsed statement in place, proves that it
// covered every table reference, and prints it.
func rewriteOne(ctx context.Context, req *rewriter.Request, stmt *pg.Node, temps *stringTables) (*rewriter.Result, error) {
	r, res, want, err := rewriteTree(ctx, req, stmt, temps)
	if err != nil {
		return nil, err
	}
	text, err := r.print(stmt, want, req.SQL)
	if err != nil {
		return nil, err
	}
	if err := r.record(stmt); err != nil {
		return nil, err
	}
	r.Finish(res, text)
	return res, nil
}

// rewriteTree is rewriteOne up to the print: it rewrites stmt in place and
// returns what the print must keep of it.
func rewriteTree(ctx context.Context, req *rewriter.Request, stmt *pg.Node, temps *stringTables) (*rewrite, *rewriter.Result, rewriter.Printed, error) {
	r := newRewrite(ctx, req, temps)
	// Decided on the statement as the application wrote it.
	sel := stmt.GetSelectStmt()
	types := r.fromTypes(sel)
	if !canFailOnARow(stmt, types) {
		conds, _ := collectConditionColumns(sel)
		r.SetConditions(true, conds)
	} else if fallible, tables, ok := guardableConditions(sel, types); ok {
		// Mergeable once those conjuncts are guarded by the filters of
		// the tables they read (or a table is fenced where no guard can
		// be built).
		conds, _ := collectConditionColumns(sel)
		r.fallible, r.guardTargets = fallible, tables
		r.SetConditions(true, conds)
	}
	res, err := r.statement(stmt)
	if err != nil {
		if res != nil {
			rewriter.SetStatementKind(err, res.Kind)
		}
		return nil, nil, rewriter.Printed{}, err
	}
	if len(r.guards) > 0 {
		if sel.WhereClause, err = guardConjuncts(sel.WhereClause, r.fallible, r.guards, r.guardOrder); err != nil {
			return nil, nil, rewriter.Printed{}, err
		}
	}
	if err := r.refuseLikeOnNondeterministic(stmt); err != nil {
		return nil, nil, rewriter.Printed{}, err
	}
	want, err := r.verify(stmt)
	if err != nil {
		return nil, nil, rewriter.Printed{}, err
	}
	return r, res, want, nil
}
