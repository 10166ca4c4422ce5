package sqe

import (
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/internal/fakedriver"
)

var rowsInterfaces = []reflect.Type{
	reflect.TypeFor[driver.RowsNextResultSet](),
	reflect.TypeFor[driver.RowsColumnTypeScanType](),
	reflect.TypeFor[driver.RowsColumnTypeDatabaseTypeName](),
	reflect.TypeFor[driver.RowsColumnTypeLength](),
	reflect.TypeFor[driver.RowsColumnTypeNullable](),
	reflect.TypeFor[driver.RowsColumnTypePrecisionScale](),
}

func rowsFlags(mask int) fakedriver.Flags {
	f := fakedriver.AllFlags()
	f.RowsNextResultSet = mask&1 != 0
	f.RowsColumnTypeScanType = mask&2 != 0
	f.RowsColumnTypeDatabaseTypeName = mask&4 != 0
	f.RowsColumnTypeLength = mask&8 != 0
	f.RowsColumnTypeNullable = mask&16 != 0
	f.RowsColumnTypePrecisionScale = mask&32 != 0
	return f
}

func TestRowsInterfacesExact(t *testing.T) {
	ctx := userCtx(t, "alice")
	for mask := range 64 {
		conn, _, _ := newTestConn(t, rowsFlags(mask))
		inner, err := conn.inner.(driver.QueryerContext).QueryContext(ctx, "SELECT 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, stmtPath := range []bool{false, true} {
			var rows driver.Rows
			if stmtPath {
				s, err := conn.PrepareContext(ctx, qSelect)
				if err != nil {
					t.Fatal(err)
				}
				rows, err = s.(driver.StmtQueryContext).QueryContext(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
			} else if rows, err = conn.QueryContext(ctx, qSelect, nil); err != nil {
				t.Fatal(err)
			}
			for i, iface := range rowsInterfaces {
				want := mask&(1<<i) != 0
				if got := reflect.TypeOf(inner).Implements(iface); got != want {
					t.Fatalf("shape %#02x: fake rows implement %v: %v, want %v", mask, iface, got, want)
				}
				if got := reflect.TypeOf(rows).Implements(iface); got != want {
					t.Errorf("shape %#02x: wrapper (%T) implements %v: %v, inner: %v", mask, rows, iface, got, want)
				}
			}
			checkRowsForwarding(t, rows, inner)
			_ = rows.Close()
		}
		_ = inner.Close()
	}
}

// checkRowsForwarding compares every optional method of rows with inner's.
func checkRowsForwarding(t *testing.T, rows, inner driver.Rows) {
	t.Helper()
	if r, ok := rows.(driver.RowsNextResultSet); ok {
		i := inner.(driver.RowsNextResultSet)
		if r.HasNextResultSet() != i.HasNextResultSet() || r.NextResultSet() != i.NextResultSet() {
			t.Error("RowsNextResultSet not forwarded")
		}
	}
	if r, ok := rows.(driver.RowsColumnTypeScanType); ok && r.ColumnTypeScanType(0) != inner.(driver.RowsColumnTypeScanType).ColumnTypeScanType(0) {
		t.Error("ColumnTypeScanType not forwarded")
	}
	if r, ok := rows.(driver.RowsColumnTypeDatabaseTypeName); ok && r.ColumnTypeDatabaseTypeName(0) != inner.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(0) {
		t.Error("ColumnTypeDatabaseTypeName not forwarded")
	}
	if r, ok := rows.(driver.RowsColumnTypeLength); ok {
		l, lok := r.ColumnTypeLength(0)
		il, ilok := inner.(driver.RowsColumnTypeLength).ColumnTypeLength(0)
		if l != il || lok != ilok {
			t.Error("ColumnTypeLength not forwarded")
		}
	}
	if r, ok := rows.(driver.RowsColumnTypeNullable); ok {
		n, nok := r.ColumnTypeNullable(0)
		in, inok := inner.(driver.RowsColumnTypeNullable).ColumnTypeNullable(0)
		if n != in || nok != inok {
			t.Error("ColumnTypeNullable not forwarded")
		}
	}
	if r, ok := rows.(driver.RowsColumnTypePrecisionScale); ok {
		p, s, pok := r.ColumnTypePrecisionScale(0)
		ip, is, ipok := inner.(driver.RowsColumnTypePrecisionScale).ColumnTypePrecisionScale(0)
		if p != ip || s != is || pok != ipok {
			t.Error("ColumnTypePrecisionScale not forwarded")
		}
	}
}

func TestRowsColumnTypesThroughDatabaseSQL(t *testing.T) {
	for _, mask := range []int{0, 63} {
		db, _, _ := newTestDB(t, rowsFlags(mask))
		rows, err := db.QueryContext(userCtx(t, "alice"), qSelect)
		if err != nil {
			t.Fatal(err)
		}
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		_ = rows.Close()
		ct := cts[0]
		length, lok := ct.Length()
		_, _, pok := ct.DecimalSize()
		_, nok := ct.Nullable()
		if mask == 63 {
			if ct.DatabaseTypeName() != "TEXT" || length != 64 || !lok || !pok || !nok || ct.ScanType() != reflect.TypeFor[string]() {
				t.Fatalf("column type %+v: inner rows' column types not visible", ct)
			}
		} else if ct.DatabaseTypeName() != "" || lok || pok || nok {
			t.Fatalf("column type %+v: column types reported for rows without them", ct)
		}
	}
}

type stubRows struct {
	next  []error
	close error
}

func (r *stubRows) Columns() []string { return []string{"a"} }
func (r *stubRows) Close() error      { return r.close }
func (r *stubRows) Next([]driver.Value) error {
	err := r.next[0]
	r.next = r.next[1:]
	return err
}

// TestRowsWrapperFinishesOnceWithFirstError: closing the rows (twice)
// finishes their statement once, with the first error the rows reported
// or else Close's, and gives back the cached statement they ran on: kept
// after success, dropped and closed after a failure.
func TestRowsWrapperFinishesOnceWithFirstError(t *testing.T) {
	errNext, errClose := errors.New("next"), errors.New("close")
	for _, tc := range []struct {
		next  []error
		close error
		want  error
	}{
		{[]error{nil, io.EOF}, nil, nil},
		{[]error{nil, errNext}, errClose, errNext},
		{[]error{io.EOF}, errClose, errClose},
	} {
		c, fdb, fp := newTestConn(t, fakedriver.AllFlags())
		c.stmts = newStmtCache(4)
		p := &engine.Plan{Query: qSelectArg, SQL: rw(qSelectArg, "alice")}
		cached, err := c.stmts.acquire(t.Context(), c, p.SQL)
		if err != nil {
			t.Fatal(err)
		}
		run := c.newRun(t.Context())
		run.plan, run.cached = p, cached
		r := c.wrapRows(run, &stubRows{next: tc.next, close: tc.close})
		for range tc.next {
			_ = r.Next(nil)
		}
		if err := r.Close(); err != tc.close {
			t.Fatalf("Close = %v, want the inner %v", err, tc.close)
		}
		_ = r.Close()
		fin := fp.finishCalls()
		if len(fin) != 1 || fin[0].err != tc.want || fin[0].sql != p.SQL {
			t.Fatalf("finishes %+v, want one, with %v", fin, tc.want)
		}
		kept := c.stmts.contains(cached)
		closes := len(fdb.CallsOf(fakedriver.OpStmtClose))
		if tc.want == nil && (!kept || closes != 0) {
			t.Fatalf("after success: kept %v, closed %d, want kept and open", kept, closes)
		}
		if tc.want != nil && (kept || closes != 1) {
			t.Fatalf("after a failure: kept %v, closed %d, want dropped and closed once", kept, closes)
		}
	}
}
