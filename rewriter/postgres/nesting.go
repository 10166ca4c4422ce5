package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// The PostgreSQL parser (C, in pg_query) writes its tree out, and the
// deparser reads one in, by recursing once per level of the tree, on the
// thread's own stack and without a depth check: a chain of some thirty
// thousand operators (1 || 1 || …, a 150 KB statement) overflows the
// stack while parsing and some five thousand while printing, and the
// process dies of SIGSEGV, which no recover catches. So a text is parsed
// only when a bound on its tree's depth, read from its tokens
// (nestingBound), is at most maxNesting; a deeper text is refused with an
// error. The bound and the limit are far from both crashes.

// maxNesting is the deepest nesting sqe parses. Application statements
// come nowhere near it: lists (IN, VALUES, select lists, arguments) and
// chains of AND and OR do not nest, and every other level costs a token.
const maxNesting = 1000

// checkNesting refuses text whose tree could be deeper than maxNesting.
func checkNesting(text string) error {
	if len(text) <= maxNesting {
		return nil // each level of the bound costs at least one byte
	}
	depth, ok := nestingBound(text)
	if !ok {
		return nil // the scanner cannot read it; nor can the parser, which stops before writing a tree
	}
	if depth > maxNesting {
		return rewriter.Unsupported("the statement nests more than %d levels deep", maxNesting)
	}
	return nil
}

// nestingBound is an upper bound on the depth of the parse tree of text,
// from its tokens (the server's own scanner), and false when the scanner
// cannot read text. Every token counts one level except operands (names,
// constants, parameters, dots) and separators. A comma, AND or OR ends a
// run: the parser makes list elements and the operands of a chain of AND
// or OR siblings. A parenthesis or bracket, and CASE … END, open a level
// of their own, which starts from the depth at which they open; WHEN,
// THEN and ELSE end a run inside CASE. JOIN, UNION, INTERSECT and EXCEPT
// nest their left side and never end a run.
func nestingBound(text string) (int, bool) {
	res, err := pg.Scan(text)
	if err != nil {
		return 0, false
	}
	type level struct {
		base      int  // the depth at which the level opened
		run       int  // tokens since the last separator
		structure int  // joins and set operations
		isCase    bool // opened by CASE, closed by END
	}
	levels := []level{{}}
	deepest := 0
	for _, t := range res.Tokens {
		top := &levels[len(levels)-1]
		depth := top.base + top.structure + top.run
		switch t.Token {
		case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT,
			pg.Token_IDENT, pg.Token_UIDENT, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST,
			pg.Token_ICONST, pg.Token_FCONST, pg.Token_PARAM, pg.Token_ASCII_46:
			continue
		case pg.Token_ASCII_44, pg.Token_AND, pg.Token_OR:
			top.run = 0
			continue
		case pg.Token_ASCII_59:
			levels = levels[:1]
			levels[0] = level{}
			continue
		case pg.Token_WHEN, pg.Token_THEN, pg.Token_ELSE:
			if top.isCase {
				top.run = 0
				continue
			}
		case pg.Token_ASCII_40, pg.Token_ASCII_91, pg.Token_CASE:
			levels = append(levels, level{base: depth + 1, isCase: t.Token == pg.Token_CASE})
			deepest = max(deepest, depth+1)
			continue
		case pg.Token_ASCII_41, pg.Token_ASCII_93:
			if len(levels) > 1 && !top.isCase {
				levels = levels[:len(levels)-1]
			}
			continue
		case pg.Token_END_P:
			if top.isCase {
				levels = levels[:len(levels)-1]
				continue
			}
		case pg.Token_JOIN, pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT:
			top.structure++
			deepest = max(deepest, depth+1)
			continue
		}
		top.run++
		deepest = max(deepest, depth+1)
	}
	return deepest, true
}
