package ranger

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file is a small interpreter for the JavaScript that Ranger policy
// conditions and ${{...}} request expressions use. It understands the
// forms Ranger documents for its script conditions and macros:
//
//	if (ctx.isAccessedBefore('expiry')) ctx.result = true;
//	ctx.isAccessedAfter('expiry_date');
//	tagAttr.get('score') < 2
//	TAG.level == 'normal' && IS_IN_ROLE('admin')
//	USER.dept, UGA.sVal.site, UGNAMES.includes('eu'), ...
//
// that is: literals, the variables Ranger binds (ctx, tag, tagAttr, REQ,
// RES, USER, UG, UGA, UGNAMES, URNAMES, TAG, TAGS, TAGNAMES), member and
// index access, calls of the ctx methods and of a few string and array
// methods, the arithmetic, comparison, equality, logical and conditional
// operators with JavaScript's coercions, and if/else, blocks, var and
// assignment to ctx.result or a local. A script that uses anything else
// does not compile (errUnsupportedScript): sqe treats such a condition as
// one it cannot evaluate, and so is a script that fails while it runs (a
// method of undefined, a method the interpreter does not implement): see
// scriptCond.eval.

var errUnsupportedScript = errors.New("unsupported script")

type jsUndefined struct{}

var undefined = jsUndefined{}

// jsFunc is a host function bound to its receiver.
type jsFunc func(args []any) (any, error)

// jsMap is a Java map exposed to scripts (tagAttr): property access and get().
type jsMap map[string]string

// ---- lexer ----

type tokKind int

const (
	tkEOF tokKind = iota
	tkNum
	tkStr
	tkIdent
	tkPunct
)

type token struct {
	kind tokKind
	s    string
	num  float64
}

func lexJS(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, errUnsupportedScript
			}
			i += j + 4
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				(src[j] == '-' || src[j] == '+') && j > i && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			f, err := strconv.ParseFloat(src[i:j], 64)
			if err != nil {
				return nil, errUnsupportedScript
			}
			out = append(out, token{kind: tkNum, num: f, s: src[i:j]})
			i = j
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(src) {
				ch := src[j]
				if ch == c {
					closed = true
					j++
					break
				}
				if ch == '\\' && j+1 < len(src) {
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					case '0':
						b.WriteByte(0)
					default:
						b.WriteByte(src[j])
					}
					j++
					continue
				}
				b.WriteByte(ch)
				j++
			}
			if !closed {
				return nil, errUnsupportedScript
			}
			out = append(out, token{kind: tkStr, s: b.String()})
			i = j
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			out = append(out, token{kind: tkIdent, s: src[i:j]})
			i = j
		default:
			ops := []string{"===", "!==", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", "{", "}", ".", ",", ";", "?", ":", "!", "<", ">", "+", "-", "*", "/", "%", "="}
			found := false
			for _, op := range ops {
				if strings.HasPrefix(src[i:], op) {
					out = append(out, token{kind: tkPunct, s: op})
					i += len(op)
					found = true
					break
				}
			}
			if !found {
				return nil, errUnsupportedScript
			}
		}
	}
	out = append(out, token{kind: tkEOF})
	return out, nil
}

// ---- AST ----

type jsNode interface{}

type (
	nLit    struct{ v any }
	nIdent  struct{ name string }
	nMember struct {
		obj  jsNode
		prop jsNode // nLit string for .x
	}
	nCall struct {
		fn   jsNode
		args []jsNode
	}
	nUnary struct {
		op string
		x  jsNode
	}
	nBinary struct {
		op   string
		l, r jsNode
	}
	nCond   struct{ c, t, f jsNode }
	nArray  struct{ elems []jsNode }
	nAssign struct {
		target jsNode
		v      jsNode
	}
	nIf struct {
		c         jsNode
		then, els jsNode
		hasElse   bool
	}
	nBlock struct{ stmts []jsNode }
	nVar   struct {
		name string
		v    jsNode
	}
	nExprStmt struct{ x jsNode }
	nEmpty    struct{}
)

type jsParser struct {
	toks []token
	pos  int
}

func (p *jsParser) peek() token { return p.toks[p.pos] }
func (p *jsParser) next() token { t := p.toks[p.pos]; p.pos++; return t }
func (p *jsParser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tkPunct && t.s == s
}
func (p *jsParser) isKeyword(s string) bool {
	t := p.peek()
	return t.kind == tkIdent && t.s == s
}
func (p *jsParser) expect(s string) error {
	if !p.isPunct(s) {
		return errUnsupportedScript
	}
	p.pos++
	return nil
}

// jsScript is a compiled script.
type jsScript struct {
	prog          *nBlock
	timeSensitive bool
	// unknownMethods are the methods the script calls on values (not on
	// ctx) that no value of the interpreter has: calling one fails while
	// the script runs.
	unknownMethods []string
}

// jsValueMethods are the methods the interpreter's values have: strings
// (stringMember), arrays (arrayMember) and Java maps (jsMap).
var jsValueMethods = map[string]bool{
	"toLowerCase": true, "toUpperCase": true, "trim": true, "includes": true, "startsWith": true,
	"endsWith": true, "indexOf": true, "equals": true, "equalsIgnoreCase": true, "split": true,
	"contains": true, "intersects": true, "join": true, "get": true, "containsKey": true,
}

var knownGlobals = map[string]bool{
	"ctx": true, "tag": true, "tagAttr": true, "REQ": true, "RES": true, "USER": true, "UG": true,
	"UGA": true, "UGNAMES": true, "URNAMES": true, "TAG": true, "TAGS": true, "TAGNAMES": true,
	"undefined": true,
}

// scriptMacros are Ranger's condition macros (RangerRequestScriptEvaluator).
var scriptMacros = map[string]string{
	"GET_TAG_NAMES": "ctx.tagNames", "GET_TAG_NAMES_Q": "ctx.tagNamesQ",
	"GET_TAG_ATTR_NAMES": "ctx.tagAttrNames", "GET_TAG_ATTR_NAMES_Q": "ctx.tagAttrNamesQ",
	"GET_TAG_ATTR": "ctx.tagAttr", "GET_TAG_ATTR_Q": "ctx.tagAttrQ",
	"GET_UG_NAMES": "ctx.ugNames", "GET_UG_NAMES_Q": "ctx.ugNamesQ",
	"GET_UG_ATTR_NAMES": "ctx.ugAttrNames", "GET_UG_ATTR_NAMES_Q": "ctx.ugAttrNamesQ",
	"GET_UG_ATTR": "ctx.ugAttr", "GET_UG_ATTR_Q": "ctx.ugAttrQ",
	"GET_UR_NAMES": "ctx.urNames", "GET_UR_NAMES_Q": "ctx.urNamesQ",
	"GET_USER_ATTR_NAMES": "ctx.userAttrNames", "GET_USER_ATTR_NAMES_Q": "ctx.userAttrNamesQ",
	"GET_USER_ATTR": "ctx.userAttr", "GET_USER_ATTR_Q": "ctx.userAttrQ",
	"GET_TAG_ATTR_CSV": "ctx.tagAttrCsv", "GET_TAG_ATTR_Q_CSV": "ctx.tagAttrCsvQ",
	"GET_UG_ATTR_CSV": "ctx.ugAttrCsv", "GET_UG_ATTR_Q_CSV": "ctx.ugAttrCsvQ",
	"TAG_ATTR_NAMES_CSV": "ctx.tagAttrNamesCsv()", "TAG_ATTR_NAMES_Q_CSV": "ctx.tagAttrNamesCsvQ()",
	"TAG_NAMES_CSV": "ctx.tagNamesCsv()", "TAG_NAMES_Q_CSV": "ctx.tagNamesCsvQ()",
	"UG_ATTR_NAMES_CSV": "ctx.ugAttrNamesCsv()", "UG_ATTR_NAMES_Q_CSV": "ctx.ugAttrNamesCsvQ()",
	"UG_NAMES_CSV": "ctx.ugNamesCsv()", "UG_NAMES_Q_CSV": "ctx.ugNamesCsvQ()",
	"UR_NAMES_CSV": "ctx.urNamesCsv()", "UR_NAMES_Q_CSV": "ctx.urNamesCsvQ()",
	"USER_ATTR_NAMES_CSV": "ctx.userAttrNamesCsv()", "USER_ATTR_NAMES_Q_CSV": "ctx.userAttrNamesCsvQ()",
	"HAS_TAG": "ctx.hasTag", "HAS_ANY_TAG": "ctx.hasAnyTag()", "HAS_NO_TAG": "!ctx.hasAnyTag()",
	"HAS_USER_ATTR": "ctx.hasUserAttr", "HAS_UG_ATTR": "ctx.hasUgAttr", "HAS_TAG_ATTR": "ctx.hasTagAttr",
	"IS_IN_GROUP": "ctx.isInGroup", "IS_IN_ROLE": "ctx.isInRole",
	"IS_IN_ANY_GROUP": "ctx.isInAnyGroup()", "IS_IN_ANY_ROLE": "ctx.isInAnyRole()",
	"IS_NOT_IN_ANY_GROUP": "!ctx.isInAnyGroup()", "IS_NOT_IN_ANY_ROLE": "!ctx.isInAnyRole()",
	"IS_ACCESS_TIME_AFTER": "ctx.isAccessTimeAfter", "IS_ACCESS_TIME_BEFORE": "ctx.isAccessTimeBefore",
	"IS_ACCESS_TIME_BETWEEN": "ctx.isAccessTimeBetween",
}

var reMacro = regexp.MustCompile(`\b[A-Z][A-Z_]*\b`)

func expandMacros(s string) string {
	return reMacro.ReplaceAllStringFunc(s, func(w string) string {
		if r, ok := scriptMacros[w]; ok {
			return r
		}
		return w
	})
}

// ctxMethods are the ctx methods a script may call, with the number of
// arguments each accepts (-1: any).
var ctxMethods = map[string]bool{
	"isAccessedAfter": true, "isAccessedBefore": true, "getAttributeValue": true, "getUser": true,
	"getUserGroups": true, "getUserRoles": true, "isInGroup": true, "isInRole": true, "isInAnyGroup": true,
	"isInAnyRole": true, "hasTag": true, "hasAnyTag": true, "hasUserAttr": true, "hasUgAttr": true,
	"hasTagAttr": true, "userAttr": true, "userAttrQ": true, "ugAttr": true, "ugAttrQ": true, "tagAttr": true,
	"tagAttrQ": true, "ugNames": true, "ugNamesQ": true, "urNames": true, "urNamesQ": true, "tagNames": true,
	"tagNamesQ": true, "userAttrNames": true, "userAttrNamesQ": true, "ugAttrNames": true, "ugAttrNamesQ": true,
	"tagAttrNames": true, "tagAttrNamesQ": true, "ugNamesCsv": true, "ugNamesCsvQ": true, "urNamesCsv": true,
	"urNamesCsvQ": true, "tagNamesCsv": true, "tagNamesCsvQ": true, "userAttrNamesCsv": true,
	"userAttrNamesCsvQ": true, "ugAttrNamesCsv": true, "ugAttrNamesCsvQ": true, "tagAttrNamesCsv": true,
	"tagAttrNamesCsvQ": true, "ugAttrCsv": true, "ugAttrCsvQ": true, "tagAttrCsv": true, "tagAttrCsvQ": true,
	"getCurrentTagType": true, "getAllTagTypes": true, "getAccessType": true, "getRequestData": true,
	"isAccessTypeAny": true, "getTagAttributes": true, "getAttributeNames": true,
}

var timeMethods = map[string]bool{"isAccessedAfter": true, "isAccessedBefore": true}

// reDoubleBrackets is Ranger's shorthand for splitting a value:
// [[X]] is X.split(","), [[X,'|']] is X.split("|").
var reDoubleBrackets = regexp.MustCompile(`\[\[([}{$"a-zA-Z0-9_.\[\]]+)(,['"](.+?)['"])*\]\]`)

// replaceDoubleBrackets rewrites the shorthand as Ranger's JavaScriptEdits
// does before it runs a script. Left as it is, [[X]] would be an array
// holding an array, which compares equal to nothing.
func replaceDoubleBrackets(src string) string {
	if !strings.Contains(src, "[[") || !strings.Contains(src, "]]") {
		return src
	}
	out := src
	for _, m := range reDoubleBrackets.FindAllStringSubmatch(src, -1) {
		sep := ","
		if m[2] != "" {
			sep = m[3]
		}
		out = strings.ReplaceAll(out, m[0], m[1]+".split("+strconv.Quote(sep)+")")
	}
	return out
}

func compileJS(src string) (*jsScript, error) {
	src = replaceDoubleBrackets(expandMacros(src))
	toks, err := lexJS(src)
	if err != nil {
		return nil, err
	}
	p := &jsParser{toks: toks}
	var stmts []jsNode
	for p.peek().kind != tkEOF {
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s)
	}
	sc := &jsScript{prog: &nBlock{stmts: stmts}}
	locals := map[string]bool{}
	if err := sc.check(sc.prog, locals); err != nil {
		return nil, err
	}
	return sc, nil
}

func (p *jsParser) statement() (jsNode, error) {
	switch {
	case p.isPunct(";"):
		p.pos++
		return nEmpty{}, nil
	case p.isPunct("{"):
		p.pos++
		var stmts []jsNode
		for !p.isPunct("}") {
			if p.peek().kind == tkEOF {
				return nil, errUnsupportedScript
			}
			s, err := p.statement()
			if err != nil {
				return nil, err
			}
			stmts = append(stmts, s)
		}
		p.pos++
		return &nBlock{stmts: stmts}, nil
	case p.isKeyword("if"):
		p.pos++
		if err := p.expect("("); err != nil {
			return nil, err
		}
		c, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		th, err := p.statement()
		if err != nil {
			return nil, err
		}
		n := &nIf{c: c, then: th}
		if p.isKeyword("else") {
			p.pos++
			el, err := p.statement()
			if err != nil {
				return nil, err
			}
			n.els, n.hasElse = el, true
		}
		return n, nil
	case p.isKeyword("var") || p.isKeyword("let") || p.isKeyword("const"):
		p.pos++
		t := p.next()
		if t.kind != tkIdent || knownGlobals[t.s] {
			return nil, errUnsupportedScript
		}
		var v jsNode = nLit{v: undefined}
		if p.isPunct("=") {
			p.pos++
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			v = e
		}
		p.endStatement()
		return &nVar{name: t.s, v: v}, nil
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isPunct("=") {
		p.pos++
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		e = &nAssign{target: e, v: v}
	}
	p.endStatement()
	return &nExprStmt{x: e}, nil
}

func (p *jsParser) endStatement() {
	if p.isPunct(";") {
		p.pos++
	}
}

func (p *jsParser) expr() (jsNode, error) { return p.conditional() }

func (p *jsParser) conditional() (jsNode, error) {
	c, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if p.isPunct("?") {
		p.pos++
		t, err := p.conditional()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		f, err := p.conditional()
		if err != nil {
			return nil, err
		}
		return &nCond{c: c, t: t, f: f}, nil
	}
	return c, nil
}

var binPrec = [][]string{
	{"||"},
	{"&&"},
	{"==", "!=", "===", "!=="},
	{"<", "<=", ">", ">="},
	{"+", "-"},
	{"*", "/", "%"},
}

func (p *jsParser) binary(level int) (jsNode, error) {
	if level == len(binPrec) {
		return p.unary()
	}
	l, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tkPunct {
			return l, nil
		}
		found := false
		for _, op := range binPrec[level] {
			if t.s == op {
				found = true
				break
			}
		}
		if !found {
			return l, nil
		}
		p.pos++
		r, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		l = &nBinary{op: t.s, l: l, r: r}
	}
}

func (p *jsParser) unary() (jsNode, error) {
	if p.isPunct("!") || p.isPunct("-") || p.isPunct("+") {
		op := p.next().s
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &nUnary{op: op, x: x}, nil
	}
	if p.isKeyword("typeof") {
		p.pos++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &nUnary{op: "typeof", x: x}, nil
	}
	return p.postfix()
}

func (p *jsParser) postfix() (jsNode, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isPunct("."):
			p.pos++
			t := p.next()
			if t.kind != tkIdent {
				return nil, errUnsupportedScript
			}
			x = &nMember{obj: x, prop: nLit{v: t.s}}
		case p.isPunct("["):
			p.pos++
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &nMember{obj: x, prop: e}
		case p.isPunct("("):
			p.pos++
			var args []jsNode
			for !p.isPunct(")") {
				a, err := p.expr()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.isPunct(",") {
					p.pos++
				} else if !p.isPunct(")") {
					return nil, errUnsupportedScript
				}
			}
			p.pos++
			x = &nCall{fn: x, args: args}
		default:
			return x, nil
		}
	}
}

func (p *jsParser) primary() (jsNode, error) {
	t := p.next()
	switch t.kind {
	case tkNum:
		return nLit{v: t.num}, nil
	case tkStr:
		return nLit{v: t.s}, nil
	case tkIdent:
		switch t.s {
		case "true":
			return nLit{v: true}, nil
		case "false":
			return nLit{v: false}, nil
		case "null":
			return nLit{v: nil}, nil
		}
		return nIdent{name: t.s}, nil
	case tkPunct:
		switch t.s {
		case "(":
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return e, nil
		case "[":
			var elems []jsNode
			for !p.isPunct("]") {
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
				if p.isPunct(",") {
					p.pos++
				} else if !p.isPunct("]") {
					return nil, errUnsupportedScript
				}
			}
			p.pos++
			return &nArray{elems: elems}, nil
		}
	}
	return nil, errUnsupportedScript
}

// check rejects scripts that reference names or methods the interpreter
// does not implement, so that they are reported as unsupported rather than
// evaluated differently from Ranger.
func (sc *jsScript) check(n jsNode, locals map[string]bool) error {
	switch x := n.(type) {
	case nil, nLit, nEmpty:
		return nil
	case nIdent:
		if !knownGlobals[x.name] && !locals[x.name] {
			return errUnsupportedScript
		}
	case *nMember:
		if err := sc.check(x.obj, locals); err != nil {
			return err
		}
		return sc.check(x.prop, locals)
	case *nCall:
		if m, ok := x.fn.(*nMember); ok {
			if id, ok := m.obj.(nIdent); ok && id.name == "ctx" {
				lit, ok := m.prop.(nLit)
				name, _ := lit.v.(string)
				if !ok || !ctxMethods[name] {
					return errUnsupportedScript
				}
				if timeMethods[name] {
					sc.timeSensitive = true
				}
			} else if lit, ok := m.prop.(nLit); ok {
				if name, _ := lit.v.(string); !jsValueMethods[name] && !slices.Contains(sc.unknownMethods, name) {
					sc.unknownMethods = append(sc.unknownMethods, name)
				}
			}
		} else {
			return errUnsupportedScript // only method calls
		}
		if err := sc.check(x.fn, locals); err != nil {
			return err
		}
		for _, a := range x.args {
			if err := sc.check(a, locals); err != nil {
				return err
			}
		}
	case *nUnary:
		return sc.check(x.x, locals)
	case *nBinary:
		if err := sc.check(x.l, locals); err != nil {
			return err
		}
		return sc.check(x.r, locals)
	case *nCond:
		for _, c := range []jsNode{x.c, x.t, x.f} {
			if err := sc.check(c, locals); err != nil {
				return err
			}
		}
	case *nArray:
		for _, e := range x.elems {
			if err := sc.check(e, locals); err != nil {
				return err
			}
		}
	case *nAssign:
		switch t := x.target.(type) {
		case nIdent:
			if !locals[t.name] {
				return errUnsupportedScript
			}
		case *nMember:
			id, ok := t.obj.(nIdent)
			lit, lok := t.prop.(nLit)
			if !ok || id.name != "ctx" || !lok || lit.v != "result" {
				return errUnsupportedScript
			}
		default:
			return errUnsupportedScript
		}
		return sc.check(x.v, locals)
	case *nIf:
		if err := sc.check(x.c, locals); err != nil {
			return err
		}
		if err := sc.check(x.then, locals); err != nil {
			return err
		}
		return sc.check(x.els, locals)
	case *nBlock:
		for _, s := range x.stmts {
			if err := sc.check(s, locals); err != nil {
				return err
			}
		}
	case *nVar:
		if err := sc.check(x.v, locals); err != nil {
			return err
		}
		locals[x.name] = true
	case *nExprStmt:
		return sc.check(x.x, locals)
	default:
		return errUnsupportedScript
	}
	return nil
}

// ---- evaluation ----

// jsEnv is the per-evaluation state: the request view and ctx.result.
type jsEnv struct {
	sv     *scriptView
	result bool
	locals map[string]any
}

var errJSType = errors.New("script type error")

// run executes the script and returns its completion value.
func (sc *jsScript) run(sv *scriptView) (val any, result bool, err error) {
	env := &jsEnv{sv: sv, locals: map[string]any{}}
	var last any = undefined
	for _, s := range sc.prog.stmts {
		v, has, err := env.exec(s)
		if err != nil {
			return nil, env.result, err
		}
		if has {
			last = v
		}
	}
	return last, env.result, nil
}

func (e *jsEnv) exec(n jsNode) (any, bool, error) {
	switch x := n.(type) {
	case nEmpty:
		return nil, false, nil
	case *nBlock:
		var last any
		has := false
		for _, s := range x.stmts {
			v, h, err := e.exec(s)
			if err != nil {
				return nil, false, err
			}
			if h {
				last, has = v, true
			}
		}
		return last, has, nil
	case *nIf:
		c, err := e.eval(x.c)
		if err != nil {
			return nil, false, err
		}
		if jsTruthy(c) {
			return e.exec(x.then)
		}
		if x.hasElse {
			return e.exec(x.els)
		}
		return nil, false, nil
	case *nVar:
		v, err := e.eval(x.v)
		if err != nil {
			return nil, false, err
		}
		e.locals[x.name] = v
		return nil, false, nil
	case *nExprStmt:
		v, err := e.eval(x.x)
		return v, err == nil, err
	}
	return nil, false, errUnsupportedScript
}

func (e *jsEnv) eval(n jsNode) (any, error) {
	switch x := n.(type) {
	case nLit:
		return x.v, nil
	case nIdent:
		if v, ok := e.locals[x.name]; ok {
			return v, nil
		}
		if x.name == "undefined" {
			return undefined, nil
		}
		return e.sv.global(x.name), nil
	case *nArray:
		out := make([]any, 0, len(x.elems))
		for _, el := range x.elems {
			v, err := e.eval(el)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *nMember:
		obj, err := e.eval(x.obj)
		if err != nil {
			return nil, err
		}
		prop, err := e.eval(x.prop)
		if err != nil {
			return nil, err
		}
		return e.member(obj, jsToString(prop))
	case *nCall:
		fn, err := e.eval(x.fn)
		if err != nil {
			return nil, err
		}
		f, ok := fn.(jsFunc)
		if !ok {
			return nil, errJSType
		}
		args := make([]any, 0, len(x.args))
		for _, a := range x.args {
			v, err := e.eval(a)
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		return f(args)
	case *nUnary:
		v, err := e.eval(x.x)
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "!":
			return !jsTruthy(v), nil
		case "-":
			return -jsToNumber(v), nil
		case "+":
			return jsToNumber(v), nil
		case "typeof":
			return jsTypeof(v), nil
		}
	case *nBinary:
		if x.op == "&&" || x.op == "||" {
			l, err := e.eval(x.l)
			if err != nil {
				return nil, err
			}
			if (x.op == "&&") != jsTruthy(l) {
				return l, nil
			}
			return e.eval(x.r)
		}
		l, err := e.eval(x.l)
		if err != nil {
			return nil, err
		}
		r, err := e.eval(x.r)
		if err != nil {
			return nil, err
		}
		return jsBinary(x.op, l, r), nil
	case *nCond:
		c, err := e.eval(x.c)
		if err != nil {
			return nil, err
		}
		if jsTruthy(c) {
			return e.eval(x.t)
		}
		return e.eval(x.f)
	case *nAssign:
		v, err := e.eval(x.v)
		if err != nil {
			return nil, err
		}
		switch t := x.target.(type) {
		case nIdent:
			e.locals[t.name] = v
		case *nMember:
			e.result = jsTruthy(v)
			if b, ok := v.(bool); ok {
				e.result = b
			}
		}
		return v, nil
	}
	return nil, errUnsupportedScript
}

func (e *jsEnv) member(obj any, prop string) (any, error) {
	switch o := obj.(type) {
	case nil, jsUndefined:
		return nil, errJSType
	case *scriptView:
		if prop == "result" {
			return e.result, nil
		}
		return o.method(prop), nil
	case *tagForEval:
		switch prop {
		case "type":
			return o.Type, nil
		case "attributes":
			return jsMap(o.Attributes), nil
		case "matchType":
			return o.MatchType.String(), nil
		}
		return undefined, nil
	case jsMap:
		if prop == "get" {
			return jsFunc(func(args []any) (any, error) {
				if len(args) == 0 {
					return nil, nil
				}
				if v, ok := o[jsToString(args[0])]; ok {
					return v, nil
				}
				return nil, nil
			}), nil
		}
		if prop == "containsKey" {
			return jsFunc(func(args []any) (any, error) {
				if len(args) == 0 {
					return false, nil
				}
				_, ok := o[jsToString(args[0])]
				return ok, nil
			}), nil
		}
		if v, ok := o[prop]; ok {
			return v, nil
		}
		return undefined, nil
	case map[string]any:
		if v, ok := o[prop]; ok {
			return v, nil
		}
		return undefined, nil
	case string:
		return stringMember(o, prop), nil
	case []any:
		return arrayMember(o, prop), nil
	}
	return undefined, nil
}

func stringMember(s, prop string) any {
	switch prop {
	case "length":
		return float64(len([]rune(s)))
	case "toLowerCase":
		return jsFunc(func([]any) (any, error) { return strings.ToLower(s), nil })
	case "toUpperCase":
		return jsFunc(func([]any) (any, error) { return strings.ToUpper(s), nil })
	case "trim":
		return jsFunc(func([]any) (any, error) { return strings.TrimSpace(s), nil })
	case "includes":
		return jsFunc(func(a []any) (any, error) { return len(a) > 0 && strings.Contains(s, jsToString(a[0])), nil })
	case "startsWith":
		return jsFunc(func(a []any) (any, error) { return len(a) > 0 && strings.HasPrefix(s, jsToString(a[0])), nil })
	case "endsWith":
		return jsFunc(func(a []any) (any, error) { return len(a) > 0 && strings.HasSuffix(s, jsToString(a[0])), nil })
	case "indexOf":
		return jsFunc(func(a []any) (any, error) {
			if len(a) == 0 {
				return -1.0, nil
			}
			return float64(strings.Index(s, jsToString(a[0]))), nil
		})
	case "split":
		return jsFunc(func(a []any) (any, error) { return jsSplit(s, a), nil })
	case "equals":
		return jsFunc(func(a []any) (any, error) { return len(a) > 0 && s == jsToString(a[0]), nil })
	case "equalsIgnoreCase":
		return jsFunc(func(a []any) (any, error) { return len(a) > 0 && strings.EqualFold(s, jsToString(a[0])), nil })
	}
	return undefined
}

// jsSplit is String.prototype.split with a string separator (scripts
// cannot write a regular expression literal) and an optional limit.
func jsSplit(s string, a []any) []any {
	limit := -1
	if len(a) > 1 && a[1] != any(undefined) {
		if n := jsToNumber(a[1]); !math.IsNaN(n) && n >= 0 {
			limit = int(min(n, math.MaxInt32))
		}
	}
	var parts []string
	switch {
	case len(a) == 0 || a[0] == any(undefined):
		parts = []string{s}
	case jsToString(a[0]) == "":
		for _, c := range s {
			parts = append(parts, string(c))
		}
	default:
		parts = strings.Split(s, jsToString(a[0]))
	}
	if limit >= 0 && len(parts) > limit {
		parts = parts[:limit]
	}
	return strsToAny(parts)
}

func arrayMember(a []any, prop string) any {
	switch prop {
	case "length":
		return float64(len(a))
	case "includes", "contains":
		return jsFunc(func(args []any) (any, error) {
			if len(args) == 0 {
				return false, nil
			}
			for _, v := range a {
				if jsLooseEq(v, args[0]) {
					return true, nil
				}
			}
			return false, nil
		})
	case "indexOf":
		return jsFunc(func(args []any) (any, error) {
			if len(args) == 0 {
				return -1.0, nil
			}
			for i, v := range a {
				if jsStrictEq(v, args[0]) {
					return float64(i), nil
				}
			}
			return -1.0, nil
		})
	case "intersects":
		return jsFunc(func(args []any) (any, error) {
			if len(args) == 0 {
				return false, nil
			}
			other, ok := args[0].([]any)
			if !ok {
				return false, nil
			}
			for _, v := range a {
				for _, w := range other {
					if jsStrictEq(v, w) {
						return true, nil
					}
				}
			}
			return false, nil
		})
	case "join":
		return jsFunc(func(args []any) (any, error) {
			sep := ","
			if len(args) > 0 {
				if _, u := args[0].(jsUndefined); !u {
					sep = jsToString(args[0])
				}
			}
			parts := make([]string, len(a))
			for i, v := range a {
				if v != nil && v != any(undefined) {
					parts[i] = jsToString(v)
				}
			}
			return strings.Join(parts, sep), nil
		})
	}
	return undefined
}

func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil, jsUndefined:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

func jsTypeof(v any) string {
	switch v.(type) {
	case jsUndefined:
		return "undefined"
	case nil:
		return "object"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case jsFunc:
		return "function"
	}
	return "object"
}

func jsToNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case jsUndefined:
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	case []any:
		if len(x) == 0 {
			return 0
		}
		if len(x) == 1 {
			return jsToNumber(jsToString(x[0]))
		}
	}
	return math.NaN()
}

func jsToString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case jsUndefined:
		return "undefined"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil && e != any(undefined) {
				parts[i] = jsToString(e)
			}
		}
		return strings.Join(parts, ",")
	case jsMap, map[string]any:
		return "[object Object]"
	case *tagForEval:
		return x.Type
	}
	return fmt.Sprint(v)
}

func isPrimitive(v any) bool {
	switch v.(type) {
	case nil, jsUndefined, bool, float64, string:
		return true
	}
	return false
}

func jsStrictEq(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case jsUndefined:
		_, ok := b.(jsUndefined)
		return ok
	case bool, string:
		return a == b
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	}
	return false
}

func jsLooseEq(a, b any) bool {
	an := a == nil || a == any(undefined)
	bn := b == nil || b == any(undefined)
	if an || bn {
		return an && bn
	}
	if isPrimitive(a) && isPrimitive(b) {
		_, as := a.(string)
		_, bs := b.(string)
		if as && bs {
			return a == b
		}
		if ab, ok := a.(bool); ok && !bs {
			if bb, ok := b.(bool); ok {
				return ab == bb
			}
		}
		return jsToNumber(a) == jsToNumber(b)
	}
	if !isPrimitive(a) && !isPrimitive(b) {
		return false
	}
	if !isPrimitive(a) {
		a = jsToString(a)
	}
	if !isPrimitive(b) {
		b = jsToString(b)
	}
	return jsLooseEq(a, b)
}

func jsBinary(op string, l, r any) any {
	switch op {
	case "==":
		return jsLooseEq(l, r)
	case "!=":
		return !jsLooseEq(l, r)
	case "===":
		return jsStrictEq(l, r)
	case "!==":
		return !jsStrictEq(l, r)
	case "<", "<=", ">", ">=":
		if !isPrimitive(l) {
			l = jsToString(l)
		}
		if !isPrimitive(r) {
			r = jsToString(r)
		}
		ls, lok := l.(string)
		rs, rok := r.(string)
		if lok && rok {
			switch op {
			case "<":
				return ls < rs
			case "<=":
				return ls <= rs
			case ">":
				return ls > rs
			}
			return ls >= rs
		}
		a, b := jsToNumber(l), jsToNumber(r)
		if math.IsNaN(a) || math.IsNaN(b) {
			return false
		}
		switch op {
		case "<":
			return a < b
		case "<=":
			return a <= b
		case ">":
			return a > b
		}
		return a >= b
	case "+":
		if !isPrimitive(l) {
			l = jsToString(l)
		}
		if !isPrimitive(r) {
			r = jsToString(r)
		}
		_, ls := l.(string)
		_, rs := r.(string)
		if ls || rs {
			return jsToString(l) + jsToString(r)
		}
		return jsToNumber(l) + jsToNumber(r)
	case "-":
		return jsToNumber(l) - jsToNumber(r)
	case "*":
		return jsToNumber(l) * jsToNumber(r)
	case "/":
		return jsToNumber(l) / jsToNumber(r)
	case "%":
		return math.Mod(jsToNumber(l), jsToNumber(r))
	}
	return undefined
}

// ---- the request as scripts see it ----

// scriptView is what a script sees of a request (Ranger's
// RangerRequestScriptEvaluator).
type scriptView struct {
	req        *request
	userAttrs  map[string]string
	groupAttrs map[string]map[string]string
	groups     []string
	roles      []string
	tags       map[string]*tagForEval
	tagNames   []string
	cur        *tagForEval
}

func newScriptView(r *request) *scriptView {
	sv := &scriptView{req: r, userAttrs: map[string]string{}, groupAttrs: map[string]map[string]string{}}
	for k, v := range r.userAttrs {
		sv.userAttrs[k] = v
	}
	sv.userAttrs["_name"] = r.user
	sv.groups = sortedKeys(r.groups)
	sv.roles = sortedKeys(r.roles)
	for _, g := range sv.groups {
		a := map[string]string{}
		for k, v := range r.groupAttrs[g] {
			a[k] = v
		}
		a["_name"] = g
		sv.groupAttrs[g] = a
	}
	sv.tags = map[string]*tagForEval{}
	for _, t := range r.tags {
		sv.tags[t.Type] = t
	}
	sv.tagNames = sortedKeys(sv.tags)
	sv.cur = r.curTag
	return sv
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func strsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func tagToMap(t *tagForEval) map[string]any {
	m := map[string]any{}
	for k, v := range t.Attributes {
		m[k] = v
	}
	m["_type"] = t.Type
	m["_matchType"] = t.MatchType.String()
	return m
}

func (sv *scriptView) global(name string) any {
	switch name {
	case "ctx":
		return sv
	case "tag":
		if sv.cur == nil {
			return nil
		}
		return sv.cur
	case "tagAttr":
		if sv.cur == nil {
			return jsMap{}
		}
		return jsMap(sv.cur.Attributes)
	case "USER":
		m := map[string]any{}
		for k, v := range sv.userAttrs {
			m[k] = v
		}
		return m
	case "UGNAMES":
		return strsToAny(sv.groups)
	case "URNAMES":
		return strsToAny(sv.roles)
	case "UG":
		m := map[string]any{}
		for g, attrs := range sv.groupAttrs {
			a := map[string]any{}
			for k, v := range attrs {
				a[k] = v
			}
			m[g] = a
		}
		return m
	case "UGA":
		sVal := map[string]any{}
		mVal := map[string]any{}
		for _, g := range sv.groups {
			for k, v := range sv.req.groupAttrs[g] {
				if _, ok := sVal[k]; !ok {
					sVal[k] = v
				}
				l, _ := mVal[k].([]any)
				mVal[k] = append(l, v)
			}
		}
		return map[string]any{"sVal": sVal, "mVal": mVal}
	case "TAG":
		if sv.cur == nil {
			return map[string]any{}
		}
		return tagToMap(sv.cur)
	case "TAGS":
		m := map[string]any{}
		for k, t := range sv.tags {
			m[k] = tagToMap(t)
		}
		return m
	case "TAGNAMES":
		return strsToAny(sv.tagNames)
	case "REQ":
		return sv.reqObject()
	case "RES":
		return sv.resObject()
	}
	return undefined
}

func (sv *scriptView) resObject() map[string]any {
	m := map[string]any{}
	if sv.req.res != nil {
		for k, v := range sv.req.res.elems {
			switch x := v.(type) {
			case string:
				m[k] = x
			case []string:
				m[k] = strsToAny(x)
			}
		}
		m["_ownerUser"] = nilIfEmpty(sv.req.res.owner)
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (sv *scriptView) reqObject() map[string]any {
	at := sv.req.accessType
	return map[string]any{
		"accessType":  at,
		"user":        sv.req.user,
		"userGroups":  strsToAny(sv.groups),
		"userRoles":   strsToAny(sv.roles),
		"requestData": nilIfEmpty(sv.req.requestData),
		"resource":    sv.resObject(),
		"userAttributes": func() map[string]any {
			m := map[string]any{}
			for k, v := range sv.userAttrs {
				m[k] = v
			}
			return m
		}(),
		"clientIPAddress": nilIfEmpty(sv.req.clientIP),
	}
}

func csvArgs(args []any, quoted bool) (def *string, sep, open, cls string) {
	sep, open = ",", "'"
	if len(args) > 0 && args[0] != nil && args[0] != any(undefined) {
		s := jsToString(args[0])
		def = &s
	}
	if len(args) > 1 {
		if args[1] == nil || args[1] == any(undefined) {
			sep = ""
		} else {
			sep = jsToString(args[1])
		}
	}
	if len(args) > 2 {
		if args[2] == nil || args[2] == any(undefined) {
			open = ""
		} else {
			open = jsToString(args[2])
		}
	}
	cls = open
	if len(args) > 3 && args[3] != nil && args[3] != any(undefined) {
		cls = jsToString(args[3])
	}
	if !quoted {
		open, cls = "", ""
	}
	return
}

func toCsv(values []string, args []any, quoted bool) string {
	def, sep, open, cls := csvArgs(args, quoted)
	var b strings.Builder
	for _, v := range values {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(open + v + cls)
	}
	if b.Len() == 0 && def != nil {
		b.WriteString(open + *def + cls)
	}
	return b.String()
}

func argStr(args []any, i int) string {
	if i < len(args) {
		return jsToString(args[i])
	}
	return ""
}

func (sv *scriptView) tagAttrValues(name string) []string {
	var out []string
	for _, n := range sv.tagNames {
		if v, ok := sv.tags[n].Attributes[name]; ok {
			out = append(out, v)
		}
	}
	return out
}

func (sv *scriptView) ugAttrValues(name string) []string {
	var out []string
	for _, g := range sv.groups {
		if v, ok := sv.groupAttrs[g][name]; ok {
			out = append(out, v)
		}
	}
	return out
}

func namesWithout(m map[string]string, skip ...string) []string {
	var out []string
	for k := range m {
		if !containsStr(skip, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (sv *scriptView) attrValue(tagType, attr string) (string, bool) {
	if tagType == "" {
		if sv.cur == nil {
			return "", false
		}
		v, ok := sv.cur.Attributes[attr]
		return v, ok
	}
	for _, t := range sv.req.tags {
		if t.Type == tagType {
			v, ok := t.Attributes[attr]
			return v, ok
		}
	}
	return "", false
}

func (sv *scriptView) method(name string) any {
	sv2 := sv
	f := func(fn func(args []any) any) jsFunc {
		return func(args []any) (any, error) { return fn(args), nil }
	}
	switch name {
	case "isAccessedAfter", "isAccessedBefore":
		after := name == "isAccessedAfter"
		return f(func(a []any) any {
			var v string
			var ok bool
			if len(a) >= 2 {
				v, ok = sv2.attrValue(argStr(a, 0), argStr(a, 1))
			} else {
				v, ok = sv2.attrValue("", argStr(a, 0))
			}
			at := sv2.req.accessTime
			var d time.Time
			parsed := false
			if ok {
				d, parsed = parseTagDate(v)
			}
			if after {
				return !parsed || at.After(d) || at.Equal(d)
			}
			return parsed && !at.After(d)
		})
	case "getAttributeValue":
		return f(func(a []any) any {
			var v string
			var ok bool
			if len(a) >= 2 {
				v, ok = sv2.attrValue(argStr(a, 0), argStr(a, 1))
			} else {
				v, ok = sv2.attrValue("", argStr(a, 0))
			}
			if !ok {
				return nil
			}
			return v
		})
	case "getUser":
		return f(func([]any) any { return sv2.req.user })
	case "getUserGroups":
		return f(func([]any) any { return strsToAny(sv2.groups) })
	case "getUserRoles":
		return f(func([]any) any { return strsToAny(sv2.roles) })
	case "getAccessType":
		return f(func([]any) any { return sv2.req.accessType })
	case "isAccessTypeAny":
		return f(func([]any) any { return sv2.req.isAccessTypeAny() })
	case "getRequestData":
		return f(func([]any) any { return nilIfEmpty(sv2.req.requestData) })
	case "isInGroup":
		return f(func(a []any) any { return containsStr(sv2.groups, argStr(a, 0)) })
	case "isInRole":
		return f(func(a []any) any { return containsStr(sv2.roles, argStr(a, 0)) })
	case "isInAnyGroup":
		return f(func([]any) any { return len(sv2.groups) > 0 })
	case "isInAnyRole":
		return f(func([]any) any { return len(sv2.roles) > 0 })
	case "hasTag":
		return f(func(a []any) any { _, ok := sv2.tags[argStr(a, 0)]; return ok })
	case "hasAnyTag":
		return f(func([]any) any { return len(sv2.tags) > 0 })
	case "hasUserAttr":
		return f(func(a []any) any { _, ok := sv2.userAttrs[argStr(a, 0)]; return ok })
	case "hasUgAttr":
		return f(func(a []any) any {
			for _, at := range sv2.groupAttrs {
				if _, ok := at[argStr(a, 0)]; ok {
					return true
				}
			}
			return false
		})
	case "hasTagAttr":
		return f(func(a []any) any {
			for _, t := range sv2.req.tags {
				if _, ok := t.Attributes[argStr(a, 0)]; ok {
					return true
				}
			}
			return false
		})
	case "getCurrentTagType":
		return f(func([]any) any {
			if sv2.cur == nil {
				return nil
			}
			return sv2.cur.Type
		})
	case "getAllTagTypes":
		return f(func([]any) any {
			if len(sv2.tagNames) == 0 {
				return nil
			}
			return strsToAny(sv2.tagNames)
		})
	case "getTagAttributes":
		return f(func(a []any) any {
			for _, t := range sv2.req.tags {
				if t.Type == argStr(a, 0) {
					return jsMap(t.Attributes)
				}
			}
			return nil
		})
	case "getAttributeNames":
		return f(func(a []any) any {
			for _, t := range sv2.req.tags {
				if t.Type == argStr(a, 0) {
					return strsToAny(namesWithout(t.Attributes))
				}
			}
			return nil
		})
	}
	csv := func(values func(a []any) ([]string, []any), quoted bool) jsFunc {
		return f(func(a []any) any {
			v, rest := values(a)
			return toCsv(v, rest, quoted)
		})
	}
	all := func(v func() []string) func(a []any) ([]string, []any) {
		return func(a []any) ([]string, []any) { return v(), a }
	}
	byAttr := func(v func(string) []string) func(a []any) ([]string, []any) {
		return func(a []any) ([]string, []any) {
			if len(a) == 0 {
				return v(""), nil
			}
			return v(jsToString(a[0])), a[1:]
		}
	}
	fixed := func(v func() []string, quoted bool) jsFunc {
		return f(func([]any) any {
			if quoted {
				return toCsv(v(), []any{nil, ",", "'"}, true)
			}
			return toCsv(v(), []any{nil, ","}, false)
		})
	}
	tagAttrNames := func() []string {
		set := map[string]bool{}
		for _, t := range sv2.tags {
			for k := range t.Attributes {
				set[k] = true
			}
		}
		return sortedKeys(set)
	}
	ugAttrNames := func() []string {
		set := map[string]bool{}
		for _, a := range sv2.groupAttrs {
			for k := range a {
				if k != "_name" {
					set[k] = true
				}
			}
		}
		return sortedKeys(set)
	}
	userAttrNames := func() []string { return namesWithout(sv2.userAttrs, "_name") }
	groups := func() []string { return sv2.groups }
	roles := func() []string { return sv2.roles }
	tagNames := func() []string { return sv2.tagNames }
	userAttr := func(n string) []string {
		if v, ok := sv2.userAttrs[n]; ok {
			return []string{v}
		}
		return nil
	}
	switch name {
	case "tagNames", "tagNamesQ":
		return csv(all(tagNames), name == "tagNamesQ")
	case "tagAttrNames", "tagAttrNamesQ":
		return csv(all(tagAttrNames), name == "tagAttrNamesQ")
	case "tagAttr", "tagAttrQ":
		return csv(byAttr(sv2.tagAttrValues), name == "tagAttrQ")
	case "ugNames", "ugNamesQ":
		return csv(all(groups), name == "ugNamesQ")
	case "ugAttrNames", "ugAttrNamesQ":
		return csv(all(ugAttrNames), name == "ugAttrNamesQ")
	case "ugAttr", "ugAttrQ":
		return csv(byAttr(sv2.ugAttrValues), name == "ugAttrQ")
	case "urNames", "urNamesQ":
		return csv(all(roles), name == "urNamesQ")
	case "userAttrNames", "userAttrNamesQ":
		return csv(all(userAttrNames), name == "userAttrNamesQ")
	case "userAttr", "userAttrQ":
		return csv(byAttr(userAttr), name == "userAttrQ")
	case "ugNamesCsv", "ugNamesCsvQ":
		return fixed(groups, name == "ugNamesCsvQ")
	case "urNamesCsv", "urNamesCsvQ":
		return fixed(roles, name == "urNamesCsvQ")
	case "tagNamesCsv", "tagNamesCsvQ":
		return fixed(tagNames, name == "tagNamesCsvQ")
	case "userAttrNamesCsv", "userAttrNamesCsvQ":
		return fixed(userAttrNames, name == "userAttrNamesCsvQ")
	case "ugAttrNamesCsv", "ugAttrNamesCsvQ":
		return fixed(ugAttrNames, name == "ugAttrNamesCsvQ")
	case "tagAttrNamesCsv", "tagAttrNamesCsvQ":
		return fixed(tagAttrNames, name == "tagAttrNamesCsvQ")
	case "ugAttrCsv", "ugAttrCsvQ":
		q := name == "ugAttrCsvQ"
		return f(func(a []any) any {
			if q {
				return toCsv(sv2.ugAttrValues(argStr(a, 0)), []any{nil, ",", "'"}, true)
			}
			return toCsv(sv2.ugAttrValues(argStr(a, 0)), []any{nil, ","}, false)
		})
	case "tagAttrCsv", "tagAttrCsvQ":
		q := name == "tagAttrCsvQ"
		return f(func(a []any) any {
			if q {
				return toCsv(sv2.tagAttrValues(argStr(a, 0)), []any{nil, ",", "'"}, true)
			}
			return toCsv(sv2.tagAttrValues(argStr(a, 0)), []any{nil, ","}, false)
		})
	}
	return undefined
}

// tagDateLayouts are the formats Ranger reads tag date attributes in
// ("yyyy/MM/dd", Atlas's "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", and the extra
// formats its test configuration adds), longest first.
var tagDateLayouts = []string{
	"2006-01-02T15:04:05.000Z",
	"2006/01/02T15:04:05.000Z",
	"2006/01/02",
}

func parseTagDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range tagDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ---- ${{...}} request expressions ----

var reReqExpr = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

func hasRequestExpressions(s string) bool {
	return strings.Contains(s, "${{") && reReqExpr.MatchString(s)
}

// evalRequestExpr evaluates the script of one ${{...}} expression.
func evalRequestExpr(expr string, r *request) (any, error) {
	sc, err := compileJS(expr)
	if err != nil {
		return nil, err
	}
	v, _, err := sc.run(newScriptView(r))
	if err != nil {
		if r.strict {
			// sqe's own requests: a value sqe could not compute must not
			// become "" in a filter or mask (fail closed).
			return nil, err
		}
		return nil, nil // a failing script yields null, as in Ranger
	}
	return v, nil
}

// resolveRequestExpressions replaces each ${{expr}} by its value, as
// Ranger's RangerRequestExprResolver does (null and undefined become "").
// For sqe's own requests, an expression that cannot be evaluated also
// sets the request's exprFailed.
func resolveRequestExpressions(s string, r *request) string {
	if !hasRequestExpressions(s) {
		return s
	}
	return reReqExpr.ReplaceAllStringFunc(s, func(m string) string {
		expr := reReqExpr.FindStringSubmatch(m)[1]
		v, err := evalRequestExpr(expr, r)
		if err != nil && r.strict && r.st != nil {
			// sqe's own request: the caller of the matcher must not take
			// "" for the value (see policyEval.evaluate).
			r.st.exprFailed = true
		}
		if err != nil || v == nil || v == any(undefined) {
			return ""
		}
		return jsToString(v)
	})
}
