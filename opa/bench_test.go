package opa_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// benchRego is a data-driven decision: data.tables holds, per table, the
// roles that may read it, its row filter and its masks, as a generated
// bundle for many tables would.
const benchRego = `package sqe

import data.sqe.lib
import rego.v1

spec := data.tables[lib.table]

readers contains r if {
	some r in spec.read
	lib.has_role(r)
}

default decision := {"allow": false}

decision := {
	"allow": input.action == "select",
	"row_filters": [{"name": concat("", [lib.table, "/tenant"]), "filter": spec.filter}],
	"masks": {c: m | some c, m in spec.masks},
	"policies": readers,
} if count(readers) > 0
`

// benchBundle is a bundle tarball for n tables s.t0 … s.t{n-1}, each read
// by one of 50 roles.
func benchBundle(b *testing.B, n int) *opa.Bundle {
	b.Helper()
	tables := make(map[string]any, n)
	for i := range n {
		tables["s.t"+strconv.Itoa(i)] = map[string]any{
			"read":   []string{"role" + strconv.Itoa(i%50)},
			"filter": "tenant = " + strconv.Itoa(i%7),
			"masks":  map[string]any{"ssn": map[string]any{"type": "MASK_SHOW_LAST_4"}},
		}
	}
	data, err := json.Marshal(map[string]any{"tables": tables})
	if err != nil {
		b.Fatal(err)
	}
	bun, err := opa.ReadBundle(tarball(b, map[string]string{".manifest": `{"revision": "bench"}`, "policy.rego": benchRego, "data.json": string(data)}), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return bun
}

var benchCols = cols("id int", "tenant int", "ssn varchar(11)")

// BenchmarkResolve measures, for bundles of 100 and 10,000 tables, what a
// statement pays for one table's decision:
//
//	statement    a View for the caller and its decision, which the
//	             snapshot has memoized (the steady state: decisions
//	             depend only on caller, table and revision)
//	evaluate     the same with memoization off: every op evaluates the
//	             decision document for each access type in process
//	rest         asking an OPA REST endpoint (in process, over loopback
//	             HTTP, evaluating the same compiled policy) for the
//	             statement's one action, as a service calling OPA per
//	             statement would
func BenchmarkResolve(b *testing.B) {
	u := session.User{Name: "ann", Roles: []string{"role7", "role12"}}
	for _, n := range []int{100, 10_000} {
		bun := benchBundle(b, n)
		table := policy.TableName{Schema: "s", Table: "t" + strconv.Itoa(7+50*(n/100))}
		b.Run(fmt.Sprintf("tables=%d/statement", n), func(b *testing.B) {
			src, err := opa.NewStatic(bun)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v, err := policy.ViewWithRetry(src, u)
				if err != nil {
					b.Fatal(err)
				}
				d, err := v.DecideColumnInfo(table, benchCols)
				if err != nil || !d.Allows(policy.Select) {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tables=%d/evaluate", n), func(b *testing.B) {
			src, err := opa.NewStatic(bun, opa.WithDecisionCacheSize(0))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v, err := policy.ViewWithRetry(src, u)
				if err != nil {
					b.Fatal(err)
				}
				d, err := v.DecideColumnInfo(table, benchCols)
				if err != nil || !d.Allows(policy.Select) {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tables=%d/rest", n), func(b *testing.B) {
			srv := restServer(b, bun)
			client := srv.Client()
			input := map[string]any{"input": map[string]any{
				"user":   map[string]any{"name": u.Name, "roles": u.Roles, "groups": []string{}, "primary_role": "", "secondary_roles": []string{}, "attributes": map[string]string{}},
				"table":  map[string]any{"schema": table.Schema, "name": table.Table, "columns": []map[string]any{{"name": "id", "type": "int"}, {"name": "tenant", "type": "int"}, {"name": "ssn", "type": "varchar(11)"}}},
				"action": "select",
			}}
			b.ReportAllocs()
			for b.Loop() {
				body, _ := json.Marshal(input)
				resp, err := client.Post(srv.URL+"/v1/data/sqe/decision", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var out struct {
					Result struct {
						Allow bool `json:"allow"`
					} `json:"result"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || !out.Result.Allow {
					b.Fatal(err)
				}
			}
		})
	}
}

// restServer answers POST /v1/data/sqe/decision as OPA's REST API does,
// evaluating the bundle compiled once.
func restServer(b *testing.B, bun *opa.Bundle) *httptest.Server {
	b.Helper()
	mods := []func(*rego.Rego){rego.Query("data.sqe.decision"), rego.Module("sqe/lib.rego", opa.Library())}
	mods = append(mods, rego.Module("policy.rego", benchRego), rego.Store(storeOf(b, bun)))
	pq, err := rego.New(mods...).PrepareForEval(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input any `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rs, err := pq.Eval(r.Context(), rego.EvalInput(req.Input))
		if err != nil || len(rs) == 0 {
			http.Error(w, fmt.Sprint(err), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"result": rs[0].Expressions[0].Value})
	}))
	b.Cleanup(srv.Close)
	return srv
}
