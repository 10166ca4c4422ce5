package ranger

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/udf"
)

// Severity grades a lint finding.
type Severity string

const (
	// SeverityError: sqe enforces the policy more strictly than Ranger
	// would (an item that never grants, a column that is restricted
	// instead of masked, a table that fails closed).
	SeverityError Severity = "error"
	// SeverityWarning: part of the policy has no effect on SQL statements
	// through sqe (for example an access type sqe never asks about).
	SeverityWarning Severity = "warning"
)

// Finding is one thing sqe cannot realise as Ranger would.
type Finding struct {
	Severity Severity
	// PolicyID and PolicyName identify the policy (0 and "" for findings
	// about the bundle as a whole).
	PolicyID   int64
	PolicyName string
	// Tag is true for a tag-based policy.
	Tag bool
	// Where is the part of the policy, e.g. "deny item 2" or "condition".
	Where string
	// Message says what cannot be realised and what sqe does instead.
	Message string
}

func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(string(f.Severity))
	b.WriteString(": ")
	if f.PolicyID != 0 || f.PolicyName != "" {
		if f.Tag {
			b.WriteString("tag ")
		}
		fmt.Fprintf(&b, "policy %d", f.PolicyID)
		if f.PolicyName != "" {
			fmt.Fprintf(&b, " (%s)", f.PolicyName)
		}
		if f.Where != "" {
			b.WriteString(", " + f.Where)
		}
		b.WriteString(": ")
	} else if f.Where != "" {
		b.WriteString(f.Where + ": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// sqlAccessTypes are the hive access types sqe asks about.
var sqlAccessTypes = map[string]bool{
	"select": true, "update": true, "create": true, "drop": true, "alter": true,
	"index": true, "lock": true, "all": true,
}

// sqlResources are the hive resources a SQL statement touches.
var sqlResources = map[string]bool{"database": true, "table": true, "column": true}

// runEnrichers are the context enrichers sqe runs (or whose data it
// downloads: tags and the user store).
var runEnrichers = map[string]bool{
	"org.apache.ranger.plugin.contextenricher.RangerTagEnricher":       true,
	"org.apache.ranger.plugin.contextenricher.RangerUserStoreEnricher": true,
	geolocationEnricherClass: true,
}

// lintEnrichers reports the service-def's context enrichers sqe does not run.
func lintEnrichers(def *ServiceDef, what string) []Finding {
	var out []Finding
	for _, ce := range def.ContextEnrichers {
		if ce == nil || runEnrichers[strings.TrimSpace(ce.Enricher)] {
			continue
		}
		out = append(out, Finding{Severity: SeverityError, Where: what + " context enricher " + quote(ce.Name),
			Message: ce.Enricher + " is not run by sqe: conditions that read the request-context attributes it sets count against the caller"})
	}
	return out
}

// Lint reports the parts of a bundle that sqe cannot realise as Ranger
// would: conditions it cannot evaluate, context enrichers it does not
// run, mask types and CUSTOM or row-filter
// expressions it cannot use, validity schedules Ranger's admin would
// refuse, security zones sqe cannot apply to a table as a whole (column
// patterns) or that never match a SQL resource, zone tag policies that never apply, and policies
// on resources or access types SQL statements never reach. The policies of
// each zone are checked like the unzoned ones.
// Findings come sorted by policy; disabled policies are skipped.
func Lint(b *Bundle) []Finding {
	if b == nil || b.ServiceDef == nil {
		return []Finding{{Severity: SeverityError, Where: "bundle", Message: errNoServiceDef.Error()}}
	}
	var out []Finding
	sd := newSvcDef(b.ServiceDef, "")
	if !hasResourceDef(b.ServiceDef, "database") || !hasResourceDef(b.ServiceDef, "table") {
		out = append(out, Finding{Severity: SeverityError, Where: "service-def " + quote(b.ServiceDef.Name),
			Message: "has no database and table resources; sqe needs the hive service-def and will not load this bundle"})
	}
	zones, zerr := parseZones(b.SecurityZones)
	if zerr != nil {
		out = append(out, Finding{Severity: SeverityError, Where: "security zones",
			Message: zerr.Error() + ": every table fails closed"})
	}
	out = append(out, lintZones(zones)...)
	out = append(out, lintEnrichers(b.ServiceDef, "service-def")...)
	if tp := b.TagPolicies; tp != nil && tp.ServiceDef != nil {
		out = append(out, lintEnrichers(tp.ServiceDef, "tag service-def")...)
	}
	if _, err := parseAuditFilters(sd, b.ServiceConfig); err != nil {
		out = append(out, Finding{Severity: SeverityWarning, Where: "service config " + auditFilterConfig,
			Message: err.Error() + ": every access is audited"})
	}
	if tp := b.TagPolicies; tp != nil && tp.ServiceDef != nil {
		if _, err := parseAuditFilters(newSvcDef(tp.ServiceDef, sd.name), tp.ServiceConfig); err != nil {
			out = append(out, Finding{Severity: SeverityWarning, Where: "tag service config " + auditFilterConfig,
				Message: err.Error() + ": every access is audited"})
		}
	}
	for _, p := range b.Policies {
		out = append(out, lintPolicy(p, sd, false)...)
		if p != nil && p.Enabled() && p.ZoneName != "" {
			out = append(out, Finding{Severity: SeverityWarning, PolicyID: int64(p.ID), PolicyName: p.Name, Where: "zone",
				Message: fmt.Sprintf("names security zone %q but comes with the unzoned policies; like Ranger, sqe applies it to resources in no zone", p.ZoneName)})
		}
	}
	for _, name := range sortedKeys(zones) {
		for _, p := range zones[name].Policies {
			out = append(out, lintPolicy(p, sd, false)...)
		}
	}
	if tp := b.TagPolicies; tp != nil && tp.ServiceDef != nil {
		tsd := newSvcDef(tp.ServiceDef, sd.name)
		for _, p := range tp.Policies {
			out = append(out, lintPolicy(p, tsd, true)...)
			if p == nil || !p.Enabled() || p.ZoneName == "" {
				continue
			}
			if zi := zones[p.ZoneName]; zi == nil || !zi.ContainsAssociatedTagService {
				out = append(out, Finding{Severity: SeverityWarning, PolicyID: int64(p.ID), PolicyName: p.Name, Tag: true, Where: "zone",
					Message: fmt.Sprintf("belongs to security zone %q, which has no associated tag service: like Ranger, sqe never applies it", p.ZoneName)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.Tag != c.Tag {
			return !a.Tag
		}
		return a.PolicyID < c.PolicyID
	})
	return out
}

// lintZones reports the zones whose resources sqe cannot use as Ranger
// would.
func lintZones(zones map[string]*ZoneInfo) []Finding {
	var out []Finding
	add := func(sev Severity, zone, format string, args ...any) {
		out = append(out, Finding{Severity: sev, Where: fmt.Sprintf("security zone %q", zone), Message: fmt.Sprintf(format, args...)})
	}
	for _, name := range sortedKeys(zones) {
		zi := zones[name]
		sql := false
		for i, set := range zi.Resources {
			names := sortedKeys(set)
			other := false
			for _, n := range names {
				other = other || !sqlResources[n]
			}
			if !other {
				sql = true
			} else if len(set) > 0 {
				add(SeverityWarning, name, "resource set %d (%s) is not touched by SQL statements", i+1, strings.Join(names, ", "))
			}
			if cols, ok := set["column"]; ok && !matchesAny(cols) {
				for _, c := range cols {
					if strings.ContainsAny(c, "*?") {
						add(SeverityWarning, name, "resource set %d names columns by pattern (%s): a table's decision needs its columns (View.DecideColumns)", i+1, c)
						break
					}
				}
			}
		}
		if !sql {
			add(SeverityWarning, name, "has no database, table or column resources: no SQL statement falls in it and its %d policies have no effect through sqe", len(zi.Policies))
		}
	}
	return out
}

func lintPolicy(p *Policy, sd *svcDef, tag bool) []Finding {
	if p == nil || !p.Enabled() {
		return nil
	}
	var out []Finding
	add := func(sev Severity, where, format string, args ...any) {
		out = append(out, Finding{Severity: sev, PolicyID: int64(p.ID), PolicyName: p.Name, Tag: tag, Where: where, Message: fmt.Sprintf(format, args...)})
	}
	if !tag {
		for name := range p.Resources {
			if !sqlResources[name] {
				add(SeverityWarning, "resources", "resource %q is not touched by SQL statements; the policy has no effect through sqe", name)
				break
			}
		}
	}
	for _, c := range p.Conditions {
		if _, info := buildCondition(c, sd, false); !info.supported {
			add(SeverityError, "condition", "%s: the policy never grants and its denies always apply", info.reason)
		} else if info.mayFail != "" {
			add(SeverityError, "condition", "%s: then the policy does not grant and its denies apply", info.mayFail)
		}
	}
	for i, vs := range p.ValiditySchedules {
		if vs == nil {
			continue
		}
		if v := newValidityEval(vs); v.invalid != nil {
			add(SeverityError, fmt.Sprintf("validity schedule %d", i+1), "%v, so Ranger's admin would refuse it: the policy never grants and its denies always apply", v.invalid)
		}
	}
	lintItems := func(items []*PolicyItem, kind string, restrictive bool) {
		for i, it := range items {
			if it == nil {
				continue
			}
			where := fmt.Sprintf("%s %d", kind, i+1)
			for _, c := range it.Conditions {
				_, info := buildCondition(c, sd, false)
				switch {
				case !info.supported && restrictive:
					add(SeverityError, where, "%s: the item always applies", info.reason)
				case !info.supported:
					add(SeverityError, where, "%s: the item never matches", info.reason)
				case info.mayFail != "" && restrictive:
					add(SeverityError, where, "%s: then the item applies", info.mayFail)
				case info.mayFail != "":
					add(SeverityError, where, "%s: then the item does not match", info.mayFail)
				}
			}
			if int(p.PolicyType) == PolicyTypeAccess {
				applies := len(it.Accesses) == 0
				var other []string
				for _, a := range it.Accesses {
					t := strings.ToLower(stripComponent(a.Type))
					if sqlAccessTypes[t] {
						applies = true
					} else {
						other = append(other, a.Type)
					}
				}
				if !applies {
					add(SeverityWarning, where, "access types %s are not asked for by SQL statements through sqe", strings.Join(other, ", "))
				}
			}
		}
	}
	switch int(p.PolicyType) {
	case PolicyTypeAccess:
		lintItems(p.PolicyItems, "policy item", false)
		lintItems(p.DenyPolicyItems, "deny item", true)
		lintItems(p.AllowExceptions, "allow exception", true)
		lintItems(p.DenyExceptions, "deny exception", false)
	case PolicyTypeDataMask:
		lintItems(p.DataMaskPolicyItems, "mask item", false)
		for i, it := range p.DataMaskPolicyItems {
			if it == nil || it.DataMaskInfo == nil {
				continue
			}
			if msg := lintMask(it.DataMaskInfo); msg != "" {
				add(SeverityError, fmt.Sprintf("mask item %d", i+1), "%s", msg)
			}
		}
	case PolicyTypeRowFilter:
		lintItems(p.RowFilterPolicyItems, "row-filter item", false)
		for i, it := range p.RowFilterPolicyItems {
			if it == nil || it.RowFilterInfo == nil {
				continue
			}
			if err := lintExpr(it.RowFilterInfo.FilterExpr); err != nil {
				add(SeverityError, fmt.Sprintf("row-filter item %d", i+1), "filter %q: %v: the table fails closed for the item's principals", it.RowFilterInfo.FilterExpr, err)
			}
		}
	default:
		add(SeverityWarning, "", "policy type %d is not one sqe evaluates", p.PolicyType)
	}
	return out
}

// lintMask returns why a mask cannot be realised, or "".
func lintMask(mi *DataMaskInfo) string {
	typ := stripComponent(strings.TrimSpace(mi.DataMaskType))
	if typ == "" {
		return ""
	}
	if strings.TrimSpace(mi.ConditionExpr) != "" {
		return fmt.Sprintf("mask condition %q is not supported: the column is restricted instead", mi.ConditionExpr)
	}
	ut, ok := rangerMaskTypes[strings.ToUpper(typ)]
	if !ok {
		return fmt.Sprintf("mask type %q has no sqe equivalent: the column is restricted instead", typ)
	}
	if ut != rangerMaskTypes["CUSTOM"] {
		return ""
	}
	expr := strings.TrimSpace(mi.ValueExpr)
	if expr == "" {
		return "CUSTOM mask without an expression: the column is restricted instead"
	}
	if t, args, ok := hiveMaskCall(expr); ok {
		if err := udf.ValidateMask(t, args, ""); err != nil {
			return fmt.Sprintf("CUSTOM expression %q: %v: the table fails closed for the item's principals", expr, err)
		}
		return ""
	}
	if err := lintExpr(expr); err != nil {
		return fmt.Sprintf("CUSTOM expression %q: %v: the table fails closed for the item's principals", expr, err)
	}
	return ""
}

// lintExpr checks a Hive expression with its request expressions
// replaced by placeholders of the right kind and {col} by a column name.
// Its function calls are read by the MySQL dialect's expression parser,
// and rewriter.HiveCall decides, as it does when the expression is used:
// a call of a Hive function sqe cannot translate is reported. An
// expression that parser does not read is not judged here: the target
// database's parser decides when the expression is used.
func lintExpr(s string) error {
	if policy.HasRequestValueMarker(s) {
		return fmt.Errorf("the text holds %s, which sqe reserves for request values", policy.RequestValueTable)
	}
	for _, m := range reReqExpr.FindAllStringSubmatch(s, -1) {
		if _, err := compileJS(m[1]); err != nil {
			return fmt.Errorf("request expression ${{%s}} uses JavaScript beyond the forms sqe evaluates", m[1])
		}
	}
	text := strings.ReplaceAll(reReqExpr.ReplaceAllString(s, "0"), "{col}", maskColumn)
	var he *rewriter.HiveFunctionError
	if _, err := rewriter.HiveExprSQL(mysql.Syntax, text); errors.As(err, &he) {
		return he
	}
	return nil
}

func hasResourceDef(sd *ServiceDef, name string) bool {
	for _, r := range sd.Resources {
		if r != nil && r.Name == name {
			return true
		}
	}
	return false
}
