package udf

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sqe-project/sqe/internal/testdb"
)

// installServerMasks runs native/install-<server>.sql on conn: the mask
// functions scripts/test.sh builds and makes loadable by both servers.
func installServerMasks(t *testing.T, conn *sql.Conn, d Dialect) {
	t.Helper()
	for _, stmt := range testdb.ServerMaskStatements(t, string(d)) {
		mustExec(t, conn, stmt)
	}
	if err := ServerMaskCheck(d, connQuery(conn)); err != nil {
		t.Fatal(err)
	}
}

// connQuery is ServerMaskCheck's query over conn.
func connQuery(conn *sql.Conn) func(string) (string, error) {
	return func(q string) (string, error) {
		var s sql.NullString
		err := conn.QueryRowContext(context.Background(), q).Scan(&s)
		return s.String, err
	}
}

// TestServerMasksEmptyAndNull: the server functions' first values of a
// statement are an empty string, NULL and a value, for every string and
// integer mask case, with the replacements that take each path: an empty
// value is an empty string (the Go reference's), NULL is NULL.
func TestServerMasksEmptyAndNull(t *testing.T) {
	for _, d := range []Dialect{MySQL, Postgres} {
		t.Run(string(d), func(t *testing.T) {
			conn := openDB(t, d)
			installServerMasks(t, conn, d)
			mustExec(t, conn, "CREATE TEMPORARY TABLE udf_empty (id INT, s VARCHAR(10), n INT)")
			mustExec(t, conn, "INSERT INTO udf_empty VALUES (1, '', 0), (2, NULL, NULL), (3, 'Ab1', -12345)")
			for _, kind := range []struct {
				cases []maskCase
				col   string
				typ   [2]string
				in    []any
			}{
				{stringCases, "s", [2]string{"varchar", "varchar(10)"}, []any{"", nil, "Ab1"}},
				{integerCases, "n", [2]string{"int", "int"}, []any{int32(0), nil, int32(-12345)}},
			} {
				for _, mc := range kind.cases {
					expr, err := MaskSQL(Target{Dialect: d, Column: quoteIdent(d, kind.col), DataType: kind.typ[0], ColumnType: kind.typ[1], ServerMasks: true}, mc.typ, mc.args, "")
					if err != nil {
						t.Fatalf("%s: %v", mc, err)
					}
					q := "SELECT " + expr + " FROM udf_empty ORDER BY id"
					if d == Postgres {
						q = "SELECT CAST(" + expr + " AS text) FROM udf_empty ORDER BY id"
					}
					rows, err := conn.QueryContext(context.Background(), q)
					if err != nil {
						t.Fatalf("%s: %v", mc, err)
					}
					var got []sql.NullString
					for rows.Next() {
						var v sql.NullString
						if err := rows.Scan(&v); err != nil {
							t.Fatal(err)
						}
						got = append(got, v)
					}
					rows.Close()
					for i, in := range kind.in {
						want, err := Apply(mc.typ, mc.args, "", in)
						if err != nil {
							t.Fatal(err)
						}
						w, ok := formatExpected(d, want)
						if len(got) != len(kind.in) || got[i].Valid != ok || got[i].String != w {
							t.Errorf("%s of %#v: %v, want %q (valid %v)", mc, in, got, w, ok)
						}
					}
				}
			}
		})
	}
}
