package mysql

import (
	"strings"

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

// maxOpen is the most parentheses and CASEs sqe reads open at once: a
// subquery nested in a subquery costs the rewrite's walks in the square
// of the nesting (a thousand EXISTS nested in each other take a tenth of
// a second, ten thousand four seconds).
const maxOpen = 1000

// checkNesting refuses text whose tree could be deeper than maxNesting,
// or hold more than maxOpen levels of their own open at once.
func checkNesting(text string) error {
	if len(text) <= maxNesting && mayOpen(text) <= maxOpen {
		return nil // each level costs at least one byte, each open level a ( or a CASE
	}
	// A text the tokenizer stops in is bounded as far as it read: the
	// parser stops there too.
	levels, open := rewriter.NestingBound(func(yield func(rewriter.Nesting) bool) {
		tokens(text, func(t sqlToken) bool { return yield(nesting(t.typ)) })
	})
	if levels > maxNesting {
		return rewriter.TooDeep(maxNesting)
	}
	if open > maxOpen {
		return rewriter.TooDeep(maxOpen)
	}
	return nil
}

// mayOpen counts the places a level of its own can open in text: its (
// bytes and its CASE words in any letter case.
func mayOpen(text string) int {
	n := strings.Count(text, "(")
	for i := 0; i+4 <= len(text); i++ {
		if text[i]|0x20 == 'c' && text[i+1]|0x20 == 'a' && text[i+2]|0x20 == 's' && text[i+3]|0x20 == 'e' {
			n++
		}
	}
	return n
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
