package sqe_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/sqe-project/sqe"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/testdb"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// TestRangerBundleEndToEnd enforces a Ranger policy bundle (the hive
// service-def: access, row-filter, data-mask and tag policies) through the
// driver on both databases, for users in different groups and roles.
func TestRangerBundleEndToEnd(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			testdb.Exec(t, e.raw,
				"DROP TABLE orders", "DROP TABLE customers",
				"CREATE TABLE orders (id INT PRIMARY KEY, region VARCHAR(8), total INT)",
				"CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), ssn VARCHAR(11), email VARCHAR(60), phone VARCHAR(20))",
				"CREATE TABLE payments (id INT PRIMARY KEY, amount INT)",
				"INSERT INTO orders VALUES (1, 'EU', 10), (2, 'US', 20), (3, 'EU', 30)",
				"INSERT INTO customers VALUES (1, 'Ada', '123-45-6789', 'ada@example.org', 'PHONE-CANARY-1')",
				"INSERT INTO payments VALUES (1, 777)")
			src, err := ranger.LoadBundle("ranger/testdata/shop_bundle.json", ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ann := session.User{Name: "ann", Groups: []string{"analysts"}}
			carl := session.User{Name: "carl", Groups: []string{"contractors"}}
			alice := session.User{Name: "alice"}
			auditor := session.User{Name: "aud", Roles: []string{"auditor"}}

			// Row filter: analysts see EU orders only.
			rows, _, err := query(as(ann), db, "SELECT id, total FROM orders ORDER BY id")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("1", "10"), r("3", "30")}) {
				t.Fatalf("ann's orders: %v %v", rows, err)
			}
			rows, _, err = query(as(alice), db, "SELECT COUNT(*) FROM orders")
			if err != nil || rows[0][0] != "3" {
				t.Fatalf("alice's orders: %v %v", rows, err)
			}
			// MASK_SHOW_LAST_4, a CUSTOM mask and a tag-based MASK_HASH.
			rows, _, err = query(as(ann), db, "SELECT ssn, email, phone FROM customers")
			if err != nil {
				t.Fatal(err)
			}
			if rows[0][0] != "xxx-xx-6789" || rows[0][1] != "***@example.org" || len(rows[0][2]) != 64 || strings.Contains(rows[0][2], "CANARY") {
				t.Fatalf("ann's customers: %v", rows)
			}
			rows, _, err = query(as(alice), db, "SELECT ssn, phone FROM customers")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("123-45-6789", "PHONE-CANARY-1")}) {
				t.Fatalf("alice (tag mask MASK_NONE for her): %v %v", rows, err)
			}
			// A column denied to contractors is restricted for them.
			_, cols, err := query(as(carl), db, "SELECT * FROM customers")
			if err != nil || reflect.DeepEqual(cols, []string{"id", "name", "ssn", "email", "phone"}) || strings.Contains(strings.Join(cols, ","), "ssn") {
				t.Fatalf("carl's columns: %v %v", cols, err)
			}
			if _, _, err := query(as(carl), db, "SELECT ssn FROM customers"); !errors.Is(err, sqe.ErrColumnDenied) {
				t.Fatalf("carl naming ssn: %v", err)
			}
			// A tag-based deny: RESTRICTED payments are denied to contractors;
			// the auditor role may read them.
			if _, _, err := query(as(carl), db, "SELECT amount FROM payments"); !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("carl reading payments: %v", err)
			}
			rows, _, err = query(as(auditor), db, "SELECT amount FROM payments")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("777")}) {
				t.Fatalf("auditor reading payments: %v %v", rows, err)
			}
			// No grant at all: denied.
			if _, _, err := query(as(session.User{Name: "nobody"}), db, "SELECT id FROM orders"); !errors.Is(err, sqe.ErrAccessDenied) {
				t.Fatalf("a user without a grant: %v", err)
			}
		})
	}
}

// TestPolicyFileMayBeARangerBundle: WithPolicyFile (and policy= in the DSN)
// take a Ranger bundle as well as a native policy file.
func TestPolicyFileMayBeARangerBundle(t *testing.T) {
	_, _, err := sqlmock.NewWithDSN("sqe-bundle-file")
	if err != nil {
		t.Fatal(err)
	}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
		"shop.orders": {{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"}}}}
	db, err := sqe.Open("sqlmock", "sqe-bundle-file", sqe.WithPolicyFile("ranger/testdata/shop_bundle.json"),
		sqe.WithDialect("mysql"), sqe.WithCatalog(cat), sqe.WithoutAudit())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ex, err := sqe.Explain(context.Background(), db, session.User{Name: "ann", Groups: []string{"analysts"}}, "SELECT id FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ex.SQL, "`shop`.`orders`.`region` = 'EU'") || len(ex.Tables) != 1 || len(ex.Tables[0].RowFilters) != 1 {
		t.Fatalf("the bundle's row filter is not applied: %s", ex.SQL)
	}
}

// TestRangerAuditNamesThePolicies: with a Ranger bundle, a statement's
// audit record and its Ranger event name the policy that allowed it, and
// a refusal's event the policy that denied it.
func TestRangerAuditNamesThePolicies(t *testing.T) {
	db, done := openBundleAudited(t, "sqe-bundle-audit", "ranger/testdata/shop_bundle.json", 1)
	analyst := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"analysts"}})
	rows, err := db.QueryContext(analyst, "SELECT id FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	mallory := session.NewContext(context.Background(), session.User{Name: "mallory", Groups: []string{"analysts"}})
	if _, err := db.QueryContext(mallory, "SELECT id FROM orders"); !errors.Is(err, sqe.ErrAccessDenied) {
		t.Fatalf("mallory: %v", err)
	}
	records := done()
	if len(records) != 2 {
		t.Fatalf("records: %+v", records)
	}
	allowed := records[0]
	if !allowed.Allowed || len(allowed.Tables) != 1 || !reflect.DeepEqual(allowed.Tables[0].AllowedBy, []string{"ranger policy 1"}) {
		t.Fatalf("allowed: %+v", allowed)
	}
	var buf bytes.Buffer
	rs := audit.NewRangerSink(&buf, audit.RangerOptions{})
	rs.Audit(context.Background(), &records[0])
	rs.Audit(context.Background(), &records[1])
	dec := json.NewDecoder(&buf)
	for i, want := range []int64{1, 3} {
		var ev audit.RangerEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		if ev.PolicyID != want || ev.AccessType != "select" {
			t.Errorf("event %d: policy %d, access %q, want policy %d, select (%+v)", i, ev.PolicyID, ev.AccessType, want, records[i])
		}
	}
}

// TestRangerAuditFiltersDecideWhatIsAudited: the service config's audit
// filters decide, as in Ranger, which statements are audited: a filter
// that stops auditing some users' allowed accesses leaves ann's
// successful statement out of the audit, while mallory's refusal, and
// everyone else's statements, are still audited.
func TestRangerAuditFiltersDecideWhatIsAudited(t *testing.T) {
	data, err := os.ReadFile("ranger/testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ranger.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	b.ServiceConfig = ranger.Options{"ranger.plugin.audit.filters": "[ {'users': ['ann', 'mallory'], 'accessResult': 'ALLOWED', 'isAudited': false} ]"}
	path := filepath.Join(t.TempDir(), "bundle.json")
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	// mallory is refused (the shop bundle denies her): her refusal is
	// audited although the filter names her.
	db, done := openBundleAudited(t, "sqe-bundle-audit-filters", path, 2)
	for _, u := range []session.User{{Name: "ann", Groups: []string{"analysts"}}, {Name: "bob", Groups: []string{"analysts"}}} {
		rows, err := db.QueryContext(session.NewContext(context.Background(), u), "SELECT id FROM orders")
		if err != nil {
			t.Fatalf("%s: %v", u.Name, err)
		}
		rows.Close()
	}
	mallory := session.NewContext(context.Background(), session.User{Name: "mallory", Groups: []string{"analysts"}})
	if _, err := db.QueryContext(mallory, "SELECT id FROM orders"); !errors.Is(err, sqe.ErrAccessDenied) {
		t.Fatalf("mallory: %v", err)
	}
	var got []string
	for _, r := range done() {
		got = append(got, fmt.Sprintf("%s allowed=%v", r.User, r.Allowed))
	}
	if want := []string{"bob allowed=true", "mallory allowed=false"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("audited %q, want %q", got, want)
	}
}

// openBundleAudited opens sqe over sqlmock (the DSN names the mock) with
// the policy file and a static catalog of shop.orders, answering queries
// with one row, and returns a function that closes the pool (delivering
// the queued audit records) and returns the records.
func openBundleAudited(t *testing.T, dsn, policyFile string, queries int) (*sql.DB, func() []audit.Record) {
	t.Helper()
	_, mock, err := sqlmock.NewWithDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	mock.MatchExpectationsInOrder(false)
	for i := 0; i < queries; i++ {
		mock.ExpectQuery("(?i)select").WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1))
	}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{
		"shop.orders": {{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"}}}}
	var mu sync.Mutex
	var records []audit.Record
	sink := audit.SinkFunc(func(_ context.Context, r *audit.Record) {
		mu.Lock()
		defer mu.Unlock()
		records = append(records, *r)
	})
	db, err := sqe.Open("sqlmock", dsn, sqe.WithPolicyFile(policyFile), sqe.WithDialect("mysql"), sqe.WithCatalog(cat), sqe.WithAudit(sink))
	if err != nil {
		t.Fatal(err)
	}
	return db, func() []audit.Record {
		db.Close()
		mu.Lock()
		defer mu.Unlock()
		return append([]audit.Record(nil), records...)
	}
}

// TestRangerGeolocationEndToEnd: a deny by the caller's location (Ranger's
// file-based geolocation enricher and a context-attribute condition)
// keeps the rows of a caller from the denied country, and of a caller
// whose address sqe was not given, on both databases.
func TestRangerGeolocationEndToEnd(t *testing.T) {
	data, err := os.ReadFile("ranger/testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := ranger.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	sd := bundle.ServiceDef
	sd.ContextEnrichers = append(sd.ContextEnrichers, &ranger.ContextEnricherDef{Name: "geo",
		Enricher:        "org.apache.ranger.plugin.contextenricher.RangerFileBasedGeolocationProvider",
		EnricherOptions: ranger.Options{"FilePath": "/etc/ranger/geo/geo.txt", "IPInDotFormat": "true"}})
	sd.PolicyConditions = append(sd.PolicyConditions, &ranger.PolicyConditionDef{Name: "country-in",
		Evaluator:        "org.apache.ranger.plugin.conditionevaluator.RangerContextAttributeValueInCondition",
		EvaluatorOptions: ranger.Options{"attributeName": "LOCATION_COUNTRY_CODE"}})
	bundle.Policies = append(bundle.Policies, &ranger.Policy{ID: 90, Name: "no secrets from CN",
		Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}},
			"table": {Values: []string{"secrets"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*ranger.PolicyItem{{Accesses: []ranger.ItemAccess{{Type: "select"}}, Groups: []string{"analysts"}}},
		DenyPolicyItems: []*ranger.PolicyItem{{Accesses: []ranger.ItemAccess{{Type: "select"}}, Groups: []string{"analysts"},
			Conditions: []ranger.Condition{{Type: "country-in", Values: []string{"CN"}}}}}})
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			testdb.Exec(t, e.raw, "DROP TABLE secrets",
				"CREATE TABLE secrets (id INT PRIMARY KEY, v VARCHAR(40))",
				"INSERT INTO secrets VALUES (1, 'SECRET-CANARY-GEO')")
			src, err := ranger.NewStatic(bundle, ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}),
				ranger.WithGeolocationFile("/etc/ranger/geo/geo.txt", "ranger/testdata/conformance/geo/geo.txt"),
				ranger.WithClientAddressAttribute("client_ip"))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ann := func(ip string) session.User {
				u := session.User{Name: "ann", Groups: []string{"analysts"}}
				if ip != "" {
					u.Attributes = map[string]string{"client_ip": ip}
				}
				return u
			}
			rows, _, err := query(as(ann("128.101.101.101")), db, "SELECT v FROM secrets")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("SECRET-CANARY-GEO")}) {
				t.Fatalf("from the US: %v %v", rows, err)
			}
			for _, ip := range []string{"1.0.32.1", "", "not-an-address"} {
				for _, q := range []string{"SELECT v FROM secrets", "SELECT COUNT(*) FROM secrets",
					"SELECT s1.id FROM secrets s1 JOIN secrets s2 ON s1.id = s2.id WHERE s2.v LIKE 'SECRET%'"} {
					rows, _, err := query(as(ann(ip)), db, q)
					if !errors.Is(err, sqe.ErrAccessDenied) || len(rows) != 0 {
						t.Fatalf("from %q: %s: %v %v", ip, q, rows, err)
					}
					if err != nil && strings.Contains(err.Error(), "CANARY") {
						t.Fatalf("from %q: the error shows a value: %v", ip, err)
					}
				}
			}
		})
	}
}

// TestRangerScriptOnTheColumnName: a deny whose condition script reads
// the column's name keeps that column's values from the caller, on both
// databases, however the statement names the column.
func TestRangerScriptOnTheColumnName(t *testing.T) {
	data, err := os.ReadFile("ranger/testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := ranger.ParseBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	sel := func() *ranger.PolicyItem {
		return &ranger.PolicyItem{Accesses: []ranger.ItemAccess{{Type: "select"}}, Groups: []string{"analysts"}}
	}
	deny := sel()
	deny.Conditions = []ranger.Condition{{Type: "expression", Values: []string{"RES.column == 'ssn'"}}}
	bundle.Policies = append(bundle.Policies, &ranger.Policy{ID: 91, Name: "no ssn, by script",
		Resources: map[string]*ranger.PolicyResource{"database": {Values: []string{"shop"}},
			"table": {Values: []string{"people"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*ranger.PolicyItem{sel()}, DenyPolicyItems: []*ranger.PolicyItem{deny}})
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			testdb.Exec(t, e.raw,
				"CREATE TABLE people (id INT PRIMARY KEY, name VARCHAR(40), ssn VARCHAR(20))",
				"INSERT INTO people VALUES (1, 'Ada', 'SSN-CANARY-1')")
			src, err := ranger.NewStatic(bundle, ranger.WithDatabaseMap(map[string]string{e.schema: "shop"}))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sqe.Open(b.driver, e.dsn, sqe.WithPolicy(src), sqe.WithoutAudit())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ann := as(session.User{Name: "ann", Groups: []string{"analysts"}})
			rows, _, err := query(ann, db, "SELECT name FROM people")
			if err != nil || !reflect.DeepEqual(rows, [][]string{r("Ada")}) {
				t.Fatalf("name: %v %v", rows, err)
			}
			rows, cols, err := query(ann, db, "SELECT * FROM people")
			if err != nil || strings.Contains(fmt.Sprint(rows, cols), "SSN") || strings.Contains(strings.Join(cols, ","), "ssn") {
				t.Fatalf("SELECT *: %v %v %v", cols, rows, err)
			}
			for _, q := range []string{"SELECT ssn FROM people", "SELECT id FROM people WHERE ssn LIKE 'SSN%'",
				"SELECT UPPER(p.ssn) FROM people p"} {
				rows, _, err := query(ann, db, q)
				if err == nil || len(rows) != 0 || strings.Contains(err.Error(), "CANARY") {
					t.Fatalf("%s: %v %v", q, rows, err)
				}
			}
		})
	}
}
