package ranger_test

import (
	"fmt"
	"log"
	"os"
	"sort"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/session"
)

// A bundle file (written by "sqe fetch", or a Ranger policy download) is a
// policy source; with the driver it is sqe.WithPolicy(src) or
// sqe.WithPolicyFile(path).
func ExampleLoadBundle() {
	src, err := ranger.LoadBundle("testdata/shop_bundle.json")
	if err != nil {
		log.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	view, err := snap.View(session.User{Name: "ann", Groups: []string{"analysts"}})
	if err != nil {
		log.Fatal(err)
	}

	d, err := view.Decide(policy.TableName{Schema: "shop", Table: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("orders: select", d.Allows(policy.Select), "update", d.Allows(policy.Update))
	for _, f := range d.RowFilters {
		fmt.Printf("orders: row filter %q from %s\n", f.Expr, f.Policy)
	}

	d, err = view.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if err != nil {
		log.Fatal(err)
	}
	cols := make([]string, 0, len(d.Masks))
	for c := range d.Masks {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		fmt.Printf("customers.%s: %s from %s\n", c, d.Masks[c].Type, d.Masks[c].Policy)
	}

	// Contractors are denied the payments table by a tag policy.
	view, _ = snap.View(session.User{Name: "carl", Groups: []string{"contractors"}})
	d, _ = view.Decide(policy.TableName{Schema: "shop", Table: "payments"})
	fmt.Println("payments for a contractor:", d.Allows(policy.Select), "denied by", d.Reason(policy.Select))
	// Output:
	// orders: select true update false
	// orders: row filter "region = 'EU'" from ranger policy 10
	// customers.email: CUSTOM from ranger policy 21
	// customers.phone: MASK_HASH from ranger tag policy 100
	// customers.ssn: MASK_SHOW_LAST_4 from ranger policy 20
	// payments for a contractor: false denied by ranger tag policy 101
}

// Condition scripts run on a JavaScript engine with a time limit per run.
// A script that fails (throws, or is still running at the limit) counts
// against the caller: here the deny item it guards applies.
func ExampleWithScriptTimeLimit() {
	data, err := os.ReadFile("testdata/shop_bundle.json")
	if err != nil {
		log.Fatal(err)
	}
	b, err := ranger.ParseBundle(data)
	if err != nil {
		log.Fatal(err)
	}
	selectFor := func(script string) *ranger.PolicyItem {
		it := &ranger.PolicyItem{Accesses: []ranger.ItemAccess{{Type: "select"}}, Users: []string{"ann"}}
		if script != "" {
			it.Conditions = []ranger.Condition{{Type: "expression", Values: []string{script}}}
		}
		return it
	}
	b.Policies = append(b.Policies, &ranger.Policy{ID: 500, Name: "reports",
		Resources: map[string]*ranger.PolicyResource{
			"database": {Values: []string{"reports"}}, "table": {Values: []string{"*"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*ranger.PolicyItem{selectFor("")},
		DenyPolicyItems: []*ranger.PolicyItem{
			selectFor("USER.clearance == 'low' && !['eu', 'us'].intersects(UGNAMES)"),
			selectFor("while (USER.clearance == 'loop') {} false"),
		}})
	src, err := ranger.NewStatic(b, ranger.WithScriptTimeLimit(100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	for _, clearance := range []string{"high", "low", "loop"} {
		view, err := snap.View(session.User{Name: "ann", Attributes: map[string]string{"clearance": clearance}})
		if err != nil {
			log.Fatal(err)
		}
		d, err := view.Decide(policy.TableName{Schema: "reports", Table: "sales"})
		if err != nil {
			log.Fatal(err)
		}
		if d.Allows(policy.Select) {
			fmt.Printf("clearance %s: select allowed\n", clearance)
		} else {
			fmt.Printf("clearance %s: select denied by %s\n", clearance, d.Reason(policy.Select))
		}
	}
	fmt.Println("failed script runs:", src.Current().ScriptFailures())
	// Output:
	// clearance high: select allowed
	// clearance low: select denied by ranger policy 500
	// clearance loop: select denied by ranger policy 500: deny condition sqe cannot evaluate
	// failed script runs: 1
}

// A Kerberized Ranger admin (hadoop.security.authentication=kerberos):
// the plugin logs in with its keytab and downloads from the secure
// endpoints with a service ticket for HTTP/<admin host>. Several admins,
// comma-separated, take turns when one fails.
func ExampleWithKerberos() {
	src, err := ranger.New("https://ranger1.example.com:6182,https://ranger2.example.com:6182", "hivedev",
		ranger.WithKerberos(ranger.Kerberos{
			Principal: "sqe/app01.example.com@EXAMPLE.COM",
			Keytab:    "/etc/security/keytabs/sqe.service.keytab",
			Config:    "/etc/krb5.conf",
		}),
		ranger.WithCacheDir("/var/lib/sqe/ranger"))
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
}

// Ranger decides which accesses are audited: the service config's
// ranger.plugin.audit.filters and exclusions, and the plugin's own
// exclusions (ranger.plugin.<service>.audit.exclude.*). sqe's audit leaves
// out a successful statement Ranger would not audit.
func ExampleWithAuditExclusions() {
	data, err := os.ReadFile("testdata/shop_bundle.json")
	if err != nil {
		log.Fatal(err)
	}
	b, err := ranger.ParseBundle(data)
	if err != nil {
		log.Fatal(err)
	}
	src, err := ranger.NewStatic(b, ranger.WithAuditExclusions(ranger.AuditExclusions{Users: []string{"etl"}}))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	for _, user := range []string{"ann", "etl"} {
		view, err := snap.View(session.User{Name: user, Groups: []string{"analysts"}})
		if err != nil {
			log.Fatal(err)
		}
		d, err := view.Decide(policy.TableName{Schema: "shop", Table: "orders"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: select allowed %v, audited %v\n", user, d.Allows(policy.Select), !d.Unaudited[policy.Select])
	}
	// Output:
	// ann: select allowed true, audited true
	// etl: select allowed true, audited false
}

// A policy that decides by the caller's location: the service-def's
// geolocation enricher reads Ranger's file, and the application gives
// each caller's address in a session attribute.
func ExampleWithClientAddressAttribute() {
	data, err := os.ReadFile("testdata/shop_bundle.json")
	if err != nil {
		log.Fatal(err)
	}
	b, err := ranger.ParseBundle(data)
	if err != nil {
		log.Fatal(err)
	}
	b.ServiceDef.ContextEnrichers = append(b.ServiceDef.ContextEnrichers, &ranger.ContextEnricherDef{Name: "geo",
		Enricher:        "org.apache.ranger.plugin.contextenricher.RangerFileBasedGeolocationProvider",
		EnricherOptions: ranger.Options{"FilePath": "/etc/ranger/geo/geo.txt"}})
	b.Policies = append(b.Policies, &ranger.Policy{ID: 1, Name: "sales from the US",
		Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}},
			"table": {Values: []string{"sales"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*ranger.PolicyItem{{Accesses: []ranger.ItemAccess{{Type: "select"}}, Users: []string{"ann"},
			Conditions: []ranger.Condition{{Type: "expression",
				Values: []string{"ctx.getRequestContextAttribute('LOCATION_COUNTRY_CODE') == 'US'"}}}}}})

	src, err := ranger.NewStatic(b,
		ranger.WithGeolocationFile("/etc/ranger/geo/geo.txt", "testdata/conformance/geo/geo.txt"),
		ranger.WithClientAddressAttribute("client_ip"))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	for _, ip := range []string{"128.101.101.101", "1.0.32.1", ""} {
		u := session.User{Name: "ann", Attributes: map[string]string{"client_ip": ip}}
		view, err := snap.View(u)
		if err != nil {
			log.Fatal(err)
		}
		d, err := view.Decide(policy.TableName{Schema: "shop", Table: "sales"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("from %q: select %v\n", ip, d.Allows(policy.Select))
	}
	// Output:
	// from "128.101.101.101": select true
	// from "1.0.32.1": select false
	// from "": select false
}
