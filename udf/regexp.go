package udf

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// portableRegexp is a REGEXP_REPLACE pattern restricted to a grammar that
// Go's regexp, MariaDB's PCRE2 and PostgreSQL's ARE engine match
// identically, re-printed for each server:
//
//   - literals, character classes (including \d, \w, \s, [[:alpha:]], \pL
//     …, all spelled out as explicit code point ranges) and '.' (any
//     character but newline, unless (?s));
//   - each optionally followed by a greedy quantifier: * + ? {n} {n,} {n,m}
//     with bounds up to 255;
//   - concatenation, groups without quantifiers, ^ at the start and $ at the
//     end (both meaning the ends of the whole value), (?i) and (?s).
//
// Alternation of multi-character branches, quantified groups, lazy
// quantifiers, multi-line anchors, word boundaries and patterns that can
// match the empty string are refused: on those the engines disagree
// (leftmost-first against leftmost-longest matching, empty-match stepping).
// For this grammar leftmost-first and leftmost-longest matching coincide.
type portableRegexp struct {
	re  *regexp.Regexp
	src [2]string // MySQL, Postgres
}

const maxRepeat = 255 // PostgreSQL's RE_DUP_MAX

func compilePortable(p string) (*portableRegexp, error) {
	if p == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if strings.ContainsRune(p, 0) {
		return nil, fmt.Errorf("pattern contains U+0000")
	}
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", p, err)
	}
	if nullable(tree) {
		return nil, fmt.Errorf("pattern %q can match the empty string", p)
	}
	var out [2]strings.Builder
	if err := emitTop(&out, tree); err != nil {
		return nil, fmt.Errorf("pattern %q: %w", p, err)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", p, err)
	}
	return &portableRegexp{re: re, src: [2]string{out[0].String(), out[1].String()}}, nil
}

func (p *portableRegexp) source(d Dialect) string {
	if d == MySQL {
		return p.src[0]
	}
	return p.src[1]
}

func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpPlus, syntax.OpCapture:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return false
}

// flatten lists the elements of a concatenation, dissolving groups.
func flatten(re *syntax.Regexp, into []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpConcat:
		for _, s := range re.Sub {
			into = flatten(s, into)
		}
		return into
	case syntax.OpCapture:
		return flatten(re.Sub[0], into)
	case syntax.OpLiteral:
		// One element per character, so quantifier checks see atoms.
		for _, r := range re.Rune {
			into = append(into, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: []rune{r}})
		}
		return into
	}
	return append(into, re)
}

func emitTop(out *[2]strings.Builder, tree *syntax.Regexp) error {
	elems := flatten(tree, nil)
	for i, e := range elems {
		switch e.Op {
		case syntax.OpBeginText:
			if i != 0 {
				return fmt.Errorf("^ is only allowed at the start")
			}
			out[0].WriteString("^")
			out[1].WriteString("^")
		case syntax.OpEndText:
			if i != len(elems)-1 {
				return fmt.Errorf("$ is only allowed at the end")
			}
			out[0].WriteString(`\z`) // PCRE's $ also matches before a final newline
			out[1].WriteString("$")
		case syntax.OpEmptyMatch:
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			if e.Flags&syntax.NonGreedy != 0 {
				return fmt.Errorf("lazy quantifiers are not supported")
			}
			sub := e.Sub[0]
			for sub.Op == syntax.OpCapture {
				sub = sub.Sub[0]
			}
			atom, err := emitAtom(sub)
			if err != nil {
				return fmt.Errorf("quantifiers apply to single characters or classes only")
			}
			q := ""
			switch e.Op {
			case syntax.OpStar:
				q = "*"
			case syntax.OpPlus:
				q = "+"
			case syntax.OpQuest:
				q = "?"
			default:
				if e.Min > maxRepeat || e.Max > maxRepeat {
					return fmt.Errorf("repetition bounds above %d are not supported", maxRepeat)
				}
				switch {
				case e.Max == -1:
					q = fmt.Sprintf("{%d,}", e.Min)
				case e.Max == e.Min:
					q = fmt.Sprintf("{%d}", e.Min)
				default:
					q = fmt.Sprintf("{%d,%d}", e.Min, e.Max)
				}
			}
			out[0].WriteString(atom + q)
			out[1].WriteString(atom + q)
		default:
			atom, err := emitAtom(e)
			if err != nil {
				return err
			}
			out[0].WriteString(atom)
			out[1].WriteString(atom)
		}
	}
	return nil
}

// emitAtom prints a single-character element.
func emitAtom(re *syntax.Regexp) (string, error) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return "", fmt.Errorf("not a single character")
		}
		r := re.Rune[0]
		if re.Flags&syntax.FoldCase != 0 {
			var rs []rune
			for f := r; ; {
				rs = append(rs, f, f)
				if f = unicode.SimpleFold(f); f == r {
					break
				}
			}
			if len(rs) > 2 {
				return bracket(rs)
			}
		}
		return escapeLiteral(r), nil
	case syntax.OpCharClass:
		return bracket(re.Rune)
	case syntax.OpAnyCharNotNL:
		return bracket([]rune{0, '\n' - 1, '\n' + 1, 0x10FFFF})
	case syntax.OpAnyChar:
		return bracket([]rune{0, 0x10FFFF})
	}
	return "", fmt.Errorf("unsupported construct %q", re.String())
}

// bracket prints ranges (pairs lo, hi) as a bracket expression, leaving out
// U+0000 (no server text holds it) and the surrogate block (no text holds
// it either, and PCRE refuses it in UTF mode).
func bracket(ranges []rune) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	empty := true
	add := func(lo, hi rune) {
		if lo > hi {
			return
		}
		empty = false
		b.WriteString(escapeInBracket(lo))
		if hi > lo {
			b.WriteByte('-')
			b.WriteString(escapeInBracket(hi))
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], 1), ranges[i+1]
		if lo <= 0xDFFF && hi >= 0xD800 {
			add(lo, 0xD7FF)
			add(0xE000, hi)
			continue
		}
		add(lo, hi)
	}
	if empty {
		return "", fmt.Errorf("a character class matches nothing")
	}
	b.WriteByte(']')
	return b.String(), nil
}

func isASCIIAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// escapeLiteral: ASCII punctuation gets a backslash (literal in both
// engines), everything else stands for itself.
func escapeLiteral(r rune) string {
	if r < 0x80 && r > ' ' && !isASCIIAlnum(r) {
		return `\` + string(r)
	}
	return string(r)
}

func escapeInBracket(r rune) string {
	return escapeLiteral(r)
}
