package ranger

import (
	"testing"
	"time"
)

func TestDecodeDownloadShapes(t *testing.T) {
	// Times as epoch milliseconds and in Ranger's string format, booleans
	// and numbers as strings, and fields sqe does not know are ignored.
	data := []byte(`{
	  "serviceName": "hivedev", "policyVersion": "7", "someFutureField": {"x": [1, 2]},
	  "policyUpdateTime": 1700000000123,
	  "serviceDef": {"name": "hive", "resources": [{"name": "database", "level": 10}], "accessTypes": [{"name": "select"}]},
	  "policies": [{"id": 3, "isEnabled": "true", "isAuditEnabled": 0, "policyType": "0",
	    "updateTime": "20240131-10:15:30.000-+0000", "createTime": "20240131-10:15:30.000--0500",
	    "resources": {"database": {"values": ["d"], "isExcludes": "false", "isRecursive": false}},
	    "policyItems": [{"accesses": [{"type": "select", "isAllowed": true}], "users": ["u"], "delegateAdmin": "false"}],
	    "unknownPolicyField": "ignored"}]
	}`)
	b, err := ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	if version(b.PolicyVersion) != 7 {
		t.Errorf("policyVersion = %v", b.PolicyVersion)
	}
	if got := b.PolicyUpdateTime.Time; !got.Equal(time.UnixMilli(1700000000123)) {
		t.Errorf("policyUpdateTime = %v", got)
	}
	p := b.Policies[0]
	if !boolOr(p.IsEnabled, false) || boolOr(p.IsAuditEnabled, true) {
		t.Errorf("booleans: enabled %v audit %v", p.IsEnabled, p.IsAuditEnabled)
	}
	var times struct{ A, B, C Time }
	if err := decodeJSON([]byte(`{"A": "20240131-10:15:30.000-+0000", "B": "20240131-10:15:30.000--0500", "C": "1706696130000"}`), &times); err != nil {
		t.Fatal(err)
	}
	for i, got := range []Time{times.A, times.B, times.C} {
		want := time.Date(2024, 1, 31, 10, 15, 30, 0, time.UTC)
		if i == 1 {
			want = want.Add(5 * time.Hour)
		}
		if !got.Equal(want) {
			t.Errorf("time %d = %v, want %v", i, got.Time, want)
		}
	}
	if _, err := ParseBundle([]byte(`{"policies": []}`)); err == nil {
		t.Error("a download without serviceDef was accepted")
	}
	if _, err := ParseBundle([]byte(`{"serviceDef": {}, "policies": []} {}`)); err == nil {
		t.Error("trailing data was accepted")
	}
}
