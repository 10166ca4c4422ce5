package ranger

// knownScriptEval is the state of TestRangerScriptEvaluator with the
// current script engine: a change in either direction must update it.
var knownScriptEval = struct{ passed, failed, skipped int }{306, 0, 1}

// evalScriptForTest runs a script as Ranger's evaluateScript does: the
// value of a script that fails while it runs is null.
func evalScriptForTest(script string, r *request) (val any, compiled bool) {
	sc, err := compileJS(script)
	if err != nil {
		return nil, false
	}
	v, _, err := sc.run(newScriptView(r))
	if err != nil || v.null {
		return nil, true
	}
	return scriptValue(v.v), true
}
