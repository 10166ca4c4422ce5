package ranger

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// This file is what a script sees of a request, as Ranger's
// RangerRequestScriptEvaluator shows it: the ctx methods, the current tag
// (tag, tagAttr) and the JSON preamble (_ctx and the variables taken from
// it). Every value handed to a script is a plain JavaScript value built
// here; no Go value is exposed.

// scriptView is the request as scripts see it.
type scriptView struct {
	req        *request
	userAttrs  map[string]string // with _name
	groupAttrs map[string]map[string]string
	groups     []string // sorted
	roles      []string // sorted
	tags       map[string]*tagForEval
	tagNames   []string // sorted
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

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// tagAttrNames are the attribute names of all the request's tags.
func (sv *scriptView) tagAttrNames() []string {
	set := map[string]bool{}
	for _, t := range sv.req.tags {
		for k := range t.Attributes {
			if k != "_type" && k != "_matchType" {
				set[k] = true
			}
		}
	}
	return sortedKeys(set)
}

// tagAttrValues are the values of an attribute over all the request's
// tags, sorted.
func (sv *scriptView) tagAttrValues(name string) []string {
	var out []string
	if strings.TrimSpace(name) == "" {
		return nil
	}
	for _, t := range sv.req.tags {
		if v, ok := t.Attributes[name]; ok {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func (sv *scriptView) ugAttrNames() []string {
	set := map[string]bool{}
	for _, a := range sv.groupAttrs {
		for k := range a {
			if k != "_name" {
				set[k] = true
			}
		}
	}
	return sortedKeys(set)
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

func (sv *scriptView) userAttrNames() []string {
	var out []string
	for _, k := range sortedKeys(sv.userAttrs) {
		if k != "_name" {
			out = append(out, k)
		}
	}
	return out
}

// firstTagAttrs is Ranger's getTagAttributes: the attributes of the first
// tag of the type that has any.
func (sv *scriptView) firstTagAttrs(tagType string) map[string]string {
	if strings.TrimSpace(tagType) == "" {
		return nil
	}
	for _, t := range sv.req.tags {
		if t.Type == tagType && len(t.Attributes) > 0 {
			return t.Attributes
		}
	}
	return nil
}

// attrValue is Ranger's getAttributeValue: of the current tag (tagType
// "") or of the first tag of the type.
func (sv *scriptView) attrValue(tagType, attr string, current bool) (string, bool) {
	if strings.TrimSpace(attr) == "" {
		return "", false
	}
	var attrs map[string]string
	if current {
		if sv.cur != nil {
			attrs = sv.cur.Attributes
		}
	} else {
		attrs = sv.firstTagAttrs(tagType)
	}
	v, ok := attrs[attr]
	return v, ok
}

// ---- CSV forms (Ranger's toCsv and toCsvQ) ----

// csvArg is an argument of a CSV method: nil for null and undefined.
func csvArgs(call goja.FunctionCall, from int) []*string {
	var out []*string
	for i := from; i < len(call.Arguments); i++ {
		out = append(out, argPtr(call.Arguments[i]))
	}
	return out
}

func argPtr(v goja.Value) *string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	s := v.String()
	return &s
}

func toCsv(values []string, args []*string) string {
	sep := ","
	if len(args) > 1 {
		sep = ""
		if args[1] != nil {
			sep = *args[1]
		}
	}
	ret := strings.Join(values, sep)
	if ret == "" && len(args) > 0 && args[0] != nil {
		ret = *args[0]
	}
	return ret
}

func toCsvQ(values []string, args []*string) string {
	open := "'"
	if len(args) > 2 {
		open = ""
		if args[2] != nil {
			open = *args[2]
		}
	}
	cls := open
	if len(args) > 3 && args[3] != nil {
		cls = *args[3]
	}
	sep := ","
	if len(args) > 1 {
		sep = ""
		if args[1] != nil {
			sep = *args[1]
		}
	}
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(open + v + cls)
	}
	if b.Len() == 0 && len(args) > 0 && args[0] != nil {
		return open + *args[0] + cls
	}
	return b.String()
}

// ---- access time (Ranger's RangerTimeRangeChecker) ----

var accessTimeLayouts = []string{"2006/01/02 15:04:05", "2006/01/02 15:04", "2006/01/02"}

// accessTimeBound parses a bound in the time zone (the local one when
// empty); -1 when it is empty or does not parse, as in Ranger.
func accessTimeBound(s, tz string) int64 {
	if strings.TrimSpace(s) == "" {
		return -1
	}
	loc := time.Local
	if strings.TrimSpace(tz) != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			l = time.UTC // Java's TimeZone.getTimeZone: GMT for an unknown zone
		}
		loc = l
	}
	for _, layout := range accessTimeLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UnixMilli()
		}
	}
	return -1
}

func accessTimeInRange(at time.Time, from, to, tz string) bool {
	f, t := accessTimeBound(from, tz), accessTimeBound(to, tz)
	now := at.UnixMilli()
	switch {
	case t < 0:
		return now > f
	case f < 0:
		return now < t
	}
	return now >= f && now < t
}

// ---- the runtime's objects ----

// ctxMethodNames are the methods of ctx.
var ctxMethodNames = map[string]bool{}

type ctxMethod func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value

func init() {
	// The zone methods match resources, which may run scripts: they are
	// added here to keep ctxMethods' initialisation free of that cycle.
	ctxMethods["getResourceZone"] = func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		zs := resourceZones(sv.req)
		if len(zs) == 1 {
			return jr.rt.ToValue(zs[0])
		}
		return jr.rt.ToValue("")
	}
	ctxMethods["getResourceZones"] = func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.strArray(resourceZones(sv.req))
	}
	for name := range ctxMethods {
		ctxMethodNames[name] = true
	}
	ctxMethodNames["getResult"] = true
	ctxMethodNames["setResult"] = true
}

func str(v goja.Value) (string, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	return v.String(), true
}

func argStr(call goja.FunctionCall, i int) string {
	s, _ := str(call.Argument(i))
	return s
}

func (jr *jsRuntime) strOrNull(s string, ok bool) goja.Value {
	if !ok {
		return goja.Null()
	}
	return jr.rt.ToValue(s)
}

func (jr *jsRuntime) strArray(l []string) *goja.Object {
	items := make([]any, len(l))
	for i, s := range l {
		items[i] = s
	}
	return jr.rt.NewArray(items...)
}

// attrMap is a Java map of strings as scripts see one: its entries as
// properties, and get, containsKey, keySet, size and isEmpty.
func (jr *jsRuntime) attrMap(m map[string]string) *goja.Object {
	o := jr.rt.CreateObject(jr.mapProto)
	for _, k := range sortedKeys(m) {
		_ = o.Set(k, m[k])
	}
	return o
}

// tagObject is the current tag as a script sees RangerTagForEval.
func (jr *jsRuntime) tagObject(t *tagForEval) goja.Value {
	if t == nil {
		return goja.Null()
	}
	o := jr.rt.CreateObject(jr.tagProto)
	_ = o.Set("type", t.Type)
	_ = o.Set("attributes", jr.attrMap(t.Attributes))
	_ = o.Set("matchType", t.MatchType.String())
	return o
}

// tagData is a tag in the JSON preamble: its attributes, _type and
// _matchType.
func (jr *jsRuntime) tagData(t *tagForEval) *goja.Object {
	o := jr.rt.NewObject()
	for _, k := range sortedKeys(t.Attributes) {
		_ = o.Set(k, t.Attributes[k])
	}
	_ = o.Set("_type", t.Type)
	_ = o.Set("_matchType", t.MatchType.String())
	return o
}

func (jr *jsRuntime) strMap(m map[string]string) *goja.Object {
	o := jr.rt.NewObject()
	for _, k := range sortedKeys(m) {
		_ = o.Set(k, m[k])
	}
	return o
}

func (jr *jsRuntime) accessTime(sv *scriptView) time.Time {
	if sv.req.accessTime.IsZero() {
		return time.Now()
	}
	return sv.req.accessTime
}

func (jr *jsRuntime) newCtxProto() *goja.Object {
	proto := jr.rt.NewObject()
	for name, m := range ctxMethods {
		m := m
		fn := func(call goja.FunctionCall) goja.Value {
			if jr.sv == nil {
				panic(jr.rt.NewTypeError("ctx is not available"))
			}
			v := m(jr, jr.sv, call)
			if v == nil {
				return goja.Undefined()
			}
			return v
		}
		_ = proto.Set(name, fn)
	}
	_ = proto.Set("getResult", func(call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(call.This.ToObject(jr.rt).Get("result").ToBoolean())
	})
	_ = proto.Set("setResult", func(call goja.FunctionCall) goja.Value {
		_ = call.This.ToObject(jr.rt).Set("result", call.Argument(0).ToBoolean())
		return goja.Undefined()
	})
	freeze, _ := goja.AssertFunction(jr.rt.GlobalObject().Get("Object").ToObject(jr.rt).Get("freeze"))
	if _, err := freeze(goja.Undefined(), proto); err != nil {
		panic("ranger: script runtime initialisation: " + err.Error())
	}
	return proto
}

// setup sets the preamble for a run and returns ctx.
func (jr *jsRuntime) setup(sc *jsScript, sv *scriptView) *goja.Object {
	jr.sv = sv
	rt := jr.rt
	ctx := rt.CreateObject(jr.ctxProto)
	_ = ctx.Set("result", false)
	g := jr.global
	set := func(name string, v goja.Value) {
		_ = g.Set(name, v)
		jr.set = append(jr.set, name)
	}
	set("ctx", ctx)
	need := func(n string) bool { return sc.usesAll || sc.uses[n] }
	if need("tag") {
		set("tag", jr.tagObject(sv.cur))
	}
	if need("tagAttr") {
		var attrs map[string]string
		if sv.cur != nil {
			attrs = sv.cur.Attributes
		}
		set("tagAttr", jr.attrMap(attrs))
	}
	if need("J") {
		set("J", jr.json)
	}
	if !sc.usesAll && !sc.uses["_ctx"] && !sc.uses["REQ"] {
		// Only the variables the script names, built alone.
		if need("USER") {
			set("USER", jr.strMap(sv.userAttrs))
		}
		if need("UGNAMES") {
			set("UGNAMES", jr.strArray(sv.groups))
		}
		if need("URNAMES") {
			set("URNAMES", jr.strArray(sv.roles))
		}
		if need("UG") {
			set("UG", jr.ugObject(sv))
		}
		if need("UGA") {
			set("UGA", jr.ugaObject(sv))
		}
		if need("RES") {
			set("RES", jr.resObject(sv.req))
		}
		if need("TAGS") {
			set("TAGS", jr.tagsObject(sv.req))
		}
		if need("TAG") {
			set("TAG", jr.curTagData(sv))
		}
		if need("TAGNAMES") {
			set("TAGNAMES", jr.strArray(sv.tagNames))
		}
		return ctx
	}
	r := sv.req
	req := rt.NewObject()
	if !r.accessTime.IsZero() {
		_ = req.Set("accessTime", r.accessTime.UnixMilli())
	}
	_ = req.Set("accessType", r.accessType)
	_ = req.Set("action", jr.strOrNull(r.action, r.action != ""))
	if r.clientIP == "" && r.strict {
		// As ctx.getClientIPAddress: reading an address sqe was not
		// given fails the script.
		getter := rt.ToValue(func(goja.FunctionCall) goja.Value {
			panic(rt.NewTypeError("the client IP address is not known"))
		})
		_ = req.DefineAccessorProperty("clientIPAddress", getter, nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	} else {
		_ = req.Set("clientIPAddress", jr.strOrNull(r.clientIP, r.clientIP != ""))
	}
	_ = req.Set("remoteIPAddress", jr.strOrNull(r.remoteIP, r.remoteIP != ""))
	_ = req.Set("requestData", jr.strOrNull(r.requestData, r.requestData != ""))
	res := jr.resObject(r)
	_ = req.Set("resource", res)
	_ = req.Set("resourceMatchingScope", scopeNames[r.scope])
	_ = req.Set("user", r.user)
	ugnames, urnames := jr.strArray(sv.groups), jr.strArray(sv.roles)
	_ = req.Set("userGroups", ugnames)
	_ = req.Set("userRoles", urnames)
	user := jr.strMap(sv.userAttrs)
	_ = req.Set("userAttributes", user)
	ug := jr.ugObject(sv)
	_ = req.Set("userGroupAttributes", ug)
	uga := jr.ugaObject(sv)
	_ = req.Set("uga", uga)
	tags := jr.tagsObject(r)
	tagv := jr.curTagData(sv)
	tagNames := jr.strArray(sv.tagNames)
	c := rt.NewObject()
	_ = c.Set("request", req)
	_ = c.Set("tags", tags)
	_ = c.Set("tagNames", tagNames)
	_ = c.Set("tag", tagv)

	set("_ctx", c)
	set("REQ", req)
	set("RES", res)
	set("USER", user)
	set("UGNAMES", ugnames)
	set("UG", ug)
	set("UGA", uga)
	set("URNAMES", urnames)
	set("TAG", tagv)
	set("TAGS", tags)
	set("TAGNAMES", tagNames)
	return ctx
}

// resObject is REQ.resource: the resource's elements and _ownerUser.
func (jr *jsRuntime) resObject(r *request) goja.Value {
	if r.res == nil {
		return goja.Null()
	}
	ro := jr.rt.NewObject()
	for _, k := range sortedKeys(r.res.elems) {
		switch x := r.res.elems[k].(type) {
		case string:
			if k == "column" && x == syntheticColumn {
				// The request stands for every column no policy names:
				// a script that reads the name cannot be answered for
				// them at once (see View.decideIn).
				st := r.st
				getter := jr.rt.ToValue(func(goja.FunctionCall) goja.Value {
					if st != nil {
						st.columnNameRead = true
					}
					panic(jr.rt.NewTypeError("the column name is not known"))
				})
				_ = ro.DefineAccessorProperty(k, getter, nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
				continue
			}
			_ = ro.Set(k, x)
		case []string:
			_ = ro.Set(k, jr.strArray(x))
		}
	}
	_ = ro.Set("_ownerUser", jr.strOrNull(r.res.owner, r.res.owner != ""))
	return ro
}

// ugObject is UG: each group's attributes with _name.
func (jr *jsRuntime) ugObject(sv *scriptView) *goja.Object {
	ug := jr.rt.NewObject()
	for _, gname := range sv.groups {
		_ = ug.Set(gname, jr.strMap(sv.groupAttrs[gname]))
	}
	return ug
}

// ugaObject is UGA: sVal, an attribute's value in the first group (by
// name) that has it, and mVal, its values in all of them.
func (jr *jsRuntime) ugaObject(sv *scriptView) *goja.Object {
	r := sv.req
	sVal, mVal := jr.rt.NewObject(), jr.rt.NewObject()
	multi := map[string][]string{}
	var order []string
	for _, gname := range sv.groups {
		for _, k := range sortedKeys(r.groupAttrs[gname]) {
			v := r.groupAttrs[gname][k]
			if _, ok := multi[k]; !ok {
				_ = sVal.Set(k, v)
				order = append(order, k)
			}
			multi[k] = append(multi[k], v)
		}
	}
	for _, k := range order {
		_ = mVal.Set(k, jr.strArray(multi[k]))
	}
	uga := jr.rt.NewObject()
	_ = uga.Set("sVal", sVal)
	_ = uga.Set("mVal", mVal)
	return uga
}

// tagsObject is TAGS: each tag type's data (of the last tag of the type).
func (jr *jsRuntime) tagsObject(r *request) *goja.Object {
	tags := jr.rt.NewObject()
	for _, t := range r.tags {
		_ = tags.Set(t.Type, jr.tagData(t))
	}
	return tags
}

// curTagData is TAG: the current tag's data, {} without one.
func (jr *jsRuntime) curTagData(sv *scriptView) *goja.Object {
	if sv.cur != nil && len(sv.req.tags) > 0 {
		return jr.tagData(sv.cur)
	}
	return jr.rt.NewObject()
}

// scopeNames are Ranger's ResourceMatchingScope names.
var scopeNames = map[reqScope]string{reqSelf: "SELF", reqSelfOrDescendants: "SELF_OR_DESCENDANTS", reqSelfOrChild: "SELF_OR_CHILD"}

// ctxMethods are the methods of ctx (RangerRequestScriptEvaluator's
// public methods that scripts call).
var ctxMethods = map[string]ctxMethod{
	"getUser":       func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value { return jr.rt.ToValue(sv.req.user) },
	"getUserGroups": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value { return jr.strArray(sv.groups) },
	"getUserRoles":  func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value { return jr.strArray(sv.roles) },
	"getAccessType": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(sv.req.accessType)
	},
	"getAction": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.strOrNull(sv.req.action, sv.req.action != "")
	},
	"getClientType": func(jr *jsRuntime, _ *scriptView, _ goja.FunctionCall) goja.Value { return goja.Null() },
	"getSessionId":  func(jr *jsRuntime, _ *scriptView, _ goja.FunctionCall) goja.Value { return goja.Null() },
	"getResource": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		s, ok := resourceString(sv.req)
		if !ok {
			panic(jr.rt.NewTypeError("the column name is not known"))
		}
		return jr.strOrNull(s, s != "")
	},
	"getAsDate": func(jr *jsRuntime, _ *scriptView, call goja.FunctionCall) goja.Value {
		return jr.dateOrNull(argStr(call, 0))
	},
	"getTagAttributeAsDate": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		v, ok := sv.attrValue(argStr(call, 0), argStr(call, 1), false)
		if !ok {
			return goja.Null()
		}
		return jr.dateOrNull(v)
	},
	"getRequestData": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.strOrNull(sv.req.requestData, sv.req.requestData != "")
	},
	"getClientIPAddress": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		ip := sv.req.clientIP
		if ip == "" && sv.req.strict {
			// sqe's own request without the caller's address
			// (WithClientAddressAttribute): null would let a
			// comparison decide as if there were none
			panic(jr.rt.NewTypeError("the client IP address is not known"))
		}
		return jr.strOrNull(ip, ip != "")
	},
	"isAccessTypeAny": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(sv.req.isAccessTypeAny())
	},
	"isAccessTypeDelegatedAdmin": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(sv.req.isDelegatedAdmin())
	},
	"getAccessTime": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		d, err := jr.rt.New(jr.rt.GlobalObject().Get("Date"), jr.rt.ToValue(jr.accessTime(sv).UnixMilli()))
		if err != nil {
			panic(err)
		}
		return d
	},
	"getRequestContextAttribute": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		name := argStr(call, 0)
		if strings.TrimSpace(name) == "" {
			return goja.Null()
		}
		v, known := sv.req.contextValue(name)
		if !known {
			panic(jr.rt.NewTypeError("request context attribute " + strconv.Quote(name) + " is not known"))
		}
		if v == nil {
			return goja.Null()
		}
		switch x := v.(type) {
		case string:
			return jr.rt.ToValue(x)
		case bool, float64, int, int64:
			return jr.rt.ToValue(x).ToString()
		}
		return goja.Null()
	},
	"getCurrentTag": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value { return jr.tagObject(sv.cur) },
	"getCurrentTagType": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		if sv.cur == nil {
			return goja.Null()
		}
		return jr.rt.ToValue(sv.cur.Type)
	},
	"getAllTagTypes": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value { return jr.strArray(sv.tagNames) },
	"getTagAttributes": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		if a := sv.firstTagAttrs(argStr(call, 0)); a != nil {
			return jr.attrMap(a)
		}
		return goja.Null()
	},
	"getTagAttributesForAllMatchingTags": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		typ := argStr(call, 0)
		if strings.TrimSpace(typ) == "" || len(sv.req.tags) == 0 {
			return goja.Null()
		}
		var items []any
		for _, t := range sv.req.tags {
			if t.Type == typ && len(t.Attributes) > 0 {
				items = append(items, jr.attrMap(t.Attributes))
			}
		}
		return jr.rt.NewArray(items...)
	},
	"getAttributeNames": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		if a := sv.firstTagAttrs(argStr(call, 0)); a != nil {
			return jr.strArray(sortedKeys(a))
		}
		return goja.Null()
	},
	"getAttributeValue": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		if len(call.Arguments) >= 2 {
			return jr.strOrNull(sv.attrValue(argStr(call, 0), argStr(call, 1), false))
		}
		return jr.strOrNull(sv.attrValue("", argStr(call, 0), true))
	},
	"getAttributeValueForAllMatchingTags": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		typ, attr := argStr(call, 0), argStr(call, 1)
		if strings.TrimSpace(typ) == "" || strings.TrimSpace(attr) == "" || len(sv.req.tags) == 0 {
			return goja.Null()
		}
		var out []string
		for _, t := range sv.req.tags {
			if t.Type != typ {
				continue
			}
			if v, ok := t.Attributes[attr]; ok {
				out = append(out, v)
			}
		}
		sort.Strings(out)
		return jr.strArray(out)
	},
	"isAccessedAfter": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return accessedCmp(jr, sv, call, true)
	},
	"isAccessedBefore": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return accessedCmp(jr, sv, call, false)
	},
	"isAccessTimeAfter": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(accessTimeInRange(jr.accessTime(sv), argStr(call, 0), "", argStr(call, 1)))
	},
	"isAccessTimeBefore": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(accessTimeInRange(jr.accessTime(sv), "", argStr(call, 0), argStr(call, 1)))
	},
	"isAccessTimeBetween": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(accessTimeInRange(jr.accessTime(sv), argStr(call, 0), argStr(call, 1), argStr(call, 2)))
	},
	"isInGroup": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(containsStr(sv.groups, argStr(call, 0)))
	},
	"isInRole": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(containsStr(sv.roles, argStr(call, 0)))
	},
	"isInAnyGroup": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(len(sv.groups) > 0)
	},
	"isInAnyRole": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(len(sv.roles) > 0)
	},
	"hasTag": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		_, ok := sv.tags[argStr(call, 0)]
		return jr.rt.ToValue(ok)
	},
	"hasAnyTag": func(jr *jsRuntime, sv *scriptView, _ goja.FunctionCall) goja.Value {
		return jr.rt.ToValue(len(sv.tags) > 0)
	},
	"hasUserAttr": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		_, ok := sv.userAttrs[argStr(call, 0)]
		return jr.rt.ToValue(ok)
	},
	"hasUgAttr": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		name := argStr(call, 0)
		for _, a := range sv.groupAttrs {
			if _, ok := a[name]; ok {
				return jr.rt.ToValue(true)
			}
		}
		return jr.rt.ToValue(false)
	},
	"hasTagAttr": func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		name := argStr(call, 0)
		for _, t := range sv.req.tags {
			if _, ok := t.Attributes[name]; ok {
				return jr.rt.ToValue(true)
			}
		}
		return jr.rt.ToValue(false)
	},

	"tagNames":       csvMethod(func(sv *scriptView, _ string) []string { return sv.tagNames }, false, false),
	"tagNamesQ":      csvMethod(func(sv *scriptView, _ string) []string { return sv.tagNames }, false, true),
	"tagAttrNames":   csvMethod(func(sv *scriptView, _ string) []string { return sv.tagAttrNames() }, false, false),
	"tagAttrNamesQ":  csvMethod(func(sv *scriptView, _ string) []string { return sv.tagAttrNames() }, false, true),
	"tagAttr":        csvMethod((*scriptView).tagAttrValues, true, false),
	"tagAttrQ":       csvMethod((*scriptView).tagAttrValues, true, true),
	"ugNames":        csvMethod(func(sv *scriptView, _ string) []string { return sv.groups }, false, false),
	"ugNamesQ":       csvMethod(func(sv *scriptView, _ string) []string { return sv.groups }, false, true),
	"ugAttrNames":    csvMethod(func(sv *scriptView, _ string) []string { return sv.ugAttrNames() }, false, false),
	"ugAttrNamesQ":   csvMethod(func(sv *scriptView, _ string) []string { return sv.ugAttrNames() }, false, true),
	"ugAttr":         csvMethod((*scriptView).ugAttrValues, true, false),
	"ugAttrQ":        csvMethod((*scriptView).ugAttrValues, true, true),
	"urNames":        csvMethod(func(sv *scriptView, _ string) []string { return sv.roles }, false, false),
	"urNamesQ":       csvMethod(func(sv *scriptView, _ string) []string { return sv.roles }, false, true),
	"userAttrNames":  csvMethod(func(sv *scriptView, _ string) []string { return sv.userAttrNames() }, false, false),
	"userAttrNamesQ": csvMethod(func(sv *scriptView, _ string) []string { return sv.userAttrNames() }, false, true),
	"userAttr":       csvMethod(userAttrValue, true, false),
	"userAttrQ":      csvMethod(userAttrValue, true, true),

	"ugNamesCsv":        fixedCsv(func(sv *scriptView, _ string) []string { return sv.groups }, false, false),
	"ugNamesCsvQ":       fixedCsv(func(sv *scriptView, _ string) []string { return sv.groups }, false, true),
	"urNamesCsv":        fixedCsv(func(sv *scriptView, _ string) []string { return sv.roles }, false, false),
	"urNamesCsvQ":       fixedCsv(func(sv *scriptView, _ string) []string { return sv.roles }, false, true),
	"tagNamesCsv":       fixedCsv(func(sv *scriptView, _ string) []string { return sv.tagNames }, false, false),
	"tagNamesCsvQ":      fixedCsv(func(sv *scriptView, _ string) []string { return sv.tagNames }, false, true),
	"userAttrNamesCsv":  fixedCsv(func(sv *scriptView, _ string) []string { return sv.userAttrNames() }, false, false),
	"userAttrNamesCsvQ": fixedCsv(func(sv *scriptView, _ string) []string { return sv.userAttrNames() }, false, true),
	"ugAttrNamesCsv":    fixedCsv(func(sv *scriptView, _ string) []string { return sv.ugAttrNames() }, false, false),
	"ugAttrNamesCsvQ":   fixedCsv(func(sv *scriptView, _ string) []string { return sv.ugAttrNames() }, false, true),
	"tagAttrNamesCsv":   fixedCsv(func(sv *scriptView, _ string) []string { return sv.tagAttrNames() }, false, false),
	"tagAttrNamesCsvQ":  fixedCsv(func(sv *scriptView, _ string) []string { return sv.tagAttrNames() }, false, true),
	"ugAttrCsv":         fixedCsv((*scriptView).ugAttrValues, true, false),
	"ugAttrCsvQ":        fixedCsv((*scriptView).ugAttrValues, true, true),
	"tagAttrCsv":        fixedCsv((*scriptView).tagAttrValues, true, false),
	"tagAttrCsvQ":       fixedCsv((*scriptView).tagAttrValues, true, true),

	"logDebug": noLog, "logInfo": noLog, "logWarn": noLog, "logError": noLog, "logFatal": noLog,
}

// noLog: Ranger's log methods write to the plugin's log; scripts in sqe
// write nothing.
func noLog(*jsRuntime, *scriptView, goja.FunctionCall) goja.Value { return goja.Undefined() }

func userAttrValue(sv *scriptView, name string) []string {
	if v, ok := sv.userAttrs[name]; ok {
		return []string{v}
	}
	return nil
}

// csvMethod is a method taking (attrName?, defaultValue, separator,
// openQuote, closeQuote).
func csvMethod(values func(*scriptView, string) []string, byName, quoted bool) ctxMethod {
	return func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		from, name := 0, ""
		if byName {
			from, name = 1, argStr(call, 0)
		}
		args := csvArgs(call, from)
		if quoted {
			return jr.rt.ToValue(toCsvQ(values(sv, name), args))
		}
		return jr.rt.ToValue(toCsv(values(sv, name), args))
	}
}

// fixedCsv is a method of the older CSV forms: comma-separated, quoted
// with ' for the Q forms.
func fixedCsv(values func(*scriptView, string) []string, byName, quoted bool) ctxMethod {
	comma, quote := ",", "'"
	return func(jr *jsRuntime, sv *scriptView, call goja.FunctionCall) goja.Value {
		name := ""
		if byName {
			name = argStr(call, 0)
		}
		if quoted {
			return jr.rt.ToValue(toCsvQ(values(sv, name), []*string{nil, &comma, &quote}))
		}
		return jr.rt.ToValue(toCsv(values(sv, name), []*string{nil, &comma}))
	}
}

// dateOrNull is Ranger's getAsDate: a JavaScript Date of a value in one
// of the tag date formats, or null.
func (jr *jsRuntime) dateOrNull(s string) goja.Value {
	d, ok := parseTagDate(s)
	if !ok {
		return goja.Null()
	}
	v, err := jr.rt.New(jr.rt.GlobalObject().Get("Date"), jr.rt.ToValue(d.UnixMilli()))
	if err != nil {
		panic(err)
	}
	return v
}

// resourceString is Ranger's RangerAccessResource.getAsString: the
// resource's values in the service-def's order, joined by "/" (a list
// value as Java prints one); "" for none. It is not ok for a request that
// stands for every column no policy names: the name is not known.
func resourceString(r *request) (string, bool) {
	if r.res == nil {
		return "", true
	}
	var names []string
	if r.sd != nil {
		for _, d := range r.sd.raw.Resources {
			if d != nil {
				names = append(names, d.Name)
			}
		}
	} else {
		names = sortedKeys(r.res.elems)
	}
	var parts []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		switch x := r.res.elems[n].(type) {
		case string:
			if n == "column" && x == syntheticColumn {
				if r.st != nil {
					r.st.columnNameRead = true
				}
				return "", false
			}
			parts = append(parts, x)
		case []string:
			parts = append(parts, "["+strings.Join(x, ", ")+"]")
		}
	}
	return strings.Join(parts, "/"), true
}

// resourceZones are the security zones whose resources match the
// request's resource or its descendants (Ranger's
// getMatchedZonesForResourceAndChildren), sorted.
func resourceZones(r *request) []string {
	if r.zones == nil || r.res == nil {
		return nil
	}
	all, _ := r.zones.matched(r.res, r.evalCtx())
	delete(all, "")
	return sortedKeys(all)
}

// accessedCmp is isAccessedAfter and isAccessedBefore: the access time
// against a tag attribute read as a date.
func accessedCmp(jr *jsRuntime, sv *scriptView, call goja.FunctionCall, after bool) goja.Value {
	var v string
	var ok bool
	if len(call.Arguments) >= 2 {
		v, ok = sv.attrValue(argStr(call, 0), argStr(call, 1), false)
	} else {
		v, ok = sv.attrValue("", argStr(call, 0), true)
	}
	at := jr.accessTime(sv)
	var d time.Time
	parsed := false
	if ok {
		d, parsed = parseTagDate(v)
	}
	if after {
		return jr.rt.ToValue(!parsed || at.After(d) || at.Equal(d))
	}
	return jr.rt.ToValue(parsed && !at.After(d))
}
