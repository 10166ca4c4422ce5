package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sqe-project/sqe/audit"
)

// NewRangerSink writes Apache Ranger's audit event format; pass it to
// sqe.WithAudit to send sqe's records where Ranger audits already go.
func ExampleNewRangerSink() {
	var b strings.Builder
	sink := audit.NewRangerSink(&b, audit.RangerOptions{Service: "hive_prod"})
	sink.Audit(context.Background(), &audit.Record{
		Time: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), User: "sam", Kind: "select", Allowed: true,
		SQLFingerprint: audit.Fingerprint("SELECT ssn FROM customers"),
		Tables:         []audit.Table{{Name: "shop.customers", Masks: map[string]string{"ssn": "MASK_SHOW_LAST_4"}}},
	})
	var ev map[string]any
	if err := json.Unmarshal([]byte(b.String()), &ev); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(ev["repo"], ev["reqUser"], ev["access"], ev["resource"], ev["result"], ev["evtTime"])
	// Output: hive_prod sam select shop/customers 1 2026-12-01 09:30:00.000
}
