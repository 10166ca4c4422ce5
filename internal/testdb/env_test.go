package testdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records Fatal and Skip instead of ending the test.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (f *fakeTB) Helper()                      {}
func (f *fakeTB) Fatal(args ...any)            { f.fatal = fmt.Sprint(args...) }
func (f *fakeTB) Skip(args ...any)             { f.skip = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(s string, args ...any) { f.fatal = fmt.Sprintf(s, args...) }

func TestEnvMissingFails(t *testing.T) {
	t.Setenv(EnvMySQLDSN, "")
	t.Setenv(EnvPostgresDSN, "")
	t.Setenv(EnvAllowNoDB, "")
	f := &fakeTB{TB: t}
	if got := MySQLDSN(f); got != "" {
		t.Errorf("MySQLDSN = %q, want empty", got)
	}
	if want := "SQE_MYSQL_DSN is not set: run ./scripts/test.sh"; f.fatal != want || f.skip != "" {
		t.Errorf("fatal = %q, skip = %q; want fatal %q", f.fatal, f.skip, want)
	}
	f = &fakeTB{TB: t}
	PostgresDSN(f)
	if want := "SQE_POSTGRES_DSN is not set: run ./scripts/test.sh"; f.fatal != want {
		t.Errorf("fatal = %q, want %q", f.fatal, want)
	}
}

func TestEnvMissingSkipsWhenAllowed(t *testing.T) {
	t.Setenv(EnvMySQLGeneralLog, "")
	t.Setenv(EnvAllowNoDB, "1")
	f := &fakeTB{TB: t}
	MySQLGeneralLog(f)
	if f.fatal != "" || !strings.HasPrefix(f.skip, "SQE_MYSQL_GENERAL_LOG is not set: run ./scripts/test.sh") {
		t.Errorf("fatal = %q, skip = %q; want a skip", f.fatal, f.skip)
	}
}

func TestAdminDSNDerived(t *testing.T) {
	t.Setenv(EnvMySQLDSN, "u:p@tcp(127.0.0.1:1)/db?parseTime=true")
	t.Setenv(EnvMySQLAdminDSN, "")
	t.Setenv(EnvPostgresDSN, "postgres://u:p@127.0.0.1:2/db?sslmode=disable")
	t.Setenv(EnvPostgresAdminDSN, "")
	if got, want := MySQLAdminDSN(t), "u:p@tcp(127.0.0.1:1)/?parseTime=true"; got != want {
		t.Errorf("MySQLAdminDSN = %q, want %q", got, want)
	}
	if got, want := PostgresAdminDSN(t), "postgres://u:p@127.0.0.1:2/postgres?sslmode=disable"; got != want {
		t.Errorf("PostgresAdminDSN = %q, want %q", got, want)
	}
	f := &fakeTB{TB: t}
	withPostgresDatabase(f, "u:p@tcp(x)/db", "x")
	if f.fatal == "" {
		t.Error("a MySQL DSN was accepted as a PostgreSQL URL")
	}
}

func TestUniqueName(t *testing.T) {
	a, b := UniqueName("sqe_t_"), UniqueName("sqe_t_")
	if a == b || len(a) != len("sqe_t_")+16 || strings.ToLower(a) != a {
		t.Errorf("UniqueName: %q, %q", a, b)
	}
}

func TestMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	write := func(s string, flag int) {
		t.Helper()
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("before\n", os.O_APPEND)
	m := LogMark(t, path)
	if m.Contains("before") || m.Text() != "" {
		t.Errorf("fresh mark sees %q", m.Text())
	}
	write("after\n", os.O_APPEND)
	if !m.Contains("after") || m.Contains("before") {
		t.Errorf("mark text = %q, want only the appended line", m.Text())
	}
	if !LogContains(t, path, "before") || !LogContains(t, path, "after") {
		t.Error("LogContains misses a line")
	}
	write("new\n", os.O_TRUNC)
	if got := m.Text(); got != "new\n" {
		t.Errorf("after truncation mark text = %q, want the whole file", got)
	}
}
