package ranger

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// Ranger's two sample files hold the same ranges, in dot notation and as
// numbers.
func TestGeolocationFileFormats(t *testing.T) {
	for _, c := range []struct {
		file string
		dot  bool
	}{{"geo.txt", true}, {"geo_long.txt", false}} {
		f, err := os.Open(filepath.Join(conformanceDir, "geo", c.file))
		if err != nil {
			t.Fatal(err)
		}
		db, err := parseGeolocation(f, c.dot)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got := strings.Join(db.names, ","); got != "COUNTRY_CODE,COUNTRY_NAME,STATE,CITY,ZIP,LAT,LONG" {
			t.Errorf("%s: names %s", c.file, got)
		}
		for ip, want := range map[string]string{
			"1.0.32.1":        "CN,China,Guangdong,Guangzhou",
			"::ffff:1.0.32.1": "CN,China,Guangdong,Guangzhou",
			"128.101.101.101": "US,United States,Minnesota,Minneapolis",
			"128.101.101.100": "US,United States,Minnesota,Minneapolis",
			"128.101.101.99":  "",
			"255.255.255.255": "CN,China,Guangdong,Guangzhou",
			"10.0.3.0":        "US,United States,CA",
			"10.0.3.1":        "",
			"2001:db8::1":     "",
			"not an address":  "",
		} {
			if got := strings.Join(db.lookup(ip), ","); got != want {
				t.Errorf("%s: %s is in %q, want %q", c.file, ip, got, want)
			}
		}
	}
}

// Ranger skips a data line it cannot read and picks one of two
// overlapping ranges by chance; sqe refuses such a file, so that no
// address loses or changes its location.
func TestGeolocationFileRejected(t *testing.T) {
	const meta = "# comment\nFROM_IP,TO_IP,COUNTRY_CODE\n"
	for name, c := range map[string]struct {
		text string
		dot  bool
		want string
	}{
		"overlap":        {meta + "1.0.0.0,1.0.0.255,AU\n1.0.0.128,1.0.1.0,CN\n", true, "lines 3 and 4: the ranges overlap"},
		"reversed":       {meta + "1.0.0.9,1.0.0.1,AU\n", true, "line 3: the range ends before it starts"},
		"bad address":    {meta + "1.0.0.1,host.example,AU\n", true, "line 3: the range's addresses are not IPv4 addresses in dot notation"},
		"dot in numeric": {meta + "1.0.0.1,1.0.0.2,AU\n", false, "line 3: the range's addresses are not IPv4 addresses as unsigned decimal numbers"},
		"too large":      {meta + "1,4294967296,AU\n", false, "line 3"},
		"no location":    {meta + "1.0.0.1,1.0.0.2\n", true, "line 3: a range needs"},
		"no metadata":    {"# only comments\n", true, "names no location items"},
		"short metadata": {"FROM_IP,TO_IP\n", true, "line 1: the first line"},
		"blank first":    {"\nFROM_IP,TO_IP,COUNTRY_CODE\n", true, "line 1: the first line"},
	} {
		_, err := parseGeolocation(strings.NewReader(c.text), c.dot)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
	// Identical lines are one range, as in Ranger.
	db, err := parseGeolocation(strings.NewReader(meta+"1.0.0.0,1.0.0.255,AU\n1.0.0.0,1.0.0.255,AU\n\n"), true)
	if err != nil || len(db.ranges) != 1 {
		t.Fatalf("duplicate line: %v %v", db, err)
	}
}

// geoBundle is the shop bundle with a geolocation enricher (Ranger's
// sample file, whose FilePath is fp) and policies on database geo that
// decide by the caller's location and address.
func geoBundle(t *testing.T, fp string) *Bundle {
	t.Helper()
	b := loadShop(t)
	sd := b.ServiceDef
	sd.ContextEnrichers = append(sd.ContextEnrichers, &ContextEnricherDef{Name: "geo", Enricher: geolocationEnricherClass,
		EnricherOptions: Options{"FilePath": fp, "IPInDotFormat": "true"}})
	sd.PolicyConditions = append(sd.PolicyConditions,
		&PolicyConditionDef{Name: "country-in", Evaluator: evaluatorPkg + "RangerContextAttributeValueInCondition",
			EvaluatorOptions: Options{"attributeName": "LOCATION_COUNTRY_CODE"}},
		&PolicyConditionDef{Name: "ip-range", Evaluator: evaluatorPkg + "RangerIpMatcher"})
	cond := func(it *PolicyItem, typ string, vals ...string) *PolicyItem {
		it.Conditions = []Condition{{Type: typ, Values: vals}}
		return it
	}
	b.Policies = append(b.Policies,
		&Policy{ID: 80, Name: "us only", Resources: res3("geo", "us_only", "*"),
			PolicyItems: []*PolicyItem{withScript(selectFor("u"), "ctx.getRequestContextAttribute('LOCATION_COUNTRY_CODE') == 'US'")}},
		&Policy{ID: 81, Name: "not from CN, by value", Resources: res3("geo", "no_cn", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{cond(selectFor("u"), "country-in", "CN")}},
		&Policy{ID: 82, Name: "not from CN, by script", Resources: res3("geo", "no_cn_script", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u"), "ctx.getRequestContextAttribute('LOCATION_COUNTRY_CODE') == 'CN'")}},
		&Policy{ID: 83, Name: "not from one address", Resources: res3("geo", "ip_deny", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{withScript(selectFor("u"), "ctx.getClientIPAddress() == '1.0.32.1' || REQ.clientIPAddress == '1.0.32.1'")}},
		&Policy{ID: 84, Name: "not from a network", Resources: res3("geo", "net_deny", "*"),
			PolicyItems:     []*PolicyItem{selectFor("u")},
			DenyPolicyItems: []*PolicyItem{cond(selectFor("u"), "ip-range", "1.0.0.0/16")}},
	)
	return b
}

func geoDecisions(t *testing.T, s *Snapshot, attrs map[string]string) map[string]string {
	t.Helper()
	v, err := s.View(session.User{Name: "u", Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tbl := range []string{"us_only", "no_cn", "no_cn_script", "ip_deny", "net_deny"} {
		d, err := v.Decide(policy.TableName{Schema: "geo", Table: tbl})
		if err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		if d.Allows(policy.Select) {
			out[tbl] = "allowed"
		} else {
			out[tbl] = d.Reason(policy.Select)
		}
	}
	return out
}

// The caller's location decides as Ranger decides it; an address sqe was
// not given, one that is not an address, and a file sqe cannot read make
// every condition on the location or the address count against the
// caller: no allow by location grants, every deny by location applies.
func TestGeolocationConditionsFailClosed(t *testing.T) {
	local := filepath.Join(conformanceDir, "geo", "geo.txt")
	p := writeBundle(t, geoBundle(t, "/etc/ranger/geo/geo.txt"))
	src, err := OpenBundle(p, WithGeolocationFile("/etc/ranger/geo/geo.txt", local), WithClientAddressAttribute("client_ip"))
	if err != nil {
		t.Fatal(err)
	}
	s := src.Current()
	if errs := s.GeolocationErrors(); len(errs) != 0 {
		t.Fatalf("geolocation errors: %v", errs)
	}
	const (
		allowed   = "allowed"
		noPolicy  = ReasonNoPolicy
		unknown82 = "ranger policy 82: deny " + reasonUnknownCondition
		unknown83 = "ranger policy 83: deny " + reasonUnknownCondition
		unknown84 = "ranger policy 84: deny " + reasonUnknownCondition
		unknown81 = "ranger policy 81: deny " + reasonUnknownCondition
		denied81  = "ranger policy 81"
		denied82  = "ranger policy 82"
		denied83  = "ranger policy 83"
		denied84  = "ranger policy 84"
	)
	for _, c := range []struct {
		name  string
		attrs map[string]string
		want  map[string]string
	}{
		{"from the US", map[string]string{"client_ip": "128.101.101.101"},
			map[string]string{"us_only": allowed, "no_cn": allowed, "no_cn_script": allowed, "ip_deny": allowed, "net_deny": allowed}},
		{"from CN", map[string]string{"client_ip": "1.0.32.1"},
			map[string]string{"us_only": noPolicy, "no_cn": denied81, "no_cn_script": denied82, "ip_deny": denied83, "net_deny": denied84}},
		// Not in the file: Ranger's certain answer, no location (the
		// value-in condition then matches, as in Ranger).
		{"from nowhere known", map[string]string{"client_ip": "128.101.101.99"},
			map[string]string{"us_only": noPolicy, "no_cn": denied81, "no_cn_script": allowed, "ip_deny": allowed, "net_deny": allowed}},
		{"no address", nil,
			map[string]string{"us_only": noPolicy, "no_cn": unknown81, "no_cn_script": unknown82, "ip_deny": unknown83, "net_deny": unknown84}},
		{"not an address", map[string]string{"client_ip": "1.0.32.1.example"},
			map[string]string{"us_only": noPolicy, "no_cn": unknown81, "no_cn_script": unknown82, "ip_deny": allowed, "net_deny": unknown84}},
	} {
		got := geoDecisions(t, s, c.attrs)
		for tbl, want := range c.want {
			if got[tbl] != want {
				t.Errorf("%s: %s: %q, want %q", c.name, tbl, got[tbl], want)
			}
		}
	}

	// The file is missing: the location is unknown for every caller.
	src, err = OpenBundle(p, WithGeolocationFile("/etc/ranger/geo/geo.txt", filepath.Join(t.TempDir(), "missing.txt")),
		WithClientAddressAttribute("client_ip"))
	if err != nil {
		t.Fatal(err)
	}
	s = src.Current()
	errs := s.GeolocationErrors()
	if len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) || !strings.Contains(errs[0].Error(), `geolocation enricher "geo"`) {
		t.Fatalf("geolocation errors: %v", errs)
	}
	got := geoDecisions(t, s, map[string]string{"client_ip": "1.0.32.1"})
	want := map[string]string{"us_only": noPolicy, "no_cn": unknown81, "no_cn_script": unknown82, "ip_deny": denied83, "net_deny": denied84}
	for tbl, w := range want {
		if got[tbl] != w {
			t.Errorf("missing file: %s: %q, want %q", tbl, got[tbl], w)
		}
	}
	got = geoDecisions(t, s, map[string]string{"client_ip": "128.101.101.101"})
	if got["us_only"] != noPolicy || got["no_cn_script"] != unknown82 {
		t.Errorf("missing file, from the US: %v", got)
	}
}

// Without WithClientAddressAttribute sqe knows no address, whatever the
// caller's attributes hold.
func TestClientAddressNeedsItsOption(t *testing.T) {
	p := writeBundle(t, geoBundle(t, "/etc/ranger/geo/geo.txt"))
	src, err := OpenBundle(p, WithGeolocationFile("/etc/ranger/geo/geo.txt", filepath.Join(conformanceDir, "geo", "geo.txt")))
	if err != nil {
		t.Fatal(err)
	}
	got := geoDecisions(t, src.Current(), map[string]string{"client_ip": "128.101.101.101"})
	if got["us_only"] != ReasonNoPolicy || got["ip_deny"] != "ranger policy 83: deny "+reasonUnknownCondition {
		t.Errorf("without the option: %v", got)
	}
}

// Views of callers at different addresses do not share decisions.
func TestClientAddressInFingerprint(t *testing.T) {
	p := writeBundle(t, geoBundle(t, "/etc/ranger/geo/geo.txt"))
	src, err := OpenBundle(p, WithGeolocationFile("/etc/ranger/geo/geo.txt", filepath.Join(conformanceDir, "geo", "geo.txt")),
		WithClientAddressAttribute("client_ip"))
	if err != nil {
		t.Fatal(err)
	}
	s := src.Current()
	us := geoDecisions(t, s, map[string]string{"client_ip": "128.101.101.101"})
	cn := geoDecisions(t, s, map[string]string{"client_ip": "1.0.32.1"})
	if us["no_cn"] != "allowed" || cn["no_cn"] != "ranger policy 81" {
		t.Errorf("shared decisions: US %v, CN %v", us, cn)
	}
}
