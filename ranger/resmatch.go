package ranger

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// elemScope is Ranger's ResourceElementMatchingScope.
type elemScope int

const (
	scopeSelf elemScope = iota
	scopeSelfOrChild
	scopeSelfOrPrefix
)

// elemMatch is Ranger's ResourceElementMatchType.
type elemMatch int

const (
	elemNone elemMatch = iota
	elemSelf
	elemChild
	elemPrefix
)

func elemIsMatch(m elemMatch, s elemScope) bool {
	switch m {
	case elemSelf:
		return true
	case elemChild:
		return s == scopeSelfOrChild
	case elemPrefix:
		return s == scopeSelfOrPrefix
	}
	return false
}

// evalCtx carries what dynamic resource values need: the tokens ({USER},
// {OWNER}, ...) and, for ${{...}} expressions, the request.
type evalCtx struct {
	tokens map[string]string
	req    *request
}

func (c *evalCtx) token(name string) (string, bool) {
	if c == nil || c.tokens == nil {
		return "", false
	}
	v, ok := c.tokens[name]
	return v, ok
}

const (
	vmStr = iota
	vmStarts
	vmEnds
	vmWild
	vmURLRec
	vmURLRecWild
)

// valueMatcher matches one policy value (Ranger's ResourceMatcher family).
type valueMatcher struct {
	kind     int
	value    string
	ci       bool // case-insensitive
	quoted   bool // case-sensitive when the resource value starts with a quote character
	quotes   string
	sep      byte
	priority int
	tokens   *tokenReplacer
	hasExpr  bool
	dynamic  bool
}

func (m *valueMatcher) matchAny() bool { return m.value == "" }

func (m *valueMatcher) expanded(c *evalCtx) string {
	v := m.value
	if m.hasExpr && c != nil && c.req != nil {
		v = resolveRequestExpressions(v, c.req)
	}
	if m.tokens != nil {
		v = m.tokens.replace(v, c)
	}
	return v
}

func startsWithAnyChar(v, chars string) bool {
	if v == "" || chars == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(v)
	return strings.ContainsRune(chars, r)
}

func (m *valueMatcher) caseInsensitiveFor(rv string) bool {
	if m.quoted {
		return !startsWithAnyChar(rv, m.quotes)
	}
	return m.ci
}

func (m *valueMatcher) isMatch(rv string, c *evalCtx) bool {
	pv := m.expanded(c)
	ci := m.caseInsensitiveFor(rv)
	switch m.kind {
	case vmStr:
		if ci {
			return strings.EqualFold(rv, pv)
		}
		return rv == pv
	case vmStarts:
		if ci {
			return hasPrefixFold(rv, pv)
		}
		return strings.HasPrefix(rv, pv)
	case vmEnds:
		if ci {
			return hasSuffixFold(rv, pv)
		}
		return strings.HasSuffix(rv, pv)
	case vmWild:
		return wildcardMatch(rv, pv, ci)
	case vmURLRecWild:
		return urlRecursiveWildcardMatch(rv, pv, m.sep, m.ci)
	case vmURLRec:
		noSep := pv
		if noSep != "" && noSep[len(noSep)-1] == m.sep {
			noSep = noSep[:len(noSep)-1]
		}
		if m.ci {
			return strings.EqualFold(rv, noSep) || hasPrefixFold(rv, noSep+string(m.sep))
		}
		return rv == noSep || strings.HasPrefix(rv, noSep+string(m.sep))
	}
	return false
}

func (m *valueMatcher) isPrefixMatch(rv string, c *evalCtx) bool {
	pv := m.expanded(c)
	ci := m.caseInsensitiveFor(rv)
	switch m.kind {
	case vmStr, vmStarts:
		if ci {
			return hasPrefixFold(pv, rv)
		}
		return strings.HasPrefix(pv, rv)
	case vmEnds:
		return true
	case vmWild:
		return wildcardPrefixMatch(rv, pv, ci)
	}
	return false
}

func (m *valueMatcher) matchType(rv string, scope elemScope, c *evalCtx) elemMatch {
	if m.isMatch(rv, c) {
		return elemSelf
	}
	if scope == scopeSelfOrPrefix && m.isPrefixMatch(rv, c) {
		return elemPrefix
	}
	return elemNone
}

func hasPrefixFold(s, p string) bool {
	return strings.HasPrefix(strings.ToLower(s), strings.ToLower(p))
}

func hasSuffixFold(s, p string) bool {
	return strings.HasSuffix(strings.ToLower(s), strings.ToLower(p))
}

// wildcardMatch is commons-io FilenameUtils.wildcardMatch: * matches any run
// of characters, ? exactly one.
func wildcardMatch(text, pattern string, ci bool) bool {
	if ci {
		text, pattern = strings.ToLower(text), strings.ToLower(pattern)
	}
	t := []rune(text)
	p := []rune(pattern)
	ti, pi := 0, 0
	starP, starT := -1, 0
	for ti < len(t) {
		if pi < len(p) && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
			ti++
			pi++
			continue
		}
		if pi < len(p) && p[pi] == '*' {
			starP, starT = pi, ti
			pi++
			continue
		}
		if starP >= 0 {
			starT++
			ti, pi = starT, starP+1
			continue
		}
		return false
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

func splitWildcardTokens(s string) []string {
	if !strings.ContainsAny(s, "*?") {
		return []string{s}
	}
	var out []string
	var buf strings.Builder
	var prev rune
	for _, ch := range s {
		if ch != '?' && ch != '*' {
			buf.WriteRune(ch)
		} else {
			if buf.Len() > 0 {
				out = append(out, buf.String())
				buf.Reset()
			}
			if ch == '?' {
				out = append(out, "?")
			} else if prev != '*' {
				out = append(out, "*")
			}
		}
		prev = ch
	}
	if buf.Len() > 0 {
		out = append(out, buf.String())
	}
	return out
}

// wildcardPrefixMatch reports whether value is a prefix of some string the
// wildcard pattern matches (Ranger's ResourceMatcher.wildcardPrefixMatch).
func wildcardPrefixMatch(value, pattern string, ci bool) bool {
	if ci {
		value, pattern = strings.ToLower(value), strings.ToLower(pattern)
	}
	toks := splitWildcardTokens(pattern)
	type bt struct{ w, t int }
	var stack []bt
	anyChars := false
	ti, wi := 0, 0
	for {
		if len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			wi, ti = b.w, b.t
			anyChars = true
		}
		for ; wi < len(toks); wi++ {
			tok := toks[wi]
			if tok == "?" {
				ti++
				if ti > len(value) {
					break
				}
				anyChars = false
			} else if tok == "*" {
				anyChars = true
				if wi == len(toks)-1 {
					ti = len(value)
				}
			} else {
				if len(tok) > len(value)-ti {
					tok = tok[:len(value)-ti]
				}
				if anyChars {
					idx := strings.Index(value[ti:], tok)
					if idx < 0 {
						break
					}
					ti += idx
					if rep := strings.Index(value[min(ti+1, len(value)):], tok); rep >= 0 {
						stack = append(stack, bt{wi, ti + 1 + rep})
					}
				} else if !strings.HasPrefix(value[ti:], tok) {
					break
				}
				ti += len(tok)
				anyChars = false
			}
		}
		if wi == len(toks) || ti == len(value) {
			return true
		}
		if len(stack) == 0 {
			break
		}
	}
	return anyChars
}

var reURLScheme = regexp.MustCompile(`:/{2}`)
var reURLScheme3 = regexp.MustCompile(`:/{3,}`)

func urlRecursiveWildcardMatch(pathToCheck, pattern string, sep byte, ci bool) bool {
	url := strings.TrimSpace(pathToCheck)
	if url == "" || !reURLScheme.MatchString(url) || reURLScheme3.MatchString(url) {
		return false
	}
	i := strings.Index(url, ":")
	scheme := url[:min(i+3, len(url))]
	if scheme == "" {
		return false
	}
	path := url[min(i+2, len(url)):]
	var elems []string
	for _, e := range strings.Split(path, string(sep)) {
		if e != "" {
			elems = append(elems, e)
		}
	}
	if len(elems) == 0 {
		return wildcardMatch(pathToCheck, pattern, ci)
	}
	var sb strings.Builder
	sb.WriteString(scheme)
	if pathToCheck[0] == sep {
		sb.WriteByte(sep)
	}
	for _, p := range elems {
		sb.WriteString(p)
		if wildcardMatch(sb.String(), pattern, ci) {
			return true
		}
		sb.WriteByte(sep)
	}
	s := sb.String()
	if !strings.HasSuffix(url, string(sep)) {
		s = s[:len(s)-1]
	}
	return wildcardMatch(s, pattern, ci)
}

// tokenReplacer is Ranger's StringTokenReplacer.
type tokenReplacer struct {
	start, end, escape rune
	prefix             string
}

func (t *tokenReplacer) replace(value string, c *evalCtx) string {
	if c == nil || len(c.tokens) == 0 || value == "" ||
		(!strings.ContainsRune(value, t.start) && !strings.ContainsRune(value, t.end) && !strings.ContainsRune(value, t.escape)) {
		return value
	}
	rs := []rune(value)
	var ret strings.Builder
	var tok *strings.Builder
	for i := 0; i < len(rs); i++ {
		ch := rs[i]
		if ch == t.escape {
			i++
			if i < len(rs) {
				ch = rs[i]
				if tok != nil {
					if ch != t.escape && ch != t.end {
						tok.WriteRune(t.escape)
					}
					tok.WriteRune(ch)
				} else {
					if ch != t.escape && ch != t.start {
						ret.WriteRune(t.escape)
					}
					ret.WriteRune(ch)
				}
			} else if tok != nil {
				tok.WriteRune(t.escape)
			} else {
				ret.WriteRune(t.escape)
			}
			continue
		}
		if tok == nil {
			if ch == t.start {
				tok = &strings.Builder{}
			} else {
				ret.WriteRune(ch)
			}
			continue
		}
		if ch == t.end {
			raw := tok.String()
			if t.prefix == "" || strings.HasPrefix(raw, t.prefix) {
				if v, ok := c.token(raw[len(t.prefix):]); ok {
					ret.WriteString(v)
				} else {
					ret.WriteRune(t.start)
					ret.WriteString(raw)
					ret.WriteRune(t.end)
				}
			} else {
				ret.WriteRune(t.start)
				ret.WriteString(raw)
				ret.WriteRune(t.end)
			}
			tok = nil
		} else {
			tok.WriteRune(ch)
		}
	}
	if tok != nil {
		ret.WriteRune(t.start)
		ret.WriteString(tok.String())
	}
	return ret.String()
}

const urlMatcherClass = "org.apache.ranger.plugin.resourcematcher.RangerURLResourceMatcher"

// pathMatcherClass is HDFS's path matcher. sqe realises only its recursive
// literal values (a path and everything below it, as the URL matcher's);
// its other values match as the default matcher's do.
const pathMatcherClass = "org.apache.ranger.plugin.resourcematcher.RangerPathResourceMatcher"

// resMatcher matches one resource element of a policy against a request
// value (Ranger's RangerDefaultResourceMatcher and RangerURLResourceMatcher).
type resMatcher struct {
	def       *resDef
	values    []string
	excludes  bool
	recursive bool
	matchAny  bool
	matchers  []valueMatcher
	dynamic   bool
}

func optBool(o Options, name string, def bool) bool {
	if v, ok := o[name]; ok && v != "" {
		return strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return def
}

func optChar(o Options, name string, def rune) rune {
	if v, ok := o[name]; ok && v != "" {
		r, _ := utf8.DecodeRuneInString(v)
		return r
	}
	return def
}

func newResMatcher(def *resDef, pr *PolicyResource) *resMatcher {
	o := def.options
	m := &resMatcher{def: def}
	if pr != nil {
		m.excludes = bool(pr.IsExcludes)
		m.recursive = bool(pr.IsRecursive)
		for _, v := range pr.Values {
			if v != "" {
				m.values = append(m.values, v)
			}
		}
	}
	ignoreCase := optBool(o, "ignoreCase", true)
	quotedCS := optBool(o, "quotedCaseSensitive", false)
	quotes := "\""
	if v, ok := o["quoteChars"]; ok {
		quotes = v
	}
	wild := optBool(o, "wildCard", true)
	var trv tokenReplacer // allocated (tr) only for a value with tokens
	var tr *tokenReplacer
	trOK := false
	if optBool(o, "replaceTokens", true) {
		trv = tokenReplacer{
			start:  optChar(o, "tokenDelimiterStart", '{'),
			end:    optChar(o, "tokenDelimiterEnd", '}'),
			escape: optChar(o, "tokenDelimiterEscape", '\\'),
			prefix: o["tokenDelimiterPrefix"],
		}
		trOK = !(trv.escape == trv.start || trv.escape == trv.end || strings.ContainsRune(trv.prefix, trv.escape) ||
			strings.ContainsRune(trv.prefix, trv.start) || strings.ContainsRune(trv.prefix, trv.end))
	}
	replaceExpr := optBool(o, "replaceReqExpressions", true)
	isURL := def.matcher == urlMatcherClass
	sep := byte('/')
	if v := o["pathSeparatorChar"]; v != "" {
		sep = v[0]
	}
	for _, pv := range m.values {
		if isURL && wild && m.recursive && pv[len(pv)-1] == sep {
			pv += "*"
		}
		pathRec := def.matcher == pathMatcherClass && m.recursive && !(wild && strings.ContainsAny(pv, "*?"))
		vm := buildValueMatcher(pv, ignoreCase, quotedCS, quotes, wild, (isURL && m.recursive) || pathRec, sep)
		if vm == nil {
			continue
		}
		if trOK && hasToken(vm.value, &trv) {
			if tr == nil {
				t := trv
				tr = &t
			}
			vm.tokens = tr
		}
		if replaceExpr && hasRequestExpressions(vm.value) {
			vm.hasExpr = true
		}
		if vm.tokens != nil || vm.hasExpr {
			vm.dynamic = true
			vm.priority += 8
			m.dynamic = true
		}
		if vm.matchAny() {
			m.matchers = nil
			m.matchAny = true
			break
		}
		m.matchers = append(m.matchers, *vm)
	}
	m.matchers = slices.Clip(m.matchers)
	if len(m.matchers) == 0 {
		m.matchAny = true
		m.matchers = nil
	}
	if m.matchAny {
		m.dynamic = false
	}
	sort.SliceStable(m.matchers, func(i, j int) bool { return m.matchers[i].priority < m.matchers[j].priority })
	return m
}

func hasToken(v string, t *tokenReplacer) bool {
	return strings.ContainsRune(v, t.escape) || (strings.ContainsRune(v, t.start) && strings.ContainsRune(v, t.end))
}

func buildValueMatcher(pv string, ci, quotedCS bool, quotes string, wild, urlRecursive bool, sep byte) *valueMatcher {
	if pv == "" {
		return nil
	}
	mk := func(kind int, v string, prio int) *valueMatcher {
		vm := &valueMatcher{kind: kind, value: v, ci: ci, sep: sep, priority: prio}
		if ci && quotedCS {
			vm.quoted = true
			vm.quotes = quotes
		}
		return vm
	}
	if urlRecursive {
		if wild && pv == "*" {
			return &valueMatcher{kind: vmStr, value: "", ci: true, priority: 2}
		}
		if wild && strings.ContainsAny(pv, "*?") {
			p := 7
			if ci {
				p = 8
			}
			return &valueMatcher{kind: vmURLRecWild, value: pv, ci: ci, sep: sep, priority: p}
		}
		p := 7
		if ci {
			p = 8
		}
		return &valueMatcher{kind: vmURLRec, value: pv, ci: ci, sep: sep, priority: p}
	}
	ws, we := -1, -1
	needWild := false
	if wild {
		for i := 0; i < len(pv); i++ {
			c := pv[i]
			if c == '?' {
				needWild = true
				break
			} else if c == '*' {
				if we == -1 || we == i-1 {
					we = i
					if ws == -1 {
						ws = i
					}
				} else {
					needWild = true
					break
				}
			}
		}
	}
	prio := func(cs, ins int) int {
		if ci {
			return ins
		}
		return cs
	}
	switch {
	case needWild:
		return mk(vmWild, pv, prio(5, 6))
	case ws == -1:
		return mk(vmStr, pv, prio(1, 2))
	case ws == 0:
		return mk(vmEnds, pv[we+1:], prio(3, 4))
	case we != len(pv)-1:
		return mk(vmWild, pv, prio(5, 6))
	default:
		return mk(vmStarts, pv[:ws], prio(3, 4))
	}
}

func isAllValuesRequested(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == "" || x == "*"
	}
	return false
}

func (m *resMatcher) applyExcludes(allRequested bool, r elemMatch) elemMatch {
	if !m.excludes {
		return r
	}
	if allRequested && !m.matchAny {
		return r
	}
	if r == elemNone {
		return elemSelf
	}
	return elemNone
}

// matchType is RangerDefaultResourceMatcher.getMatchType.
func (m *resMatcher) matchType(v any, scope elemScope, c *evalCtx) elemMatch {
	all := isAllValuesRequested(v)
	prefix := scope == scopeSelfOrPrefix
	ret := elemNone
	if m.matchAny || (all && !prefix) {
		if m.matchAny {
			ret = elemSelf
		}
	} else {
		var vals []string
		switch x := v.(type) {
		case string:
			vals = []string{x}
		case []string:
			vals = x
		}
	outer:
		for i := range m.matchers {
			vm := &m.matchers[i]
			for _, rv := range vals {
				if mt := vm.matchType(rv, scope, c); mt != elemNone {
					ret = mt
				}
				if ret == elemSelf {
					break outer
				}
			}
		}
	}
	return m.applyExcludes(all, ret)
}

func (m *resMatcher) isMatch(v any, scope elemScope, c *evalCtx) bool {
	return elemIsMatch(m.matchType(v, scope, c), scope)
}
