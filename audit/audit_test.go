package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func sample() *Record {
	return &Record{
		Time: time.Date(2026, 12, 1, 10, 0, 0, 123e6, time.UTC), User: "sam", PrimaryRole: "support", Groups: []string{"ops"},
		Kind: "select", Allowed: true, Duration: 3 * time.Millisecond, SnapshotVersion: 7, SQLFingerprint: Fingerprint("SELECT 1"),
		Dialect: "mysql", Tables: []Table{
			{Name: "shop.customers", Policies: []string{"eu-only", "ssn-last4"}, RowFilters: []string{"eu-only"}, Masks: map[string]string{"ssn": "MASK_SHOW_LAST_4"}},
			{Name: "shop.orders"},
		},
	}
}

func TestRangerSinkWritesRangerEvents(t *testing.T) {
	var buf bytes.Buffer
	NewRangerSink(&buf, RangerOptions{Service: "hive_prod", Cluster: "c1"}).Audit(context.Background(), sample())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one event per table, got %d", len(lines))
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"repo": "hive_prod", "repoType": 3.0, "reqUser": "sam", "evtTime": "2026-12-01 10:00:00.123",
		"access": "select", "resource": "shop/customers", "resType": "@table", "result": 1.0, "agent": "sqe",
		"enforcer": "sqe", "logType": "RangerAudit", "event_count": 1.0, "event_dur_ms": 3.0, "cluster_name": "c1",
		"seq_num": 1.0, "policy_version": 7.0}
	for k, v := range want {
		if ev[k] != v {
			t.Errorf("%s = %v, want %v", k, ev[k], v)
		}
	}
	if !strings.Contains(ev["additional_info"].(string), "MASK_SHOW_LAST_4") || !strings.HasPrefix(ev["reqData"].(string), "sql-fingerprint:") {
		t.Errorf("event: %v", ev)
	}
	if strings.Contains(buf.String(), "SELECT 1") {
		t.Error("the SQL text must not be written")
	}
}

func TestSlogSinkLevels(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sink := NewSlogSink(logger)
	sink.Audit(context.Background(), sample())
	if buf.Len() != 0 {
		t.Fatalf("an allowed statement is logged at Debug: %s", buf.String())
	}
	denied := sample()
	denied.Allowed, denied.Error = false, "sqe: access denied"
	sink.Audit(context.Background(), denied)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["level"] != "WARN" || rec["user"] != "sam" || rec["allowed"] != false || rec["sql_fingerprint"] != Fingerprint("SELECT 1") {
		t.Fatalf("record: %v", rec)
	}
}

func TestAsyncNeverBlocksAndCountsDrops(t *testing.T) {
	release := make(chan struct{})
	got := make(chan struct{}, 100)
	a := NewAsync(SinkFunc(func(context.Context, *Record) { <-release; got <- struct{}{} }), 2)
	for i := 0; i < 10; i++ {
		a.Emit(sample())
	}
	close(release)
	_ = a.Close()
	if a.Written()+a.Dropped() != 10 || a.Dropped() < 7 {
		t.Fatalf("written %d, dropped %d", a.Written(), a.Dropped())
	}
	a.Emit(sample())
	if a.Dropped() < 8 {
		t.Fatal("emit after close must drop")
	}
}

func TestSlogSinkWritesOneTimeKeyWithTheStatementsTime(t *testing.T) {
	var buf bytes.Buffer
	NewSlogSink(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))).
		Audit(context.Background(), sample())
	line := buf.String()
	if n := strings.Count(line, "time="); n != 1 {
		t.Fatalf("%d time keys in %s", n, line)
	}
	if !strings.HasPrefix(line, "time=2026-12-01T10:00:00.123Z ") {
		t.Fatalf("the time is not the statement's: %s", line)
	}
}

func TestRangerSinkNamesTheDecidingPolicy(t *testing.T) {
	r := sample()
	r.Tables = []Table{
		{Name: "shop.customers", Policies: []string{"ranger policy 12", "ranger policy 20"}, AllowedBy: []string{"ranger policy 12"}},
		{Name: "shop.orders", Policies: []string{"read"}, AllowedBy: []string{"read"}},
	}
	refused := sample()
	refused.Allowed, refused.Kind = false, "update"
	refused.Tables = []Table{{Name: "shop.payments", Policies: []string{"ranger tag policy 7"}}}
	var buf bytes.Buffer
	sink := NewRangerSink(&buf, RangerOptions{})
	sink.Audit(context.Background(), r)
	sink.Audit(context.Background(), refused)
	var evs []RangerEvent
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var ev RangerEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	// A native rule has no Ranger id: -1, as Ranger writes for no policy.
	want := []struct {
		id     int64
		access string
		result int
	}{{12, "select", 1}, {-1, "select", 1}, {7, "update", 0}}
	for i, w := range want {
		if evs[i].PolicyID != w.id || evs[i].AccessType != w.access || evs[i].AccessResult != w.result ||
			evs[i].RequestData != "sql-fingerprint:"+Fingerprint("SELECT 1") {
			t.Errorf("event %d: %+v, want policy %d, access %s, result %d", i, evs[i], w.id, w.access, w.result)
		}
	}
	if !strings.Contains(evs[0].AdditionalInfo, `"allowed_by":["ranger policy 12"]`) {
		t.Errorf("additional info: %s", evs[0].AdditionalInfo)
	}
}
