package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/opa"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/session"
)

// isRegoBundle reports whether a --policy or lint argument names an Open
// Policy Agent bundle: a directory, a bundle tarball, a .rego file or a
// bundle server's URL.
func isRegoBundle(path string) bool {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return true
	}
	for _, ext := range []string{".tar.gz", ".tgz", ".rego"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// policyOption is the sqe option that enforces the policy at path: a
// native file or Ranger bundle (WithPolicyFile, not followed on disk) or
// a Rego bundle (WithPolicy with an opa source, which close stops).
func policyOption(path string) (sqe.Option, func(), error) {
	if !isRegoBundle(path) {
		return sqe.WithPolicyFile(path), func() {}, nil
	}
	src, err := opa.New(path, opa.WithPollInterval(0))
	if err != nil {
		return nil, nil, err
	}
	if _, err := src.Snapshot(); err != nil {
		src.Close()
		return nil, nil, err
	}
	return sqe.WithPolicy(src), func() { src.Close() }, nil
}

// regoLint lints a Rego bundle: it must read and compile, and, for each
// table given, the decision for a caller without roles and for each role
// the bundle's data.sqe.principals names (and each of --roles) must have
// the shape sqe reads, name columns the table has (with a catalog), and
// its row filters and CUSTOM masks must parse for the dialect (or both).
type regoLint struct {
	path     string
	dialect  string
	tables   []policy.TableName
	roles    []string
	catalog  rewriter.Catalog
	findings []string
	errors   int
	warnings int
}

func (l *regoLint) add(severity, format string, args ...any) {
	l.findings = append(l.findings, fmt.Sprintf("%s: %s: %s", l.path, severity, fmt.Sprintf(format, args...)))
	if severity == policy.LintError {
		l.errors++
	} else {
		l.warnings++
	}
}

func (l *regoLint) run(errorsOnly bool, stdout io.Writer) error {
	b, err := opa.LoadBundle(l.path)
	if err == nil {
		var snap *opa.Snapshot
		if snap, err = opa.Compile(b); err == nil {
			l.decisions(snap, b)
		}
	}
	if err != nil {
		l.add(policy.LintError, "%v", err)
	}
	for _, f := range l.findings {
		if errorsOnly && !strings.Contains(f, ": "+policy.LintError+": ") {
			continue
		}
		fmt.Fprintln(stdout, f)
	}
	summary := "Rego bundle"
	if b != nil {
		summary = fmt.Sprintf("Rego bundle, revision %s, %d module(s), %d table(s) probed", b.Revision, len(b.Modules()), len(l.tables))
	}
	fmt.Fprintf(stdout, "%s: %s; %d error(s), %d warning(s)\n", l.path, summary, l.errors, l.warnings)
	if l.errors > 0 {
		return fmt.Errorf("%s: %d error(s)", l.path, l.errors)
	}
	return nil
}

// principalRoles lists the roles data.sqe.principals names.
func principalRoles(b *opa.Bundle) []string {
	var roles []string
	sqeData, _ := b.Data()["sqe"].(map[string]any)
	principals, _ := sqeData["principals"].(map[string]any)
	add := func(v any) {
		if s, ok := v.(string); ok && !slices.Contains(roles, s) {
			roles = append(roles, s)
		}
	}
	if rs, ok := principals["roles"].(map[string]any); ok {
		for r, spec := range rs {
			add(r)
			if m, ok := spec.(map[string]any); ok {
				if cs, ok := m["contains"].([]any); ok {
					for _, c := range cs {
						add(c)
					}
				}
			}
		}
	}
	for _, section := range []string{"users", "groups"} {
		if ps, ok := principals[section].(map[string]any); ok {
			for _, spec := range ps {
				if m, ok := spec.(map[string]any); ok {
					if rs, ok := m["roles"].([]any); ok {
						for _, r := range rs {
							add(r)
						}
					}
				}
			}
		}
	}
	sort.Strings(roles)
	return roles
}

func (l *regoLint) decisions(snap *opa.Snapshot, b *opa.Bundle) {
	users := []session.User{{Name: "sqe-lint"}}
	for _, r := range append(principalRoles(b), l.roles...) {
		users = append(users, session.User{Name: "sqe-lint", Roles: []string{r}})
	}
	dialects := []string{"mysql", "postgres"}
	if l.dialect != "" {
		dialects = []string{l.dialect}
	}
	reported := map[string]bool{}
	report := func(severity, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if !reported[msg] {
			reported[msg] = true
			l.add(severity, "%s", msg)
		}
	}
	for _, t := range l.tables {
		var cols []policy.ColumnInfo
		if l.catalog != nil {
			cs, found, err := l.catalog.Columns(context.Background(), t)
			if err != nil {
				report(policy.LintError, "table %s: %v", t, err)
				continue
			}
			if !found {
				report(policy.LintError, "table %s does not exist", t)
				continue
			}
			for _, c := range cs {
				cols = append(cols, policy.ColumnInfo{Name: c.Name, Type: c.ColumnType, Tags: c.Tags})
			}
		}
		for _, u := range users {
			who := "a caller without roles"
			if len(u.Roles) > 0 {
				who = "role " + u.Roles[0]
			}
			v, _ := snap.View(u)
			d, err := v.DecideColumnInfo(t, cols)
			if err != nil {
				if errors.Is(err, policy.ErrPolicy) {
					report(policy.LintError, "%s: %v", who, err)
				} else {
					report(policy.LintError, "table %s, %s: %v", t, who, err)
				}
				continue
			}
			for _, f := range d.RowFilters {
				l.expression(report, dialects, t, f.Policy, "row filter", policy.Expression{Kind: policy.ExprFilter, Text: f.Expr})
			}
			for _, m := range d.Masks {
				if m.Expr != "" {
					l.expression(report, dialects, t, m.Policy, "CUSTOM mask expression", policy.Expression{Kind: policy.ExprCustomMask, Text: m.Expr})
				}
				if m.When != "" {
					l.expression(report, dialects, t, m.Policy, "mask condition (when)", policy.Expression{Kind: policy.ExprMaskWhen, Text: m.When})
				}
			}
		}
	}
}

func (l *regoLint) expression(report func(string, string, ...any), dialects []string, t policy.TableName, rule, what string, x policy.Expression) {
	var bad []string
	for _, d := range dialects {
		if !parses(d, x) {
			bad = append(bad, d)
		}
	}
	switch {
	case len(bad) == 0:
	case len(bad) == len(dialects):
		report(policy.LintError, "table %s, rule %q: %s does not parse as one %s SQL expression", t, rule, what, strings.Join(bad, " or "))
	default:
		report(policy.LintWarning, "table %s, rule %q: %s does not parse as one %s SQL expression: a %s database refuses it", t, rule, what, bad[0], bad[0])
	}
}
