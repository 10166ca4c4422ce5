package ranger

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	if f := Lint(loadShop(t)); len(f) != 0 {
		t.Errorf("the shop bundle has findings: %v", f)
	}

	b := loadShop(t)
	cond := func(typ string, v ...string) []Condition { return []Condition{{Type: typ, Values: v}} }
	b.ServiceDef.PolicyConditions = append(b.ServiceDef.PolicyConditions,
		&PolicyConditionDef{Name: "ip-range", Evaluator: evaluatorPkg + "RangerIpMatcher"},
		&PolicyConditionDef{Name: "geo", Evaluator: "com.example.GeoEvaluator"},
		&PolicyConditionDef{Name: "expression", Evaluator: evaluatorPkg + "RangerScriptConditionEvaluator"})
	res := func(db, table string) map[string]*PolicyResource {
		return map[string]*PolicyResource{"database": {Values: []string{db}}, "table": {Values: []string{table}}, "column": {Values: []string{"*"}}}
	}
	b.ServiceDef.ContextEnrichers = append(b.ServiceDef.ContextEnrichers,
		&ContextEnricherDef{Name: "geo", Enricher: geolocationEnricherClass},
		&ContextEnricherDef{Name: "cluster", Enricher: "com.example.ClusterEnricher"})
	b.Policies = append(b.Policies,
		&Policy{ID: 70, Name: "ip", Resources: res("x", "t"),
			PolicyItems:     []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, Conditions: cond("ip-range", "10.*")}},
			DenyPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"v"}, Conditions: cond("geo", "FR")}}},
		&Policy{ID: 71, Name: "script", Resources: res("x", "t"), Conditions: cond("expression", "new java.io.File('/').exists()"),
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}},
		&Policy{ID: 72, Name: "masks", PolicyType: PolicyTypeDataMask, Resources: res("x", "t"),
			DataMaskPolicyItems: []*PolicyItem{
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "MASK_SHOW_LAST_4"}},
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "MASK_SECRET"}},
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "CUSTOM", ValueExpr: "reflect('java.lang.Math', 'abs', {col})"}},
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "CUSTOM", ValueExpr: "mask_show_last_n({col}, 4, 'x', 'x', 'x', -1, '1')"}},
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "hive:CUSTOM", ValueExpr: "mask_show_last_n({col}, 'four')"}},
			}},
		&Policy{ID: 73, Name: "filters", PolicyType: PolicyTypeRowFilter, Resources: res("x", "t"),
			RowFilterPolicyItems: []*PolicyItem{
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, RowFilterInfo: &RowFilterInfo{FilterExpr: "dept = '${{USER.dept}}'"}},
				{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"v"}, RowFilterInfo: &RowFilterInfo{FilterExpr: "id in (select id from t2 where in_file(x, '/etc'))"}},
			}},
		&Policy{ID: 74, Name: "udfs", Resources: map[string]*PolicyResource{"database": {Values: []string{"x"}}, "udf": {Values: []string{"*"}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "read"}}, Users: []string{"u"}}}},
		&Policy{ID: 75, Name: "recurring", Resources: res("x", "t"), ValiditySchedules: []*ValiditySchedule{{Recurrences: []json.RawMessage{json.RawMessage(
			`{"schedule": {"minute": "*", "hour": "9", "dayOfWeek": "2-6", "month": "*", "year": "*"}, "interval": {"hours": 8}}`)}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}},
		&Policy{ID: 79, Name: "office hours", Resources: res("x", "t"), ValiditySchedules: []*ValiditySchedule{{Recurrences: []json.RawMessage{json.RawMessage(
			`{"schedule": {"minute": "0", "hour": "9", "dayOfWeek": "2-6", "month": "*", "year": "*"}, "interval": {"hours": 8}}`)}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}},
		&Policy{ID: 76, Name: "off", IsEnabled: boolPtr(false), Resources: res("x", "t"), Conditions: cond("geo", "FR")},
		&Policy{ID: 78, Name: "stray zone", ZoneName: "z1", Resources: res("x", "t"),
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}},
		&Policy{ID: 77, Name: "runtime", Resources: res("x", "t"),
			PolicyItems:     []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, Conditions: cond("expression", "USER.dept.split(',').includes('x')")}},
			DenyPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"v"}, Conditions: cond("expression", "ctx.getUserAttribute('dept') == 'ENGG'")}}},
	)
	b.SecurityZones = map[string]json.RawMessage{
		"z1":    json.RawMessage(`{"resources": [{"database": ["fin"], "table": ["*"], "column": ["ss*"]}], "policies": [{"id": 90, "name": "zone geo", "zoneName": "z1", "resources": {"database": {"values": ["fin"]}}, "conditions": [{"type": "geo", "values": ["FR"]}]}]}`),
		"hdfs":  json.RawMessage(`{"resources": [{"url": ["/tmp"]}], "policies": []}`),
		"empty": json.RawMessage(`{}`),
	}
	var got []string
	for _, f := range Lint(b) {
		got = append(got, f.String())
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		`error: service-def context enricher "cluster": com.example.ClusterEnricher is not run by sqe: conditions that read the request-context attributes it sets count against the caller`,
		`error: policy 70 (ip), policy item 1: condition "ip-range" reads the client IP address, which sqe knows only from the session attribute WithClientAddressAttribute names, and fails without it: then the item does not match`,
		`error: policy 70 (ip), deny item 1: condition "geo" uses evaluator com.example.GeoEvaluator, which sqe does not evaluate: the item always applies`,
		`error: policy 71 (script), condition: condition "expression": script "new java.io.File('/').exists()" uses java, which scripts cannot reach, and fails when it gets there: then the policy does not grant and its denies apply`,
		`error: policy 72 (masks), mask item 2: mask type "MASK_SECRET" has no sqe equivalent`,
		`error: policy 72 (masks), mask item 3: CUSTOM expression "reflect('java.lang.Math', 'abs', {col})": uses the Hive function reflect()`,
		`error: policy 72 (masks), mask item 5: CUSTOM expression "mask_show_last_n({col}, 'four')": udf: mask MASK_SHOW_LAST_N`,
		`error: policy 73 (filters), row-filter item 2: filter "id in (select id from t2 where in_file(x, '/etc'))": uses the Hive function in_file()`,
		`warning: policy 74 (udfs), resources: resource "udf"`,
		`warning: policy 74 (udfs), policy item 1: access types read`,
		`error: policy 75 (recurring), validity schedule 1: recurrence 1: minute: invalid character, so Ranger's admin would refuse it: the policy never grants and its denies always apply`,
		`error: policy 90 (zone geo), condition: condition "geo" uses evaluator com.example.GeoEvaluator`,
		`warning: policy 78 (stray zone), zone: names security zone "z1" but comes with the unzoned policies`,
		`warning: security zone "z1": resource set 1 names columns by pattern (ss*)`,
		`warning: security zone "hdfs": resource set 1 (url) is not touched by SQL statements`,
		`warning: security zone "hdfs": has no database, table or column resources`,
		`warning: security zone "empty": has no database, table or column resources: no SQL statement falls in it and its 0 policies`,
		`error: policy 77 (runtime), deny item 1: condition "expression": script "ctx.getUserAttribute('dept') == 'ENGG'" calls ctx.getUserAttribute, which ctx does not have, and fails when it gets there: then the item applies`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lint lacks %q; got:\n%s", want, text)
		}
	}
	if strings.Contains(text, "does not support") {
		t.Errorf("zones are supported; got:\n%s", text)
	}
	b.SecurityZones = map[string]json.RawMessage{"bad": json.RawMessage(`[]`)}
	if f := Lint(b); !strings.Contains(f[0].String(), `error: security zones: security zone "bad" does not parse`) {
		t.Errorf("unparsable zone: %v", f[0])
	}
	for _, unwanted := range []string{"policy 76", "mask item 1", "mask item 4", "row-filter item 1", "policy 77 (runtime), policy item 1", "policy 79"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("lint reports %q; got:\n%s", unwanted, text)
		}
	}
}

func TestLintAuditFilters(t *testing.T) {
	b := loadShop(t)
	b.ServiceConfig = Options{auditFilterConfig: "[ {'users': ['ann'], 'isAudited': false} ]"}
	if f := Lint(b); len(f) != 0 {
		t.Fatalf("findings for filters that parse: %v", f)
	}
	b.ServiceConfig = Options{auditFilterConfig: "[ {'users': 'ann'"}
	f := Lint(b)
	if len(f) != 1 || f[0].Severity != SeverityWarning || !strings.Contains(f[0].Where, auditFilterConfig) ||
		!strings.Contains(f[0].Message, "every access is audited") {
		t.Fatalf("findings %v, want one warning about the audit filters", f)
	}
}

// A filter or CUSTOM mask whose text holds the request-value markers'
// qualifier is found: the table would fail closed.
func TestLintFindsMarkerText(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies, &Policy{ID: 93, Name: "forged", PolicyType: PolicyTypeRowFilter,
		Resources: map[string]*PolicyResource{"database": {Values: []string{"x"}}, "table": {Values: []string{"t"}}},
		RowFilterPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"},
			RowFilterInfo: &RowFilterInfo{FilterExpr: "dept = sqe_request_value.v0_"}}}})
	found := false
	for _, f := range Lint(b) {
		if strings.Contains(f.String(), "sqe_request_value") {
			found = true
		}
	}
	if !found {
		t.Errorf("no finding: %v", Lint(b))
	}
}

// Lint reads an expression's calls with a parser: a Hive-only name in a
// string literal, a comment or a request expression is no call, a
// backquoted or upper-case name is, and {col} and request expressions do
// not keep the parser from reading the rest.
func TestLintReadsHiveCalls(t *testing.T) {
	for expr, want := range map[string]string{
		"owner = logged_in_user()":                                    "",
		"note <> 'reflect(1)' AND note <> \"in_file(x)\"":             "",
		"id > 0 /* java_method( */ -- current_groups(\n":              "",
		"dept = '${{USER.reflect}}' AND level < ${{USER.level}}":      "",
		"`reflect`(id) = 1":                                           "reflect()",
		"JAVA_METHOD('a', 'b') = '${{USER.x}}'":                       "java_method()",
		"id IN (SELECT id FROM t WHERE CURRENT_GROUPS() IS NOT NULL)": "current_groups()",
		"CASE WHEN {col} = 'x' THEN mask({col}) END":                  "mask()",
		"logged_in_user('x') = owner":                                 "logged_in_user()",
	} {
		err := lintExpr(expr)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), "Hive function "+want)) {
			t.Errorf("%s: %v, want %q", expr, err, want)
		}
	}
}
