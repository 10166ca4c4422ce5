package engine

import (
	"database/sql/driver"
	"io"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// reusingRows hands out every value in one buffer that it overwrites on
// the next call to Next, as go-sql-driver/mysql does with its read buffer.
type reusingRows struct {
	buf  []byte
	vals []string
	i    int
}

func (r *reusingRows) Columns() []string { return []string{"name"} }
func (r *reusingRows) Close() error      { return nil }
func (r *reusingRows) Next(dest []driver.Value) error {
	if r.i == len(r.vals) {
		return io.EOF
	}
	r.buf = append(r.buf[:0], r.vals[r.i]...)
	dest[0] = r.buf
	r.i++
	return nil
}

// TestReadAllKeepsValuesTheDriverReuses: the catalog's table and column
// listings stay what the server sent when the driver reuses its buffer (a
// corrupted listing left a restricted column out of the hidden ones).
func TestReadAllKeepsValuesTheDriverReuses(t *testing.T) {
	want := []string{"customers", "orders", "cust_v"}
	rows, err := readAll(&reusingRows{buf: make([]byte, 0, 64), vals: want})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if got := rewriter.Text(r[0]); got != want[i] {
			t.Errorf("row %d: %q, want %q", i, got, want[i])
		}
	}
}
