package rewriter

import "iter"

// Statements nested too deep for the parsers.
//
// The parsers, printers and tree walks recurse once per level of a
// statement's tree. PostgreSQL's (C, in pg_query) do so on the thread's
// own stack without a depth check, and die of SIGSEGV some thousands of
// levels down; vitess's (Go) grow the goroutine's stack up to its limit
// and die of a fatal stack overflow some hundreds of thousands down.
// Neither is an error a recover catches: one statement would stop the
// application. So each dialect reads a bound on the depth of a
// statement's tree from its tokens before it parses it (NestingBound),
// and refuses the statement when the bound passes its limit
// (TooDeep).

// Nesting is what a token does to the depth of the tree around it, for
// NestingBound.
type Nesting int

const (
	// NestLevel is a token that may nest what follows it one level
	// deeper: an operator, a keyword.
	NestLevel Nesting = iota
	// NestOperand adds no level: a name, a constant, a parameter, a
	// dot, a comment.
	NestOperand
	// NestSeparator ends a run of levels: the elements it separates are
	// siblings (list commas; AND and OR where the parser flattens their
	// chains).
	NestSeparator
	// NestStatementEnd ends a statement: the next starts at depth zero.
	NestStatementEnd
	// NestOpen opens a level of its own, which starts from the depth at
	// which it opens: ( and [. NestClose closes it.
	NestOpen
	NestClose
	// NestCase is CASE: a level of its own, closed by NestCaseEnd (END);
	// NestCaseSeparator (WHEN, THEN, ELSE) separates its branches. Both
	// are a NestLevel outside a CASE.
	NestCase
	NestCaseSeparator
	NestCaseEnd
	// NestStructure nests its left side one level deeper and no
	// separator ends that: JOIN, UNION, EXCEPT, INTERSECT.
	NestStructure
)

// NestingBound is an upper bound on the depth of the tree of a statement
// whose tokens do what kinds says, in order (levels), and the most levels
// of their own (parentheses, brackets, CASE) open at once (open): a
// subquery, a call or a CASE costs the walks more than an operator does,
// and walks that look into each one again cost in its square.
func NestingBound(kinds iter.Seq[Nesting]) (levels, open int) {
	type level struct {
		base      int // the depth at which the level opened
		run       int // levels since the last separator
		structure int // joins and set operations
		isCase    bool
	}
	stack := []level{{}}
	deepest := 0
	for k := range kinds {
		top := &stack[len(stack)-1]
		depth := top.base + top.structure + top.run
		switch k {
		case NestOperand:
			continue
		case NestSeparator:
			top.run = 0
			continue
		case NestStatementEnd:
			stack = stack[:1]
			stack[0] = level{}
			continue
		case NestCaseSeparator:
			if top.isCase {
				top.run = 0
				continue
			}
		case NestOpen, NestCase:
			stack = append(stack, level{base: depth + 1, isCase: k == NestCase})
			deepest = max(deepest, depth+1)
			open = max(open, len(stack)-1)
			continue
		case NestClose:
			if len(stack) > 1 && !top.isCase {
				stack = stack[:len(stack)-1]
			}
			continue
		case NestCaseEnd:
			if top.isCase {
				stack = stack[:len(stack)-1]
				continue
			}
		case NestStructure:
			top.structure++
			deepest = max(deepest, depth+1)
			continue
		}
		top.run++
		deepest = max(deepest, depth+1)
	}
	return deepest, open
}

// TooDeep is the error for a statement whose nesting bound passes limit.
func TooDeep(limit int) error {
	return Unsupported("the statement nests more than %d levels deep", limit)
}
