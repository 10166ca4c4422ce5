package ranger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The types in this file mirror the JSON that Apache Ranger admin serves to
// its plugins (ServicePolicies, RangerRoles, ServiceTags, RangerUserStore).
// Fields sqe does not use are left out; unknown fields are ignored when
// decoding. Booleans and option values are accepted as JSON booleans,
// numbers or strings, as Ranger's own (Gson/Jackson) readers accept them.

// Bool is a boolean that also decodes from "true"/"false" strings and numbers.
type Bool bool

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bool) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	switch s {
	case "null", "":
		*b = false
		return nil
	case "true", "1":
		*b = true
		return nil
	case "false", "0":
		*b = false
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(data, &str); err != nil {
			return err
		}
		*b = Bool(strings.EqualFold(strings.TrimSpace(str), "true"))
		return nil
	}
	return fmt.Errorf("ranger: cannot decode %s as a boolean", s)
}

func boolOr(b *Bool, def bool) bool {
	if b == nil {
		return def
	}
	return bool(*b)
}

func boolPtr(v bool) *Bool { b := Bool(v); return &b }

// Int64 is an integer that also decodes from a numeric string.
type Int64 int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int64) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if s == "null" || s == "" {
		*n = 0
		return nil
	}
	if s[0] == '"' {
		var str string
		if err := json.Unmarshal(data, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
		if s == "" {
			*n = 0
			return nil
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("ranger: cannot decode %s as an integer", s)
		}
		v = int64(f)
	}
	*n = Int64(v)
	return nil
}

// Options is a string map whose values may arrive as any JSON scalar
// (Ranger's matcherOptions, evaluatorOptions, serviceConfig).
type Options map[string]string

// UnmarshalJSON implements json.Unmarshaler.
func (o *Options) UnmarshalJSON(data []byte) error {
	if strings.TrimSpace(string(data)) == "null" {
		*o = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Options, len(raw))
	for k, v := range raw {
		out[k] = scalarString(v)
	}
	*o = out
	return nil
}

func scalarString(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if s == "null" {
		return ""
	}
	if len(s) > 0 && s[0] == '"' {
		var str string
		if json.Unmarshal(v, &str) == nil {
			return str
		}
	}
	return s
}

// Time is a point in time that decodes from epoch milliseconds or from the
// string forms Ranger writes ("20190730-17:47:46.221--0700",
// "yyyyMMdd-HH:mm:ss.SSSZ", RFC 3339). It encodes as epoch milliseconds.
type Time struct{ time.Time }

var rangerTimeLayouts = []string{
	"20060102-15:04:05.000--0700",
	"20060102-15:04:05.000-+0700",
	"20060102-15:04:05.000-0700",
	"20060102-15:04:05.000Z0700",
	"20060102-15:04:05.000",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.000Z0700",
	"2006-01-02 15:04:05",
	"2006/01/02 15:04:05",
	"2006/01/02",
	"Jan 2, 2006 3:04:05 PM",
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if s == "null" || s == `""` {
		t.Time = time.Time{}
		return nil
	}
	if s[0] != '"' {
		ms, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("ranger: cannot decode %s as a time", s)
		}
		t.Time = time.UnixMilli(int64(ms)).UTC()
		return nil
	}
	var str string
	if err := json.Unmarshal(data, &str); err != nil {
		return err
	}
	tm, err := parseRangerTime(str)
	if err != nil {
		return err
	}
	t.Time = tm
	return nil
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatInt(t.UnixMilli(), 10)), nil
}

func parseRangerTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	for _, l := range rangerTimeLayouts {
		if tm, err := time.Parse(l, s); err == nil {
			return tm, nil
		}
	}
	return time.Time{}, fmt.Errorf("ranger: unrecognised time %q", s)
}

// PolicyResource is one resource element of a policy: values with * and ?
// wildcards, optionally excluded or recursive.
type PolicyResource struct {
	Values      []string `json:"values"`
	IsExcludes  Bool     `json:"isExcludes"`
	IsRecursive Bool     `json:"isRecursive"`
}

// ItemAccess is an access type granted (or denied) by a policy item.
type ItemAccess struct {
	Type      string `json:"type"`
	IsAllowed *Bool  `json:"isAllowed,omitempty"`
}

func (a ItemAccess) allowed() bool { return boolOr(a.IsAllowed, true) }

// Condition is a policy or policy-item condition: a condition type defined by
// the service-def and its values.
type Condition struct {
	Type   string   `json:"type"`
	Values []string `json:"values"`
}

// DataMaskInfo is the mask a datamask policy item applies.
type DataMaskInfo struct {
	DataMaskType  string `json:"dataMaskType"`
	ConditionExpr string `json:"conditionExpr,omitempty"`
	ValueExpr     string `json:"valueExpr,omitempty"`
}

// RowFilterInfo is the filter a rowfilter policy item applies.
type RowFilterInfo struct {
	FilterExpr string `json:"filterExpr"`
}

// PolicyItem is an allow, deny, exception, datamask or rowfilter item.
type PolicyItem struct {
	Accesses      []ItemAccess   `json:"accesses"`
	Users         []string       `json:"users,omitempty"`
	Groups        []string       `json:"groups,omitempty"`
	Roles         []string       `json:"roles,omitempty"`
	Conditions    []Condition    `json:"conditions,omitempty"`
	DelegateAdmin Bool           `json:"delegateAdmin"`
	DataMaskInfo  *DataMaskInfo  `json:"dataMaskInfo,omitempty"`
	RowFilterInfo *RowFilterInfo `json:"rowFilterInfo,omitempty"`
}

// ValiditySchedule limits when a policy (or a tag) applies.
type ValiditySchedule struct {
	StartTime   string            `json:"startTime,omitempty"`
	EndTime     string            `json:"endTime,omitempty"`
	TimeZone    string            `json:"timeZone,omitempty"`
	Recurrences []json.RawMessage `json:"recurrences,omitempty"`
}

// Policy types.
const (
	PolicyTypeAccess    = 0
	PolicyTypeDataMask  = 1
	PolicyTypeRowFilter = 2
	policyTypeAudit     = 3
)

// Policy is a Ranger policy.
type Policy struct {
	ID                   Int64                        `json:"id"`
	GUID                 string                       `json:"guid,omitempty"`
	IsEnabled            *Bool                        `json:"isEnabled,omitempty"`
	Version              Int64                        `json:"version,omitempty"`
	Service              string                       `json:"service,omitempty"`
	Name                 string                       `json:"name"`
	PolicyType           Int64                        `json:"policyType"`
	PolicyPriority       Int64                        `json:"policyPriority"`
	Description          string                       `json:"description,omitempty"`
	IsAuditEnabled       *Bool                        `json:"isAuditEnabled,omitempty"`
	Resources            map[string]*PolicyResource   `json:"resources"`
	AdditionalResources  []map[string]*PolicyResource `json:"additionalResources,omitempty"`
	Conditions           []Condition                  `json:"conditions,omitempty"`
	PolicyItems          []*PolicyItem                `json:"policyItems,omitempty"`
	DenyPolicyItems      []*PolicyItem                `json:"denyPolicyItems,omitempty"`
	AllowExceptions      []*PolicyItem                `json:"allowExceptions,omitempty"`
	DenyExceptions       []*PolicyItem                `json:"denyExceptions,omitempty"`
	DataMaskPolicyItems  []*PolicyItem                `json:"dataMaskPolicyItems,omitempty"`
	RowFilterPolicyItems []*PolicyItem                `json:"rowFilterPolicyItems,omitempty"`
	ValiditySchedules    []*ValiditySchedule          `json:"validitySchedules,omitempty"`
	IsDenyAllElse        Bool                         `json:"isDenyAllElse"`
	ZoneName             string                       `json:"zoneName,omitempty"`
	ServiceType          string                       `json:"serviceType,omitempty"`
	PolicyLabels         []string                     `json:"policyLabels,omitempty"`
}

// Enabled reports whether the policy is enabled (the default).
func (p *Policy) Enabled() bool { return boolOr(p.IsEnabled, true) }

// AuditEnabled reports whether the policy audits (the default).
func (p *Policy) AuditEnabled() bool { return boolOr(p.IsAuditEnabled, true) }

// ResourceDef is a resource level of a service-def.
type ResourceDef struct {
	ItemID             Int64   `json:"itemId,omitempty"`
	Name               string  `json:"name"`
	Type               string  `json:"type,omitempty"`
	Level              Int64   `json:"level"`
	Parent             string  `json:"parent,omitempty"`
	Mandatory          *Bool   `json:"mandatory,omitempty"`
	LookupSupported    *Bool   `json:"lookupSupported,omitempty"`
	RecursiveSupported *Bool   `json:"recursiveSupported,omitempty"`
	ExcludesSupported  *Bool   `json:"excludesSupported,omitempty"`
	Matcher            string  `json:"matcher,omitempty"`
	MatcherOptions     Options `json:"matcherOptions,omitempty"`
	IsValidLeaf        *Bool   `json:"isValidLeaf,omitempty"`
	Label              string  `json:"label,omitempty"`
	Description        string  `json:"description,omitempty"`
}

// AccessTypeDef is an access type of a service-def.
type AccessTypeDef struct {
	ItemID        Int64    `json:"itemId,omitempty"`
	Name          string   `json:"name"`
	Label         string   `json:"label,omitempty"`
	ImpliedGrants []string `json:"impliedGrants,omitempty"`
	Category      string   `json:"category,omitempty"`
}

// PolicyConditionDef declares a condition type and its evaluator.
type PolicyConditionDef struct {
	ItemID           Int64   `json:"itemId,omitempty"`
	Name             string  `json:"name"`
	Evaluator        string  `json:"evaluator"`
	EvaluatorOptions Options `json:"evaluatorOptions,omitempty"`
	Label            string  `json:"label,omitempty"`
	Description      string  `json:"description,omitempty"`
}

// ContextEnricherDef declares a context enricher (the tag enricher).
type ContextEnricherDef struct {
	ItemID          Int64   `json:"itemId,omitempty"`
	Name            string  `json:"name"`
	Enricher        string  `json:"enricher"`
	EnricherOptions Options `json:"enricherOptions,omitempty"`
}

// DataMaskTypeDef is a mask type of the service-def.
type DataMaskTypeDef struct {
	ItemID      Int64  `json:"itemId,omitempty"`
	Name        string `json:"name"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
	Transformer string `json:"transformer,omitempty"`
}

// DataMaskDef is the datamask part of a service-def.
type DataMaskDef struct {
	MaskTypes   []*DataMaskTypeDef `json:"maskTypes,omitempty"`
	AccessTypes []*AccessTypeDef   `json:"accessTypes,omitempty"`
	Resources   []*ResourceDef     `json:"resources,omitempty"`
}

// RowFilterDef is the rowfilter part of a service-def.
type RowFilterDef struct {
	AccessTypes []*AccessTypeDef `json:"accessTypes,omitempty"`
	Resources   []*ResourceDef   `json:"resources,omitempty"`
}

// ServiceDef is a Ranger service definition (for sqe: the hive service-def,
// and the tag service-def of tag policies).
type ServiceDef struct {
	ID                Int64                 `json:"id,omitempty"`
	Name              string                `json:"name"`
	Options           Options               `json:"options,omitempty"`
	Resources         []*ResourceDef        `json:"resources"`
	AccessTypes       []*AccessTypeDef      `json:"accessTypes"`
	MarkerAccessTypes []*AccessTypeDef      `json:"markerAccessTypes,omitempty"`
	PolicyConditions  []*PolicyConditionDef `json:"policyConditions,omitempty"`
	ContextEnrichers  []*ContextEnricherDef `json:"contextEnrichers,omitempty"`
	DataMaskDef       *DataMaskDef          `json:"dataMaskDef,omitempty"`
	RowFilterDef      *RowFilterDef         `json:"rowFilterDef,omitempty"`
}

// TagPolicies are the tag-service policies delivered with ServicePolicies.
type TagPolicies struct {
	ServiceName      string      `json:"serviceName,omitempty"`
	ServiceID        Int64       `json:"serviceId,omitempty"`
	PolicyVersion    *Int64      `json:"policyVersion,omitempty"`
	PolicyUpdateTime Time        `json:"policyUpdateTime"`
	Policies         []*Policy   `json:"policies"`
	ServiceDef       *ServiceDef `json:"serviceDef,omitempty"`
	AuditMode        string      `json:"auditMode,omitempty"`
	ServiceConfig    Options     `json:"serviceConfig,omitempty"`
}

// ServicePolicies is the policy download of one service.
type ServicePolicies struct {
	ServiceName      string                     `json:"serviceName"`
	ServiceID        Int64                      `json:"serviceId,omitempty"`
	PolicyVersion    *Int64                     `json:"policyVersion,omitempty"`
	PolicyUpdateTime Time                       `json:"policyUpdateTime"`
	Policies         []*Policy                  `json:"policies"`
	ServiceDef       *ServiceDef                `json:"serviceDef"`
	AuditMode        string                     `json:"auditMode,omitempty"`
	ServiceConfig    Options                    `json:"serviceConfig,omitempty"`
	TagPolicies      *TagPolicies               `json:"tagPolicies,omitempty"`
	SecurityZones    map[string]json.RawMessage `json:"securityZones,omitempty"`
}

// RoleMember is a user, group or role inside a role.
type RoleMember struct {
	Name    string `json:"name"`
	IsAdmin Bool   `json:"isAdmin"`
}

// Role is a Ranger role.
type Role struct {
	ID     Int64        `json:"id,omitempty"`
	Name   string       `json:"name"`
	Users  []RoleMember `json:"users,omitempty"`
	Groups []RoleMember `json:"groups,omitempty"`
	Roles  []RoleMember `json:"roles,omitempty"`
}

// Roles is the role download of one service.
type Roles struct {
	ServiceName    string  `json:"serviceName,omitempty"`
	RoleVersion    *Int64  `json:"roleVersion,omitempty"`
	RoleUpdateTime Time    `json:"roleUpdateTime"`
	RangerRoles    []*Role `json:"rangerRoles"`
}

// TagDef is a tag definition.
type TagDef struct {
	Name string `json:"name"`
}

// Tag is a tag instance with its attributes.
type Tag struct {
	Type            string              `json:"type"`
	Attributes      map[string]string   `json:"attributes,omitempty"`
	Options         map[string]any      `json:"options,omitempty"`
	ValidityPeriods []*ValiditySchedule `json:"validityPeriods,omitempty"`
}

// ServiceResource is a resource that tags are attached to.
type ServiceResource struct {
	ID               Int64                      `json:"id"`
	ServiceName      string                     `json:"serviceName,omitempty"`
	ResourceElements map[string]*PolicyResource `json:"resourceElements"`
	OwnerUser        string                     `json:"ownerUser,omitempty"`
}

// ServiceTags is the tag download of one service.
type ServiceTags struct {
	ServiceName      string             `json:"serviceName,omitempty"`
	TagVersion       *Int64             `json:"tagVersion,omitempty"`
	TagUpdateTime    Time               `json:"tagUpdateTime"`
	TagDefinitions   map[string]*TagDef `json:"tagDefinitions,omitempty"`
	Tags             map[string]*Tag    `json:"tags"`
	ServiceResources []*ServiceResource `json:"serviceResources"`
	ResourceToTagIDs map[string][]Int64 `json:"resourceToTagIds"`
	IsDelta          Bool               `json:"isDelta"`
}

// UserStore carries user and group attributes (RangerUserStore).
type UserStore struct {
	UserStoreVersion *Int64                       `json:"userStoreVersion,omitempty"`
	UserAttrMapping  map[string]map[string]string `json:"userAttrMapping,omitempty"`
	GroupAttrMapping map[string]map[string]string `json:"groupAttrMapping,omitempty"`
	UserGroupMapping map[string][]string          `json:"userGroupMapping,omitempty"`
}

func version(v *Int64) int64 {
	if v == nil {
		return -1
	}
	return int64(*v)
}

// decodeStrict decodes JSON that must be one object.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}
