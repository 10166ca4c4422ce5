package audit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// RangerEvent is Apache Ranger's audit event (AuthzAuditEvent) as its
// plugins write it to audit destinations in JSON.
type RangerEvent struct {
	RepositoryType int    `json:"repoType"`
	RepositoryName string `json:"repo"`
	User           string `json:"reqUser"`
	EventTime      string `json:"evtTime"`
	AccessType     string `json:"access"`
	ResourcePath   string `json:"resource"`
	ResourceType   string `json:"resType"`
	Action         string `json:"action"`
	AccessResult   int    `json:"result"`
	AgentID        string `json:"agent"`
	PolicyID       int64  `json:"policy"`
	ResultReason   string `json:"reason,omitempty"`
	AclEnforcer    string `json:"enforcer"`
	SessionID      string `json:"sess,omitempty"`
	ClientType     string `json:"cliType,omitempty"`
	ClientIP       string `json:"cliIP"`
	RequestData    string `json:"reqData,omitempty"`
	AgentHostname  string `json:"agentHost"`
	LogType        string `json:"logType"`
	EventID        string `json:"id"`
	SeqNum         int64  `json:"seq_num"`
	EventCount     int64  `json:"event_count"`
	EventDurationM int64  `json:"event_dur_ms"`
	Tags           []any  `json:"tags"`
	ClusterName    string `json:"cluster_name"`
	ZoneName       string `json:"zone_name,omitempty"`
	PolicyVersion  uint64 `json:"policy_version,omitempty"`
	AdditionalInfo string `json:"additional_info,omitempty"`
}

// RangerOptions fill the fields of Ranger events that sqe does not know.
type RangerOptions struct {
	// Service is the Ranger service (repo) name; default "sqe".
	Service string
	// Cluster is the cluster name; default empty.
	Cluster string
	// ServiceType is Ranger's repoType; default 3 (hive).
	ServiceType int
}

// rangerTime is the layout of Ranger's evtTime.
const rangerTime = "2006-01-02 15:04:05.000"

// NewRangerSink writes each record as Ranger audit events, one JSON object
// per line: one event per table the statement touched (one without a
// resource when it touched none). The SQL text is not written; its
// fingerprint is in reqData. The event's policy is the Ranger policy that
// granted the access (Table.AllowedBy), or that denied it, when it was one
// (-1 otherwise, as Ranger writes for no policy).
func NewRangerSink(w io.Writer, opts RangerOptions) Sink {
	if opts.Service == "" {
		opts.Service = "sqe"
	}
	if opts.ServiceType == 0 {
		opts.ServiceType = 3
	}
	host, _ := os.Hostname()
	var mu sync.Mutex
	var seq atomic.Int64
	enc := json.NewEncoder(w)
	return SinkFunc(func(_ context.Context, r *Record) {
		result := 1
		if !r.Allowed {
			result = 0
		}
		ev := RangerEvent{
			RepositoryType: opts.ServiceType, RepositoryName: opts.Service, User: r.User,
			EventTime: r.Time.UTC().Format(rangerTime), AccessType: rangerAccess(r.Kind),
			Action: r.Kind, AccessResult: result, AgentID: "sqe", PolicyID: -1, AclEnforcer: "sqe",
			RequestData: "sql-fingerprint:" + r.SQLFingerprint, AgentHostname: host, LogType: "RangerAudit",
			EventCount: 1, EventDurationM: r.Duration.Milliseconds(), Tags: []any{}, ClusterName: opts.Cluster,
			PolicyVersion: r.SnapshotVersion, ResultReason: r.Error,
		}
		events := make([]RangerEvent, 0, max(1, len(r.Tables)))
		for _, t := range r.Tables {
			e := ev
			e.ResourcePath = strings.ReplaceAll(t.Name, ".", "/")
			e.ResourceType = "@table"
			// The policy that decided: the one that granted the access,
			// or, for a refusal, the one that denied it.
			decided := t.AllowedBy
			if !r.Allowed {
				decided = t.Policies
			}
			if len(decided) > 0 {
				e.PolicyID = rangerPolicyID(decided[0])
			}
			if info, err := json.Marshal(map[string]any{"policies": t.Policies, "allowed_by": t.AllowedBy,
				"row_filters": t.RowFilters, "masks": t.Masks, "restricted": t.Restricted}); err == nil {
				e.AdditionalInfo = string(info)
			}
			events = append(events, e)
		}
		if len(events) == 0 {
			events = append(events, ev)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, e := range events {
			e.SeqNum = seq.Add(1)
			e.EventID = newEventID()
			_ = enc.Encode(e)
		}
	})
}

func rangerAccess(kind string) string {
	switch kind {
	case "select":
		return "select"
	case "insert", "update", "delete":
		return "update"
	case "ddl":
		return "alter"
	}
	return kind
}

// rangerPolicyID is the id in a Ranger policy's name as sqe writes it
// ("ranger policy 12", "ranger tag policy 7"); -1 for any other policy.
func rangerPolicyID(name string) int64 {
	for _, prefix := range []string{"ranger policy ", "ranger tag policy "} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if id, err := strconv.ParseInt(rest, 10, 64); err == nil && id >= 0 {
				return id
			}
		}
	}
	return -1
}

func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
