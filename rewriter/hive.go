package rewriter

import (
	"errors"
	"strings"

	"github.com/sqe-project/sqe/policy"
)

// Ranger's row filters and CUSTOM mask expressions are Hive SQL, written
// by the policy's author (policy.RowFilter.Hive, policy.Mask.Hive). The
// dialect's parser reads them as it reads every policy expression, and on
// its tree each function call is what HiveCall says:
//
//   - logged_in_user() becomes current_user(), which the dialect's rewrite
//     then inlines as the caller's name like any context function;
//   - a call of a Hive function with no MySQL or PostgreSQL meaning (the
//     mask UDFs inside a larger expression, reflect, java_method, in_file,
//     current_groups, ...) is refused: the expression is a policy error
//     naming the function, the table and the policy.
//
// Only calls count: a name in a string literal or a comment is not a
// call, the parser tells them apart as the server does. Names compare
// without case, quoted or not, as Hive reads them: PostgreSQL's
// "reflect"(x) is a call of reflect and is refused.

// HiveSyntax is implemented by the Syntax of a dialect that reads policy
// expressions written in Hive SQL.
type HiveSyntax interface {
	// TranslateHive parses text as exactly one expression and prints it
	// with each function call in its tree as HiveCall says: renamed, or
	// refused with HiveCall's error.
	TranslateHive(text string) (string, error)
}

// hiveOnlyFunctions are the Hive functions that have no MySQL or
// PostgreSQL meaning: a Hive expression that calls one is refused.
var hiveOnlyFunctions = NameSet(`
mask mask_first_n mask_last_n mask_show_first_n mask_show_last_n mask_hash
reflect reflect2 java_method in_file current_groups current_authorizer
get_json_object explode posexplode inline stack json_tuple parse_url_tuple
sentences histogram_numeric ngrams context_ngrams xpath xpath_string
xpath_int xpath_boolean surrogate_key restrict_information_schema
current_database
`)

// hiveRenames are the Hive functions with a direct equivalent, which
// take no argument.
var hiveRenames = map[string]string{
	"logged_in_user": "current_user",
}

// HiveFunctionError is a call, in a Hive policy expression, of a Hive
// function that sqe cannot translate. Its message names the function
// only (never a value of the expression).
type HiveFunctionError struct {
	// Name is the function's name, lower-cased.
	Name string
	// Why says what is wrong with the call.
	Why string
}

func (e *HiveFunctionError) Error() string {
	return "uses the Hive function " + e.Name + "(), " + e.Why
}

// HiveCall says what a call of the function name (as the dialect's tree
// holds it, in any case) becomes in a Hive policy expression: to is the
// name it is renamed to ("" when it stays as it is), or err a
// *HiveFunctionError when the call is refused. qualified is set when the
// call names a schema (a database's own function, never renamed; a
// Hive-only name is refused all the same). args is the number of the
// call's arguments; a dialect counts a call decorated beyond its
// arguments (an aggregate's * or ORDER BY, a window) as one with
// arguments.
func HiveCall(name string, qualified bool, args int) (to string, err error) {
	name = strings.ToLower(name)
	if hiveOnlyFunctions[name] {
		return "", &HiveFunctionError{Name: name, Why: "which has no MySQL or PostgreSQL translation"}
	}
	if r, ok := hiveRenames[name]; ok && !qualified {
		if args != 0 {
			return "", &HiveFunctionError{Name: name, Why: "with arguments, which it does not take"}
		}
		return r, nil
	}
	return "", nil
}

// hiveExprs remembers TranslateHive's answers, by dialect and text.
var hiveExprs = TextMemo{Max: 4096}

// HiveExprSQL is text, a policy expression in Hive SQL, as the dialect's
// TranslateHive prints it (remembered by dialect and text). A dialect
// that cannot read Hive SQL is an error.
func HiveExprSQL(syn Syntax, text string) (string, error) {
	hs, ok := syn.(HiveSyntax)
	if !ok {
		return "", errors.New("the dialect cannot read Hive SQL")
	}
	return hiveExprs.Do(string(syn.UDF())+"\x00"+text, func(string) (string, error) { return hs.TranslateHive(text) })
}

// policyExprSQL is PolicyExprSQL of a policy expression that is Hive SQL
// when hive is set: translated first (HiveExprSQL), so that the request
// values are placed, and later the context functions inlined, in the
// translated expression.
func policyExprSQL(syn Syntax, text string, values []policy.RequestValue, hive bool) (string, error) {
	if hive {
		var err error
		if text, err = HiveExprSQL(syn, text); err != nil {
			return "", err
		}
	}
	return PolicyExprSQL(syn, text, values)
}

// hiveStandIn stands for {col} while a Hive CUSTOM mask expression is
// checked on its own (checkHive): an unquoted name the parsers read as a
// column reference.
const hiveStandIn = "sqe_hive_column"

// checkHive fails closed, with a policy error naming the table, the
// policy and the function, when a Hive row filter or CUSTOM mask of the
// caller's decision calls a Hive function sqe cannot translate: the
// table's plan fails for every statement of the callers it applies to,
// whichever columns the statement reads. An expression that does not
// parse is left to FilterSQL and MaskExpr, which report it where it is
// placed.
func (p *TablePlan) checkHive(req *Request) error {
	syn, ok := syntaxOf(req)
	if !ok {
		return nil
	}
	var he *HiveFunctionError
	for _, f := range p.Decision.RowFilters {
		if !f.Hive {
			continue
		}
		for _, text := range []string{f.Expr, f.Check} {
			if text == "" {
				continue
			}
			if _, err := HiveExprSQL(syn, text); errors.As(err, &he) {
				return p.FilterError(f, he.Error())
			}
		}
	}
	for _, c := range p.Columns {
		m, masked := p.Mask(c.Name)
		if !masked || !m.Hive || m.Expr == "" {
			continue
		}
		if _, err := HiveExprSQL(syn, "("+strings.ReplaceAll(m.Expr, "{col}", hiveStandIn)+")"); errors.As(err, &he) {
			return p.hiveMaskError(c, m, he)
		}
	}
	return nil
}

// hiveMaskError is the policy error of a Hive CUSTOM mask expression
// that cannot be translated.
func (p *TablePlan) hiveMaskError(c Column, m policy.Mask, err error) error {
	detail := "mask expression is not a single SQL expression"
	var he *HiveFunctionError
	if errors.As(err, &he) {
		detail = "mask expression " + he.Error()
	}
	return &Error{Kind: policy.ErrPolicy, Table: p.Table.String(), Column: c.Name, Policy: m.Policy, Detail: detail}
}
