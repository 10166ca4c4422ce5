package sqe

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/internal/fakedriver"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

const auditPolicy = `version: 1
default: deny
tables:
  shop.customers:
    access:
      - {name: read, principals: [public], allow: [select]}
    row_filters:
      - {name: eu-only, principals: [public], filter: "region = 'EU'"}
    masks:
      - {name: ssn-null, principals: [public], column: ssn, type: MASK_NULL}
`

// recorder is an audit sink that keeps what it gets.
type recorder struct {
	mu      sync.Mutex
	records []audit.Record
}

func (r *recorder) Audit(_ context.Context, rec *audit.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, *rec)
}

func (r *recorder) take() []audit.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.records
	r.records = nil
	return out
}

// engineDB opens sqe with its real engine over a fake database.
func engineDB(t testing.TB, flags fakedriver.Flags, opts ...Option) (*sql.DB, *fakedriver.DB, *connector) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	cat := &rewriter.StaticCatalog{Schema: "shop", Tables: map[string][]rewriter.Column{"shop.customers": {
		{Name: "id", DataType: "int", ColumnType: "int"}, {Name: "region", DataType: "varchar", ColumnType: "varchar(8)"},
		{Name: "ssn", DataType: "varchar", ColumnType: "varchar(11)"}}}}
	fdb := fakedriver.New(flags)
	c, err := newConnector(fdb.Connector("fake"), append([]Option{WithPolicyFile(path), WithDialect("mysql"), WithCatalog(cat)}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { _ = db.Close() })
	return db, fdb, c
}

// flush waits until the dispatcher has delivered everything emitted.
func flush(t *testing.T, c *connector) {
	t.Helper()
	c.planner.(*engine.Engine).FlushAudit()
}

func TestOneAuditRecordPerLogicalStatement(t *testing.T) {
	ctx := session.NewContext(context.Background(), session.User{Name: "ann", Groups: []string{"ops"}, PrimaryRole: ""})
	q := "SELECT id, ssn FROM customers WHERE id = ?"
	cases := []struct {
		name  string
		flags fakedriver.Flags
		setup func(*fakedriver.DB)
	}{
		{"direct query", fakedriver.AllFlags(), nil},
		{"ErrSkip fallback: the inner conn has no direct path", func() fakedriver.Flags {
			f := fakedriver.AllFlags()
			f.QueryerContext, f.Queryer, f.ExecerContext, f.Execer = false, false, false, false
			return f
		}(), nil},
		{"inner ErrSkip with arguments", fakedriver.AllFlags(), func(f *fakedriver.DB) { f.SkipDirectWithArgs(true) }},
		{"a bad connection retried", fakedriver.AllFlags(), func(f *fakedriver.DB) {
			f.Fail(fakedriver.OpQueryContext, "", driver.ErrBadConn, 1)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			db, fdb, conn := engineDB(t, c.flags, WithAudit(rec))
			if c.setup != nil {
				c.setup(fdb)
			}
			rows, err := db.QueryContext(ctx, q, 1)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
			flush(t, conn)
			got := rec.take()
			if len(got) != 1 {
				t.Fatalf("%d audit records, want 1: %+v", len(got), got)
			}
			r := got[0]
			if r.User != "ann" || r.Kind != "select" || !r.Allowed || r.Error != "" || r.SQLFingerprint != audit.Fingerprint(q) ||
				len(r.Tables) != 1 || r.Tables[0].Name != "shop.customers" || r.Tables[0].Masks["ssn"] != "MASK_NULL" ||
				len(r.Tables[0].RowFilters) != 1 || r.Tables[0].RowFilters[0] != "eu-only" || r.SnapshotVersion == 0 || r.Dialect != "mysql" {
				t.Fatalf("record: %+v", r)
			}
			// The rule that allowed the read is named.
			if !slices.Equal(r.Tables[0].AllowedBy, []string{"read"}) || !slices.Contains(r.Tables[0].Policies, "read") {
				t.Fatalf("allowed by: %+v", r.Tables[0])
			}
		})
	}
	t.Run("prepared statement executed three times", func(t *testing.T) {
		rec := &recorder{}
		db, _, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(rec))
		stmt, err := db.PrepareContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			rows, err := stmt.QueryContext(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
		stmt.Close()
		flush(t, conn)
		if got := rec.take(); len(got) != 3 {
			t.Fatalf("%d records, want 3", len(got))
		}
	})
	t.Run("a refused statement", func(t *testing.T) {
		rec := &recorder{}
		db, _, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(rec))
		if _, err := db.QueryContext(ctx, "SELECT * FROM secrets"); !errors.Is(err, ErrAccessDenied) {
			t.Fatal(err)
		}
		flush(t, conn)
		got := rec.take()
		if len(got) != 1 || got[0].Allowed || got[0].Error == "" || got[0].User != "ann" ||
			len(got[0].Tables) != 1 || got[0].Tables[0].Name != "shop.secrets" {
			t.Fatalf("records: %+v", got)
		}
		// A refusal says what was refused, under which snapshot, and how
		// long deciding took.
		r := got[0]
		if r.Kind != "select" || r.SQLFingerprint != audit.Fingerprint("SELECT * FROM secrets") || r.SnapshotVersion == 0 ||
			r.Duration <= 0 || r.Dialect != "mysql" {
			t.Fatalf("refusal record: %+v", r)
		}
	})
	t.Run("a refused write and a statement that does not parse", func(t *testing.T) {
		rec := &recorder{}
		db, _, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(rec))
		write := "UPDATE customers SET region = 'US'"
		if _, err := db.ExecContext(ctx, write); !errors.Is(err, ErrAccessDenied) {
			t.Fatal(err)
		}
		bad := "SELEC id FROM customers"
		if _, err := db.ExecContext(ctx, bad); !errors.Is(err, ErrSyntax) {
			t.Fatal(err)
		}
		flush(t, conn)
		got := rec.take()
		if len(got) != 2 {
			t.Fatalf("records: %+v", got)
		}
		if r := got[0]; r.Allowed || r.Kind != "update" || r.SQLFingerprint != audit.Fingerprint(write) || r.SnapshotVersion == 0 {
			t.Fatalf("refused write: %+v", r)
		}
		if r := got[1]; r.Allowed || r.Kind != "" || r.SQLFingerprint != audit.Fingerprint(bad) || r.SnapshotVersion == 0 ||
			r.Error != "sqe: syntax error at position 1 near 'SELEC'" {
			t.Fatalf("syntax error: %+v", r)
		}
		// The Ranger sink writes the refused access type and the fingerprint.
		var buf bytes.Buffer
		audit.NewRangerSink(&buf, audit.RangerOptions{}).Audit(context.Background(), &got[0])
		var ev audit.RangerEvent
		if err := json.Unmarshal(buf.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.AccessType != "update" || ev.AccessResult != 0 || ev.RequestData != "sql-fingerprint:"+audit.Fingerprint(write) ||
			ev.ResourcePath != "shop/customers" {
			t.Fatalf("ranger event: %+v", ev)
		}
	})
	t.Run("role statements", func(t *testing.T) {
		rec := &recorder{}
		db, _, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(rec))
		if _, err := db.ExecContext(ctx, "USE SECONDARY ROLES NONE"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "USE ROLE nosuch"); err == nil {
			t.Fatal("a role the caller does not hold was accepted")
		}
		flush(t, conn)
		got := rec.take()
		if len(got) != 2 {
			t.Fatalf("records: %+v", got)
		}
		if r := got[0]; !r.Allowed || r.User != "ann" || r.Kind != "session" || r.SnapshotVersion == 0 ||
			r.SQLFingerprint != audit.Fingerprint("USE SECONDARY ROLES NONE") || r.Duration <= 0 {
			t.Fatalf("allowed role statement: %+v", r)
		}
		if r := got[1]; r.Allowed || r.User != "ann" || r.SnapshotVersion == 0 || r.SQLFingerprint != audit.Fingerprint("USE ROLE nosuch") {
			t.Fatalf("refused role statement: %+v", r)
		}
	})
	t.Run("an error is recorded without values whoever the caller", func(t *testing.T) {
		rec := &recorder{}
		db, fdb, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(rec))
		fdb.Fail(fakedriver.OpQueryContext, "", errors.New(`invalid input syntax for type integer: "555-55-5555"`), 1)
		// No table is under policy: the caller gets the server's error as it is.
		_, err := db.QueryContext(ctx, "SELECT CAST('555-55-5555' AS SIGNED)")
		if err == nil || !strings.Contains(err.Error(), "555-55-5555") {
			t.Fatalf("the caller's error: %v", err)
		}
		flush(t, conn)
		got := rec.take()
		if len(got) != 1 || got[0].Error != `invalid input syntax for type integer: '<redacted>'` {
			t.Fatalf("records: %+v", got)
		}
	})
	t.Run("a full buffer drops and counts, never blocks", func(t *testing.T) {
		block := make(chan struct{})
		sink := audit.SinkFunc(func(context.Context, *audit.Record) { <-block })
		db, _, conn := engineDB(t, fakedriver.AllFlags(), WithAudit(sink), WithAuditBuffer(1))
		for i := 0; i < 10; i++ {
			rows, err := db.QueryContext(ctx, q, i)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
		st := conn.stats()
		close(block)
		if st.AuditDropped < 8 {
			t.Fatalf("dropped %d of 10 with a buffer of 1 and a stuck sink", st.AuditDropped)
		}
	})
}

func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	db, _, _ := engineDB(t, fakedriver.AllFlags(), WithMeterProvider(mp), WithoutAudit())
	ctx := session.NewContext(context.Background(), session.User{Name: "ann"})
	for i := 0; i < 3; i++ {
		rows, err := db.QueryContext(ctx, "SELECT id FROM customers WHERE id = ?", i)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if _, err := db.QueryContext(ctx, "SELECT * FROM secrets"); err == nil {
		t.Fatal("secrets readable")
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	sums := map[string]map[string]int64{}
	hist := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if sums[m.Name] == nil {
						sums[m.Name] = map[string]int64{}
					}
					sums[m.Name][attrKey(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					hist[m.Name] += p.Count
				}
			}
		}
	}
	want := map[string]map[string]int64{
		"sqe.statements":            {"decision=allowed,kind=select": 3, "decision=denied,kind=select": 1},
		"sqe.rewrite_cache.lookups": {"result=hit": 2, "result=miss": 2},
		"sqe.fail_closed":           {"reason=access_denied": 1},
		"sqe.audit.dropped":         {"": 0},
	}
	for name, points := range want {
		for k, v := range points {
			if sums[name][k] != v {
				t.Errorf("%s{%s} = %d, want %d (all: %v)", name, k, sums[name][k], v, sums[name])
			}
		}
	}
	if hist["sqe.rewrite.duration"] != 1 {
		t.Errorf("rewrite.duration count = %d, want 1 (one successful rewrite)", hist["sqe.rewrite.duration"])
	}
}

func attrKey(s attribute.Set) string {
	out := ""
	for i, kv := range s.ToSlice() {
		if i > 0 {
			out += ","
		}
		out += string(kv.Key) + "=" + kv.Value.String()
	}
	return out
}
