package ranger

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// This file holds what Ranger does to a script before it runs it (macros,
// the [[X]] shorthand), the tag date formats, and ${{...}} request
// expressions. The engine that runs scripts is in script.go.

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

// exprScripts keeps the compiled scripts of request expressions: their
// text comes from the policies of the snapshots, so it is bounded by them;
// past maxExprScripts entries a script is compiled for each use.
var (
	exprScripts     sync.Map // string -> *jsScript
	exprScriptCount atomic.Int64
)

const maxExprScripts = 4096

func compileExpr(expr string) (*jsScript, error) {
	if sc, ok := exprScripts.Load(expr); ok {
		return sc.(*jsScript), nil
	}
	sc, err := compileJS(expr)
	if err != nil {
		return nil, err
	}
	if exprScriptCount.Load() < maxExprScripts {
		if _, loaded := exprScripts.LoadOrStore(expr, sc); !loaded {
			exprScriptCount.Add(1)
		}
	}
	return sc, nil
}

// evalRequestExpr evaluates the script of one ${{...}} expression.
func evalRequestExpr(expr string, r *request) (jsValue, error) {
	sc, err := compileExpr(expr)
	if err != nil {
		return jsValue{}, err
	}
	v, _, err := sc.run(newScriptView(r))
	if err != nil {
		if r.strict {
			// sqe's own requests: a value sqe could not compute must not
			// become "" in a filter or mask (fail closed).
			return jsValue{}, err
		}
		return jsValue{null: true}, nil // a failing script yields null, as in Ranger
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
		if err != nil || v.null {
			return ""
		}
		return v.str
	})
}
