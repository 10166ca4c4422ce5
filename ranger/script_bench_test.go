package ranger

import (
	"testing"
	"time"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

func benchScriptRequest() *request {
	pii := newTagForEval(&Tag{Type: "PII", Attributes: map[string]string{"level": "2", "expiry": "2100/01/01"}}, mtSelf)
	return &request{
		res:        &accessResource{elems: map[string]any{"database": "db1", "table": "t1", "column": "c1"}},
		accessType: "select",
		user:       "ann",
		groups:     map[string]bool{"analysts": true, "eu": true},
		roles:      map[string]bool{"reader": true},
		userAttrs:  map[string]string{"dept": "ENGG", "partners": "p1,p2"},
		groupAttrs: map[string]map[string]string{"analysts": {"site": "10"}},
		tags:       []*tagForEval{pii},
		curTag:     pii,
		context:    map[string]any{},
		accessTime: time.Now(),
		st:         &evalState{},
	}
}

// BenchmarkScriptCondition is one evaluation of a compiled condition
// script, as a decision that misses the decision cache makes it.
func BenchmarkScriptCondition(b *testing.B) {
	for _, c := range []struct{ name, script string }{
		{"macro", "IS_IN_GROUP('analysts')"},
		{"user-attr", "USER.dept == 'ENGG'"},
		{"tags", "TAGS.PII.level > 1 && ctx.isAccessedBefore('PII', 'expiry')"},
		{"split-includes", "USER.partners.split(',').includes('p2') && UGNAMES.includes('eu')"},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc, err := compileJS(c.script)
			if err != nil {
				b.Fatal(err)
			}
			r := benchScriptRequest()
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := sc.run(newScriptView(r)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecideScripted is a decision on a table whose allow item has a
// condition script, for a new View with the decision cache off: every
// Decide evaluates the script.
func BenchmarkDecideScripted(b *testing.B) {
	bundle, err := readBundleFile("testdata/shop_bundle.json")
	if err != nil {
		b.Fatal(err)
	}
	bundle.Policies = append(bundle.Policies,
		&Policy{ID: 95, Name: "engineers read", Resources: res3("fx", "t", "*"),
			PolicyItems: []*PolicyItem{withScript(selectFor("u"), "USER.dept == 'ENGG' && IS_IN_GROUP('analysts')")}})
	src, err := NewStatic(bundle, WithDecisionCacheSize(0))
	if err != nil {
		b.Fatal(err)
	}
	snap := src.Current()
	u := session.User{Name: "u", Groups: []string{"analysts"}, Attributes: map[string]string{"dept": "ENGG"}}
	tbl := policy.TableName{Schema: "fx", Table: "t"}
	b.ReportAllocs()
	for b.Loop() {
		v, err := snap.View(u)
		if err != nil {
			b.Fatal(err)
		}
		d, err := v.Decide(tbl)
		if err != nil {
			b.Fatal(err)
		}
		if !d.Allows(policy.Select) {
			b.Fatal("not allowed")
		}
	}
}
