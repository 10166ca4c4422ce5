package ranger

import "testing"

// An audit filter list that does not parse drops no audit: every access
// is audited, whatever the audit mode and the policies say.
func TestAuditFiltersThatDoNotParseAuditEverything(t *testing.T) {
	for _, tc := range []struct {
		name, filters string
		wantErr       bool
	}{
		{"no filters", "", false},
		{"a filter that stops audits", "[ {'users': ['ann'], 'isAudited': false} ]", false},
		{"not a list", "{'users': 'ann'", true},
		{"unknown access result", "[ {'accessResult': 'MAYBE', 'isAudited': false} ]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := loadShop(t)
			b.ServiceConfig = Options{auditFilterConfig: tc.filters}
			b.AuditMode = "audit-none"
			e := newEngine(engineInput{policies: &b.ServicePolicies})
			if (e.auditFilterErr != nil) != tc.wantErr {
				t.Fatalf("auditFilterErr = %v, want an error: %v", e.auditFilterErr, tc.wantErr)
			}
			r := &request{res: &accessResource{elems: map[string]any{"database": "shop", "table": "customers"}},
				accessType: "select", user: "ann", groups: map[string]bool{}}
			res := e.evaluate(r, PolicyTypeAccess)
			switch {
			case tc.wantErr && !res.audited:
				t.Fatal("not audited although the filters did not parse")
			case !tc.wantErr && res.audited:
				t.Fatal("audited under audit-none (and a filter that stops audits)")
			}
		})
	}
}
