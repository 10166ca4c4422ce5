package ranger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/rewriter/postgres"
	"github.com/sqe-project/sqe/session"
	"github.com/sqe-project/sqe/udf"
)

func shopSnapshot(t *testing.T, opts ...Option) *Snapshot {
	t.Helper()
	src, err := OpenBundle("testdata/shop_bundle.json", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return src.Current()
}

func decide(t *testing.T, s *Snapshot, u session.User, table string) *policy.Decision {
	t.Helper()
	v, err := s.View(u)
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Decide(policy.TableName{Schema: "shop", Table: table})
	if err != nil {
		t.Fatalf("%s on %s: %v", u.Name, table, err)
	}
	return d
}

func TestDecisionsFromBundle(t *testing.T) {
	s := shopSnapshot(t)
	analyst := session.User{Name: "ann", Groups: []string{"analysts"}}

	d := decide(t, s, analyst, "customers")
	if !d.Allows(policy.Select) || d.Allows(policy.Update) {
		t.Fatalf("analyst on customers: %v", d.Allowed)
	}
	want := map[string]string{"ssn": udf.TypeShowLast4, "email": udf.TypeCustom, "phone": udf.TypeHash}
	for col, typ := range want {
		if d.Masks[col].Type != typ {
			t.Errorf("mask of %s = %+v, want %s", col, d.Masks[col], typ)
		}
	}
	if got := d.Masks["phone"].Policy; got != "ranger tag policy 100" {
		t.Errorf("phone mask policy = %q", got)
	}
	if d.Reason(policy.Update) != ReasonNoPolicy {
		t.Errorf("update denied by %q", d.Reason(policy.Update))
	}

	d = decide(t, s, analyst, "orders")
	if len(d.RowFilters) != 1 || d.RowFilters[0].Expr != "region = 'EU'" || d.RowFilters[0].Policy != "ranger policy 10" {
		t.Errorf("orders filter = %+v", d.RowFilters)
	}

	// The first matching rowfilter item wins: alice's empty filter.
	alice := session.User{Name: "alice"}
	d = decide(t, s, alice, "orders")
	if len(d.RowFilters) != 0 || !d.Allows(policy.Update) {
		t.Errorf("alice on orders: %+v", d)
	}
	d = decide(t, s, alice, "customers")
	if len(d.Masks) != 0 {
		t.Errorf("alice is exempt from masks: %+v", d.Masks)
	}

	// A column deny restricts the column; a table tag denies the table.
	contractor := session.User{Name: "carl", Groups: []string{"contractors"}}
	d = decide(t, s, contractor, "customers")
	if d.Restricted["ssn"] != "ranger policy 2" || !d.Allows(policy.Select) {
		t.Errorf("contractor on customers: restricted=%v allowed=%v", d.Restricted, d.Allowed)
	}
	d = decide(t, s, contractor, "payments")
	if d.Allows(policy.Select) || d.Reason(policy.Select) != "ranger tag policy 101" {
		t.Errorf("contractor on payments: %v %v", d.Allowed, d.DeniedBy)
	}

	// Deny items win; roles come from Ranger roles.
	d = decide(t, s, session.User{Name: "mallory", Groups: []string{"analysts"}}, "orders")
	if d.Allows(policy.Select) || d.Reason(policy.Select) != "ranger policy 3" {
		t.Errorf("mallory on orders: %v", d.DeniedBy)
	}
	if d := decide(t, s, session.User{Name: "bob"}, "payments"); !d.Allows(policy.Select) {
		t.Errorf("bob (role auditor) on payments: %v", d.DeniedBy)
	}
	if d := decide(t, s, session.User{Name: "carol"}, "payments"); d.Allows(policy.Select) {
		t.Errorf("carol holds senior-auditor, which does not contain auditor's grants: %v", d.Allowed)
	}
	if d := decide(t, s, session.User{Name: "zed", Roles: []string{"auditor"}}, "payments"); !d.Allows(policy.Select) {
		t.Errorf("a session role grants: %v", d.DeniedBy)
	}

	// Database-level create for the dba group.
	if d := decide(t, s, session.User{Name: "dan", Groups: []string{"dba"}}, "new_table"); !d.Allows(policy.Create) || d.Allows(policy.Select) {
		t.Errorf("dba: %v", d.Allowed)
	}

	// ${{USER.tenant}} becomes a marker, its value travels beside the
	// text (the rewriter places it as a literal).
	tenant := session.User{Name: "tim", Groups: []string{"tenants", "analysts"}, Attributes: map[string]string{"tenant": "42"}}
	d = decide(t, s, tenant, "customers")
	if len(d.RowFilters) != 1 || d.RowFilters[0].Expr != "tenant_id = "+policy.RequestValueMarker(0)+" AND owner = current_user()" ||
		!reflect.DeepEqual(d.RowFilters[0].Values, []policy.RequestValue{{Value: "42"}}) {
		t.Errorf("tenant filter = %+v", d.RowFilters)
	}
	// An attribute that is not a number is a value like any other: the
	// text of the filter does not change with it.
	injected := session.User{Name: "tim", Groups: []string{"tenants", "analysts"}, Attributes: map[string]string{"tenant": "1 OR 1=1"}}
	d = decide(t, s, injected, "customers")
	if len(d.RowFilters) != 1 || d.RowFilters[0].Expr != "tenant_id = "+policy.RequestValueMarker(0)+" AND owner = current_user()" ||
		!reflect.DeepEqual(d.RowFilters[0].Values, []policy.RequestValue{{Value: "1 OR 1=1"}}) {
		t.Errorf("injected attribute: %+v", d.RowFilters)
	}
}

func TestActiveRoles(t *testing.T) {
	s := shopSnapshot(t)
	v, err := s.View(session.User{Name: "bob", PrimaryRole: "senior-auditor"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.HeldRoles(), []string{"auditor", "senior-auditor"}) || !reflect.DeepEqual(v.ActiveRoles(), []string{"senior-auditor"}) {
		t.Fatalf("held %v active %v", v.HeldRoles(), v.ActiveRoles())
	}
	d, _ := v.Decide(policy.TableName{Schema: "shop", Table: "payments"})
	if d.Allows(policy.Select) {
		t.Errorf("auditor is not active; its grant must not apply")
	}
	if _, err := s.View(session.User{Name: "bob", PrimaryRole: "admin"}); !errors.Is(err, policy.ErrAccessDenied) {
		t.Errorf("unheld primary role: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	s := shopSnapshot(t)
	fp := func(u session.User) string {
		v, err := s.View(u)
		if err != nil {
			t.Fatal(err)
		}
		return v.Fingerprint()
	}
	a := fp(session.User{Name: "ann", Groups: []string{"b", "a"}})
	if a != fp(session.User{Name: "ann", Groups: []string{"a", "b", "a"}}) {
		t.Error("group order changes the fingerprint")
	}
	for _, u := range []session.User{
		{Name: "ann2", Groups: []string{"a", "b"}},
		{Name: "ann", Groups: []string{"a"}},
		{Name: "ann", Groups: []string{"a", "b"}, Roles: []string{"auditor"}},
		{Name: "ann", Groups: []string{"a", "b"}, Attributes: map[string]string{"x": "1"}},
	} {
		if fp(u) == a {
			t.Errorf("%+v has the same fingerprint", u)
		}
	}
	s2 := shopSnapshot(t)
	v, _ := s2.View(session.User{Name: "ann", Groups: []string{"a", "b"}})
	if v.Fingerprint() == a {
		t.Error("a new snapshot keeps the fingerprint")
	}
}

func writeBundle(t *testing.T, b *Bundle) string {
	t.Helper()
	data, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadShop(t *testing.T) *Bundle {
	t.Helper()
	b, err := readBundleFile("testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestColumnDependentDecisions(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies,
		&Policy{ID: 30, Name: "pattern", Resources: map[string]*PolicyResource{
			"database": {Values: []string{"hr"}}, "table": {Values: []string{"emp"}}, "column": {Values: []string{"tmp*"}, IsExcludes: true}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"hank"}}}},
		&Policy{ID: 31, Name: "two columns", Resources: map[string]*PolicyResource{
			"database": {Values: []string{"hr"}}, "table": {Values: []string{"pay"}}, "column": {Values: []string{"id", "grade"}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"hank"}}}})
	s, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.Current().View(session.User{Name: "hank"})
	cd := v.(*View)
	for _, tbl := range []string{"emp", "pay"} {
		_, err := v.Decide(policy.TableName{Schema: "hr", Table: tbl})
		var ce *ColumnsNeededError
		if !errors.As(err, &ce) || !errors.Is(err, policy.ErrNeedsColumns) || !errors.Is(err, policy.ErrAccessDenied) || !IsColumnsNeeded(err) {
			t.Fatalf("%s: %v", tbl, err)
		}
	}
	d, err := cd.DecideColumns(policy.TableName{Schema: "hr", Table: "emp"}, []string{"id", "tmp_a", "Name"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allows(policy.Select) || d.Restricted["tmp_a"] != ReasonNoPolicy || len(d.Restricted) != 1 {
		t.Errorf("emp: %+v", d)
	}
	// The contract's form: the catalog's columns, of which Ranger reads the names.
	d, _ = v.DecideColumnInfo(policy.TableName{Schema: "hr", Table: "pay"}, []policy.ColumnInfo{{Name: "id"}, {Name: "grade"}, {Name: "salary", Type: "int"}})
	if !d.Allows(policy.Select) || d.Restricted["salary"] != ReasonNoPolicy || len(d.Restricted) != 1 {
		t.Errorf("pay: %+v", d)
	}
	d, _ = cd.DecideColumns(policy.TableName{Schema: "hr", Table: "other"}, []string{"x"})
	if d.Allows(policy.Select) {
		t.Errorf("other: %+v", d)
	}
}

func TestMaskRealisation(t *testing.T) {
	b := loadShop(t)
	mk := func(id int64, col, typ, expr string) *Policy {
		return &Policy{ID: Int64(id), Name: col, PolicyType: PolicyTypeDataMask,
			Resources: map[string]*PolicyResource{"database": {Values: []string{"shop"}}, "table": {Values: []string{"items"}}, "column": {Values: []string{col}}},
			DataMaskPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Groups: []string{"analysts"},
				DataMaskInfo: &DataMaskInfo{DataMaskType: typ, ValueExpr: expr}}}}
	}
	b.Policies = append(b.Policies,
		mk(40, "a", "SHUFFLE", ""),
		mk(41, "b", "CUSTOM", "mask_show_first_n({col}, 2, 'x', 'x', 'x', -1, '1')"),
		mk(42, "c", "hive:MASK_NULL", ""),
		mk(43, "d", "MASK_DATE_SHOW_YEAR", ""))
	s, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	d := decide(t, s.Current(), session.User{Name: "ann", Groups: []string{"analysts"}}, "items")
	if d.Restricted["a"] == "" || !strings.Contains(d.Restricted["a"], "ranger policy 40") {
		t.Errorf("an unknown mask type restricts: %v", d.Restricted)
	}
	if m := d.Masks["b"]; m.Type != udf.TypeShowFirstN || !reflect.DeepEqual(m.Args, []string{"2", "x", "x", "x", "-1", "1"}) {
		t.Errorf("CUSTOM Hive call: %+v", m)
	}
	if d.Masks["c"].Type != udf.TypeNull || d.Masks["d"].Type != udf.TypeDateShowYear {
		t.Errorf("masks: %+v", d.Masks)
	}

	// A CUSTOM expression calling a mask UDF inside a larger expression
	// is Hive SQL the rewriter refuses on each dialect's tree, naming
	// the policy and the function.
	b.Policies = append(b.Policies, mk(44, "e", "CUSTOM", "CASE WHEN 1=1 THEN mask({col}) ELSE {col} END"))
	s, _ = NewStatic(b)
	v, _ := s.Current().View(session.User{Name: "ann", Groups: []string{"analysts"}})
	d, err = v.Decide(policy.TableName{Schema: "shop", Table: "items"})
	if err != nil || !d.Masks["e"].Hive {
		t.Fatalf("CUSTOM mask: %+v %v", d.Masks["e"], err)
	}
	for name, syn := range map[string]rewriter.Syntax{"mysql": mysql.Syntax, "postgres": postgres.Syntax} {
		col := rewriter.Column{Name: "e", DataType: "varchar", ColumnType: "varchar(20)"}
		p := &rewriter.TablePlan{Table: d.Table, Decision: d, Columns: []rewriter.Column{col}, All: []rewriter.Column{col}}
		_, _, err := p.MaskExpr(syn, col, syn.QuoteIdent("e"))
		if !errors.Is(err, policy.ErrPolicy) || !strings.Contains(err.Error(), "ranger policy 44") || !strings.Contains(err.Error(), "mask()") {
			t.Errorf("%s: untranslatable CUSTOM: %v", name, err)
		}
	}
}

func TestUnsupportedConditionsFailClosed(t *testing.T) {
	b := loadShop(t)
	cond := []Condition{{Type: "expression", Values: []string{"new Date().getDay() == 1"}}}
	b.Policies = append(b.Policies,
		&Policy{ID: 50, Name: "allow with js", Resources: map[string]*PolicyResource{"database": {Values: []string{"x"}}, "table": {Values: []string{"t"}}, "column": {Values: []string{"*"}}},
			PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, Conditions: cond}}},
		&Policy{ID: 51, Name: "allow", Resources: map[string]*PolicyResource{"database": {Values: []string{"y"}}, "table": {Values: []string{"t"}}, "column": {Values: []string{"*"}}},
			PolicyItems:     []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}},
			DenyPolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}, Conditions: []Condition{{Type: "country", Values: []string{"US"}}}}}})
	s, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(t, s.Current(), session.User{Name: "u"}, "t"); d.Allows(policy.Select) {
		t.Error("shop.t: nothing grants")
	}
	v, _ := s.Current().View(session.User{Name: "u"})
	for _, db := range []string{"x", "y"} {
		d, err := v.Decide(policy.TableName{Schema: db, Table: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allows(policy.Select) {
			t.Errorf("%s.t: a condition sqe cannot evaluate must not grant nor let a deny pass", db)
		}
	}
}

func TestValiditySchedule(t *testing.T) {
	b := loadShop(t)
	b.Policies = append(b.Policies, &Policy{ID: 60, Name: "2030 only", ValiditySchedules: []*ValiditySchedule{{StartTime: "2030/01/01 00:00:00", EndTime: "2031/01/01 00:00:00", TimeZone: "UTC"}},
		Resources:   map[string]*PolicyResource{"database": {Values: []string{"future"}}, "table": {Values: []string{"*"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}})
	at := time.Date(2029, 12, 31, 23, 59, 0, 0, time.UTC)
	s, err := NewStatic(b, WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	v1, _ := s.Current().View(session.User{Name: "u"})
	d, _ := v1.Decide(policy.TableName{Schema: "future", Table: "t"})
	if d.Allows(policy.Select) {
		t.Error("before the schedule")
	}
	at = time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	v2, _ := s.Current().View(session.User{Name: "u"})
	d, _ = v2.Decide(policy.TableName{Schema: "future", Table: "t"})
	if !d.Allows(policy.Select) {
		t.Error("within the schedule")
	}
	if v1.Fingerprint() == v2.Fingerprint() {
		t.Error("the fingerprint must change with the validity period")
	}
	// As in Ranger, the end is inclusive to the millisecond.
	at = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	v3, _ := s.Current().View(session.User{Name: "u"})
	if d, _ = v3.Decide(policy.TableName{Schema: "future", Table: "t"}); !d.Allows(policy.Select) {
		t.Error("at the end of the schedule")
	}
	at = at.Add(time.Millisecond)
	v4, _ := s.Current().View(session.User{Name: "u"})
	if d, _ = v4.Decide(policy.TableName{Schema: "future", Table: "t"}); d.Allows(policy.Select) {
		t.Error("a millisecond after the end of the schedule")
	}
}

func TestDatabaseMap(t *testing.T) {
	s := shopSnapshot(t, WithDatabaseMap(map[string]string{"public": "shop"}))
	v, _ := s.View(session.User{Name: "ann", Groups: []string{"analysts"}})
	d, err := v.Decide(policy.TableName{Schema: "PUBLIC", Table: "Orders"})
	if err != nil || !d.Allows(policy.Select) || len(d.RowFilters) != 1 {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestIsBundle(t *testing.T) {
	if ok, err := IsBundleFile("testdata/shop_bundle.json"); !ok || err != nil {
		t.Errorf("shop bundle: %v %v", ok, err)
	}
	for _, s := range []string{`version: 1`, `{"policies": []}`, ``, `[]`, `{"serviceDef": {}, "policies": [], `} {
		if IsBundle([]byte(s)) {
			t.Errorf("%q is not a bundle", s)
		}
	}
	if !IsBundle([]byte(` {"serviceDef": {"name": "hive"}, "policies": []}`)) {
		t.Error("a minimal download is a bundle")
	}
}

func TestLoadBundleErrors(t *testing.T) {
	if _, err := LoadBundle(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file")
	}
	p := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(p, []byte(`{"policies": [], "serviceDef": {"name":"kms","resources":[{"name":"keyname"}]}}`), 0o600)
	if _, err := LoadBundle(p); err == nil || !strings.Contains(err.Error(), "hive service-def") {
		t.Errorf("non-hive service-def: %v", err)
	}
	os.WriteFile(p, []byte(`{"policies": [`), 0o600)
	if _, err := LoadBundle(p); err == nil {
		t.Error("truncated JSON")
	}
}

func TestBundleReload(t *testing.T) {
	b := loadShop(t)
	p := writeBundle(t, b)
	src, err := OpenBundle(p)
	if err != nil {
		t.Fatal(err)
	}
	v1 := src.Current().Version()
	if err := src.Reload(); err != nil || src.Current().Version() != v1 {
		t.Fatalf("unchanged file: %v %d %d", err, src.Current().Version(), v1)
	}
	os.WriteFile(p, []byte("{broken"), 0o600)
	if err := src.Reload(); err == nil || src.Current().Version() != v1 || src.Stats().Failures != 1 {
		t.Fatalf("broken file: %v %+v", err, src.Stats())
	}
	b.Policies = b.Policies[:1]
	data, _ := b.Marshal()
	os.WriteFile(p, data, 0o600)
	if err := src.Reload(); err != nil || src.Current().Version() == v1 {
		t.Fatalf("changed file: %v", err)
	}
}

func TestSharedDecisionCache(t *testing.T) {
	cached := shopSnapshot(t)
	fresh := shopSnapshot(t, WithDecisionCacheSize(0))
	users := []session.User{
		{Name: "ann", Groups: []string{"analysts"}},
		{Name: "alice"},
		{Name: "carl", Groups: []string{"contractors"}},
		{Name: "ann", Groups: []string{"analysts"}, Attributes: map[string]string{"tenant": "t1"}},
		{Name: "mallory", Groups: []string{"analysts"}},
	}
	for round := range 2 {
		for _, u := range users {
			for _, table := range []string{"customers", "orders", "payments", "nosuch"} {
				tn := policy.TableName{Schema: "shop", Table: table}
				vc, _ := cached.View(u)
				vf, _ := fresh.View(u)
				dc, errC := vc.Decide(tn)
				df, errF := vf.Decide(tn)
				if !reflect.DeepEqual(dc, df) || fmt.Sprint(errC) != fmt.Sprint(errF) {
					t.Errorf("round %d, %s on %s: cached %+v %v, fresh %+v %v", round, u.Name, table, dc, errC, df, errF)
				}
			}
		}
	}
	// A second View of the same caller reuses the decision.
	v1, _ := cached.View(users[0])
	v2, _ := cached.View(users[0])
	d1, _ := v1.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	d2, _ := v2.Decide(policy.TableName{Schema: "shop", Table: "customers"})
	if d1 != d2 {
		t.Error("the shared cache was not used")
	}
}

func TestConcurrentDecisions(t *testing.T) {
	src, err := OpenBundle("testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	users := []session.User{
		{Name: "ann", Groups: []string{"analysts"}},
		{Name: "alice"},
		{Name: "carl", Groups: []string{"contractors"}},
		{Name: "dora", Groups: []string{"auditors"}},
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				snap, err := src.Snapshot()
				if err != nil {
					t.Error(err)
					return
				}
				v, err := snap.View(users[(g+i)%len(users)])
				if err != nil {
					t.Error(err)
					return
				}
				for _, table := range []string{"customers", "orders", "payments"} {
					if _, err := v.Decide(policy.TableName{Schema: "shop", Table: table}); err != nil && !errors.Is(err, policy.ErrAccessDenied) {
						t.Error(err)
					}
				}
			}
		}()
	}
	go func() {
		defer close(done)
		for range 20 {
			if err := src.Reload(); err != nil {
				t.Error(err)
			}
			_ = src.Stats()
		}
	}()
	wg.Wait()
	<-done
}

func TestDecisionNamesThePolicyThatAllowed(t *testing.T) {
	s := shopSnapshot(t)
	analyst := session.User{Name: "ann", Groups: []string{"analysts"}}
	d := decide(t, s, analyst, "customers")
	if d.AllowedBy[policy.Select] != "ranger policy 1" {
		t.Errorf("analyst select allowed by %v", d.AllowedBy)
	}
	if _, ok := d.AllowedBy[policy.Update]; ok || d.Allows(policy.Update) {
		t.Errorf("analyst update: %v", d.AllowedBy)
	}
	auditor := session.User{Name: "aud", Roles: []string{"auditor"}}
	if d := decide(t, s, auditor, "payments"); d.AllowedBy[policy.Select] != "ranger policy 4" {
		t.Errorf("auditor select allowed by %v", d.AllowedBy)
	}
	// The database-level policy grants CREATE TABLE.
	dba := session.User{Name: "dan", Groups: []string{"dba"}}
	if d := decide(t, s, dba, "payments"); d.AllowedBy[policy.Create] != "ranger policy 5" {
		t.Errorf("dba allowed by %v", d.AllowedBy)
	}
}

// TestWriteChecksAreOptIn: Ranger's row filters govern reads; with
// WithWriteChecks they also check written rows.
func TestWriteChecksAreOptIn(t *testing.T) {
	analyst := session.User{Name: "ann", Groups: []string{"analysts"}}
	d := decide(t, shopSnapshot(t), analyst, "orders")
	if len(d.RowFilters) != 1 || d.RowFilters[0].Check != "" {
		t.Fatalf("default: filters %+v, want no check", d.RowFilters)
	}
	d = decide(t, shopSnapshot(t, WithWriteChecks()), analyst, "orders")
	if len(d.RowFilters) != 1 || d.RowFilters[0].Check != d.RowFilters[0].Expr {
		t.Fatalf("WithWriteChecks: filters %+v, want the filter as its check", d.RowFilters)
	}
}

// A recurring schedule is in force exactly when Ranger's evaluator says so,
// and a decision memoized for one View is not reused by a View built after
// the schedule's applicability changed: an interval starts at a whole minute
// and its end is inclusive to the millisecond.
func TestRecurringValiditySchedule(t *testing.T) {
	b := loadShop(t)
	// Five minutes from the top of every hour, Monday to Friday, in 2030
	// (in the process's local zone, Ranger's JVM default zone).
	b.Policies = append(b.Policies, &Policy{ID: 61, Name: "top of the hour", ValiditySchedules: []*ValiditySchedule{{
		StartTime: "2030/01/01 00:00:00", EndTime: "2031/01/01 00:00:00",
		Recurrences: []json.RawMessage{json.RawMessage(`{"schedule": {"minute": "0", "hour": "*", "dayOfMonth": "", "dayOfWeek": "2-6", "month": "*", "year": "2030"}, "interval": {"minutes": 5}}`)},
	}},
		Resources:   map[string]*PolicyResource{"database": {Values: []string{"hourly"}}, "table": {Values: []string{"*"}}, "column": {Values: []string{"*"}}},
		PolicyItems: []*PolicyItem{{Accesses: []ItemAccess{{Type: "select"}}, Users: []string{"u"}}}})
	var at time.Time
	s, err := NewStatic(b, WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	local := func(month time.Month, day, hour, min, sec, ms int) time.Time {
		return time.Date(2030, month, day, hour, min, sec, ms*int(time.Millisecond), time.Local)
	}
	prints := map[string]bool{}
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{local(6, 3, 9, 59, 59, 999), false}, // Monday, before the interval
		{local(6, 3, 10, 0, 0, 0), true},     // it starts
		{local(6, 3, 10, 3, 30, 0), true},
		{local(6, 3, 10, 5, 0, 0), true},   // the end is inclusive
		{local(6, 3, 10, 5, 0, 1), false},  // and a millisecond later it is over
		{local(6, 3, 10, 5, 30, 0), false}, // the same minute
		{local(6, 3, 11, 0, 0, 0), true},   // the next hour
		{local(6, 1, 11, 2, 0, 0), false},  // Saturday
		{local(6, 7, 23, 4, 0, 0), true},   // Friday night
	} {
		at = c.at
		v, err := s.Current().View(session.User{Name: "u"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := v.Decide(policy.TableName{Schema: "hourly", Table: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allows(policy.Select) != c.want {
			t.Errorf("at %s: select allowed = %v, want %v", c.at.Format(time.RFC3339Nano), d.Allows(policy.Select), c.want)
		}
		prints[v.Fingerprint()] = true
	}
	if len(prints) != 8 {
		t.Errorf("%d distinct fingerprints for 9 instants in 8 distinct parts of minutes", len(prints))
	}
}

// A tag's validity period, whether in the tag's validityPeriods or in its
// TAG_VALIDITY_PERIODS option, ends at the second it names (inclusive to the
// millisecond); a View built after it does not reuse the decision made
// while the tag was in force, even within the same minute.
func TestTagValidityPeriodEnds(t *testing.T) {
	ann := session.User{Name: "ann", Groups: []string{"analysts"}}
	period := &ValiditySchedule{StartTime: "2030/01/01 00:00:00", EndTime: "2030/01/01 12:00:30", TimeZone: "UTC"}
	option, _ := json.Marshal([]*ValiditySchedule{period})
	for name, tag := range map[string]*Tag{
		"validityPeriods": {Type: "PII", ValidityPeriods: []*ValiditySchedule{period}},
		"option":          {Type: "PII", Options: map[string]any{"TAG_VALIDITY_PERIODS": string(option)}},
	} {
		t.Run(name, func(t *testing.T) {
			b := tagAllowBundle(t, res3("db9", "t9", "*"))
			b.Policies = b.Policies[1:]
			b.Tags.Tags["1"] = tag
			at := time.Date(2030, 1, 1, 12, 0, 10, 0, time.UTC)
			src, err := NewStatic(b, WithClock(func() time.Time { return at }))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				at   time.Time
				want bool
			}{
				{time.Date(2030, 1, 1, 12, 0, 10, 0, time.UTC), true},
				{time.Date(2030, 1, 1, 12, 0, 30, 0, time.UTC), true},
				{time.Date(2030, 1, 1, 12, 0, 30, int(time.Millisecond), time.UTC), false},
				{time.Date(2030, 1, 1, 12, 0, 50, 0, time.UTC), false},
			} {
				at = c.at
				v, err := src.Current().View(ann)
				if err != nil {
					t.Fatal(err)
				}
				d, err := v.(*View).DecideColumns(policy.TableName{Schema: "db1", Table: "t1"}, []string{"c1"})
				if err != nil {
					t.Fatal(err)
				}
				if d.Allows(policy.Select) != c.want {
					t.Errorf("at %s: select allowed = %v, want %v", c.at.Format(time.RFC3339Nano), d.Allows(policy.Select), c.want)
				}
			}
		})
	}
}
