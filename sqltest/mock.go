package sqltest

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/rewriter"
)

// Option configures NewMock.
type Option func(*mockConfig)

type mockConfig struct {
	dialect    string
	ddl        []string
	catalog    rewriter.Catalog
	policyYAML string
	policyFile string
	matcher    sqlmock.QueryMatcher
	sqe        []sqe.Option
}

// Dialect sets the SQL dialect sqe rewrites for: "mysql" (the default) or
// "postgres" (which needs github.com/sqe-project/sqe/rewriter/postgres
// imported).
func Dialect(name string) Option { return func(c *mockConfig) { c.dialect = name } }

// Schema adds tables to the static catalog: a script of CREATE TABLE
// statements in the dialect's syntax. Unqualified tables belong to the
// database named by a USE or CREATE DATABASE before them (MySQL) or to
// public (PostgreSQL); the last such database is also the current one,
// which unqualified names in the statements under test resolve in. Schema
// may be given more than once; its scripts are read in order.
func Schema(ddl string) Option { return func(c *mockConfig) { c.ddl = append(c.ddl, ddl) } }

// Catalog sets the table metadata sqe uses instead of a Schema script (for
// instance a *rewriter.StaticCatalog).
func Catalog(cat rewriter.Catalog) Option { return func(c *mockConfig) { c.catalog = cat } }

// PolicyYAML uses a native policy file given as text (see package policy).
func PolicyYAML(text string) Option { return func(c *mockConfig) { c.policyYAML = text } }

// PolicyFile uses a native policy file.
func PolicyFile(path string) Option { return func(c *mockConfig) { c.policyFile = path } }

// Matcher replaces the exact match of expectations against the SQL sqe
// sends (sqlmock.QueryMatcherEqual) with another sqlmock matcher.
func Matcher(m sqlmock.QueryMatcher) Option { return func(c *mockConfig) { c.matcher = m } }

// With passes options to sqe (sqe.WithPolicy for another policy source,
// sqe.WithDefaultUser, …). They are applied after the options NewMock
// derives from the others.
func With(opts ...sqe.Option) Option { return func(c *mockConfig) { c.sqe = append(c.sqe, opts...) } }

var mockSeq atomic.Uint64

// NewMock returns a database opened through sqe over a new sqlmock
// connection, and the mock. Expectations are matched exactly against the
// SQL sqe sends, unless Matcher says otherwise. Audit records are off.
//
// A policy is required (PolicyYAML, PolicyFile, or sqe.WithPolicy through
// With). Table metadata comes from Schema or Catalog; without either the
// catalog is empty, and a statement on a table under a policy that needs
// the table's columns is refused.
//
// The database and the mock are closed when the test ends, and the test
// fails if the mock's expectations were not all met.
func NewMock(t testing.TB, opts ...Option) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	c := &mockConfig{dialect: "mysql", matcher: sqlmock.QueryMatcherEqual}
	for _, o := range opts {
		o(c)
	}
	sopts := []sqe.Option{sqe.WithDialect(c.dialect), sqe.WithoutAudit()}
	cat, err := c.buildCatalog()
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	sopts = append(sopts, sqe.WithCatalog(cat))
	switch {
	case c.policyYAML != "":
		path := filepath.Join(t.TempDir(), "policy.yaml")
		if err := os.WriteFile(path, []byte(c.policyYAML), 0o600); err != nil {
			t.Fatalf("sqltest: %v", err)
		}
		sopts = append(sopts, sqe.WithPolicyFile(path))
	case c.policyFile != "":
		sopts = append(sopts, sqe.WithPolicyFile(c.policyFile))
	}
	sopts = append(sopts, c.sqe...)

	dsn := fmt.Sprintf("sqltest-%d", mockSeq.Add(1))
	mockDB, mock, err := sqlmock.NewWithDSN(dsn, sqlmock.QueryMatcherOption(logMismatch(t, c.matcher)))
	if err != nil {
		t.Fatalf("sqltest: sqlmock: %v", err)
	}
	db, err := sqe.Open("sqlmock", dsn, sopts...)
	if err != nil {
		_ = mockDB.Close()
		t.Fatalf("sqltest: %v", err)
	}
	t.Cleanup(func() {
		_ = db.Close()
		_ = mockDB.Close()
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Errorf("sqltest: %v", err)
		}
	})
	return db, mock
}

// logMismatch wraps a matcher so that the SQL sqe sent is logged when it
// does not match: the error sqlmock returns reaches the test through sqe,
// which removes quoted text from errors of statements under policy.
func logMismatch(t testing.TB, m sqlmock.QueryMatcher) sqlmock.QueryMatcher {
	return sqlmock.QueryMatcherFunc(func(expected, actual string) error {
		err := m.Match(expected, actual)
		if err != nil {
			t.Logf("sqltest: the SQL sqe sent does not match the expectation:\n\tsent:     %s\n\texpected: %s", actual, expected)
		}
		return err
	})
}

func (c *mockConfig) buildCatalog() (rewriter.Catalog, error) {
	if c.catalog != nil {
		if len(c.ddl) > 0 {
			return nil, fmt.Errorf("give Schema or Catalog, not both")
		}
		return c.catalog, nil
	}
	d, err := rewriter.Find(c.dialect)
	if err != nil {
		return nil, err
	}
	dc, ok := d.(rewriter.DDLCataloger)
	if !ok {
		if len(c.ddl) == 0 {
			return &rewriter.StaticCatalog{Tables: map[string][]rewriter.Column{}}, nil
		}
		return nil, fmt.Errorf("dialect %q cannot read a schema script: use Catalog", c.dialect)
	}
	// With no script, the dialect's empty catalog (PostgreSQL's has the
	// search path public).
	var script string
	for _, s := range c.ddl {
		script += s + ";\n"
	}
	cat, err := dc.CatalogFromDDL(script)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return cat, nil
}
