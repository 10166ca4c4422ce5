package ranger

import (
	"net"
	"strings"
	"sync/atomic"
)

// condEval evaluates one policy or policy-item condition.
type condEval interface {
	eval(r *request) tri
}

// condInfo describes a condition for lint and for time sensitivity.
type condInfo struct {
	supported     bool
	timeSensitive bool
	reason        string
	// mayFail says why a supported condition will fail when it runs (a
	// script calling a method ctx does not have, or naming a host object
	// of Ranger's Java engines)
	mayFail string
	// readsStatement: the condition reads every resource the statement
	// accesses (View.ForStatementTables)
	readsStatement bool
}

const evaluatorPkg = "org.apache.ranger.plugin.conditionevaluator."

// buildCondition returns the evaluator of a condition. A condition whose
// type the service-def does not declare, or whose evaluator sqe does not
// implement, evaluates to unknown; with lenient (Ranger-compatible)
// handling an undeclared type is ignored, as Ranger ignores it.
func buildCondition(c Condition, sd *svcDef, lenient bool) (condEval, condInfo) {
	def := sd.conditionDefs[c.Type]
	if def == nil {
		if lenient {
			return constCond(triTrue), condInfo{supported: true}
		}
		return constCond(triUnknown), condInfo{reason: "condition type " + quote(c.Type) + " is not declared by the service-def"}
	}
	cls := strings.TrimPrefix(def.Evaluator, evaluatorPkg)
	switch cls {
	case "RangerScriptConditionEvaluator":
		script := ""
		if len(c.Values) > 0 {
			script = strings.TrimSpace(c.Values[0])
		}
		return newScriptCond(script, false, c.Type, sd)
	case "RangerScriptTemplateConditionEvaluator":
		script := ""
		reverse := false
		if len(c.Values) > 0 {
			v := strings.TrimSpace(c.Values[0])
			if v != "" {
				if strings.EqualFold(v, "false") || strings.EqualFold(v, "no") {
					reverse = true
				}
				script = strings.TrimSpace(def.EvaluatorOptions["scriptTemplate"])
			}
		}
		return newScriptCond(script, reverse, c.Type, sd)
	case "RangerSimpleMatcher":
		name := def.EvaluatorOptions["CONTEXT_NAME"]
		if len(c.Values) == 0 || name == "" {
			return constCond(triTrue), condInfo{supported: true}
		}
		return &simpleMatcher{name: name, values: c.Values}, readsContext(c.Type, name)
	case "RangerIpMatcher":
		return &ipMatcher{values: c.Values}, condInfo{supported: true, mayFail: "condition " + quote(c.Type) +
			" reads the client IP address, which sqe knows only from the session attribute WithClientAddressAttribute names, and fails without it"}
	case "RangerHiveResourcesAccessedTogetherCondition", "RangerHiveResourcesNotAccessedTogetherCondition":
		return newTogetherCond(sd, c.Values, cls == "RangerHiveResourcesNotAccessedTogetherCondition"),
			condInfo{supported: true, readsStatement: true, mayFail: "condition " + quote(c.Type) +
				" reads every resource the statement accesses, which sqe knows only for a statement whose tables are given to the View (ForStatementTables); the sqe driver does not give them yet, so through it the condition counts against the caller"}
	case "RangerContextAttributeValueInCondition", "RangerContextAttributeValueNotInCondition":
		name := def.EvaluatorOptions["attributeName"]
		if name == "" || len(c.Values) == 0 {
			return constCond(triTrue), condInfo{supported: true}
		}
		return &contextValueIn{name: name, values: c.Values, notIn: cls == "RangerContextAttributeValueNotInCondition"},
			readsContext(c.Type, name)
	case "RangerAnyOfExpectedTagsPresentConditionEvaluator", "RangerNoneOfExpectedTagsPresentConditionEvaluator", "RangerTagsAllPresentConditionEvaluator":
		return &tagsPresent{kind: cls, values: c.Values}, condInfo{supported: true}
	}
	return constCond(triUnknown), condInfo{reason: "condition " + quote(c.Type) + " uses evaluator " + def.Evaluator + ", which sqe does not evaluate"}
}

// readsContext describes a condition on a request-context attribute.
func readsContext(typ, name string) condInfo {
	return condInfo{supported: true, mayFail: "condition " + quote(typ) + " reads the request context " + quote(name) +
		", which sqe knows only from the service-def's geolocation enrichers and the client IP address, and fails without them"}
}

func quote(s string) string { return "\"" + s + "\"" }

type constCond tri

func (c constCond) eval(*request) tri { return tri(c) }

type scriptCond struct {
	sc       *jsScript
	reverse  bool
	failures *atomic.Uint64
}

func newScriptCond(script string, reverse bool, typ string, sd *svcDef) (condEval, condInfo) {
	if script == "" {
		// Ranger: an empty script matches.
		return constCond(triOf(!reverse)), condInfo{supported: true}
	}
	sc, err := compileJS(script)
	if err != nil {
		return constCond(triUnknown), condInfo{reason: "condition " + quote(typ) + ": script " + quote(script) + " is not valid JavaScript: " + err.Error()}
	}
	warmJSRuntimes()
	var failures *atomic.Uint64
	if sd != nil {
		sc.limit, failures = sd.scriptLimit, sd.scriptFailures
	}
	info := condInfo{supported: true, timeSensitive: sc.timeSensitive}
	switch {
	case len(sc.hostNames) > 0:
		info.mayFail = "condition " + quote(typ) + ": script " + quote(script) + " uses " + strings.Join(sc.hostNames, ", ") + ", which scripts cannot reach, and fails when it gets there"
	case len(sc.unknownMethods) > 0:
		info.mayFail = "condition " + quote(typ) + ": script " + quote(script) + " calls ctx." + strings.Join(sc.unknownMethods, ", ctx.") + ", which ctx does not have, and fails when it gets there"
	}
	return &scriptCond{sc: sc, reverse: reverse, failures: failures}, info
}

// eval runs the script. Its result is Ranger's: the completion value when
// it is a boolean, else ctx.result. A script that fails while it runs
// (throws, such as a method of undefined; exceeds its time limit or call
// depth) is unknown, not false as in Ranger: the item it
// guards then counts against the caller (see itemEval.match), and the
// failure is counted.
func (s *scriptCond) eval(r *request) tri {
	v, res, err := s.sc.run(newScriptView(r))
	if err != nil {
		if s.failures != nil {
			s.failures.Add(1)
		}
		return triUnknown
	}
	ret := res
	if b, ok := v.v.(bool); ok {
		ret = b
	}
	if s.reverse {
		ret = !ret
	}
	return triOf(ret)
}

// simpleMatcher is RangerSimpleMatcher: a request-context value matched
// against wildcard values. A value sqe cannot know (see
// request.contextValue) makes the result unknown.
type simpleMatcher struct {
	name   string
	values []string
}

func (m *simpleMatcher) eval(r *request) tri {
	v, known := r.contextValue(m.name)
	if !known {
		return triUnknown
	}
	s, isStr := v.(string)
	if !isStr {
		return triFalse
	}
	for _, p := range m.values {
		if wildcardMatch(s, p, false) {
			return triTrue
		}
	}
	return triFalse
}

// ipMatcher is RangerIpMatcher: exact addresses, CIDR ranges and trailing
// wildcards ("10.1.*").
type ipMatcher struct{ values []string }

func (m *ipMatcher) eval(r *request) tri {
	if len(m.values) == 0 {
		return triTrue
	}
	ip := r.clientIP
	if ip == "" {
		ip = r.remoteIP
	}
	if ip == "" {
		if r.strict {
			// sqe's own request without the caller's address
			// (WithClientAddressAttribute)
			return triUnknown
		}
		return triFalse
	}
	if r.strict && net.ParseIP(ip) == nil {
		// an address sqe was given that is not one
		return triUnknown
	}
	for _, v := range m.values {
		v = strings.TrimSpace(v)
		switch {
		case v == "*":
			return triTrue
		case strings.Contains(v, "/"):
			if _, n, err := net.ParseCIDR(v); err == nil && n.Contains(net.ParseIP(ip)) {
				return triTrue
			}
		case strings.HasSuffix(v, "*"):
			if strings.HasPrefix(ip, strings.TrimSuffix(v, "*")) {
				return triTrue
			}
		default:
			if v == ip {
				return triTrue
			}
		}
	}
	return triFalse
}

// contextValueIn is RangerContextAttributeValueInCondition (and, with
// notIn, RangerContextAttributeValueNotInCondition): the request-context
// attribute is (is not) one of the values; an attribute nothing set
// matches, as in Ranger. A value sqe cannot know makes the result
// unknown.
type contextValueIn struct {
	name   string
	values []string
	notIn  bool
}

func (c *contextValueIn) eval(r *request) tri {
	v, known := r.contextValue(c.name)
	if !known {
		return triUnknown
	}
	if v == nil {
		return triTrue
	}
	s, isStr := v.(string)
	in := false
	if isStr {
		for _, x := range c.values {
			if x == s {
				in = true
				break
			}
		}
	}
	return triOf(in != c.notIn)
}

type tagsPresent struct {
	kind   string
	values []string
}

func (t *tagsPresent) eval(r *request) tri {
	have := map[string]bool{}
	for _, tg := range r.tags {
		have[tg.Type] = true
	}
	switch t.kind {
	case "RangerAnyOfExpectedTagsPresentConditionEvaluator":
		for _, v := range t.values {
			if have[v] {
				return triTrue
			}
		}
		return triFalse
	case "RangerNoneOfExpectedTagsPresentConditionEvaluator":
		for _, v := range t.values {
			if have[v] {
				return triFalse
			}
		}
		return triTrue
	}
	for _, v := range t.values {
		if !have[v] {
			return triFalse
		}
	}
	return triTrue
}

// allConds combines conditions: false if any is false, unknown if any is
// unknown, else true.
func allConds(cs []condEval, r *request) tri {
	ret := triTrue
	for _, c := range cs {
		switch c.eval(r) {
		case triFalse:
			return triFalse
		case triUnknown:
			ret = triUnknown
		}
	}
	return ret
}
