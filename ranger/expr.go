package ranger

import (
	"fmt"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter/mysql"
	"github.com/sqe-project/sqe/udf"
)

// Ranger's filterExpr and CUSTOM valueExpr are Hive SQL. sqe passes them to
// the rewriter as expression text marked as Hive SQL (policy.RowFilter.Hive,
// policy.Mask.Hive), after replacing ${{...}} request expressions by
// markers, with the caller's values beside the text
// (policy.RowFilter.Values, policy.Mask.Values): the rewriter's parser
// finds where each marker sits and places the value there as a literal
// the dialect's printer escapes (no text of a value is ever spliced into
// SQL here).
//
// The rewriter reads the text with the target dialect's parser and fails
// closed on what does not parse; on the parsed tree it renames
// logged_in_user() to current_user() (which it inlines as the caller's
// name) and refuses the Hive functions with no MySQL/PostgreSQL meaning
// (the mask UDFs inside a larger expression, reflect, java_method,
// in_file, current_groups, ...) with a policy error naming the function,
// the table and the policy (see rewriter.HiveCall). No text is scanned
// here.
//
// A CUSTOM mask that is exactly one Hive mask UDF call on {col} with literal
// arguments becomes the matching sqe mask type instead.

// markRequestValues replaces each ${{...}} request expression of s by a
// marker (policy.RequestValueMarker) and returns the caller's values
// beside the text: the rewriter places each value where the dialect's
// parser reads its marker, as a literal the dialect's printer escapes
// (see policy.RequestValue). Text that holds the markers' qualifier
// itself is refused, so that a policy cannot forge a marker.
func markRequestValues(s string, r *request) (string, []policy.RequestValue, error) {
	if policy.HasRequestValueMarker(s) {
		return "", nil, fmt.Errorf("the text holds %s, which sqe reserves for request values", policy.RequestValueTable)
	}
	if !hasRequestExpressions(s) {
		return s, nil, nil
	}
	var out strings.Builder
	var values []policy.RequestValue
	last := 0
	for _, loc := range reReqExpr.FindAllStringSubmatchIndex(s, -1) {
		out.WriteString(s[last:loc[0]])
		last = loc[1]
		expr := s[loc[2]:loc[3]]
		v, err := evalRequestExpr(expr, r)
		if err != nil {
			return "", nil, fmt.Errorf("request expression ${{%s}} cannot be evaluated: it uses JavaScript beyond the forms sqe evaluates or failed while it ran", expr)
		}
		out.WriteString(policy.RequestValueMarker(len(values)))
		values = append(values, policy.RequestValue{Value: v.str, Null: v.null})
	}
	out.WriteString(s[last:])
	return out.String(), values, nil
}

// maskColumn stands for {col} while a CUSTOM expression is read as a
// call: an unquoted name the parser reads as a column reference.
const maskColumn = "sqe_mask_column"

// hiveMaskCall turns a CUSTOM expression that is exactly one Hive mask UDF
// call on {col} with constant arguments into the matching mask type and
// arguments. The expression is read by the MySQL dialect's expression
// parser (Hive's literals and calls read the same there); text with a
// backslash (whose escapes the two languages read differently), with a
// request expression, or that names the stand-in for {col} itself is
// not a call here, and the CUSTOM expression path refuses the mask UDF.
func hiveMaskCall(expr string) (typ string, args []string, ok bool) {
	if !strings.Contains(expr, "{col}") || strings.Contains(expr, `\`) || hasRequestExpressions(expr) ||
		strings.Contains(lower(expr), maskColumn) || policy.HasRequestValueMarker(expr) {
		return "", nil, false
	}
	name, callArgs, ok := mysql.SimpleCall(strings.ReplaceAll(expr, "{col}", maskColumn))
	if !ok || len(callArgs) == 0 || callArgs[0].Column != maskColumn {
		return "", nil, false
	}
	for _, a := range callArgs[1:] {
		if a.Column != "" || strings.Contains(a.Value, maskColumn) {
			return "", nil, false
		}
		args = append(args, a.Value)
	}
	switch name {
	case "mask":
		return udf.TypeMask, args, true
	case "mask_first_n":
		return udf.TypeFirstN, args, true
	case "mask_last_n":
		return udf.TypeLastN, args, true
	case "mask_show_first_n":
		return udf.TypeShowFirstN, args, true
	case "mask_show_last_n":
		return udf.TypeShowLastN, args, true
	case "mask_hash":
		if len(args) > 0 {
			return "", nil, false
		}
		return udf.TypeHash, nil, true
	}
	return "", nil, false
}

// rangerMaskTypes are the hive service-def's mask types sqe realises.
var rangerMaskTypes = map[string]string{
	"MASK":                udf.TypeMask,
	"MASK_SHOW_LAST_4":    udf.TypeShowLast4,
	"MASK_SHOW_FIRST_4":   udf.TypeShowFirst4,
	"MASK_HASH":           udf.TypeHash,
	"MASK_NULL":           udf.TypeNull,
	"MASK_NONE":           udf.TypeNone,
	"MASK_DATE_SHOW_YEAR": udf.TypeDateShowYear,
	"CUSTOM":              udf.TypeCustom,
}

// stripComponent removes a component prefix ("hive:MASK" -> "MASK").
func stripComponent(t string) string {
	if i := strings.LastIndex(t, componentSep); i >= 0 {
		return t[i+1:]
	}
	return t
}

// maskOutcome is what a Ranger mask becomes: a mask, or a reason to
// restrict the column (a mask sqe cannot realise), or an error (a CUSTOM
// expression that cannot be translated: the table fails closed).
type maskOutcome struct {
	mask     policy.Mask
	restrict string
	err      error
}

func realiseMask(res *result, pol string, r *request) maskOutcome {
	typ := stripComponent(strings.TrimSpace(*res.maskType))
	if res.maskCondition != nil && strings.TrimSpace(*res.maskCondition) != "" {
		return maskOutcome{restrict: pol + ": mask condition " + quote(*res.maskCondition) + " is not supported"}
	}
	ut, ok := rangerMaskTypes[strings.ToUpper(typ)]
	if !ok {
		return maskOutcome{restrict: pol + ": mask type " + quote(typ) + " cannot be realised"}
	}
	m := policy.Mask{Type: ut, Policy: pol}
	if ut == udf.TypeCustom {
		if res.maskedValue == nil || strings.TrimSpace(*res.maskedValue) == "" {
			return maskOutcome{restrict: pol + ": CUSTOM mask without an expression"}
		}
		raw := *res.maskedValue
		if t, args, ok := hiveMaskCall(raw); ok {
			if err := udf.ValidateMask(t, args, ""); err != nil {
				return maskOutcome{err: fmt.Errorf("%s: CUSTOM mask %q: %v", pol, raw, err)}
			}
			return maskOutcome{mask: policy.Mask{Type: t, Args: args, Policy: pol}}
		}
		expr, values, err := markRequestValues(raw, r)
		if err != nil {
			return maskOutcome{err: fmt.Errorf("%s: CUSTOM mask expression cannot be used: %v", pol, err)}
		}
		m.Expr, m.Values, m.Hive = expr, values, true
	}
	if err := udf.ValidateMask(m.Type, m.Args, m.Expr); err != nil {
		return maskOutcome{restrict: pol + ": " + err.Error()}
	}
	return maskOutcome{mask: m}
}

// realiseFilter turns a Ranger row filter into sqe's: Hive SQL, which the
// rewriter translates on the dialect's tree.
func realiseFilter(expr string, pol string, r *request) (policy.RowFilter, error) {
	s, values, err := markRequestValues(expr, r)
	if err != nil {
		return policy.RowFilter{}, fmt.Errorf("%s: row filter %q cannot be used: %v", pol, expr, err)
	}
	return policy.RowFilter{Expr: s, Policy: pol, Values: values, Hive: true}, nil
}
