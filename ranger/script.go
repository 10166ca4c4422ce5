package ranger

import (
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
)

// Condition scripts and ${{...}} request expressions run on goja, a
// JavaScript engine written in Go (ECMAScript 5.1 and most of 2015+).
//
// A script is compiled once, when the snapshot that holds it is built
// (compileJS), and run on a runtime taken from a pool. Before each run the
// runtime gets Ranger's preamble for the request (ctx, tag, tagAttr,
// _ctx, J, REQ, RES, USER, UGNAMES, UG, UGA, URNAMES, TAG, TAGS,
// TAGNAMES, and Array.prototype.intersects); a run that takes longer than
// its time limit is interrupted. Scripts reach nothing of the host: the
// runtime has no require, no console, no Go value with methods (every ctx
// method is a function sqe defines), and its built-in objects are frozen
// so that one run cannot change what the next one sees. A runtime whose
// global scope a script changed in a way sqe cannot undo (a top-level
// var, let, const, function or class) is not reused.

// defaultScriptTimeLimit bounds one run of a script.
const defaultScriptTimeLimit = 25 * time.Millisecond

// errScriptTimeLimit is the value a run that exceeds its limit is
// interrupted with.
var errScriptTimeLimit = errors.New("script exceeded its time limit")

// maxScriptCallDepth bounds recursion: a script that recurses deeper
// fails with a RangeError instead of running until its time limit.
const maxScriptCallDepth = 512

// jsScript is a compiled script.
type jsScript struct {
	prog *goja.Program
	// limit bounds a run (0: defaultScriptTimeLimit).
	limit time.Duration
	// declares: the script declares names in the global scope; the
	// runtime that ran it is not reused.
	declares bool
	// uses is the preamble the script needs (usesAll: all of it).
	uses    map[string]bool
	usesAll bool
	// timeSensitive: the result may depend on the time of the request.
	timeSensitive bool
	// unknownMethods are the ctx methods the script calls that ctx does
	// not have, hostNames the host objects of Ranger's Java engines it
	// names: the script fails when it gets there.
	unknownMethods []string
	hostNames      []string
}

// jsValue is a script's completion value.
type jsValue struct {
	v    any    // exported: nil, string, bool, int64, float64, []any, map[string]any
	str  string // JavaScript's ToString of the value
	null bool   // null or undefined
}

var (
	reIdent       = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
	reCtxCall     = regexp.MustCompile(`\bctx\s*\.\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\(`)
	reHostName    = regexp.MustCompile(`(?:^|[^.\w$])(java|javax|Java|JavaImporter|Packages|load|loadWithNewGlobal|exit|quit|print|require|process)\b`)
	reTimeReading = regexp.MustCompile(`\b(Date|accessTime|getAccessTime|isAccessedAfter|isAccessedBefore|isAccessTimeAfter|isAccessTimeBefore|isAccessTimeBetween)\b`)
)

// dynamicGlobals are names through which a script can reach a global
// variable without naming it.
var dynamicGlobals = map[string]bool{"this": true, "globalThis": true, "eval": true, "Function": true, "constructor": true}

// compileJS compiles a script as Ranger runs it: macros expanded and the
// [[X]] shorthand replaced.
func compileJS(src string) (*jsScript, error) {
	src = replaceDoubleBrackets(expandMacros(src))
	prg, err := goja.Parse("script", src)
	if err != nil {
		return nil, err
	}
	prog, err := goja.CompileAST(prg, false)
	if err != nil {
		return nil, err
	}
	sc := &jsScript{prog: prog, uses: map[string]bool{}}
	for _, st := range prg.Body {
		switch st.(type) {
		case *ast.VariableStatement, *ast.LexicalDeclaration, *ast.FunctionDeclaration, *ast.ClassDeclaration:
			sc.declares = true
		}
	}
	if len(prg.DeclarationList) > 0 {
		sc.declares = true
	}
	for _, id := range reIdent.FindAllString(src, -1) {
		if dynamicGlobals[id] {
			sc.usesAll = true
		}
		if preambleNames[id] {
			sc.uses[id] = true
		}
	}
	sc.timeSensitive = reTimeReading.MatchString(src)
	seen := map[string]bool{}
	for _, m := range reCtxCall.FindAllStringSubmatch(src, -1) {
		if !ctxMethodNames[m[1]] && !seen[m[1]] {
			seen[m[1]] = true
			sc.unknownMethods = append(sc.unknownMethods, m[1])
		}
	}
	seen = map[string]bool{}
	for _, m := range reHostName.FindAllStringSubmatch(src, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			sc.hostNames = append(sc.hostNames, m[1])
		}
	}
	return sc, nil
}

// run executes the script for a request on a pooled runtime and returns
// its completion value and ctx.result. A script that throws, is
// interrupted or exceeds the call depth returns an error.
func (sc *jsScript) run(sv *scriptView) (jsValue, bool, error) {
	jr := getJSRuntime()
	v, result, reusable, err := sc.exec(jr, sv)
	if reusable && jr.clean() {
		jsRuntimes.Put(jr)
	}
	return v, result, err
}

// exec runs the script on a runtime; reusable says whether the runtime
// may run another script once cleaned.
func (sc *jsScript) exec(jr *jsRuntime, sv *scriptView) (v jsValue, result, reusable bool, err error) {
	reusable = !sc.declares
	ctx := jr.setup(sc, sv)
	limit := sc.limit
	if limit <= 0 {
		limit = defaultScriptTimeLimit
	}
	timer := time.AfterFunc(limit, func() { jr.rt.Interrupt(errScriptTimeLimit) })
	cv, err := jr.rt.RunProgram(sc.prog)
	if !timer.Stop() {
		// The interrupt may be pending or under way: the runtime is
		// not reused.
		reusable = false
	}
	jr.sv = nil
	if err != nil {
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			return jsValue{}, false, reusable, fmt.Errorf("script interrupted after %v", limit)
		}
		return jsValue{}, false, reusable, err
	}
	res := ctx.Get("result")
	return exportJS(cv), res != nil && res.ToBoolean(), reusable, nil
}

func exportJS(v goja.Value) jsValue {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return jsValue{null: true}
	}
	return jsValue{v: v.Export(), str: v.String()}
}

// ---- runtimes ----

// jsRuntime is a pooled goja runtime with the preamble's fixed parts.
type jsRuntime struct {
	rt       *goja.Runtime
	global   *goja.Object
	baseline map[string]bool
	ctxProto *goja.Object
	tagProto *goja.Object
	mapProto *goja.Object
	json     goja.Value // JSON.stringify, J's value
	sv       *scriptView
}

var jsRuntimes = sync.Pool{New: func() any { return newJSRuntime() }}

func getJSRuntime() *jsRuntime { return jsRuntimes.Get().(*jsRuntime) }

// preambleNames are the globals set for each run.
var preambleNames = map[string]bool{
	"ctx": true, "tag": true, "tagAttr": true, "_ctx": true, "J": true, "REQ": true, "RES": true,
	"USER": true, "UGNAMES": true, "UG": true, "UGA": true, "URNAMES": true, "TAG": true, "TAGS": true, "TAGNAMES": true,
}

// jsInit runs once per runtime: Ranger's intersects helper, the
// prototypes of the objects sqe hands to scripts, then every built-in
// object reachable from the global object frozen and every global binding
// made read-only.
const jsInit = `(function (g) {
	Object.defineProperty(Array.prototype, 'intersects', {
		value: function (other) {
			if (other === null || other === undefined) { return false; }
			for (var i = 0; i < this.length; i++) {
				if (other.indexOf(this[i]) !== -1) { return true; }
			}
			return false;
		}
	});
	var own = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
	var mapProto = Object.create(null);
	mapProto.get = function (k) { return own(this, k) ? this[k] : null; };
	mapProto.containsKey = function (k) { return own(this, k); };
	mapProto.keySet = function () { return Object.keys(this); };
	mapProto.size = function () { return Object.keys(this).length; };
	mapProto.isEmpty = function () { return Object.keys(this).length === 0; };
	var tagProto = Object.create(null);
	tagProto.getType = function () { return this.type; };
	tagProto.getAttributes = function () { return this.attributes; };
	tagProto.getMatchType = function () { return this.matchType; };
	var seen = [];
	var harden = function (o) {
		if (o === null || (typeof o !== 'object' && typeof o !== 'function') || o === g || seen.indexOf(o) !== -1) { return; }
		seen.push(o);
		Object.freeze(o);
		harden(Object.getPrototypeOf(o));
		var keys = Reflect.ownKeys(o);
		for (var i = 0; i < keys.length; i++) {
			var d = Object.getOwnPropertyDescriptor(o, keys[i]);
			if (d === undefined) { continue; }
			if (own(d, 'value')) { harden(d.value); } else { harden(d.get); harden(d.set); }
		}
	};
	harden([][Symbol.iterator]());
	harden(new Map().entries());
	harden(new Set().values());
	harden(''[Symbol.iterator]());
	harden(function* () {});
	harden(function* () {}());
	var names = Object.getOwnPropertyNames(g);
	for (var i = 0; i < names.length; i++) {
		harden(g[names[i]]);
		var d = Object.getOwnPropertyDescriptor(g, names[i]);
		if (d.configurable || d.writable) {
			Object.defineProperty(g, names[i], {writable: false, configurable: false});
		}
	}
	harden(mapProto);
	harden(tagProto);
	return [mapProto, tagProto];
})(this)`

func newJSRuntime() *jsRuntime {
	rt := goja.New()
	rt.SetMaxCallStackSize(maxScriptCallDepth)
	jr := &jsRuntime{rt: rt, global: rt.GlobalObject()}
	jr.json = rt.GlobalObject().Get("JSON").ToObject(rt).Get("stringify")
	protos, err := rt.RunString(jsInit)
	if err != nil {
		panic("ranger: script runtime initialisation: " + err.Error())
	}
	po := protos.ToObject(rt)
	jr.mapProto = po.Get("0").ToObject(rt)
	jr.tagProto = po.Get("1").ToObject(rt)
	jr.ctxProto = jr.newCtxProto()
	for name := range preambleNames {
		if err := jr.global.DefineDataProperty(name, goja.Undefined(), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			panic("ranger: script runtime initialisation: " + err.Error())
		}
	}
	jr.baseline = map[string]bool{}
	for _, k := range jr.global.GetOwnPropertyNames() {
		jr.baseline[k] = true
	}
	return jr
}

// clean removes the globals a run added; it reports whether the runtime
// is as it was before the run.
func (jr *jsRuntime) clean() bool {
	jr.rt.ClearInterrupt()
	if len(jr.global.Symbols()) > 0 {
		return false
	}
	for _, k := range jr.global.GetOwnPropertyNames() {
		if jr.baseline[k] {
			continue
		}
		if err := jr.global.Delete(k); err != nil {
			return false
		}
	}
	for _, k := range jr.global.GetOwnPropertyNames() {
		if !jr.baseline[k] {
			return false
		}
	}
	for name := range preambleNames {
		if err := jr.global.Set(name, goja.Undefined()); err != nil {
			return false
		}
	}
	return true
}
