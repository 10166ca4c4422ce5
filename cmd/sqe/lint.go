package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/ranger"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

func runLint(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	errorsOnly := fs.Bool("errors-only", false, "report errors only, not warnings")
	dialect := fs.String("dialect", "", "SQL dialect the policy serves: mysql or postgres (default: check expressions for both; required with --schema or --dsn)")
	schema := fs.String("schema", "", "file of CREATE TABLE statements to check tables, columns and types against")
	dsn := fs.String("dsn", "", "DSN of a database to check tables, columns and types against (go-sql-driver/mysql or pgx form)")
	tables := fs.String("tables", "", "Rego bundle: comma-separated schema.table names to evaluate the decision for")
	roles := fs.String("roles", "", "Rego bundle: comma-separated roles to probe besides those data.sqe.principals names")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: sqe lint [--errors-only] [--dialect mysql|postgres] [--schema DDL.sql | --dsn DSN]
                [--tables s.t,… --roles r,…] FILE|BUNDLE

Checks a policy file before it is deployed.

A native policy file (YAML): everything "sqe.Open" checks (syntax, fields,
mask arguments, role cycles), row filters and CUSTOM masks that do not
parse as one SQL expression for the dialect (for both dialects when
--dialect is not given: an expression only one of them parses is a
warning), masks that an earlier mask or a restriction shadows, allow
rules that deny rules void, and roles that nothing in the file grants. With --schema or --dsn also tables that
do not exist, columns that rules name and the table does not have, and
masks that a column's type cannot take: the errors sqe reports as policy
errors when a statement meets them.

A Ranger bundle (written by "sqe fetch", or a Ranger policy download): the
policies sqe cannot realise as Ranger would: condition types it cannot
evaluate, mask types and CUSTOM or row-filter expressions it cannot use,
validity schedules Ranger's admin would refuse, security-zone shapes it
cannot use. Errors are enforced more strictly than Ranger would (an item
never grants, a column is restricted, a table fails closed); warnings have
no effect on SQL statements.

An Open Policy Agent bundle (a directory, a .tar.gz bundle, a .rego file or
a bundle server's URL): the bundle must read and compile and define the
decision (data.sqe.decision). For each table of --tables, the decision for
a caller without roles and for each role the bundle's data.sqe.principals
names (and each of --roles) must have the shape sqe reads, and its row
filters, CUSTOM masks and mask conditions must parse for the dialect (for
both without --dialect); with --schema or --dsn the tables must exist and
the columns the decision names too.

Prints one line per finding and a summary; exits 1 when there are errors,
0 when there are only warnings.`)
		fs.PrintDefaults()
	}
	positional, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	switch {
	case len(positional) != 1:
		return usageError("give exactly one policy file")
	case *dialect != "" && *dialect != "mysql" && *dialect != "postgres":
		return usageError("--dialect must be mysql or postgres")
	case *schema != "" && *dsn != "":
		return usageError("give --schema or --dsn, not both")
	case (*schema != "" || *dsn != "") && *dialect == "":
		return usageError("--schema and --dsn need --dialect")
	}
	path := positional[0]
	if isRegoBundle(path) {
		l := &regoLint{path: path, dialect: *dialect, roles: splitList(*roles)}
		for _, name := range splitList(*tables) {
			schema, table, ok := strings.Cut(name, ".")
			if !ok || schema == "" || table == "" {
				return usageError("--tables: want schema.table, got " + name)
			}
			l.tables = append(l.tables, policy.TableName{Schema: schema, Table: table})
		}
		if *schema != "" || *dsn != "" {
			cat, closeCat, err := lintCatalog(*dialect, *schema, *dsn)
			if err != nil {
				return err
			}
			defer closeCat()
			l.catalog = cat
		}
		return l.run(*errorsOnly, stdout)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if ranger.IsBundle(data) {
		if *schema != "" || *dsn != "" {
			fmt.Fprintln(stderr, "sqe lint: --schema and --dsn check native policy files only; the bundle is linted without them")
		}
		return lintBundle(path, data, *errorsOnly, stdout)
	}
	l := &nativeLint{path: path, dialect: *dialect}
	if *schema != "" || *dsn != "" {
		cat, closeCat, err := lintCatalog(*dialect, *schema, *dsn)
		if err != nil {
			return err
		}
		defer closeCat()
		l.catalog = cat
	}
	return l.run(data, *errorsOnly, stdout)
}

// lintBundle lints a Ranger bundle.
func lintBundle(path string, data []byte, errorsOnly bool, stdout io.Writer) error {
	b, err := ranger.ParseBundle(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	nerr, nwarn := 0, 0
	for _, f := range ranger.Lint(b) {
		if f.Severity == ranger.SeverityError {
			nerr++
		} else {
			nwarn++
			if errorsOnly {
				continue
			}
		}
		fmt.Fprintf(stdout, "%s: %s\n", path, f)
	}
	if _, err := ranger.NewStatic(b); err != nil {
		return fmt.Errorf("%s does not load: %v", path, err)
	}
	fmt.Fprintf(stdout, "%s: %s; %d error(s), %d warning(s)\n", path, bundleSummary(b), nerr, nwarn)
	if nerr > 0 {
		return fmt.Errorf("%s: %d policy part(s) sqe cannot realise", path, nerr)
	}
	return nil
}

// nativeLint lints a native policy file.
type nativeLint struct {
	path     string
	dialect  string           // "" for both
	catalog  rewriter.Catalog // nil without --schema or --dsn
	findings []policy.Finding
}

func (l *nativeLint) add(severity string, line int, path, format string, args ...any) {
	l.findings = append(l.findings, policy.Finding{Severity: severity, Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (l *nativeLint) run(data []byte, errorsOnly bool, stdout io.Writer) error {
	f, err := policy.Parse(l.path, data)
	if err != nil {
		var fes []*policy.FileError
		collectFileErrors(err, &fes)
		if len(fes) == 0 {
			return err
		}
		for _, fe := range fes {
			l.add(policy.LintError, fe.Line, fe.Path, "%s", fe.Msg)
		}
		return l.report(errorsOnly, stdout, "does not load")
	}
	c, err := policy.Compile(f, 1)
	if err != nil {
		return fmt.Errorf("%s: %v", l.path, err)
	}
	l.findings = append(l.findings, policy.Lint(f)...)
	l.expressions(c)
	if l.catalog != nil {
		l.tables(f, c)
	}
	return l.report(errorsOnly, stdout, fmt.Sprintf("%d table entries, %d tag mask(s)", len(f.Tables), len(f.TagMasks)))
}

// collectFileErrors flattens joined errors into their *FileErrors.
func collectFileErrors(err error, out *[]*policy.FileError) {
	var fe *policy.FileError
	if errors.As(err, &fe) && fe == err {
		*out = append(*out, fe)
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			collectFileErrors(e, out)
		}
		return
	}
	if errors.As(err, &fe) {
		*out = append(*out, fe)
	}
}

// report prints the findings in line order and a summary; an error when
// there are errors.
func (l *nativeLint) report(errorsOnly bool, stdout io.Writer, summary string) error {
	slices.SortStableFunc(l.findings, func(a, b policy.Finding) int { return cmp.Compare(a.Line, b.Line) })
	nerr, nwarn := 0, 0
	for _, f := range l.findings {
		if f.Severity == policy.LintError {
			nerr++
		} else {
			nwarn++
			if errorsOnly {
				continue
			}
		}
		if f.Line > 0 {
			fmt.Fprintf(stdout, "%s:%s\n", l.path, f)
		} else {
			fmt.Fprintf(stdout, "%s: %s\n", l.path, f)
		}
	}
	fmt.Fprintf(stdout, "%s: %s; %d error(s), %d warning(s)\n", l.path, summary, nerr, nwarn)
	if nerr > 0 {
		return fmt.Errorf("%s: %d error(s)", l.path, nerr)
	}
	return nil
}

// expressions parses every SQL expression of the policy for the dialect
// (or both): what does not parse fails "sqe.Open".
func (l *nativeLint) expressions(c *policy.Compiled) {
	dialects := []string{"mysql", "postgres"}
	if l.dialect != "" {
		dialects = []string{l.dialect}
	}
	for _, x := range c.Expressions() {
		var bad []string
		for _, d := range dialects {
			if !parses(d, x) {
				bad = append(bad, d)
			}
		}
		what, is := "row filter", "does not parse as one %s SQL expression"
		switch x.Kind {
		case policy.ExprCustomMask:
			what = "CUSTOM mask expression"
		case policy.ExprMaskWhen:
			what, is = "mask condition (when)", "is not one %s SQL expression over its own row (unqualified columns and functions; no subquery, aggregate or placeholder)"
		}
		switch {
		case len(bad) == 0:
		case len(bad) == len(dialects):
			l.add(policy.LintError, x.Line, x.Path, "rule %q: %s "+is, x.Rule, what, strings.Join(bad, " or "))
		default:
			l.add(policy.LintWarning, x.Line, x.Path, "rule %q: %s "+is+": a %s database refuses the policy", x.Rule, what, bad[0], bad[0])
		}
	}
}

// parses reports whether the expression parses for the dialect, as the
// driver checks it when the policy loads.
func parses(dialect string, x policy.Expression) bool {
	d, ok := rewriter.Lookup(dialect)
	if !ok {
		return true
	}
	sd, ok := d.(interface{ Syntax() rewriter.Syntax })
	if !ok {
		return true
	}
	syn := sd.Syntax()
	text := x.Text
	switch x.Kind {
	case policy.ExprCustomMask:
		text = "(" + strings.ReplaceAll(text, "{col}", syn.QuoteIdent("sqe_col")) + ")"
	case policy.ExprMaskWhen:
		if cs, ok := syn.(rewriter.ConditionSyntax); ok {
			_, err := cs.ConditionColumns(text)
			return err == nil
		}
	}
	_, err := syn.CanonicalExpr(text)
	return err == nil
}

// tables checks the exact table entries and the tags section against the
// catalog: tables that do not exist, columns the rules name and the table
// lacks, masks the column's type cannot take.
func (l *nativeLint) tables(f *policy.File, c *policy.Compiled) {
	ctx := context.Background()
	type entry struct {
		t    policy.TableName
		line int
		path string
		ft   *policy.FileTable
	}
	var entries []entry
	seen := map[string]bool{}
	for i := range f.Tables {
		ft := &f.Tables[i]
		if ft.Wildcard() {
			continue
		}
		seen[ft.Key()] = true
		entries = append(entries, entry{policy.TableName{Schema: ft.Schema, Table: ft.Table}, ft.Line, `tables."` + ft.Key() + `"`, ft})
	}
	for _, tg := range f.Tags {
		k := tg.Schema + "." + tg.Table
		if !seen[k] {
			seen[k] = true
			entries = append(entries, entry{policy.TableName{Schema: tg.Schema, Table: tg.Table}, tg.Line, "tags", nil})
		}
	}
	for _, e := range entries {
		cols, found, err := l.catalog.Columns(ctx, e.t)
		if err != nil {
			l.add(policy.LintError, e.line, e.path, "reading the columns of %s: %v", e.t, err)
			continue
		}
		if !found {
			l.add(policy.LintError, e.line, e.path, "table %s does not exist: the policy protects nothing there, and a misspelt name leaves the real table to the default", e.t)
			continue
		}
		byName := map[string]rewriter.Column{}
		for _, col := range cols {
			byName[strings.ToLower(col.Name)] = col
		}
		for _, ref := range c.NamedColumns(e.t) {
			if _, ok := byName[ref.Column]; !ok {
				l.add(policy.LintError, ref.Line, ref.Path, "rule %q names column %q, which %s does not have: policy error, every statement on the table fails", ref.Rule, ref.Column, e.t)
			}
		}
		if cs, ok := conditionSyntax(l.dialect); ok {
			for _, mc := range c.MaskConditions(e.t) {
				names, err := cs.ConditionColumns(mc.When)
				if err != nil {
					continue // reported with the expressions
				}
				for _, n := range names {
					if _, ok := byName[n]; !ok {
						l.add(policy.LintError, mc.Line, mc.Path, "rule %q: mask condition (when) reads column %q, which %s does not have: policy error, every statement on the table fails", mc.Rule, n, e.t)
					}
				}
			}
		}
		if e.ft != nil {
			for i, m := range e.ft.Masks {
				col, ok := byName[m.Column]
				if !ok {
					continue
				}
				if _, err := udf.MaskSQL(udf.Target{Dialect: udf.Dialect(l.dialect), Column: col.Name, DataType: col.DataType, ColumnType: col.ColumnType},
					m.Type, m.Args, m.Expr); err != nil {
					name := m.Name
					if name == "" {
						name = fmt.Sprintf("%s/masks[%d]", e.ft.Key(), i)
					}
					l.add(policy.LintError, m.Line, fmt.Sprintf("%s.masks[%d]", e.path, i), "mask %q cannot be computed for %s.%s (%s): policy error for the callers it applies to: %s",
						name, e.t, col.Name, col.ColumnType, strings.TrimPrefix(err.Error(), "udf: "))
				}
			}
		}
		l.tagMasks(f, e.t, cols)
	}
}

// missingConditionColumn returns a column that the when condition reads
// and cols lack ("" when none, or when the condition does not parse: that
// is reported with the expressions).
func missingConditionColumn(dialect, when string, cols []rewriter.Column) string {
	if when == "" {
		return ""
	}
	cs, ok := conditionSyntax(dialect)
	if !ok {
		return ""
	}
	names, err := cs.ConditionColumns(when)
	if err != nil {
		return ""
	}
	for _, n := range names {
		if !slices.ContainsFunc(cols, func(c rewriter.Column) bool { return strings.EqualFold(c.Name, n) }) {
			return n
		}
	}
	return ""
}

// conditionSyntax is the dialect's reader of masks' when conditions.
func conditionSyntax(dialect string) (rewriter.ConditionSyntax, bool) {
	d, ok := rewriter.Lookup(dialect)
	if !ok {
		return nil, false
	}
	sd, ok := d.(interface{ Syntax() rewriter.Syntax })
	if !ok {
		return nil, false
	}
	cs, ok := sd.Syntax().(rewriter.ConditionSyntax)
	return cs, ok
}

// tagMasks warns about tag-mask bindings that a tagged column's type
// cannot take: the column is restricted for their callers instead.
func (l *nativeLint) tagMasks(f *policy.File, t policy.TableName, cols []rewriter.Column) {
	for _, tg := range f.Tags {
		if tg.Schema != strings.ToLower(t.Schema) || tg.Table != strings.ToLower(t.Table) {
			continue
		}
		for _, col := range cols {
			if tg.Column != "" && tg.Column != strings.ToLower(col.Name) {
				continue
			}
			for i, r := range f.TagMasks {
				if !slices.Contains(tg.Tags, r.Tag) {
					continue
				}
				if _, err := udf.MaskSQL(udf.Target{Dialect: udf.Dialect(l.dialect), Column: col.Name, DataType: col.DataType, ColumnType: col.ColumnType},
					r.Type, r.Args, r.Expr); err != nil {
					l.add(policy.LintWarning, r.Line, fmt.Sprintf("tag_masks[%d]", i), "tag %s's mask %q cannot be computed for %s.%s (%s): the column is restricted for its callers instead",
						r.Tag, r.Name, t, col.Name, col.ColumnType)
				}
				if missing := missingConditionColumn(l.dialect, r.When, cols); missing != "" {
					l.add(policy.LintWarning, r.Line, fmt.Sprintf("tag_masks[%d].when", i), "tag %s's mask %q reads column %q, which %s does not have: %s.%s is restricted for its callers instead",
						r.Tag, r.Name, missing, t, t, col.Name)
				}
			}
		}
	}
}

// lintCatalog reads the tables from a schema file or a database.
func lintCatalog(dialect, schemaFile, dsn string) (rewriter.Catalog, func(), error) {
	if schemaFile != "" {
		ddl, err := os.ReadFile(schemaFile)
		if err != nil {
			return nil, nil, err
		}
		d, ok := rewriter.Lookup(dialect)
		if !ok {
			return nil, nil, fmt.Errorf("dialect %q is not linked", dialect)
		}
		dc, ok := d.(rewriter.DDLCataloger)
		if !ok {
			return nil, nil, fmt.Errorf("dialect %q cannot read a schema file: use --dsn", dialect)
		}
		cat, err := dc.CatalogFromDDL(string(ddl))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", schemaFile, err)
		}
		return cat, func() {}, nil
	}
	d, err := rewriter.Find(dialect)
	if err != nil {
		return nil, nil, err
	}
	name := "mysql"
	if dialect == "postgres" {
		name = "pgx"
	}
	db, err := sql.Open(name, dsn)
	if err != nil {
		return nil, nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("--dsn: %v", err)
	}
	return &dbCatalog{db: db, dialect: d}, func() { db.Close() }, nil
}

// dbCatalog reads a table's columns from a live database with the
// dialect's own query, as the driver does.
type dbCatalog struct {
	db      *sql.DB
	dialect rewriter.Dialect
}

func (c *dbCatalog) Version() uint64 { return 0 }

func (c *dbCatalog) Columns(ctx context.Context, t policy.TableName) ([]rewriter.Column, bool, error) {
	cols, err := c.dialect.Columns(ctx, c.query, t)
	if err != nil {
		return nil, false, err
	}
	return cols, len(cols) > 0, nil
}

// query is a rewriter.Query on the database.
func (c *dbCatalog) query(ctx context.Context, q string, args ...any) ([][]any, error) {
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		row := make([]any, len(names))
		dest := make([]any, len(names))
		for i := range row {
			dest[i] = &row[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
