package mysql

import (
	"context"
	"strings"

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

// Syntax is the MySQL syntax for the dialect-neutral planner.
var Syntax rewriter.Syntax = syntax{}

type syntax struct{}

func (syntax) UDF() udf.Dialect { return udf.MySQL }

// QuoteIdent quotes an identifier with backticks, valid under every sql_mode.
func (syntax) QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// CanonicalExpr parses text as one expression and formats it back.
func (syntax) CanonicalExpr(text string) (string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return "", err
	}
	return sqlparser.String(e), nil
}

// parseExpr parses exactly one expression: the text is placed in a SELECT
// list and the result must be that select with one expression and nothing
// else, so that nothing in the text reaches outside it.
func parseExpr(text string) (sqlparser.Expr, error) {
	if strings.TrimSpace(text) == "" {
		return nil, rewriter.Unsupported("empty expression")
	}
	stmt, err := parser.Parse("select " + text)
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
// semicolons are each rewritten; all must succeed).
func (Dialect) Rewrite(ctx context.Context, req *rewriter.Request) (*rewriter.Result, error) {
	if req.MySQLNoBackslashEscapes && strings.Contains(req.SQL, `\`) {
		return nil, rewriter.Unsupported("a backslash in SQL under sql_mode NO_BACKSLASH_ESCAPES (pass values as arguments)")
	}
	if req.MySQLANSIQuotes && strings.Contains(req.SQL, `"`) {
		return nil, rewriter.Unsupported(`a double quote in SQL under sql_mode ANSI_QUOTES (use backticks for names)`)
	}
	pieces, err := parser.SplitStatementToPieces(req.SQL)
	if err != nil {
		return nil, rewriter.Unsupported("statement does not parse")
	}
	var out *rewriter.Result
	var sqls []string
	for _, piece := range pieces {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		res, err := rewriteOne(ctx, req, piece)
		if err != nil {
			return nil, err
		}
		sqls = append(sqls, res.SQL)
		if out == nil {
			out = res
			continue
		}
		out.Tables = append(out.Tables, res.Tables...)
		out.Effect = mergeEffect(out.Effect, res.Effect)
		if out.Kind != res.Kind {
			out.Kind = rewriter.KindOther
		}
		out.Cacheable = out.Cacheable && res.Cacheable
	}
	if out == nil {
		return nil, rewriter.Unsupported("empty statement")
	}
	out.SQL = strings.Join(sqls, "; ")
	return out, nil
}

func mergeEffect(a, b rewriter.Effect) rewriter.Effect {
	if b.SetSchema != "" {
		a.SetSchema = b.SetSchema
	}
	a.RefreshSession = a.RefreshSession || b.RefreshSession
	a.InvalidateCatalog = a.InvalidateCatalog || b.InvalidateCatalog
	return a
}

func rewriteOne(ctx context.Context, req *rewriter.Request, sql string) (*rewriter.Result, error) {
	stmt, err := parser.Parse(sql)
	if err != nil {
		return nil, rewriter.Unsupported("statement does not parse")
	}
	r := newRewrite(ctx, req)
	res, err := r.statement(stmt)
	if err != nil {
		return nil, err
	}
	if err := r.verify(stmt); err != nil {
		return nil, err
	}
	text, err := format(stmt, req.MySQLNoBackslashEscapes)
	if err != nil {
		return nil, err
	}
	res.SQL = text
	res.Tables = r.tables
	res.Cacheable = true
	return res, nil
}
