package mysql

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sqe-project/sqe/rewriter"
)

// vitess parses without recursion, but its tree is walked and printed by
// recursion, once per level: a chain of a million operators (an 8 MB
// statement) grows the goroutine's stack past Go's limit, and the process
// dies of a fatal stack overflow. So a text is parsed only when its
// nesting bound (rewriter.NestingBound, from the parser's tokenizer) is at
// most maxNesting, a tenth of that.

// maxNesting is the deepest nesting sqe parses. vitess nests chains of
// AND and OR (one level per operator), and the bound counts each operand's
// comparison too, so the limit leaves room for conditions of tens of
// thousands of terms; lists (IN, VALUES, select lists, arguments) do not
// nest.
const maxNesting = 100000

// checkNesting refuses text whose tree could be deeper than maxNesting.
func checkNesting(text string) error {
	if len(text) <= maxNesting {
		return nil // each level of the bound costs at least one byte
	}
	// A text the tokenizer stops in is bounded as far as it read: the
	// parser stops there too.
	depth := rewriter.NestingBound(func(yield func(rewriter.Nesting) bool) {
		tokens(text, func(t sqlToken) bool { return yield(nesting(t.typ)) })
	})
	if depth > maxNesting {
		return rewriter.TooDeep(maxNesting)
	}
	return nil
}

// nesting is what a token of the tokenizer does to the depth of the tree.
func nesting(typ int) rewriter.Nesting {
	switch typ {
	case sqlparser.ID, sqlparser.AT_ID, sqlparser.AT_AT_ID, sqlparser.STRING, sqlparser.NCHAR_STRING,
		sqlparser.HEX, sqlparser.HEXNUM, sqlparser.INTEGRAL, sqlparser.FLOAT, sqlparser.DECIMAL, sqlparser.BIT_LITERAL,
		sqlparser.VALUE_ARG, sqlparser.LIST_ARG, sqlparser.OFFSET_ARG, sqlparser.NULL, sqlparser.TRUE, sqlparser.FALSE,
		sqlparser.COMMENT, '.':
		return rewriter.NestOperand
	case ',':
		return rewriter.NestSeparator
	case ';':
		return rewriter.NestStatementEnd
	case '(':
		return rewriter.NestOpen
	case ')':
		return rewriter.NestClose
	case sqlparser.CASE:
		return rewriter.NestCase
	case sqlparser.WHEN, sqlparser.THEN, sqlparser.ELSE:
		return rewriter.NestCaseSeparator
	case sqlparser.END:
		return rewriter.NestCaseEnd
	case sqlparser.JOIN, sqlparser.STRAIGHT_JOIN, sqlparser.UNION, sqlparser.EXCEPT:
		return rewriter.NestStructure
	}
	return rewriter.NestLevel
}
