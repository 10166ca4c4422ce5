package ranger

import (
	"testing"
)

func runScript(t *testing.T, r *request, src string) (jsValue, error) {
	t.Helper()
	sc, err := compileJS(src)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := sc.run(newScriptView(r))
	return v, err
}

// ctx.getResource, getAsDate and getTagAttributeAsDate answer as Ranger's
// RangerRequestScriptEvaluator does.
func TestScriptResourceAndDates(t *testing.T) {
	b := loadShop(t)
	sd := newSvcDef(b.ServiceDef, "")
	r := &request{res: &accessResource{elems: map[string]any{"column": "ssn", "database": "shop", "table": "customers"}},
		sd: sd, st: &evalState{},
		tags: []*tagForEval{{Type: "PII", Attributes: map[string]string{"expiry": "2026/01/31"}}}}
	for src, want := range map[string]string{
		"ctx.getResource()": "shop/customers/ssn",
		"ctx.getAsDate('2026/01/31').getTime() == Date.UTC(2026, 0, 31)":                         "true",
		"ctx.getAsDate('2026-01-31T10:00:00.000Z').getTime() == Date.UTC(2026, 0, 31, 10, 0, 0)": "true",
		"ctx.getAsDate('31.01.2026') === null":                                                   "true",
		"ctx.getTagAttributeAsDate('PII', 'expiry').getTime() == Date.UTC(2026, 0, 31)":          "true",
		"ctx.getTagAttributeAsDate('PII', 'missing') === null":                                   "true",
		"ctx.getResourceZone() === '' && ctx.getResourceZones().length == 0":                     "true",
	} {
		v, err := runScript(t, r, src)
		if err != nil || v.str != want {
			t.Errorf("%s = %q, %v; want %q", src, v.str, err, want)
		}
	}
	// The request for every column no policy names has no column name to
	// give: the script fails, and the decision asks for the columns.
	r.res.elems["column"] = syntheticColumn
	r.strict = true
	if v, err := runScript(t, r, "ctx.getResource() != 'shop/customers/ssn'"); err == nil || !r.st.columnNameRead {
		t.Errorf("getResource on the other columns = %q, %v", v.str, err)
	}
}

// ctx.getResourceZone(s) name the security zones the resource lies in.
func TestScriptResourceZones(t *testing.T) {
	script := func(id int, zone, table, src string) *Policy {
		p := allowSelect(id, zone, zoneRes("shop", table, "*"), "u")
		p.PolicyItems[0].Conditions = []Condition{{Type: "expression", Values: []string{src}}}
		return p
	}
	b := zonedBundle(t,
		[]*Policy{script(1, "", "plain", "ctx.getResourceZone() === '' && ctx.getResourceZones().length == 0")},
		map[string]testZone{"pay": {resources: []map[string][]string{{"database": {"shop"}, "table": {"payments"}}},
			policies: []*Policy{script(2, "pay", "payments", "ctx.getResourceZone() == 'pay' && ctx.getResourceZones().join() == 'pay'")}}})
	v := zonedView(t, b, "u")
	for _, tbl := range []string{"plain", "payments"} {
		if d := mustDecide(t, v, "shop", tbl); !d.Allows("select") {
			t.Errorf("%s: %v", tbl, d.DeniedBy)
		}
	}
}

// On sqe's own requests, reading a client address sqe was not given
// fails the script, in each of the ways a script can read it.
func TestScriptClientAddressUnknown(t *testing.T) {
	for _, src := range []string{"ctx.getClientIPAddress() == '1.0.32.1'", "REQ.clientIPAddress == '1.0.32.1'",
		"_ctx.request.clientIPAddress != null", "J(REQ).length > 0",
		"ctx.getRequestContextAttribute('LOCATION_COUNTRY_CODE') == 'CN'"} {
		r := &request{res: &accessResource{elems: map[string]any{"database": "d"}}, st: &evalState{}, strict: true}
		if v, err := runScript(t, r, src); err == nil {
			t.Errorf("%s = %q without an address", src, v.str)
		}
		r.clientIP = "1.0.32.1"
		if src == "ctx.getRequestContextAttribute('LOCATION_COUNTRY_CODE') == 'CN'" {
			continue // no enricher sets it
		}
		if v, err := runScript(t, r, src); err != nil || v.str != "true" {
			t.Errorf("%s = %q, %v with the address", src, v.str, err)
		}
	}
}
