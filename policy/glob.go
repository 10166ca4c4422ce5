package policy

import (
	"strings"
	"unicode/utf8"
)

// glob is a lower-cased name pattern: * matches any run of characters
// (including none), ? matches one character; everything else matches itself.
type glob string

// match reports whether s (already lower-cased) matches g.
func (g glob) match(s string) bool {
	p := string(g)
	if !strings.ContainsAny(p, "*?") {
		return p == s
	}
	// Iterative matcher with single-star backtracking: linear in practice,
	// O(len(p)*len(s)) at worst.
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				starP, starS = pi, si
				pi++
				continue
			case '?':
				_, w := utf8.DecodeRuneInString(s[si:])
				pi++
				si += w
				continue
			default:
				if p[pi] == s[si] {
					pi++
					si++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
