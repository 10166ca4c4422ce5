package postgres

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqe-project/sqe/rewriter"
)

// pg_query's parser writes its tree out, and its deparser reads one in,
// recursing once per level on the thread's stack without a depth check: a
// chain of some thirty thousand operators (1 || 1 || …, a 150 KB
// statement) overflows it while parsing and some five thousand while
// printing, and the process dies of SIGSEGV. So a text is parsed only when
// its nesting bound (rewriter.NestingBound, from the server's own scanner,
// which does not recurse) is at most maxNesting.

// maxNesting is the deepest nesting sqe parses. Application statements
// come nowhere near it: lists (IN, VALUES, select lists, arguments) and
// chains of AND and OR, which the parser flattens, do not nest.
const maxNesting = 1000

// checkNesting refuses text whose tree could be deeper than maxNesting.
func checkNesting(text string) error {
	if len(text) <= maxNesting || tokenStarts(text) <= maxNesting {
		return nil // each level of the bound costs at least one token
	}
	depth, ok := nestingBound(text)
	if !ok {
		return nil // the scanner cannot read it; nor can the parser, which stops before writing a tree
	}
	if depth > maxNesting {
		return rewriter.TooDeep(maxNesting)
	}
	return nil
}

// nestingBound is rewriter.NestingBound of text's tokens, and false when
// the scanner cannot read text.
func nestingBound(text string) (int, bool) {
	res, err := pg.Scan(text)
	if err != nil {
		return 0, false
	}
	levels, _ := rewriter.NestingBound(func(yield func(rewriter.Nesting) bool) {
		for _, t := range res.Tokens {
			if !yield(nesting(t.Token)) {
				return
			}
		}
	})
	return levels, true
}

// nesting is what a token of the scanner does to the depth of the tree.
func nesting(t pg.Token) rewriter.Nesting {
	switch t {
	case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT,
		pg.Token_IDENT, pg.Token_UIDENT, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST,
		pg.Token_ICONST, pg.Token_FCONST, pg.Token_PARAM, pg.Token_ASCII_46:
		return rewriter.NestOperand
	case pg.Token_ASCII_44, pg.Token_AND, pg.Token_OR:
		return rewriter.NestSeparator
	case pg.Token_ASCII_59:
		return rewriter.NestStatementEnd
	case pg.Token_ASCII_40, pg.Token_ASCII_91:
		return rewriter.NestOpen
	case pg.Token_ASCII_41, pg.Token_ASCII_93:
		return rewriter.NestClose
	case pg.Token_CASE:
		return rewriter.NestCase
	case pg.Token_WHEN, pg.Token_THEN, pg.Token_ELSE:
		return rewriter.NestCaseSeparator
	case pg.Token_END_P:
		return rewriter.NestCaseEnd
	case pg.Token_JOIN, pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT:
		return rewriter.NestStructure
	}
	return rewriter.NestLevel
}

// tokenStarts counts the places a token can start: every byte that is
// neither blank nor part of a word, and every word's first byte. The
// scanner's tokens each start at a different one of them.
func tokenStarts(text string) int {
	n, inWord := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		word := c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
		switch {
		case word && !inWord:
			n++
		case !word && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v':
			n++
		}
		inWord = word
	}
	return n
}
