package sqe

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/sqe-project/sqe/internal/fakedriver"
)

var driverSeq atomic.Int64

// registerFake registers a fake database under a fresh driver name.
func registerFake(t *testing.T, f fakedriver.Flags) (string, *fakedriver.DB) {
	fdb := fakedriver.New(f)
	name := fmt.Sprintf("sqe-fake-%d", driverSeq.Add(1))
	fdb.Register(name)
	return name, fdb
}

func TestSqeDriverRegistered(t *testing.T) {
	db, err := sql.Open("sqe", "driver=nosuchdriver;dsn=x")
	if err == nil {
		_ = db.Close()
		t.Fatal("sql.Open with an unknown inner driver succeeded")
	}
	if !strings.Contains(err.Error(), `"nosuchdriver"`) {
		t.Fatalf("err = %v, want it to name the inner driver", err)
	}
	_, err = sql.Open("sqe", "driver=mysql;app:s3cret@tcp(h)/db")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v, want a DSN error without the password", err)
	}
}

func TestDriverContextExposedOnlyWhenInnerHasIt(t *testing.T) {
	for _, has := range []bool{false, true} {
		f := fakedriver.AllFlags()
		f.DriverContext = has
		db, fdb, fp := newTestDB(t, f)
		d := db.Driver()
		dc, ok := d.(driver.DriverContext)
		if ok != has {
			t.Fatalf("inner DriverContext %v, wrapper implements it: %v", has, ok)
		}
		ctx := userCtx(t, "alice")

		// Connections the wrapped driver opens are still rewritten.
		conn, err := d.Open("other")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := conn.(*Conn); !ok {
			t.Fatalf("Driver().Open returned %T, want *sqe.Conn", conn)
		}
		if _, err := conn.(*Conn).ExecContext(ctx, qUpdate, nil); err != nil {
			t.Fatal(err)
		}
		_ = conn.Close()
		if !has {
			continue
		}
		c, err := dc.OpenConnector("other")
		if err != nil {
			t.Fatal(err)
		}
		db2 := sql.OpenDB(c)
		if _, err := db2.ExecContext(ctx, qUpdate, "a", 1); err != nil {
			t.Fatal(err)
		}
		if _, err := db2.ExecContext(ctx, qSecret); !errors.Is(err, ErrAccessDenied) {
			t.Fatalf("err = %v, want the shared policy's rejection", err)
		}
		_ = db2.Close()
		if fp.closeCount() != 0 {
			t.Fatal("closing a derived connector closed the shared policy engine")
		}
		if got := fdb.CallsOf(fakedriver.OpExecContext); len(got) != 2 || got[0].SQL != rw(qUpdate, "alice") || got[1].SQL != rw(qUpdate, "alice") {
			t.Fatalf("execs %+v, want the rewrites", got)
		}
	}
}

func TestOpenUnknownDriver(t *testing.T) {
	for _, tc := range []struct{ name, dsn, want string }{
		{"nosuchdriver", "user:s3cret@/db", `unknown inner driver "nosuchdriver"`},
		{"", "user:s3cret@/db", "no inner driver name"},
		{"sqe", "user:s3cret@/db", "is not key=value"},
		{"sqe", "driver=nosuchdriver;dsn=user:s3cret@/db", `unknown inner driver "nosuchdriver"`},
		{"sqe", "driver=sqe;dsn=user:s3cret@/db", "cannot be sqe itself"},
	} {
		db, err := Open(tc.name, tc.dsn, withPlanner(testPlanner()))
		if err == nil {
			_ = db.Close()
			t.Fatalf("Open(%q, %q) succeeded", tc.name, tc.dsn)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("Open(%q, %q) = %v, want an error containing %q", tc.name, tc.dsn, err, tc.want)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("error %v contains the DSN", err)
		}
	}
}

func TestOpenWithSqeDSNAndOptions(t *testing.T) {
	name, fdb := registerFake(t, fakedriver.AllFlags())
	fp := testPlanner()
	db, err := Open("sqe", "driver="+name+";user=svc;dsn=inner", withPlanner(fp), WithRawConnAccess())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		cn := dc.(*Conn)
		if _, err := cn.Unwrap(); err != nil {
			return fmt.Errorf("option not applied: %w", err)
		}
		_, err := cn.ExecContext(userCtx(t, "alice"), qUpdate, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := fdb.SQL(); len(got) != 1 || got[0] != rw(qUpdate, "alice") {
		t.Fatalf("inner driver saw %q", got)
	}
}

func TestOpenUsesInnerConnector(t *testing.T) {
	for _, has := range []bool{false, true} {
		f := fakedriver.AllFlags()
		f.DriverContext = has
		name, fdb := registerFake(t, f)
		fp := testPlanner()
		db, err := Open(name, "inner-dsn", withPlanner(fp))
		if err != nil {
			t.Fatal(err)
		}
		ctx := userCtx(t, "alice")
		if got := queryOne(t, ctx, db, qSelect); got != rw(qSelect, "alice") {
			t.Fatalf("got %q", got)
		}
		_ = db.Close()
		var opened []fakedriver.Call
		if has {
			opened = fdb.CallsOf(fakedriver.OpOpenConnector, fakedriver.OpConnect)
		} else {
			opened = fdb.CallsOf(fakedriver.OpOpen)
		}
		if len(opened) == 0 || opened[len(opened)-1].Name != "inner-dsn" {
			t.Fatalf("calls %+v, want the inner DSN passed on", opened)
		}
		if fp.closeCount() != 1 {
			t.Fatalf("planner closed %d times, want 1", fp.closeCount())
		}
	}
}

func TestOpenClosesBaseWhenPlannerFails(t *testing.T) {
	f := fakedriver.AllFlags()
	name, fdb := registerFake(t, f)
	if _, err := Open(name, "d", WithDialect("mysql"), WithPolicyFile("/nonexistent/policy.yaml")); err == nil {
		t.Fatal("Open with a failing policy engine succeeded")
	}
	if got := fdb.CallsOf(fakedriver.OpConnectorClose); len(got) == 0 {
		t.Fatal("inner connector not closed after NewConnector failed")
	}
}

func TestSqeDriverDSN(t *testing.T) {
	name, fdb := registerFake(t, fakedriver.AllFlags())
	fp := testPlanner()
	d := &sqeDriver{opts: []Option{withPlanner(fp)}}
	dsn := "driver=" + name + ";user=svc;dsn=inner;dsn=with;semicolons"

	c, err := d.OpenConnector(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.(*connector).cfg
	if cfg.engine.DefaultUser == nil || cfg.engine.DefaultUser.Name != "svc" {
		t.Fatalf("default user %+v, want svc from the DSN", cfg.engine.DefaultUser)
	}
	db := sql.OpenDB(c)
	if got := queryOne(t, userCtx(t, "alice"), db, qSelect); got != rw(qSelect, "alice") {
		t.Fatalf("got %q", got)
	}
	_ = db.Close()
	if got := fdb.CallsOf(fakedriver.OpConnect); len(got) == 0 || got[0].Name != "inner;dsn=with;semicolons" {
		t.Fatalf("connects %+v, want the inner DSN verbatim", got)
	}
	if fp.closeCount() != 1 {
		t.Fatalf("planner closed %d times, want 1", fp.closeCount())
	}

	// Open parses each time and owns its policy engine.
	conn, err := d.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.(*Conn).ExecContext(userCtx(t, "bob"), qUpdate, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if fp.closeCount() != 2 {
		t.Fatalf("planner closed %d times after the connection closed, want 2", fp.closeCount())
	}
	if _, err := d.Open("driver=" + name); err == nil {
		t.Fatal("Open with a bad DSN succeeded")
	}
}

func TestSqlmockSeesRewrittenSQL(t *testing.T) {
	dsn := fmt.Sprintf("sqe-sqlmock-%d", driverSeq.Add(1))
	mockDB, mock, err := sqlmock.NewWithDSN(dsn, sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	defer mockDB.Close()

	db, err := Open("sqlmock", dsn, withPlanner(testPlanner()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := userCtx(t, "alice")

	mock.ExpectQuery(rw(qSelectArg, "alice")).WithArgs(7).
		WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(7))
	mock.ExpectExec(rw(qUpdate, "bob")).WithArgs("n", 7).WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectPrepare(rw(qSelect, "alice")).ExpectQuery().WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1))

	var id int
	if err := db.QueryRowContext(ctx, qSelectArg, 7).Scan(&id); err != nil || id != 7 {
		t.Fatalf("query: %v, id %d", err, id)
	}
	res, err := db.ExecContext(userCtx(t, "bob"), qUpdate, "n", 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("rows affected %d", n)
	}
	st, err := db.PrepareContext(ctx, qSelect)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.QueryRowContext(ctx).Scan(&id); err != nil || id != 1 {
		t.Fatalf("prepared query: %v, id %d", err, id)
	}
	_ = st.Close()
	if _, err := db.ExecContext(ctx, qSecret); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("err = %v, want ErrAccessDenied", err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

func TestNewConnectorNilBase(t *testing.T) {
	if _, err := NewConnector(nil, withPlanner(testPlanner())); err == nil {
		t.Fatal("NewConnector(nil) succeeded")
	}
}
