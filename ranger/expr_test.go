package ranger

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/rewriter/postgres"
	"github.com/sqe-project/sqe/session"
)

// requestValueView is u's View of a bundle with a row filter and a CUSTOM
// mask on rv.t that use request expressions.
func requestValueView(t *testing.T, filter, custom string, attrs map[string]string) policy.View {
	t.Helper()
	b := loadShop(t)
	sel := []ItemAccess{{Type: "select"}}
	b.Policies = append(b.Policies,
		&Policy{ID: 90, Name: "u reads rv", Resources: res3("rv", "*", "*"), PolicyItems: []*PolicyItem{selectFor("u")}},
		&Policy{ID: 91, Name: "by dept", PolicyType: PolicyTypeRowFilter,
			Resources:            map[string]*PolicyResource{"database": {Values: []string{"rv"}}, "table": {Values: []string{"t"}}},
			RowFilterPolicyItems: []*PolicyItem{{Accesses: sel, Users: []string{"u"}, RowFilterInfo: &RowFilterInfo{FilterExpr: filter}}}},
		&Policy{ID: 92, Name: "own name", PolicyType: PolicyTypeDataMask, Resources: res3("rv", "t", "name"),
			DataMaskPolicyItems: []*PolicyItem{{Accesses: sel, Users: []string{"u"}, DataMaskInfo: &DataMaskInfo{DataMaskType: "CUSTOM", ValueExpr: custom}}}},
	)
	src, err := NewStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := src.Current().View(session.User{Name: "u", Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// quoted is v as one string literal of the dialect, written by hand.
func quoted(dialect, v string) string {
	s := strings.ReplaceAll(v, "'", "''")
	if dialect == "postgres" {
		if strings.Contains(v, `\`) {
			return "E'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
		}
		return "'" + s + "'"
	}
	return "'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
}

// A value with quotes, backslashes, comment markers, control characters
// or SQL of its own stays one literal in both dialects, in a quoted
// literal and where a column reference stands; NULL is NULL.
func TestRequestValuesStayLiterals(t *testing.T) {
	syntaxes := map[string]rewriter.Syntax{"mysql": mysql.Syntax, "postgres": postgres.Syntax}
	for _, dept := range []string{`O'Brien`, `R&D\Europe`, `trailing\`, `x' OR '1'='1`, `a */ b`, `/* c`, `-- d`, "e\tf\x01", `$$`, `''\'`} {
		v := requestValueView(t, "dept = '${{USER.dept}}' AND code = ${{USER.dept}} AND level < ${{USER.level}}",
			"CASE WHEN {col} = '${{USER.dept}}' THEN {col} END", map[string]string{"dept": dept, "level": "3"})
		d, err := v.Decide(policy.TableName{Schema: "rv", Table: "t"})
		if err != nil {
			t.Fatalf("%q: %v", dept, err)
		}
		if len(d.RowFilters) != 1 {
			t.Fatalf("%q: filters %+v", dept, d.RowFilters)
		}
		f, m := d.RowFilters[0], d.Masks["name"]
		want := []policy.RequestValue{{Value: dept}, {Value: dept}, {Value: "3"}}
		if !reflect.DeepEqual(f.Values, want) || strings.Contains(f.Expr, dept) || !reflect.DeepEqual(m.Values, want[:1]) {
			t.Fatalf("%q: filter %+v, mask %+v", dept, f, m)
		}
		for name, syn := range syntaxes {
			got, err := rewriter.PolicyExprSQL(syn, f.Expr, f.Values)
			if err != nil {
				t.Fatalf("%s, %q: %v", name, dept, err)
			}
			lit := quoted(name, dept)
			wantText, err := syn.CanonicalExpr("dept = " + lit + " AND code = " + lit + " AND level < 3")
			if err != nil {
				t.Fatal(err)
			}
			if got != wantText {
				t.Errorf("%s, %q: got %s, want %s", name, dept, got, wantText)
			}
		}
	}
	v := requestValueView(t, "dept = ${{USER.nosuch}}", "{col}", nil)
	d, err := v.Decide(policy.TableName{Schema: "rv", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if f := d.RowFilters[0]; !reflect.DeepEqual(f.Values, []policy.RequestValue{{Null: true}}) {
		t.Fatalf("an unset attribute: %+v", f)
	} else if got, err := rewriter.PolicyExprSQL(postgres.Syntax, f.Expr, f.Values); err != nil || got != "dept = NULL" {
		t.Fatalf("NULL: %q %v", got, err)
	}
}

// A policy whose own text holds the markers' qualifier could forge a
// marker: it is refused, naming the policy.
func TestRequestValueMarkerInPolicyRefused(t *testing.T) {
	for _, c := range []struct{ filter, custom string }{
		{"dept = " + policy.RequestValueMarker(0), "{col}"},
		{"dept = 'SQE_Request_Value'", "{col}"},
		{"dept = 'x'", "concat({col}, '" + policy.RequestValueMarker(0) + "')"},
	} {
		v := requestValueView(t, c.filter, c.custom, map[string]string{"dept": "x"})
		_, err := v.Decide(policy.TableName{Schema: "rv", Table: "t"})
		if err == nil || !errors.Is(err, policy.ErrAccessDenied) || !strings.Contains(err.Error(), "ranger policy 9") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// A request expression the parser reads as part of a name is refused by
// the rewriter, naming the policy; the value never reaches the text.
func TestRequestValueInQuotedNameRefused(t *testing.T) {
	for name, filter := range map[string]string{"mysql": "`${{USER.dept}}` = 1", "postgres": `"${{USER.dept}}" = 1`} {
		v := requestValueView(t, filter, "{col}", map[string]string{"dept": "secret"})
		d, err := v.Decide(policy.TableName{Schema: "rv", Table: "t"})
		if err != nil {
			t.Fatal(err)
		}
		syn := map[string]rewriter.Syntax{"mysql": mysql.Syntax, "postgres": postgres.Syntax}[name]
		if out, err := rewriter.PolicyExprSQL(syn, d.RowFilters[0].Expr, d.RowFilters[0].Values); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %q %v", name, out, err)
		}
	}
}

// A request value that reads the time of the request changes with it:
// the View's fingerprint (which keys every cache of the statement) does
// too, as it does for a time-dependent condition.
func TestRequestValueReadingTimeIsInTheFingerprint(t *testing.T) {
	timed := requestValueView(t, "yr = ${{new Date().getFullYear()}}", "{col}", nil)
	plain := requestValueView(t, "dept = '${{USER.dept}}'", "{col}", nil)
	if !strings.Contains(timed.Fingerprint(), ";m") || strings.Contains(plain.Fingerprint(), ";m") {
		t.Fatalf("timed %q, plain %q", timed.Fingerprint(), plain.Fingerprint())
	}
}

// A CUSTOM expression that is exactly one Hive mask UDF call is read by a
// parser: comments, double-quoted strings and spacing are the parser's
// business, and a request expression, {col} inside a literal or a
// qualified name is not such a call.
func TestHiveMaskCallIsParsed(t *testing.T) {
	for _, c := range []struct {
		expr string
		typ  string
		args []string
	}{
		{"mask_show_last_n({col}, 4, 'x', 'x', 'x', -1, '1')", "MASK_SHOW_LAST_N", []string{"4", "x", "x", "x", "-1", "1"}},
		{"MASK_HASH( {col} )", "MASK_HASH", nil},
		{"mask(/* Hive */ {col}, \"X\")", "MASK", []string{"X"}},
		{"mask_first_n({col}, 2)", "MASK_FIRST_N", []string{"2"}},
		{"mask({col}, '${{USER.x}}')", "", nil},
		{"mask({col}, 'a{col}')", "", nil},
		{"mask({col}) || 'x'", "", nil},
		{"db.mask({col})", "", nil},
		{"mask_hash({col}, 1)", "", nil},
		{"mask(other)", "", nil},
		{"mask({col}, other)", "", nil},
		{"mask({col}, 'a\\'b')", "", nil},
		{"mask(sqe_mask_column, {col})", "", nil},
		{"upper({col})", "", nil},
	} {
		typ, args, ok := hiveMaskCall(c.expr)
		if ok != (c.typ != "") || typ != c.typ || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%s: %q %q %v", c.expr, typ, args, ok)
		}
	}
}

// Row filters and CUSTOM masks reach the rewriter as written, marked as
// Hive SQL: nothing is scanned or renamed in the text, and the dialects
// translate it on their trees (logged_in_user() a context function, the
// literal untouched; a Hive-only call a policy error naming the policy).
func TestHiveExpressionsReachTheRewriterAsWritten(t *testing.T) {
	filter := "name = logged_in_user() AND dept <> 'logged_in_user()'"
	custom := "CASE WHEN name = logged_in_user() THEN {col} END"
	v := requestValueView(t, filter, custom, nil)
	d, err := v.Decide(policy.TableName{Schema: "rv", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f, m := d.RowFilters[0], d.Masks["name"]
	if f.Expr != filter || !f.Hive || m.Expr != custom || !m.Hive {
		t.Fatalf("filter %+v, mask %+v", f, m)
	}
	for name, syn := range map[string]rewriter.Syntax{"mysql": mysql.Syntax, "postgres": postgres.Syntax} {
		p := &rewriter.TablePlan{Table: d.Table, Decision: d}
		got, err := p.FilterSQL(syn)
		call := map[string]string{"mysql": "current_user()", "postgres": `"current_user"()`}[name]
		if err != nil || strings.Count(got, "logged_in_user") != 1 || !strings.Contains(got, "'logged_in_user()'") || !strings.Contains(got, call) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	v = requestValueView(t, "name = logged_in_user() OR reflect('java.lang.Math', 'abs', 1) = 1", custom, nil)
	if d, err = v.Decide(policy.TableName{Schema: "rv", Table: "t"}); err != nil {
		t.Fatal(err)
	}
	for name, syn := range map[string]rewriter.Syntax{"mysql": mysql.Syntax, "postgres": postgres.Syntax} {
		p := &rewriter.TablePlan{Table: d.Table, Decision: d}
		if _, err := p.FilterSQL(syn); !errors.Is(err, policy.ErrPolicy) || !strings.Contains(err.Error(), "ranger policy 91") ||
			!strings.Contains(err.Error(), "reflect()") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
