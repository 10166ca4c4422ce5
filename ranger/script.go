package ranger

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
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
// method is a function sqe defines), its built-in objects are frozen and
// its global object takes no new properties, so that one run cannot
// change what the next one sees.

// defaultScriptTimeLimit bounds one run of a script (a variable so that
// the tests, which run under the race detector on loaded machines, can
// give scripts more time than a production default).
var defaultScriptTimeLimit = 25 * time.Millisecond

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
	// declares: the script declares names at its top level; it runs
	// inside a function (see compileJS).
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
	v    any    // nil, a string, a bool, a number (int64 or float64), or []any of strings
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
	sc := &jsScript{uses: map[string]bool{}}
	for _, st := range prg.Body {
		switch st.(type) {
		case *ast.VariableStatement, *ast.LexicalDeclaration, *ast.FunctionDeclaration, *ast.ClassDeclaration:
			sc.declares = true
		}
	}
	if len(prg.DeclarationList) > 0 {
		sc.declares = true
	}
	if sc.declares {
		// The global object of a runtime takes no new properties, and
		// top-level let and const would outlive the run: a script that
		// declares names runs as the direct eval of a function, where
		// its declarations are local and its completion value is kept.
		// It is compiled again for each run.
		quoted, err := json.Marshal(src)
		if err != nil {
			return nil, err
		}
		if prg, err = goja.Parse("script", "(function () { return eval("+string(quoted)+"); })()"); err != nil {
			return nil, err
		}
	}
	if sc.prog, err = goja.CompileAST(prg, false); err != nil {
		return nil, err
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
	if reusable {
		jr.clean()
		putJSRuntime(jr)
	}
	return v, result, err
}

// exec runs the script on a runtime; reusable says whether the runtime
// may run another script once cleaned.
func (sc *jsScript) exec(jr *jsRuntime, sv *scriptView) (v jsValue, result, reusable bool, err error) {
	defer func() {
		// A fault in sqe's own code under a script fails the script,
		// not the process; the runtime is not reused.
		if x := recover(); x != nil {
			v, result, reusable, err = jsValue{}, false, false, fmt.Errorf("script evaluation failed: %v", x)
		}
	}()
	reusable = true
	ctx := jr.setup(sc, sv)
	limit := sc.limit
	if limit <= 0 {
		limit = defaultScriptTimeLimit
	}
	timer := time.AfterFunc(limit, func() { jr.rt.Interrupt(errScriptTimeLimit) })
	cv, err := jr.rt.RunProgram(sc.prog)
	var out goja.Value
	if err == nil {
		// The completion value and ctx.result are read in the runtime,
		// under the time limit: reading them may run the script's code
		// (a toString, a getter).
		out, err = jr.finish(goja.Undefined(), cv, ctx)
	}
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
	// out is [null or undefined, value, string, result], of primitives
	// and arrays of strings made by finish.
	o := out.ToObject(jr.rt)
	v = jsValue{null: o.Get("0").ToBoolean()}
	if !v.null {
		v.v = o.Get("1").Export()
		v.str = o.Get("2").String()
	}
	return v, o.Get("3").ToBoolean(), reusable, nil
}

// ---- runtimes ----

// jsRuntime is a pooled goja runtime with the preamble's fixed parts.
type jsRuntime struct {
	rt       *goja.Runtime
	global   *goja.Object
	ctxProto *goja.Object
	tagProto *goja.Object
	mapProto *goja.Object
	json     goja.Value // JSON.stringify, J's value
	finish   goja.Callable
	sv       *scriptView
	set      []string // the preamble globals the current run set
}

// jsRuntimes holds the idle runtimes. A sync.Pool drops its items at
// garbage collections, and a runtime costs far more to make than a run
// (some 7ms and 500KB, against a few microseconds): the pool is backed by
// a bounded reserve of runtimes that collections keep.
var (
	jsRuntimes = sync.Pool{New: func() any {
		select {
		case jr := <-jsReserve:
			return jr
		default:
			return newJSRuntime()
		}
	}}
	jsReserve = make(chan *jsRuntime, min(2*runtime.GOMAXPROCS(0), 16))
)

func getJSRuntime() *jsRuntime { return jsRuntimes.Get().(*jsRuntime) }

// warmJSRuntimes makes a runtime ahead of the first run when none is
// idle, so that the first decision that runs a script does not pay for
// it. It is called when a snapshot with scripts is built, off the
// statement path.
func warmJSRuntimes() {
	if len(jsReserve) == 0 {
		putJSRuntime(newJSRuntime())
	}
}

func putJSRuntime(jr *jsRuntime) {
	select {
	case jsReserve <- jr:
	default:
		jsRuntimes.Put(jr)
	}
}

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
	var finish = function (v, c) {
		var none = v === null || v === undefined;
		var value = null;
		if (typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') {
			value = v;
		} else if (Array.isArray(v)) {
			value = [];
			for (var i = 0; i < v.length; i++) { value.push(String(v[i])); }
		}
		return [none, value, none ? '' : String(v), !!c.result];
	};
	harden(mapProto);
	harden(tagProto);
	harden(finish);
	return [mapProto, tagProto, finish];
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
	jr.finish, _ = goja.AssertFunction(po.Get("2"))
	jr.ctxProto = jr.newCtxProto()
	for name := range preambleNames {
		if err := jr.global.DefineDataProperty(name, goja.Undefined(), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			panic("ranger: script runtime initialisation: " + err.Error())
		}
	}
	preventExtensions, _ := goja.AssertFunction(rt.GlobalObject().Get("Object").ToObject(rt).Get("preventExtensions"))
	if _, err := preventExtensions(goja.Undefined(), jr.global); err != nil {
		panic("ranger: script runtime initialisation: " + err.Error())
	}
	return jr
}

// clean readies the runtime for the next run: no pending interrupt, and
// the preamble of the last run gone.
func (jr *jsRuntime) clean() {
	jr.rt.ClearInterrupt()
	for _, name := range jr.set {
		_ = jr.global.Set(name, goja.Undefined())
	}
	jr.set = jr.set[:0]
}
