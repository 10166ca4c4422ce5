package ranger

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

func securityRequest() *request {
	return &request{
		res:        &accessResource{elems: map[string]any{"database": "db1", "table": "t1"}},
		accessType: "select",
		user:       "ann",
		groups:     map[string]bool{"analysts": true},
		userAttrs:  map[string]string{"dept": "ENGG"},
		context:    map[string]any{},
		accessTime: time.Now(),
		st:         &evalState{},
	}
}

// Scripts cannot reach the host: no process, module loader, console,
// Java bridge or file system, and the values sqe hands them are plain
// JavaScript values, not Go objects with methods.
func TestScriptHasNoHostAccess(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "created")
	for _, script := range []string{
		`this.constructor.constructor('return process')()`,
		`Function('return process')().env`,
		`ctx.getUser.constructor('return process')()`,
		`require('fs').readFileSync('/etc/passwd')`,
		`console.log('x')`,
		`Java.type('java.lang.Runtime').getRuntime().exec('touch ` + marker + `')`,
		`java.lang.Runtime.getRuntime().exec('touch ` + marker + `')`,
		`new java.io.File('` + marker + `').createNewFile()`,
		`load('` + marker + `')`,
		`ctx.getClass().getClassLoader()`,
		`tag.getClass()`,
		`ctx.getUser.call(null).getClass()`,
	} {
		sc, err := compileJS(script)
		if err != nil {
			t.Fatalf("%s: does not compile: %v", script, err)
		}
		v, _, err := sc.run(newScriptView(securityRequest()))
		if err == nil {
			t.Errorf("%s: ran, with %#v; want it to fail", script, v.v)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a script created a file")
	}

	// What scripts reach is JavaScript: ctx's own properties are the
	// methods sqe defines, values are plain strings and arrays.
	r := securityRequest()
	r.tags = []*tagForEval{newTagForEval(&Tag{Type: "PII", Attributes: map[string]string{"level": "2"}}, mtSelf)}
	r.curTag = r.tags[0]
	for script, want := range map[string]string{
		`Object.getOwnPropertyNames(Object.getPrototypeOf(ctx)).sort().join(',')`: "",
		`typeof ctx.getUser()`:                                                     "string",
		`Object.getPrototypeOf(UGNAMES) === Array.prototype`:                       "true",
		`Object.getPrototypeOf(USER) === Object.prototype`:                         "true",
		`typeof ctx.getUser.constructor('return this')().process`:                  "undefined",
		`typeof globalThis.require + typeof globalThis.console`:                    "undefinedundefined",
		`Object.keys(tagAttr).join(',') + ':' + tagAttr.get('level')`:              "level:2",
		`tag.getType() + ':' + tag.type + ':' + Object.keys(tag).sort().join(',')`: "PII:PII:attributes,matchType,type",
	} {
		sc, err := compileJS(script)
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		v, _, err := sc.run(newScriptView(r))
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		if want == "" {
			names := strings.Split(v.str, ",")
			var extra []string
			for _, n := range names {
				if !ctxMethodNames[n] {
					extra = append(extra, n)
				}
			}
			if len(extra) > 0 || len(names) != len(ctxMethodNames) {
				sort.Strings(extra)
				t.Errorf("ctx has %d methods, %d expected; not sqe's: %v", len(names), len(ctxMethodNames), extra)
			}
			continue
		}
		if v.str != want {
			t.Errorf("%s = %q, want %q", script, v.str, want)
		}
	}
}

// A script that runs too long is interrupted, and one that recurses
// without end stops at the call depth: both fail.
func TestScriptTimeLimitAndDepth(t *testing.T) {
	for _, script := range []string{
		`while (true) {}`,
		`for (;;) { USER.dept.split(''); }`,
		`var n = 0; while (n >= 0) { n++; } n > 0`,
		`function f(n) { return f(n + 1) + 1; } f(0)`,
		// Reading the completion value or ctx.result runs the script's
		// code too.
		`({toString: function () { while (true) {} }})`,
		`var a = []; Object.defineProperty(a, 0, {get: function () { while (true) {} }}); a`,
		`Object.defineProperty(ctx, 'result', {get: function () { for (;;) {} }}); null`,
	} {
		sc, err := compileJS(script)
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		sc.limit = 5 * time.Millisecond
		if _, _, err := sc.run(newScriptView(securityRequest())); err == nil {
			t.Errorf("%s: finished", script)
		}
	}
	// The runtimes the interrupted scripts ran on are usable again.
	sc, err := compileJS(`USER.dept == 'ENGG'`)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		v, _, err := sc.run(newScriptView(securityRequest()))
		if err != nil || v.v != true {
			t.Fatalf("after an interrupt: %#v, %v", v.v, err)
		}
	}
}

// A condition that exceeds its time limit counts against the caller: the
// deny item it guards applies and names its policy, the allow item it
// guards does not grant, and the failure is counted.
func TestScriptTimeLimitFailsClosed(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies,
		&Policy{ID: 90, Name: "deny while looping", Resources: res3("fx", "loopdeny", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u"), "while (true) {} false")}},
		&Policy{ID: 91, Name: "allow while looping", Resources: res3("fx", "loopallow", "*"),
			PolicyItems: []*PolicyItem{withScript(selectFor("u"), "for (;;) {} true")}},
	)
	src, err := NewStatic(b, WithScriptTimeLimit(2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	snap := src.Current()
	v, err := snap.View(session.User{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(policy.TableName{Schema: "fx", Table: "loopdeny"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) || !strings.HasPrefix(d.Reason(policy.Select), "ranger policy 90") {
		t.Errorf("loopdeny: select allowed = %v, denied by %q; want denied by ranger policy 90", d.Allows(policy.Select), d.Reason(policy.Select))
	}
	d, err = v.Decide(policy.TableName{Schema: "fx", Table: "loopallow"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allows(policy.Select) {
		t.Error("loopallow: a script interrupted at its time limit granted select")
	}
	if snap.ScriptFailures() == 0 {
		t.Error("the interrupted scripts were not counted")
	}
}

// A run leaves nothing for the next run on the same runtime: globals it
// assigns or declares do not outlive it, built-ins and ctx's methods
// cannot be replaced.
func TestScriptRunsShareNothing(t *testing.T) {
	jr := newJSRuntime()
	run := func(script string, user string) (jsValue, error) {
		t.Helper()
		sc, err := compileJS(script)
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		r := securityRequest()
		r.user = user
		v, _, reusable, err := sc.exec(jr, newScriptView(r))
		if !reusable {
			t.Fatalf("%s: the runtime is not reusable", script)
		}
		jr.clean()
		return v, err
	}
	for _, c := range []struct{ first, then, want string }{
		{`leaked = USER._name; true`, `typeof leaked`, "undefined"},
		{`this.leaked2 = REQ.user; true`, `typeof leaked2`, "undefined"},
		{`Object.defineProperty(this, 'hidden', {value: USER._name}); true`, `typeof hidden`, "undefined"},
		{`var secret = USER._name; true`, `typeof secret`, "undefined"},
		{`if (true) { var nested = USER._name; } true`, `typeof nested`, "undefined"},
		{`function f() { return USER._name; } f()`, `typeof f`, "undefined"},
		{`let x = USER._name; x`, `let x = 1; x`, "1"},
		{`const y = USER._name; y`, `typeof y`, "undefined"},
		{`class C {}; true`, `typeof C`, "undefined"},
		{`USER.dept = 'HR'; true`, `USER.dept`, "ENGG"},
		{`REQ.user = 'root'; true`, `REQ.user`, "ann"},
		{`Array.prototype.includes = function () { return true; }; true`, `['a'].includes('b')`, "false"},
		{`Array.prototype.intersects = function () { return true; }; true`, `['a'].intersects(['b'])`, "false"},
		{`Object.prototype.polluted = 1; true`, `typeof ({}).polluted`, "undefined"},
		{`String.prototype.split = function () { return ['x']; }; true`, `'a,b'.split(',').length`, "2"},
		{`[][Symbol.iterator]().__proto__.next = function () { return {done: true}; }; true`, `[...[1, 2]].length`, "2"},
		{`JSON.stringify = function () { return 'x'; }; J = function () { return 'y'; }; true`, `J([1])`, "[1]"},
		{`ctx.isInGroup = function () { return true; }; true`, `ctx.isInGroup('nobody')`, "false"},
		{`Object.getPrototypeOf(ctx).isInGroup = function () { return true; }; true`, `ctx.isInGroup('nobody')`, "false"},
		{`Math = null; true`, `Math.max(1, 2)`, "2"},
	} {
		_, _ = run(c.first, "mallory") // it may fail: what matters is what the next run sees
		v, err := run(c.then, "ann")
		if err != nil {
			t.Fatalf("after %s: %s: %v", c.first, c.then, err)
		}
		if v.str != c.want {
			t.Errorf("after %s: %s = %q, want %q", c.first, c.then, v.str, c.want)
		}
	}
	// A script with top-level declarations runs again and again on the
	// pool.
	sc, err := compileJS(`let total = 1; const two = 2; var three = total + two; three == 3`)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if v, _, err := sc.run(newScriptView(securityRequest())); err != nil || v.v != true {
			t.Fatalf("another run: %#v, %v", v.v, err)
		}
	}
}

// A script that reads the time makes the snapshot's cached decisions
// depend on the minute; one that does not leaves them alone.
func TestScriptTimeSensitivity(t *testing.T) {
	for script, want := range map[string]bool{
		"IS_ACCESS_TIME_AFTER('2020/01/01')":                  true,
		"ctx.isAccessTimeBetween('2020/01/01', '2100/01/01')": true,
		"ctx.isAccessedBefore('expiry')":                      true,
		"new Date().getHours() < 18":                          true,
		"REQ.accessTime > 0":                                  true,
		"USER.dept == 'ENGG' && IS_IN_GROUP('eu')":            false,
		"TAGS.PII.level > 1":                                  false,
	} {
		b := loadShop(t)
		b.Policies = append(b.Policies, &Policy{ID: 96, Name: "timed", Resources: res3("fx", "t", "*"),
			PolicyItems: []*PolicyItem{withScript(selectFor("u"), script)}})
		src, err := NewStatic(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := src.Current().minuteClock; got != want {
			t.Errorf("%s: decisions depend on the minute = %v, want %v", script, got, want)
		}
	}
}
